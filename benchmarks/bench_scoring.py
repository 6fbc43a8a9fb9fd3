"""Benchmark: score 10 million table results with `pipelines.scoring.engine.score`.

Generates a RESULTS_SCHEMA frame of BOARDS boards x RESULTS_PER_BOARD results over mixed methods
(matchpoint pairs, Butler, cross-IMPs, IMP and VP teams; a sprinkling of artificial and weighted
scores), scores it, and prints the seconds and the peak RSS. For scale, the same work is done on a
1 % sample by a straightforward pure-Python scorer and the ratio is printed.

Run: `.venv/bin/python -m benchmarks.bench_scoring [--boards 200000] [--per-board 50] [--from-log]`.
Target: <= 30 s and <= 6 GB on 2 cores. With `--from-log` the results are first appended to a
fresh event store as `ResultRecorded`/`ArtificialScoreAwarded`/`WeightedScoreAwarded` events
(setup, timed separately), then replayed from the log and scored in a fresh process: the timed
part, and the peak RSS printed, are replay + scoring, as the issue asks.
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

os.environ.setdefault("POLARS_MAX_THREADS", "2")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np
import polars as pl

from pipelines.scoring.engine import score
from pipelines.scoring.frames import RESULTS_SCHEMA, SESSIONS_SCHEMA, conform
from pipelines.scoring.imps import imps

BOARDS_PER_SESSION = 25
METHODS = ("MP", "MP", "MP", "BUTLER", "CROSS_IMP", "VP_TEAMS", "IMP_TEAMS", "MP")
"""Methods cycled over sessions: matchpoints dominate, as in a federation's history."""
CANDIDATE_SCORES = np.array([-1100, -800, -650, -620, -500, -420, -200, -170, -140, -110, -100, -50,
                             0, 50, 90, 100, 110, 120, 140, 150, 170, 200, 400, 420, 430, 450, 460,
                             480, 490, 600, 620, 630, 650, 660, 680, 690, 920, 980, 1430, 1440])


