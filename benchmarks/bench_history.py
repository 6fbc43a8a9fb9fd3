"""Benchmark: a federation's decade kept live, command by command, as a user runs them.

Setup (not timed): the 10M-result store of `bench_scoring.build_log` (200,000 boards x 50
results), built once and cached outside the repository (`--store`, default under
/work/bench-cache/), and copied for each side so that both start from the same log. The peer is
today's full-replay path: the code before live projections (the parent of the commit that added
`pipelines/replay/live.py`, or `--baseline-rev`), extracted with `git archive` and run on its own copy.

Timed, each command a fresh `python -m pipelines.cli` process (cold, as a user runs it), with the
peak RSS of that process:

1. `score --full` on the new side (the projections built from zero; the peer's `score` is its
   only way, measured in step 3);
2. one `correct ... --board 1 --table 2 --tricks 11`;
3. `score` after it;
4. a new club session (sample_data's 13-table traveller): `ingest` + `score`;
5. `score --full` again (a rebuild of a store that already has projections).

Run: `.venv/bin/python -m benchmarks.bench_history [--store PATH] [--skip-baseline]`.
Targets (issue 11): full rebuild <= 45 s and <= 4 GB; one correct <= 1 s; score after it <= 2 s;
ingest + score of a new session <= 3 s.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CACHE = Path("/work/bench-cache")
TRAVELLER = REPO / "sample_data" / "club_championship_traveller.csv"
CORRECT = ["correct", "--event", "000123", "--session", "1", "--board", "1", "--table", "2", "--tricks", "11",
           "--id", "bench-c1", "--by", "NS 2", "--reason", "eleven tricks", "--at", "2026-11-21T10:00Z"]
INGEST = ["ingest", "--at", "2026-11-22T19:00+01:00", str(TRAVELLER)]


@dataclass(frozen=True)
class Run:
    """One command: wall seconds, CPU seconds (user + system, all threads) and the peak RSS of its
    process. On a shared machine the wall time grows with the others' load; the CPU time much less."""

    seconds: float
    cpu_seconds: float
    peak_gb: float

    def __add__(self, other: Run) -> Run:
        return Run(self.seconds + other.seconds, self.cpu_seconds + other.cpu_seconds,
                   max(self.peak_gb, other.peak_gb))

    def __str__(self) -> str:
        return f"{self.seconds:.2f} s ({self.cpu_seconds:.2f} s CPU), {self.peak_gb:.2f} GB"


def run_cli(source: Path, store: Path, args: list[str]) -> Run:
    """`python -m pipelines.cli ARGS --store STORE` with `source` as the code, timed from spawn to exit."""
    env = {**os.environ, "PYTHONPATH": str(source)}
    env.pop("POLARS_MAX_THREADS", None)  # as a user runs it
    started = time.perf_counter()
    child = subprocess.Popen([sys.executable, "-m", "pipelines.cli", *args, "--store", str(store)], cwd=source,
                             env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(child.pid, 0)
    seconds = time.perf_counter() - started
    stderr = child.stderr.read().decode() if child.stderr else ""
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(args[:1])} failed ({source}): {stderr}")
    return Run(seconds, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024**2)


def cached_store(path: Path, boards: int, per_board: int) -> Path:
    """The 10M-result store, built once (setup, not timed) and kept at `path`."""
    if path.exists():
        return path
    sys.path.insert(0, str(REPO))
    from benchmarks.bench_scoring import build_log, generate

    path.parent.mkdir(parents=True, exist_ok=True)
    building = path.with_suffix(".building")
    building.unlink(missing_ok=True)
    started = time.perf_counter()
    results, sessions = generate(boards, per_board)
    build_log(results, sessions, building)
    building.rename(path)
    print(f"built {path} ({results.height:,} results) in {time.perf_counter() - started:.0f} s (setup)")
    return path


