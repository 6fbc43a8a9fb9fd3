"""Benchmark: a federation's year appended by concurrent writers, scored, then one correction republished.

As a user meets it: every phase is a fresh process (`python -m pipelines.cli ...`, or a writer
process appending its share of the sessions), timed from outside, with its own peak RSS
(`os.wait4`). The same work runs on PostgreSQL (the log of many writers) and on the embedded
DuckDB file (one writer at a time: its writers queue on the file lock), in the same run.

Setup (not timed): the project's bytecode compiled (as an installed package has it);
`bench_scoring.generate` makes the results (25-board sessions, `--per-board` tables, MP, Butler,
cross-IMP and teams sessions); each session becomes one append (as a file's ingest is), with an
idempotency key, dealt round-robin to `--writers` processes.

Phases, each printed with wall seconds, rows/s where it appends, and peak RSS:
1. append: the writers start together; rows/s = events / wall of the slowest. Then counted: lost
   (an event generated but not in the log) and duplicated (in the log twice) must both be 0.
2. verify: `bridgeledger verify`, the whole chain recomputed.
3. score: `bridgeledger score`, the analytics store brought up to the log and every session scored.
4. a correction republished: `correct` + `score` + `site --event` of that event, the sum timed;
   three corrections, one after another, each printed, and their median.

Targets (issue "Many writers, many readers, many machines"): >= 15,000 events/s appended by 4
writers into PostgreSQL; the correction republished within 3 s; no phase above 8 GB.

    .venv/bin/python -m benchmarks.bench_scale [--boards 40000] [--per-board 50] [--writers 4]
        [--pg-url URL]   (default: a throwaway cluster from scripts/throwaway_postgres.sh)
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import polars as pl

REPO = Path(__file__).resolve().parents[1]
AT = "2026-11-21T00:00:00+00:00"


@dataclass(frozen=True)
class Phase:
    """One timed process (or several started together): wall seconds and the largest peak RSS."""

    seconds: float
    peak_gb: float


def run_processes(commands: list[list[str]], env: dict[str, str]) -> Phase:
    """Start `commands` together; wait for all; fail loudly if one fails."""
    started = time.perf_counter()
    processes = [subprocess.Popen(command, cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
                 for command in commands]
    peak = 0
    for process in processes:
        _, status, usage = os.wait4(process.pid, 0)
        process.returncode = os.waitstatus_to_exitcode(status)
        peak = max(peak, usage.ru_maxrss)
        if process.returncode != 0:
            assert process.stderr is not None
            raise SystemExit(f"{' '.join(process.args)} failed:\n{process.stderr.read().decode()[-3000:]}")  # type: ignore[arg-type]
    return Phase(time.perf_counter() - started, peak / 1024 / 1024)


def cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "pipelines.cli", *args]


def prepare(boards: int, per_board: int, writers: int, folder: Path) -> tuple[list[list[Path]], int, pl.DataFrame]:
    """Each writer's sessions as event rows in Parquet files (a part of the log at a time, so that a
    year of 50M results never sits in memory at once); the number of events; the sessions."""
    from benchmarks.bench_scoring import BOARDS_PER_SESSION

    per_session = BOARDS_PER_SESSION * per_board
    part_sessions = max(2, PART_RESULTS // per_session // 2 * 2)  # whole tournaments (two sessions)
    total_sessions = boards // BOARDS_PER_SESSION
    files: list[list[Path]] = [[] for _ in range(writers)]
    expected, every_session, streams_before = 0, [], 0
    for part, first in enumerate(range(0, total_sessions, part_sessions)):
        count = min(part_sessions, total_sessions - first)
        every, sessions = _part_events(count * BOARDS_PER_SESSION, per_board, part, first)
        streams = every.select(pl.col("stream_id").unique(maintain_order=True)).with_row_index("n")
        every = every.join(streams, on="stream_id", how="left", maintain_order="left")
        for writer in range(writers):
            path = folder / f"writer{writer}-{part:04d}.parquet"
            every.filter((pl.col("n") + streams_before) % writers == writer).drop("n").write_parquet(path)
            files[writer].append(path)
        expected += every.height
        streams_before += streams.height
        every_session.append(sessions)
    return files, expected, pl.concat(every_session)


PART_RESULTS = 2_000_000
"""Results generated at a time by `prepare`."""


def _part_events(boards: int, per_board: int, part: int, first_session: int) -> tuple[pl.DataFrame, pl.DataFrame]:
    """One part's event rows (each session's scheduling first, then its results) and its sessions."""
    from benchmarks.bench_scoring import CONTRACTS, generate, log_events
    from models.events import session_stream
    from pipelines.log.payloads import canonical_json
    from pipelines.log.store import to_epoch_us

    results, sessions = generate(boards, per_board, seed=2024 + part, first_session=first_session)
    at_us = to_epoch_us(__import__("datetime").datetime.fromisoformat(AT))
    pick = pl.col("board") * 7 + pl.col("table_id").cast(pl.Int64) * 3
    contracts = pl.DataFrame(CONTRACTS, schema=["contract", "declarer", "tricks"], orient="row").with_row_index("_c")
    rows = results.drop("contract", "declarer", "tricks").with_columns(
        _c=(pick % len(CONTRACTS)).cast(pl.UInt32)).join(contracts, on="_c", how="left")
    events = log_events(rows, at_us)
    scheduled = sessions.select(
        stream_id=pl.concat_str([pl.lit("session:"), pl.col("event_id"), pl.lit("/"), pl.col("session_id")]),
        type=pl.lit("SessionScheduled"),
        payload=canonical_json({"event_id": pl.col("event_id"), "session_id": pl.col("session_id"),
                                "number": pl.lit(1), "session_date": pl.lit(None), "scoring": pl.col("scoring"),
                                "field_layout": pl.lit("two_field"), "sections": pl.lit([], dtype=pl.List(pl.String)),
                                "title": pl.lit(None)}),
        occurred_us=pl.lit(at_us, dtype=pl.Int64))
    assert session_stream("e", "s") == "session:e/s"
    # Each session's scheduling first, then its results: one append per session, as one file.
    every = pl.concat([scheduled.with_columns(order=pl.lit(0)), events.with_columns(order=pl.lit(1))])
    return every.with_row_index("row").sort("stream_id", "order", "row").drop("order", "row"), sessions


def write(shares: list[Path], store: str, analytics: str) -> None:
    """A writer process: one append per session of its shares, each with its idempotency key."""
    from datetime import datetime

    from pipelines.log.store import EventStore

    event_store = EventStore(store, analytics=analytics, busy_timeout=3600.0)
    recorded = datetime.fromisoformat(AT)
    for share in shares:
        frame = pl.read_parquet(share)
        for (stream,), session in frame.group_by("stream_id", maintain_order=True):
            event_store.append_frame(session, recorded_at=recorded, idempotency_key=f"bench:{stream}")


def counted(store: str, analytics: str, expected: int) -> tuple[int, int, int]:
    """(in the log, lost, duplicated): by the events' own identity (stream and payload bytes)."""
    from pipelines.log.store import EventStore

    event_store = EventStore(store, analytics=analytics)
    total, distinct, position = 0, set(), 0
    while True:
        rows = event_store.rows_after(position, limit=500_000)
        if rows.height == 0:
            break
        total += rows.height
        distinct.update(rows.select(pl.concat_str("stream_id", "payload").hash()).to_series().to_list())
        position = int(rows["position"][-1])
    return total, max(expected - len(distinct), 0), total - len(distinct)


