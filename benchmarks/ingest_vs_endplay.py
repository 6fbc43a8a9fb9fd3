"""`bridgeledger ingest FILE` against endplay's parse of FILE, each a whole fresh process, cold.

What a user meets is the command: interpreter start-up, imports, reading, validating, building the
events and appending them to a new store. The peer is endplay's parser in a fresh process of its own
(`pbn.load` / `lin.load` and nothing else). Both sides run alternately in the same minutes; each
run is a fresh process. One untimed run of each side goes first, so that both start from compiled
bytecode and from the file in the page cache, as an installed command meets a file it has just
been sent. Wall time, CPU time (user + system) and peak RSS are printed for every run.

The in-process figures (our vectorised reader and endplay's parse, called in this process after a
warm-up) are printed beside them: the difference between the two rows is start-up and imports.

    .venv/bin/python -m benchmarks.ingest_vs_endplay --format pbn --boards 50000 --generator wild

The command is also run split (one file only): in a fresh process of its own, the same `ingest` with
its reader (`read_columnar`) timed from inside. What is left (start-up, imports, the events built,
the append with its hash chain) is paid whatever the reader does, so it is set beside the time the
target leaves the whole command (endplay's time / the target ratio). Its floor is measured too: a
fresh process that imports `pipelines.log.store` and appends the same events, already built (read
from a Parquet copy of them, not timed), to an empty store: what storing them costs the command.

With `--files N` the boards are N files given to one `bridgeledger ingest` (a BBO tournament comes
as hundreds of one-board files), and the peer parses them all in one process.
    .venv/bin/python -m benchmarks.ingest_vs_endplay --format lin --boards 200 --files 200
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

TARGETS = {"pbn": 15.0, "lin": 20.0}
"""Issue #17: whole-process ratio to endplay's parse that the command must reach."""

_PEER = "import sys\nfrom endplay.parsers import {fmt}\nboards = 0\nfor name in sys.argv[1:]:\n" \
        "    with open(name, encoding='utf-8') as f:\n        boards += len({fmt}.load(f))\nprint(boards)\n"

_SPLIT = (
    "import sys, time\n"
    "import pipelines.files.ingest as ingest\n"
    "read = ingest.read_columnar\n"
    "def timed(*args, **kwargs):\n"
    "    started = time.perf_counter()\n"
    "    try:\n"
    "        return read(*args, **kwargs)\n"
    "    finally:\n"
    "        print(f'reader-seconds {time.perf_counter() - started:.6f}', flush=True)\n"
    "ingest.read_columnar = timed\n"
    "from pipelines.cli.app import main\n"
    "sys.argv = ['bridgeledger', *sys.argv[1:]]\n"
    "main()\n"
)
"""`bridgeledger` with its reader timed from inside: it prints `reader-seconds S` for each file read."""

_STORE_ONLY = (
    "import sys, time\n"
    "from datetime import UTC, datetime\n"
    "started = time.perf_counter()\n"
    "import polars as pl\n"
    "from pipelines.log.store import EventStore\n"
    "imported = time.perf_counter()\n"
    "events = pl.read_parquet(sys.argv[1])\n"
    "loaded = time.perf_counter()\n"
    "EventStore(sys.argv[2]).append_frame(events, recorded_at=datetime(2026, 11, 22, tzinfo=UTC))\n"
    "done = time.perf_counter()\n"
    "print(f'{imported - started:.6f} {done - loaded:.6f}')\n"
)
"""Imports the store and appends the events of a Parquet file to an empty store; prints the seconds
of the imports and of the append (reading the Parquet file is left out)."""


@dataclass(frozen=True)
class Run:
    """One fresh process: wall seconds, CPU seconds (user + system of it and its children), peak RSS."""

    wall: float
    cpu: float
    peak_mb: float


def generator(fmt: str, name: str) -> Callable[[int, int], str]:
    """The text generator `name` (`wild`: the second, independent generator; `simple`: the first)."""
    if name == "simple":
        from benchmarks.boards import boards, to_lin, to_pbn
        if fmt == "pbn":
            return lambda count, seed: "% PBN 2.1\n% EXPORT\n\n" + "".join(to_pbn(b) for b in boards(count, seed))
        return lambda count, seed: "".join(to_lin(b) for b in boards(count, seed))
    if fmt == "pbn":
        from benchmarks import wild_pbn
        return wild_pbn.text
    from benchmarks import wild_lin
    return wild_lin.text