def baseline_source(rev: str | None, into: Path) -> tuple[str, Path]:
    """Today's code (before live projections) extracted into `into`."""
    if rev is None:
        added = subprocess.run(["git", "log", "--diff-filter=A", "--format=%H", "--", "pipelines/replay/live.py"],
                               cwd=REPO, check=True, capture_output=True, text=True).stdout.split()
        rev = f"{added[-1]}^" if added else "HEAD"
    archive = subprocess.run(["git", "archive", "--format=tar", rev], cwd=REPO, check=True, capture_output=True).stdout
    with tempfile.TemporaryFile() as tar:
        tar.write(archive)
        tar.seek(0)
        with tarfile.open(fileobj=tar) as unpacked:
            unpacked.extractall(into, filter="data")
    described = subprocess.run(["git", "rev-parse", "--short", rev], cwd=REPO, check=True, capture_output=True,
                               text=True).stdout.strip()
    return described, into


def copy_of(store: Path, name: str, workdir: Path) -> Path:
    target = workdir / name
    shutil.copyfile(store, target)
    return target


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--store", type=Path, default=None, help="the cached 10M-result store (built if missing)")
    parser.add_argument("--boards", type=int, default=200_000)
    parser.add_argument("--per-board", type=int, default=50)
    parser.add_argument("--workdir", type=Path, default=CACHE / "work", help="where the copies go (2 GB each)")
    parser.add_argument("--baseline-rev", default=None, help="git revision of today's path (default: before live)")
    parser.add_argument("--skip-baseline", action="store_true", help="measure the new path only")
    args = parser.parse_args()
    store = cached_store(args.store or CACHE / f"history-{args.boards}x{args.per_board}.duckdb",
                         args.boards, args.per_board)
    args.workdir.mkdir(parents=True, exist_ok=True)
    print(f"store: {store}; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")

    new = copy_of(store, "new.duckdb", args.workdir)
    ours = {"first build": run_cli(REPO, new, ["score", "--full"])}
    ours["correct"] = run_cli(REPO, new, CORRECT)
    ours["score after it"] = run_cli(REPO, new, ["score"])
    ours["ingest + score"] = run_cli(REPO, new, INGEST) + run_cli(REPO, new, ["score"])
    ours["score --full"] = run_cli(REPO, new, ["score", "--full"])
    new.unlink()

    theirs: dict[str, Run] = {}
    label = "skipped"
    if not args.skip_baseline:
        with tempfile.TemporaryDirectory() as tmp:
            label, source = baseline_source(args.baseline_rev, Path(tmp))
            old = copy_of(store, "old.duckdb", args.workdir)
            theirs["correct"] = run_cli(source, old, CORRECT)
            theirs["score after it"] = run_cli(source, old, ["score"])
            theirs["ingest + score"] = run_cli(source, old, INGEST) + run_cli(source, old, ["score"])
            theirs["score --full"] = theirs["score after it"]  # today every score is a full replay
            old.unlink()

    targets = {"first build": (45.0, 4.0), "correct": (1.0, None), "score after it": (2.0, None),
               "ingest + score": (3.0, None), "score --full": (45.0, 4.0)}
    print(f"\n| command (fresh process) | ours | today's path ({label}) | target | met? |")
    print("|---|---|---|---|---|")
    for name, ours_run in ours.items():
        seconds, gigabytes = targets[name]
        met = ours_run.seconds <= seconds and (gigabytes is None or ours_run.peak_gb <= gigabytes)
        peer = str(theirs[name]) if name in theirs else "-"
        limit = f"<= {seconds:g} s" + (f", <= {gigabytes:g} GB" if gigabytes else "")
        print(f"| {name} | {ours_run} | {peer} | {limit} | {'yes' if met else 'NO'} |")
    print(f"\nload average after: {os.getloadavg()[0]:.1f} (1 min), {os.getloadavg()[2]:.1f} (15 min)")


if __name__ == "__main__":
    main()