def side(name: str, store: str, analytics: Path, files: list[list[Path]], expected: int, event: str) -> None:
    env = {**os.environ, "BRIDGELEDGER_STORE": store, "BRIDGELEDGER_ANALYTICS": str(analytics),
           "POLARS_MAX_THREADS": "2"}
    writers = [[sys.executable, "-m", "benchmarks.bench_scale",
                *[arg for path in shares for arg in ("--writer", str(path))], "--store", store,
                "--analytics", str(analytics.with_name(f"{analytics.stem}-w{n}.duckdb"))]
               for n, shares in enumerate(files)]
    append = run_processes(writers, env)
    total, lost, duplicated = json.loads(subprocess.run(  # in a child, as the phases are (see `main`)
        [sys.executable, "-m", "benchmarks.bench_scale", "--count", str(expected), "--store", store,
         "--analytics", str(analytics)], cwd=REPO, env=env, check=True, capture_output=True, text=True).stdout)
    print(f"[{name}] append: {expected:,} events by {len(files)} writers in {append.seconds:.1f} s = "
          f"{expected / append.seconds:,.0f} events/s; peak {append.peak_gb:.2f} GB; in the log {total:,}, "
          f"lost {lost}, duplicated {duplicated}", flush=True)
    verify = run_processes([cli("verify")], env)
    print(f"[{name}] verify: {verify.seconds:.1f} s, peak {verify.peak_gb:.2f} GB", flush=True)
    score = run_processes([cli("score")], env)
    print(f"[{name}] score (analytics brought up, every session scored): {score.seconds:.1f} s, "
          f"peak {score.peak_gb:.2f} GB", flush=True)
    site_dir = analytics.parent / f"site-{name}"
    warm = run_processes([cli("site", "--out", str(site_dir), "--event", event)], env)
    print(f"[{name}] the event's first site build: {warm.seconds:.1f} s, peak {warm.peak_gb:.2f} GB", flush=True)
    totals = []
    for n in range(1, CORRECTIONS + 1):  # each a different table, a minute apart
        correct = run_processes([cli("correct", "--event", event, "--session", "1", "--board", "1", "--table",
                                     str(n + 1), "--tricks", "11", "--id", f"scale-c{n}", "--by", f"NS {n + 1}",
                                     "--reason", "eleven tricks", "--at", f"2026-11-21T00:1{n}Z")], env)
        rescore = run_processes([cli("score")], env)
        site = run_processes([cli("site", "--out", str(site_dir), "--event", event)], env)
        totals.append(correct.seconds + rescore.seconds + site.seconds)
        print(f"[{name}] correction {n} republished: correct {correct.seconds:.2f} s + score {rescore.seconds:.2f} s"
              f" + site --event {site.seconds:.2f} s = {totals[-1]:.2f} s (target <= 3 s); peaks "
              f"{correct.peak_gb:.2f}, {rescore.peak_gb:.2f}, {site.peak_gb:.2f} GB; load average "
              f"{os.getloadavg()[0]:.2f}", flush=True)
    print(f"[{name}] a correction republished: median {sorted(totals)[len(totals) // 2]:.2f} s of {len(totals)}",
          flush=True)