def timed(command: list[str], env: dict[str, str]) -> tuple[Run, str]:
    """Run `command` to its end in a fresh process; its own figures (`wait4`'s rusage) and its output."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        started = time.perf_counter()
        child = subprocess.Popen(command, env=env, stdout=out, stderr=err)
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - started
        child.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        if child.returncode != 0:
            raise SystemExit(f"{' '.join(command)} failed ({child.returncode}):\n{err.read().decode()[-2000:]}")
        return Run(wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024), out.read().decode()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--format", choices=sorted(TARGETS), default="pbn")
    parser.add_argument("--boards", type=int, default=50_000)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--generator", choices=["wild", "simple"], default="wild")
    parser.add_argument("--runs", type=int, default=3, help="timed fresh processes of each side")
    parser.add_argument("--skip-in-process", action="store_true", help="leave out the in-process figures")
    parser.add_argument("--files", type=int, default=1,
                        help="split the boards into this many files, all given to one command (a BBO tournament "
                             "comes as hundreds of one-board files); the peer reads them in one process")
    args = parser.parse_args()
    env = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
    command = str(Path(sys.executable).with_name("bridgeledger"))
    with tempfile.TemporaryDirectory() as tmp:
        paths = _write_files(Path(tmp), args)
        peer = [sys.executable, "-c", _PEER.format(fmt=args.format), *map(str, paths)]
        ours: list[Run] = []
        theirs: list[Run] = []
        split: list[tuple[Run, float]] = []
        for run in range(args.runs + 1):  # run 0 is the untimed warm-up of both sides
            store = Path(tmp) / f"store{run}.duckdb"
            mine, said = timed([command, "ingest", *map(str, paths), "--store", str(store)], env)
            peers, counted = timed(peer, env)
            if run:
                ours.append(mine)
                theirs.append(peers)
            if run and len(paths) == 1:
                whole, printed = timed([sys.executable, "-c", _SPLIT, "ingest", str(paths[0]), "--store",
                                        str(Path(tmp) / f"split{run}.duckdb")], env)
                split.append((whole, _reader_seconds(printed)))
        size = sum(p.stat().st_size for p in paths)
        shape = "file" if len(paths) == 1 else f"{len(paths):,} files"
        print(f"{args.format.upper()} {shape}: {args.boards:,} boards from the {args.generator} generator, "
              f"{size / 1e6:.1f} MB; endplay read {counted.strip()} boards")
        said_lines = said.strip().splitlines()
        print(f"  bridgeledger ingest said: {said_lines[0] if said_lines else ''}"
              + (f" ... ({len(said_lines)} lines)" if len(said_lines) > 1 else ""))
        _report("bridgeledger ingest (fresh process)", ours, args.boards)
        _report(f"endplay {args.format}.load (fresh process)", theirs, args.boards)
        ratio = statistics.median(r.wall for r in theirs) / statistics.median(r.wall for r in ours)
        target = TARGETS[args.format]
        verdict = f" (target >= {target:g}x: {'yes' if ratio >= target else 'no'})" if len(paths) == 1 else ""
        print(f"  whole process, median wall: {ratio:.2f}x endplay{verdict}; load average {os.getloadavg()[0]:.1f}")
        if split:
            budget = statistics.median(r.wall for r in theirs) / target
            _report_split(split, budget, target)
            _report_store_only(Path(tmp), Path(tmp) / "store1.duckdb", env, args.runs, budget)
        if not args.skip_in_process and len(paths) == 1:
            _in_process(args.format, paths[0], args.runs)


def _write_files(folder: Path, args: argparse.Namespace) -> list[Path]:
    """The benchmark's boards as `args.files` files (each from its own seed), or as one."""
    make = generator(args.format, args.generator)
    if args.files <= 1:
        path = folder / f"bench.{args.format}"
        path.write_text(make(args.boards, args.seed), encoding="utf-8")
        return [path]
    per_file, extra = divmod(args.boards, args.files)
    paths = []
    for index in range(args.files):
        path = folder / f"bench{index:05d}.{args.format}"
        path.write_text(make(per_file + (index < extra), args.seed + index), encoding="utf-8")
        paths.append(path)
    return paths