def peak_rss_gb() -> float:
    """Peak resident set size of this process so far, in GB (ru_maxrss is KiB on Linux)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024**2


def generate(boards: int, per_board: int, seed: int = 2024,
             first_session: int = 0) -> tuple[pl.DataFrame, pl.DataFrame]:
    """A RESULTS_SCHEMA frame of `boards` x `per_board` rows and its sessions frame.

    Sessions of 25 boards cycle through `METHODS`; every board is played at `per_board` tables
    (pairs: NS pair t against a rotating EW pair; teams: tables 2k-1 and 2k are the two rooms of
    match k). Each board draws 7 plausible scores and every table picks one of them. Sessions are
    numbered from `first_session` (even: two sessions make a tournament), so that a large log can be
    generated a part at a time, each part with a seed of its own.
    """
    rng = np.random.default_rng(seed)
    sessions = boards // BOARDS_PER_SESSION
    n = sessions * BOARDS_PER_SESSION * per_board
    board_choices = rng.integers(0, len(CANDIDATE_SCORES), size=(sessions * BOARDS_PER_SESSION, 7))
    picks = board_choices[np.arange(n) // per_board, rng.integers(0, 7, size=n)]
    methods = pl.Series("m", METHODS)
    frame = pl.DataFrame({
        "_i": pl.Series(np.arange(n, dtype=np.int64)),
        "_score": pl.Series(CANDIDATE_SCORES[picks]),
        "_u": pl.Series(rng.random(n)),
    })
    del picks, board_choices
    session = pl.col("_i") // (BOARDS_PER_SESSION * per_board) + first_session
    table = pl.col("_i") % per_board + 1
    frame = frame.with_columns(
        _session=session,
        board=(pl.col("_i") // per_board) % BOARDS_PER_SESSION + 1,
        _table=table,
        method=pl.lit(methods).gather(session % len(METHODS)),
    ).with_columns(
        _teams=pl.col("method").str.ends_with("TEAMS"),
        _match=(pl.col("_table") - 1) // 2,
        _home=pl.col("_table") % 2 == 1,
    )
    kind = (
        # Team artificial scores carry no room in the catalogue yet, so only pair sessions get them.
        pl.when((pl.col("_u") < 0.003) & ~pl.col("_teams")).then(pl.lit("artificial"))
        .when((pl.col("_u") < 0.0035) & ~pl.col("_teams")).then(pl.lit("weighted"))
        .otherwise(pl.lit("result"))
    )
    frame = frame.select(
        event_id=(pl.col("_session") // 2).cast(pl.String).str.pad_start(6, "0"),
        session_id=(pl.col("_session") % 2 + 1).cast(pl.String),
        section=pl.lit("A"),
        board="board",
        table_id=pl.col("_table").cast(pl.String),
        round=pl.lit(1, dtype=pl.Int64),
        room=pl.when(pl.col("_teams")).then(
            pl.when(pl.col("_home")).then(pl.lit("open")).otherwise(pl.lit("closed"))),
        ns_id=pl.when(pl.col("_teams"))
        .then(2 * pl.col("_match") + (~pl.col("_home")).cast(pl.Int64))
        .otherwise(pl.col("_table")).cast(pl.String),
        ew_id=pl.when(pl.col("_teams"))
        .then(2 * pl.col("_match") + pl.col("_home").cast(pl.Int64))
        .otherwise((pl.col("_table") + pl.col("board")) % per_board + 1 + per_board).cast(pl.String),
        kind=kind,
        _score="_score",
        method="method",
    )
    frame = frame.with_columns(
        score_ns=pl.when(pl.col("kind") == "result").then(pl.col("_score")),
        ns_award=pl.when(pl.col("kind") == "artificial").then(pl.lit("A+")),
        ew_award=pl.when(pl.col("kind") == "artificial").then(pl.lit("A-")),
    )
    # Building list-of-struct values is slow per row, so only the few weighted rows get them.
    weighted = frame.filter(pl.col("kind") == "weighted").with_columns(
        ns_components=pl.concat_list(
            pl.struct(score_ns=pl.col("_score"), weight=pl.lit(0.6)),
            pl.struct(score_ns=pl.col("_score") - 50, weight=pl.lit(0.4)),
        )
    )
    frame = pl.concat([frame.filter(pl.col("kind") != "weighted"), weighted], how="diagonal")
    schedule = (
        frame.select("event_id", "session_id", scoring="method").unique(maintain_order=True)
        .with_columns(field_layout=pl.lit("two_field"))
    )
    return conform(frame, RESULTS_SCHEMA), conform(schedule, SESSIONS_SCHEMA)


# --- a straightforward pure-Python scorer for the comparison ---------------------------------------

def python_score(rows: list[dict[str, Any]], methods: dict[tuple[str, str], str]) -> int:
    """Score every board the obvious way (loops); returns the number of rows scored."""
    by_board: dict[tuple[Any, ...], list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        by_board[(r["event_id"], r["session_id"], r["section"], r["board"])].append(r)
    done = 0
    for key, board_rows in by_board.items():
        method = methods[(key[0], key[1])]
        real = [r for r in board_rows if r["score_ns"] is not None]
        scores = [r["score_ns"] for r in real]
        if method == "MP":
            for r in real:
                r["mp"] = sum(2 if r["score_ns"] > s else 1 if r["score_ns"] == s else 0 for s in scores) - 1
        elif method == "BUTLER":
            trimmed = sorted(scores)[1:-1] if len(scores) > 2 else scores
            datum = round(sum(trimmed) / len(trimmed) / 10) * 10
            for r in real:
                r["imp"] = imps(r["score_ns"] - datum)
        elif method == "CROSS_IMP":
            for r in real:
                r["imp"] = sum(imps(r["score_ns"] - s) for s in scores) / max(len(scores) - 1, 1)
        else:
            rooms: dict[tuple[str, str], dict[str, Any]] = {}
            for r in real:
                rooms[(r["ns_id"], r["ew_id"])] = r
            for (ns, ew), r in rooms.items():
                other = rooms.get((ew, ns))
                if other is not None:
                    r["imp"] = imps(r["score_ns"] - other["score_ns"])
        done += len(board_rows)
    return done


CONTRACTS = [("4S", "N", 10), ("3NT", "S", 9), ("2H", "E", 8), ("4HX", "W", 8), ("PASS", None, None),
             ("1NT", "N", 7), ("3D", "S", 10), ("6NT", "N", 12), ("2S", "W", 7), ("5CX", "E", 9)]
"""Contracts the log version of the benchmark records (its scores differ from the frame's)."""


def build_log(results: pl.DataFrame, sessions: pl.DataFrame, path: Path) -> None:
    """Append the generated results to a fresh store as events, a million at a time (setup).

    Table results become `ResultRecorded`, artificial scores `ArtificialScoreAwarded` and weighted
    scores `WeightedScoreAwarded`, payloads built column-wise as ingest builds them.
    """
    from datetime import UTC, datetime

    from models.events import session_stream
    from pipelines.log.store import EventStore, NewEvent, to_epoch_us

    at = datetime(2026, 11, 21, tzinfo=UTC)
    store = EventStore(path)
    store.append([NewEvent(session_stream(e, s), "SessionScheduled",
                           {"event_id": e, "session_id": s, "number": 1, "session_date": None, "scoring": m,
                            "field_layout": "two_field", "sections": [], "title": None}, at)
                  for e, s, m in sessions.select("event_id", "session_id", "scoring").rows()], recorded_at=at)
    pick = pl.col("board") * 7 + pl.col("table_id").cast(pl.Int64) * 3
    contracts = pl.DataFrame(CONTRACTS, schema=["contract", "declarer", "tricks"], orient="row").with_row_index("_c")
    for chunk in results.iter_slices(1_000_000):
        # The frame's own contract columns are empty (it carries scores): the log records real contracts.
        rows = chunk.drop("contract", "declarer", "tricks").with_columns(
            _c=(pick % len(CONTRACTS)).cast(pl.UInt32)).join(contracts, on="_c", how="left")
        store.append_frame(log_events(rows, to_epoch_us(at)), recorded_at=at)


def log_events(rows: pl.DataFrame, occurred_us: int) -> pl.DataFrame:
    """`rows` (results with a contract picked) as event rows for `append_frame`."""
    from pipelines.log.payloads import canonical_json, sorted_struct

    common = {name: pl.col(name) for name in ("event_id", "session_id", "section", "board", "table_id",
                                              "ns_id", "ew_id")}
    outcome = {"contract": pl.col("contract"), "declarer": pl.col("declarer"), "tricks": pl.col("tricks")}
    kinds = {
        "result": ("ResultRecorded", canonical_json({**common, **outcome, "round": pl.lit(1),
                                                     "room": pl.col("room")})),
        "artificial": ("ArtificialScoreAwarded", canonical_json({**common, "ns_award": pl.lit("A+"),
                                                                  "ew_award": pl.lit("A-")})),
        "weighted": ("WeightedScoreAwarded", canonical_json({**common, "ns_components": pl.concat_list(
            sorted_struct({**outcome, "weight": pl.lit(0.6)}),
            sorted_struct({**outcome, "tricks": pl.min_horizontal(pl.col("tricks") + 1, 13), "weight": pl.lit(0.4)}),
        )})),
    }
    stream = pl.concat_str([pl.lit("session:"), pl.col("event_id"), pl.lit("/"), pl.col("session_id")])
    return pl.concat([
        rows.filter(pl.col("kind") == kind).select(
            stream_id=stream, type=pl.lit(event_type), payload=payload,
            occurred_us=pl.lit(occurred_us, dtype=pl.Int64))
        for kind, (event_type, payload) in kinds.items()
    ])


def replay_and_score(path: Path) -> None:
    """The timed part, run in a fresh process: replay the whole log, then score every session."""
    from pipelines.log.store import EventStore
    from pipelines.replay.frames import replay
    from pipelines.replay.projections import score_projection

    started, cpu_started = time.perf_counter(), time.process_time()
    projection = replay(EventStore(path))
    replayed = time.perf_counter() - started
    edition = score_projection(projection)
    total = time.perf_counter() - started
    print(f"replay {replayed:.1f} s + scoring {total - replayed:.1f} s = {total:.1f} s wall "
          f"({time.process_time() - cpu_started:.1f} s CPU) for {projection.results.height:,} results and "
          f"{edition.board_scores.height:,} board scores; peak RSS {peak_rss_gb():.2f} GB "
          f"(target <= 30 s, <= 6 GB)")
    del edition
    # After the measurement: the same boards scored the plain way, on the replayed results.
    compare_with_python(projection.results, projection.sessions, total)


def from_log(boards: int, per_board: int) -> None:
    """Build the log (setup), then time replay + scoring in a child process of its own, so that its
    peak RSS is that of the work measured, as in a scheduled scoring task."""
    import subprocess
    import tempfile

    results, sessions = generate(boards, per_board)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "bench.duckdb"
        started = time.perf_counter()
        build_log(results, sessions, path)
        print(f"appended {results.height:,} results to the log in {time.perf_counter() - started:.1f} s "
              f"(setup, not timed below)")
        del results, sessions
        subprocess.run([sys.executable, "-m", "benchmarks.bench_scoring", "--replay-store", str(path)],
                       check=True, cwd=Path(__file__).resolve().parents[1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--boards", type=int, default=200_000)
    parser.add_argument("--per-board", type=int, default=50)
    parser.add_argument("--from-log", action="store_true", help="replay from the event log, then score")
    parser.add_argument("--replay-store", type=Path, help=argparse.SUPPRESS)  # the child of --from-log
    args = parser.parse_args()
    if args.replay_store:
        replay_and_score(args.replay_store)
        return
    if args.from_log:
        from_log(args.boards, args.per_board)
        return

    started = time.perf_counter()
    results, sessions = generate(args.boards, args.per_board)
    print(f"generated {results.height:,} results in {time.perf_counter() - started:.1f} s "
          f"(peak RSS so far {peak_rss_gb():.2f} GB)")

    started, cpu_started = time.perf_counter(), time.process_time()
    board_scores, standings = score(results, sessions, {})
    polars_seconds = time.perf_counter() - started
    cpu_seconds = time.process_time() - cpu_started
    print(f"engine.score: {polars_seconds:.1f} s wall ({cpu_seconds:.1f} s CPU over all threads) for "
          f"{board_scores.height:,} board scores and {standings.height:,} standings rows; "
          f"peak RSS {peak_rss_gb():.2f} GB; POLARS_MAX_THREADS={os.environ['POLARS_MAX_THREADS']}; "
          f"1-minute load average {os.getloadavg()[0]:.2f}")

    compare_with_python(results, sessions, polars_seconds)


def compare_with_python(results: pl.DataFrame, sessions: pl.DataFrame, polars_seconds: float) -> None:
    """Score a 1% sample of the boards with `python_score` and print the projected ratio."""
    sample_boards = results.select("event_id", "session_id", "section", "board").unique(maintain_order=True)
    sample_boards = sample_boards.gather_every(100)
    sample = results.join(sample_boards, on=["event_id", "session_id", "section", "board"], how="semi")
    methods = {(e, s): m for e, s, m in sessions.select("event_id", "session_id", "scoring").iter_rows()}
    rows = sample.select("event_id", "session_id", "section", "board", "ns_id", "ew_id", "score_ns").to_dicts()
    started = time.perf_counter()
    python_score(rows, methods)
    python_seconds = time.perf_counter() - started
    projected = python_seconds * results.height / max(sample.height, 1)
    print(f"pure Python on a 1% sample: {python_seconds:.1f} s for {sample.height:,} results "
          f"(projected {projected:.0f} s for all; polars is {projected / polars_seconds:.1f}x faster)")


if __name__ == "__main__":
    main()