CORRECTIONS = 3
"""Corrections republished one after another, each timed: one figure under a passing load misleads."""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--boards", type=int, default=40_000)
    parser.add_argument("--per-board", type=int, default=50)
    parser.add_argument("--writers", type=int, default=4)
    parser.add_argument("--pg-url")
    parser.add_argument("--skip-duckdb", action="store_true")
    parser.add_argument("--prepare", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--count", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--writer", type=Path, action="append", help=argparse.SUPPRESS)
    parser.add_argument("--store", help=argparse.SUPPRESS)
    parser.add_argument("--analytics", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.writer:
        write(args.writer, args.store, args.analytics)
        return
    if args.count is not None:
        print(json.dumps(counted(args.store, args.analytics, args.count)))
        return
    if args.prepare:
        files, expected, sessions = prepare(args.boards, args.per_board, args.writers, args.prepare)
        (args.prepare / "prepared.json").write_text(json.dumps(
            {"files": [[str(f) for f in shares] for shares in files], "expected": expected, "sessions": sessions.height,
             "event": str(sessions["event_id"][0])}))
        return
    folder = Path(tempfile.mkdtemp(prefix="bench-scale-"))
    cluster = None
    try:
        # The events are generated in a child process: a child inherits its parent's peak RSS across
        # fork and exec on Linux, so a parent holding millions of rows would inflate every phase's peak.
        started = time.perf_counter()
        # Bytecode compiled first, as an installed package has it (`make bytecode`): otherwise each
        # phase's process compiles the project's modules again where PYTHONDONTWRITEBYTECODE is set.
        subprocess.run([sys.executable, "-m", "compileall", "-q", "-j", "0", "models", "parsers", "pipelines",
                        "benchmarks"], cwd=REPO, check=True)
        subprocess.run([sys.executable, "-m", "benchmarks.bench_scale", "--prepare", str(folder), "--boards",
                        str(args.boards), "--per-board", str(args.per_board), "--writers", str(args.writers)],
                       cwd=REPO, check=True)
        prepared = json.loads((folder / "prepared.json").read_text())
        files = [[Path(f) for f in shares] for shares in prepared["files"]]
        expected, event = int(prepared["expected"]), prepared["event"]
        print(f"setup: {expected:,} events ({args.boards * args.per_board:,} results, {prepared['sessions']:,} "
              f"sessions) for {args.writers} writers in {time.perf_counter() - started:.1f} s; "
              f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores", flush=True)
        url = args.pg_url
        if url is None:
            cluster = Path(tempfile.mkdtemp(prefix="bench-scale-pg-"))
            url = subprocess.run([str(REPO / "scripts" / "throwaway_postgres.sh"), "start", str(cluster), "55477"],
                                 check=True, capture_output=True, text=True).stdout.strip()
        side("postgresql", url, folder / "pg-analytics.duckdb", files, expected, event)
        if not args.skip_duckdb:
            side("duckdb", str(folder / "federation.duckdb"), folder / "federation.duckdb", files, expected, event)
    finally:
        if cluster is not None:
            subprocess.run([str(REPO / "scripts" / "throwaway_postgres.sh"), "stop", str(cluster)], check=False)
            shutil.rmtree(cluster, ignore_errors=True)
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