def _report(label: str, runs: list[Run], boards: int) -> None:
    wall = statistics.median(r.wall for r in runs)
    print(f"  {label:<42} median {wall:6.2f} s wall ({boards / wall:>9,.0f} boards/s), "
          f"CPU {statistics.median(r.cpu for r in runs):6.2f} s, peak {max(r.peak_mb for r in runs):,.0f} MB; "
          f"runs {', '.join(f'{r.wall:.2f}' for r in runs)} s")


def _reader_seconds(printed: str) -> float:
    return sum(float(line.split()[1]) for line in printed.splitlines() if line.startswith("reader-seconds "))


def _report_split(split: list[tuple[Run, float]], budget: float, target: float) -> None:
    """The command's time beside its reader's, and what is left of the target's budget."""
    wall = statistics.median(whole.wall for whole, _ in split)
    reader = statistics.median(seconds for _, seconds in split)
    rest = statistics.median(whole.wall - seconds for whole, seconds in split)
    print(f"  the same command split (fresh process, median of {len(split)}): {wall:.2f} s wall, of which the "
          f"reader {reader:.2f} s and the rest {rest:.2f} s (start-up, imports, events built and appended)")
    print(f"  the target ({target:g}x) leaves the whole command {budget:.2f} s: the rest alone is "
          f"{rest / budget:.0%} of it, {'within' if rest < budget else 'over'} it before any byte is read")


def _report_store_only(folder: Path, store: Path, env: dict[str, str], runs: int, budget: float) -> None:
    """The floor under the command: the events it appended, appended again to an empty store by a
    fresh process that imports only the store (the events come ready from a Parquet file)."""
    import duckdb

    events = folder / "events.parquet"
    with duckdb.connect(str(store), read_only=True) as con:
        con.execute("COPY (SELECT stream_id, type, schema_version, payload::VARCHAR AS payload, "
                    "epoch_us(occurred_at) AS occurred_us FROM events ORDER BY position) "
                    f"TO '{events}' (FORMAT parquet)")
    walls, imports, appends = [], [], []
    for run in range(runs):
        target = folder / f"store-only{run}.duckdb"
        whole, printed = timed([sys.executable, "-c", _STORE_ONLY, str(events), str(target)], env)
        imported, appended = map(float, printed.split())
        walls.append(whole.wall)
        imports.append(imported)
        appends.append(appended)
    floor = statistics.median(i + a for i, a in zip(imports, appends, strict=True))
    print(f"  the store alone (fresh process, median of {runs}): importing it {statistics.median(imports):.2f} s, "
          f"appending the same events, already built, {statistics.median(appends):.2f} s: {floor:.2f} s, "
          f"{floor / budget:.0%} of the target's {budget:.2f} s (process start-up and reading the events "
          f"from Parquet left out)")


def _in_process(fmt: str, path: Path, runs: int) -> None:
    """Our reader (what ingest parses with) and endplay's parse, in this process, warm, best of `runs`."""
    from pipelines.files.ingest import read_columnar

    data = path.read_bytes()
    ours = best_seconds(runs, lambda: read_columnar(data, path.name))
    from endplay.parsers import lin, pbn

    peer_module = pbn if fmt == "pbn" else lin

    def peer() -> None:
        with path.open(encoding="utf-8") as handle:
            peer_module.load(handle)

    theirs = best_seconds(runs, peer)
    print(f"  in process, warm, best of {runs}: our reader {ours:.2f} s, endplay's parse {theirs:.2f} s "
          f"({theirs / ours:.1f}x)")


def best_seconds(runs: int, work: Callable[[], object]) -> float:
    """The least time of `runs` runs of `work`, after one untimed run (in process, warm)."""
    work()
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        work()
        times.append(time.perf_counter() - started)
    return min(times)


if __name__ == "__main__":
    main()
