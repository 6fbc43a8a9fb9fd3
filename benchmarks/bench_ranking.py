"""Benchmark: a full federation ranking edition over the history benchmark's 10M-result store.

Setup (not timed): the results of `bench_scoring` appended to a fresh store with its `build_log`,
then about 100,000 members, every session's pairs and teams with their players (nine in ten carry
their federation id, the rest are matched by name), a tournament registration per event with a
category and a date spread over five years (so decay has work to do), and every session
published. Then, each in a fresh process as a user runs the command:

1. the peer: `score_store`, the replay and scoring the standings source calls today;
2. `compute_edition` under the PZBS preset, with its split (standings vs the ranking's own work)
   and the process's peak RSS;
3. the same after one more weekend (40 new sessions, their players and publications) is appended.

Targets (issue 13): a full edition <= 10 s and <= 2 GB; after one more weekend <= 2 s. The
ranking reads standings through `pipelines/ranking/standings_source.py`, which replays and scores
the whole log until the session-keyed projections land; the peer shows how much of the edition
that is.

Run: `.venv/bin/python -m benchmarks.bench_ranking [--boards 200000] [--per-board 50] [--members 100000]`.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

os.environ.setdefault("POLARS_MAX_THREADS", "2")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import polars as pl

from benchmarks.bench_scoring import build_log, generate, peak_rss_gb

AT = datetime(2026, 11, 21, tzinfo=UTC)
AS_OF = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
WEEKEND_AT = datetime(2026, 12, 6, 20, 0, tzinfo=UTC)
AFTER_WEEKEND = datetime(2026, 12, 7, 12, 0, tzinfo=UTC)
CATEGORIES = ["regional", "regional", "regional", "national", "international", "top"]
FEDERATION = "PZBS"


def members_frame(count: int) -> pl.DataFrame:
    """`MemberRegistered` event rows for `count` members."""
    from pipelines.payloads import canonical_json

    ids = pl.int_range(1, count + 1, eager=True).alias("i").to_frame()
    payload = canonical_json({
        "federation": pl.lit(FEDERATION), "federation_id": pl.col("i").cast(pl.String),
        "name": pl.format("Player {} {}", pl.col("i") % 997, pl.col("i")),
        "club": pl.format("Club {}", pl.col("i") % 400), "gender": pl.when(pl.col("i") % 3 == 0).then(
            pl.lit("F")).otherwise(pl.lit("M")),
        "birth_year": 1940 + pl.col("i") % 65, "region": pl.format("Region {}", pl.col("i") % 16),
        "source": pl.lit(None, dtype=pl.String),
    })
    return ids.select(stream_id=pl.lit(f"members:{FEDERATION}"), type=pl.lit("MemberRegistered"),
                      payload=payload, occurred_us=pl.lit(_us(AT) - 86_400_000_000 * 30, dtype=pl.Int64))


def contestants_frame(results: pl.DataFrame, members: int, occurred: datetime) -> pl.DataFrame:
    """`ContestantRegistered` rows for every pair/team the results name, each with its players."""
    from pipelines.payloads import canonical_json, sorted_struct

    sides = pl.concat([
        results.select("event_id", "session_id", "section", contestant_id=col, team=pl.col("room").is_not_null(),
                       direction=pl.when(pl.col("room").is_null()).then(pl.lit(direction)))
        for col, direction in (("ns_id", "NS"), ("ew_id", "EW"))
    ]).unique(maintain_order=True).with_row_index("n")
    seats = pl.when(pl.col("team")).then(4).otherwise(2)
    # Player k of contestant n is member (n * 4 + k) mod `members` + 1: regulars meet again week after week.
    def player(k: int) -> pl.Expr:
        member = ((pl.col("n").cast(pl.Int64) * 4 + k) % members + 1)
        named_only = (pl.col("n") + k) % 10 == 0
        return sorted_struct({
            "name": pl.format("Player {} {}", member % 997, member),
            "federation_id": pl.when(named_only).then(None).otherwise(member.cast(pl.String)),
        })
    players = pl.concat_list([player(k) for k in range(4)]).list.head(seats)
    payload = canonical_json({
        "event_id": pl.col("event_id"), "session_id": pl.col("session_id"), "contestant_id": pl.col("contestant_id"),
        "kind": pl.when(pl.col("team")).then(pl.lit("team")).otherwise(pl.lit("pair")),
        "section": pl.col("section"), "direction": pl.col("direction"), "name": pl.lit(None, dtype=pl.String),
        "players": players,
    })
    return sides.select(
        stream_id=pl.concat_str([pl.lit("session:"), pl.col("event_id"), pl.lit("/"), pl.col("session_id")]),
        type=pl.lit("ContestantRegistered"), payload=payload, occurred_us=pl.lit(_us(occurred), dtype=pl.Int64))


def tournaments_frame(sessions: pl.DataFrame, occurred: datetime) -> pl.DataFrame:
    """A registration per event: a category and an end date spread over five years."""
    from pipelines.payloads import Raw, canonical_json

    events = sessions.select("event_id").unique(maintain_order=True).with_row_index("n")
    category = pl.lit(pl.Series(CATEGORIES)).gather(pl.col("n") % len(CATEGORIES))
    end = (pl.lit(AT.date()) - pl.duration(days=(pl.col("n") * 7919 % 1826).cast(pl.Int64))).dt.to_string("%Y-%m-%d")
    payload = canonical_json({
        "event_id": pl.col("event_id"), "name": pl.format("Tournament {}", pl.col("event_id")),
        "start_date": end, "end_date": end, "organiser": pl.lit(None, dtype=pl.String), "category": category,
        "conditions": Raw(pl.lit("{}")),  # none registered: each session is scored as scheduled
    })
    return events.select(stream_id=pl.format("tournament:{}", pl.col("event_id")), type=pl.lit("TournamentRegistered"),
                         payload=payload,
                         occurred_us=pl.lit(_us(occurred), dtype=pl.Int64))


def publications_frame(sessions: pl.DataFrame, occurred: datetime) -> pl.DataFrame:
    """`ScoresPublished` for every session."""
    from pipelines.payloads import canonical_json

    payload = canonical_json({"event_id": pl.col("event_id"), "session_id": pl.col("session_id"),
                              "correction_period_minutes": pl.lit(None, dtype=pl.Float64)})
    return sessions.select(
        stream_id=pl.concat_str([pl.lit("session:"), pl.col("event_id"), pl.lit("/"), pl.col("session_id")]),
        type=pl.lit("ScoresPublished"), payload=payload, occurred_us=pl.lit(_us(occurred), dtype=pl.Int64))


def _us(moment: datetime) -> int:
    from pipelines.store import to_epoch_us

    return to_epoch_us(moment)


def build(path: Path, boards: int, per_board: int, members: int) -> None:
    """The history store with members, players, registrations and publications (setup)."""
    from pipelines.store import EventStore

    started = time.perf_counter()
    results, sessions = generate(boards, per_board)
    build_log(results, sessions, path)
    store = EventStore(path)
    store.append_frame(members_frame(members), recorded_at=AT)
    store.append_frame(tournaments_frame(sessions, AT), recorded_at=AT)
    for chunk in _chunks(contestants_frame(results, members, AT)):
        store.append_frame(chunk, recorded_at=AT)
    store.append_frame(publications_frame(sessions, AT), recorded_at=AT)
    print(f"setup: {results.height:,} results, {members:,} members, {sessions.height:,} sessions in "
          f"{time.perf_counter() - started:.0f} s (not timed below)", flush=True)


def add_weekend(path: Path, per_board: int, members: int) -> None:
    """40 more sessions (20 events), their players and publications, played the next weekend."""
    from pipelines.store import EventStore

    results, sessions = generate(40 * 25, per_board, seed=7)
    results = results.with_columns(event_id=pl.format("W{}", pl.col("event_id")))
    sessions = sessions.with_columns(event_id=pl.format("W{}", pl.col("event_id")))
    build_log(results, sessions, path)
    store = EventStore(path)
    store.append_frame(tournaments_frame(sessions, WEEKEND_AT), recorded_at=WEEKEND_AT)
    store.append_frame(contestants_frame(results, members, WEEKEND_AT), recorded_at=WEEKEND_AT)
    store.append_frame(publications_frame(sessions, WEEKEND_AT), recorded_at=WEEKEND_AT)
    print(f"one more weekend appended: {results.height:,} results in {sessions.height} sessions", flush=True)


def _chunks(frame: pl.DataFrame, rows: int = 500_000) -> list[pl.DataFrame]:
    return [frame.slice(start, rows) for start in range(0, frame.height, rows)]


def time_peer(path: Path) -> None:
    """Child process: the peer, replay and scoring of the whole log."""
    from pipelines.projections import score_store
    from pipelines.store import EventStore

    started = time.perf_counter()
    scored = score_store(EventStore(path), as_of_us=_us(AS_OF))
    print(f"  peer  score_store (replay + scoring, what the standings source calls): "
          f"{time.perf_counter() - started:.1f} s for {scored.standings.height:,} standings rows; "
          f"peak RSS {peak_rss_gb():.2f} GB", flush=True)


def time_edition(path: Path, as_of: datetime, label: str) -> None:
    """Child process: one edition as `bridgeledger rank` computes it, with its split."""
    from pipelines.ranking import edition as module
    from pipelines.ranking.rules import load_rules
    from pipelines.ranking.standings_source import read_standings
    from pipelines.store import EventStore

    spent: dict[str, float] = {}

    def timed_standings(*args: object, **kwargs: object) -> object:
        begun = time.perf_counter()
        try:
            return read_standings(*args, **kwargs)  # type: ignore[arg-type]
        finally:
            spent["standings"] = time.perf_counter() - begun

    module.read_standings = timed_standings  # type: ignore[assignment]
    started = time.perf_counter()
    edition = module.compute_edition(EventStore(path), load_rules("pzbs-3"), as_of=as_of)
    total = time.perf_counter() - started
    own = total - spent["standings"]
    print(f"  {label}: {total:.1f} s wall = standings {spent['standings']:.1f} s + ranking {own:.1f} s; "
          f"{edition.ranking.height:,} players ranked from {edition.awards.height:,} awards, "
          f"{edition.unmatched.height:,} unmatched; peak RSS {peak_rss_gb():.2f} GB; "
          f"1-minute load average {os.getloadavg()[0]:.2f}", flush=True)


def child(*args: str) -> None:
    subprocess.run([sys.executable, "-m", "benchmarks.bench_ranking", *args], check=True,
                   cwd=Path(__file__).resolve().parents[1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--boards", type=int, default=200_000)
    parser.add_argument("--per-board", type=int, default=50)
    parser.add_argument("--members", type=int, default=100_000)
    parser.add_argument("--child", nargs=2, help=argparse.SUPPRESS)  # (what, store) in a fresh process
    args = parser.parse_args()
    if args.child:
        what, store = args.child
        if what == "peer":
            time_peer(Path(store))
        elif what == "full":
            time_edition(Path(store), AS_OF, "full edition (target <= 10 s, <= 2 GB)")
        else:
            time_edition(Path(store), AFTER_WEEKEND, "edition after one more weekend (target <= 2 s)")
        return
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "ranking.duckdb"
        build(path, args.boards, args.per_board, args.members)
        child("--child", "peer", str(path))
        child("--child", "full", str(path))
        add_weekend(path, args.per_board, args.members)
        child("--child", "weekend", str(path))


if __name__ == "__main__":
    main()
