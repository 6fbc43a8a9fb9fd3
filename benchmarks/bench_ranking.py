"""Benchmark: a federation ranking edition over the history benchmark's 10M-result store.

Setup (not timed, cached): the results of `bench_scoring` appended to a fresh store with its
`build_log`, then about 100,000 members, every session's pairs and teams with their players (nine
in ten carry their federation id, the rest are matched by name), a tournament registration per
event with a category and a date spread over five years (so decay has work to do), and every
session published; then `bridgeledger score --full` builds the live projections, as the scoring
DAG keeps them. That store is cached under /work/bench-cache/ranking-* (built once, copied for
each run, never written). Then, each in a fresh process, timed from spawn to exit with its CPU
time (user + system, all threads) and peak RSS:

1. `bridgeledger rank --rules pzbs-3 --as-of ...`, the full edition computed and printed, which
   reads stored standings (`pipelines/ranking/standings_source.py`) and keeps its awards per
   tournament for the next edition (`pipelines/ranking/kept.py`; none are kept in the cached store);
2. the same edition computed from scratch (nothing kept) with its CSV files written (what `--out`
   and `--publish` add: a quarter of a gigabyte of awards), split into standings, the ranking's own
   work and the files;
3. the same edition from the awards (1) kept, its CSV files written (not timed for the table);
4. the peer: the same edition with standings from a replay and scoring of the whole log
   (`score_store`, the path before the projections); its files must equal (2)'s and (3)'s byte for byte;
5. one more weekend appended (40 new sessions, their players and publications; the projections
   are not refreshed, so the edition rescores those sessions itself), then (1) to (4) again: (1)
   now recomputes the weekend's 20 tournaments and takes the others' awards as (1) kept them;
6. `bridgeledger score` (the weekend into the projections, as the scoring DAG does), then (1).

Targets (issue 13): a full edition <= 10 s and <= 2 GB; after one more weekend <= 2 s.

Run: `.venv/bin/python -m benchmarks.bench_ranking [--boards 200000] [--per-board 50] [--members 100000]
[--skip-peer]`.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import polars as pl

from benchmarks.bench_scoring import build_log, generate, peak_rss_gb

REPO = Path(__file__).resolve().parents[1]
CACHE = Path("/work/bench-cache")

AT = datetime(2026, 11, 21, tzinfo=UTC)
AS_OF = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
WEEKEND_AT = datetime(2026, 12, 6, 20, 0, tzinfo=UTC)
AFTER_WEEKEND = datetime(2026, 12, 7, 12, 0, tzinfo=UTC)
CATEGORIES = ["regional", "regional", "regional", "national", "international", "top"]
FEDERATION = "PZBS"


def members_frame(count: int) -> pl.DataFrame:
    """`MemberRegistered` event rows for `count` members."""
    from pipelines.log.payloads import canonical_json

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
    from pipelines.log.payloads import canonical_json, sorted_struct

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
    from pipelines.log.payloads import Raw, canonical_json

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
    from pipelines.log.payloads import canonical_json

    payload = canonical_json({"event_id": pl.col("event_id"), "session_id": pl.col("session_id"),
                              "correction_period_minutes": pl.lit(None, dtype=pl.Float64)})
    return sessions.select(
        stream_id=pl.concat_str([pl.lit("session:"), pl.col("event_id"), pl.lit("/"), pl.col("session_id")]),
        type=pl.lit("ScoresPublished"), payload=payload, occurred_us=pl.lit(_us(occurred), dtype=pl.Int64))


def _us(moment: datetime) -> int:
    from pipelines.log.store import to_epoch_us

    return to_epoch_us(moment)


def build(path: Path, boards: int, per_board: int, members: int) -> None:
    """The history store with members, players, registrations and publications (setup)."""
    from pipelines.log.store import EventStore

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
    from pipelines.log.store import EventStore

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


@dataclass(frozen=True)
class Run:
    """One fresh process: wall seconds, CPU seconds (user + system, all threads), peak RSS, the
    1-minute load average when it started, and what it printed."""

    seconds: float
    cpu_seconds: float
    peak_gb: float
    load: float
    output: str

    def __str__(self) -> str:
        return (f"{self.seconds:.2f} s wall ({self.cpu_seconds:.2f} s CPU), peak {self.peak_gb:.2f} GB, "
                f"load {self.load:.1f}")


def run(args: list[str]) -> Run:
    """`python ARGS` in a fresh process from the repository, as a user runs it (no thread cap)."""
    env = {key: value for key, value in os.environ.items() if key != "POLARS_MAX_THREADS"}
    load = os.getloadavg()[0]
    with tempfile.TemporaryFile() as stdout, tempfile.TemporaryFile() as stderr:
        started = time.perf_counter()
        process = subprocess.Popen([sys.executable, *args], cwd=REPO, env=env, stdout=stdout, stderr=stderr)
        _, status, usage = os.wait4(process.pid, 0)
        seconds = time.perf_counter() - started
        process.returncode = os.waitstatus_to_exitcode(status)
        stdout.seek(0)
        stderr.seek(0)
        printed, errors = stdout.read().decode(), stderr.read().decode()
    if process.returncode != 0:
        raise SystemExit(f"{' '.join(args[:4])} failed: {errors[-2000:]}")
    return Run(seconds, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024**2, load, printed)


def cached_store(boards: int, per_board: int, members: int) -> Path:
    """The store with members, players, publications and live projections, built once (setup)."""
    path = CACHE / f"ranking-{boards}x{per_board}-{members}.duckdb"
    if path.exists():
        print(f"store: {path} (cached; copied for this run, never written)", flush=True)
        return path
    building = path.with_suffix(".building")
    building.unlink(missing_ok=True)
    build(building, boards, per_board, members)
    first = run(["-m", "pipelines.cli", "score", "--full", "--store", str(building)])
    print(f"setup: projections built by `score --full` in {first}", flush=True)
    building.rename(path)
    anchor = building.with_name(building.name + ".head")  # the store's sidecar (pipelines.log.anchor) goes with it
    if anchor.exists():
        anchor.rename(path.with_name(path.name + ".head"))
    return path


def time_edition(path: Path, as_of: datetime, out: Path | None, *, what: str) -> None:
    """Child process: one edition (`split`: from scratch with stored standings; `peer`: with standings
    from a replay of the whole log; `kept`: from the awards the last `rank` kept), its split, and its
    output written to `out`."""
    from pipelines.log.store import EventStore
    from pipelines.ranking import standings_source
    from pipelines.ranking.edition import compute_edition
    from pipelines.ranking.rules import load_rules

    if what == "kept":
        started = time.perf_counter()
        kept = compute_edition(EventStore(path), load_rules("pzbs-3"), as_of=as_of)
        if out is not None:
            write_output(kept.output_bytes(), out)
        print(f"from kept awards, CSV files written, in {time.perf_counter() - started:.2f} s", flush=True)
        return
    source = standings_source.replay_standings if what == "peer" else standings_source.read_standings
    spent: dict[str, float] = {}

    def timed_standings(store: EventStore, *, up_to: int, as_of_us: int) -> standings_source.StandingsSnapshot:
        begun = time.perf_counter()
        try:
            return source(store, up_to=up_to, as_of_us=as_of_us)
        finally:
            spent["standings"] = time.perf_counter() - begun

    started = time.perf_counter()
    edition = compute_edition(EventStore(path), load_rules("pzbs-3"), as_of=as_of, standings=timed_standings)
    total = time.perf_counter() - started
    if out is not None:
        write_output(edition.output_bytes(), out)
    written = time.perf_counter() - started - total
    print(f"compute_edition {total:.2f} s = standings {spent['standings']:.2f} s + ranking "
          f"{total - spent['standings']:.2f} s, then its CSV files {written:.2f} s; {edition.ranking.height:,} "
          f"players ranked from "
          f"{edition.awards.height:,} awards, {edition.unmatched.height:,} unmatched, "
          f"{edition.provisional.height:,} sessions provisional; peak RSS {peak_rss_gb():.2f} GB", flush=True)


def write_output(files: dict[str, bytes], out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    for name, data in files.items():
        (out / f"{name}.csv").write_bytes(data)


def output_digest(out: Path) -> str:
    """SHA-256 of an edition's CSV files, as `RankingEdition.output_sha256` computes it."""
    digest = hashlib.sha256()
    for path in sorted(out.glob("*.csv")):
        digest.update(path.stem.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def rank_cli(path: Path, as_of: datetime) -> Run:
    """`bridgeledger rank` as a user runs it: the edition computed and its top printed."""
    return run(["-m", "pipelines.cli", "rank", "--rules", "pzbs-3", "--as-of", as_of.isoformat(), "--store", str(path)])


def child(*args: str) -> Run:
    return run(["-m", "benchmarks.bench_ranking", "--child", *args])


def measure(path: Path, as_of: datetime, label: str, work: Path, skip_peer: bool) -> dict[str, Run]:
    """The edition at `as_of` by the CLI, its split, and the peer; checks the outputs are equal."""
    runs = {"ours": rank_cli(path, as_of)}
    print(f"  {label}: bridgeledger rank: {runs['ours']}", flush=True)
    runs["split"] = child("split", str(path), as_of.isoformat(), str(work / f"{label}-ours"))
    print(f"  {label}: the same edition from scratch with its CSV files written (as --out and --publish do): "
          f"{runs['split']}\n    {runs['split'].output.strip()}", flush=True)
    runs["kept"] = child("kept", str(path), as_of.isoformat(), str(work / f"{label}-kept"))
    print(f"  {label}: the same edition from the awards `rank` kept, CSV files written: {runs['kept']}", flush=True)
    if not skip_peer:
        runs["peer"] = child("peer", str(path), as_of.isoformat(), str(work / f"{label}-peer"))
        print(f"  {label}: peer, standings replayed from the whole log, CSV files written: {runs['peer']}\n"
              f"    {runs['peer'].output.strip()}", flush=True)
        ours, peer = output_digest(work / f"{label}-ours"), output_digest(work / f"{label}-peer")
        same = all((work / side / name).read_bytes() == (work / f"{label}-peer" / name).read_bytes()
                   for name in ("ranking.csv", "sub_rankings.csv", "awards.csv")
                   for side in (f"{label}-ours", f"{label}-kept"))
        kept = output_digest(work / f"{label}-kept")
        print(f"  {label}: output {ours[:16]} (from scratch), {kept[:16]} (from kept awards) vs peer {peer[:16]}: "
              f"{'identical' if same else 'DIFFERENT'}", flush=True)
        if not same:
            raise SystemExit(f"{label}: the edition differs from the full-replay peer")
    return runs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--boards", type=int, default=200_000)
    parser.add_argument("--per-board", type=int, default=50)
    parser.add_argument("--members", type=int, default=100_000)
    parser.add_argument("--skip-peer", action="store_true", help="measure the new path only")
    parser.add_argument("--build-only", action="store_true", help="build the cached store and stop")
    parser.add_argument("--child", nargs=4, help=argparse.SUPPRESS)  # (what, store, as-of, out) in a fresh process
    args = parser.parse_args()
    if args.child:
        what, store, as_of, out = args.child
        time_edition(Path(store), datetime.fromisoformat(as_of), None if out == "-" else Path(out), what=what)
        return
    cached = cached_store(args.boards, args.per_board, args.members)
    if args.build_only:
        return
    print(f"1-minute load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores", flush=True)
    with tempfile.TemporaryDirectory(dir=CACHE) as tmp:
        work = Path(tmp)
        path = work / "ranking.duckdb"
        shutil.copyfile(cached, path)
        full = measure(path, AS_OF, "full edition", work, args.skip_peer)
        add_weekend(path, args.per_board, args.members)
        weekend = measure(path, AFTER_WEEKEND, "after one more weekend", work, args.skip_peer)
        scored = run(["-m", "pipelines.cli", "score", "--store", str(path)])
        print(f"  `bridgeledger score` (the weekend's sessions into the projections, as the scoring DAG does): "
              f"{scored}", flush=True)
        weekend["scored"] = rank_cli(path, AFTER_WEEKEND)
        print(f"  after one more weekend, once scored: bridgeledger rank: {weekend['scored']}", flush=True)
    print("\n| edition (fresh process) | ours: `bridgeledger rank` | peer: standings by full replay | target | met? |")
    print("|---|---|---|---|---|")
    rows = (("full", full, "ours", 10.0, 2.0), ("after one more weekend", weekend, "ours", 2.0, None),
            ("after one more weekend, once scored", weekend, "scored", 2.0, None))
    for name, runs, which, seconds, gigabytes in rows:
        ours = runs[which]
        met = ours.seconds <= seconds and (gigabytes is None or ours.peak_gb <= gigabytes)
        limit = f"<= {seconds:g} s" + (f", <= {gigabytes:g} GB" if gigabytes else "")
        peer = str(runs["peer"]) if "peer" in runs and which == "ours" else "-"
        print(f"| {name} | {ours} | {peer} | {limit} | {'yes' if met else 'NO'} |")
    print(f"\nload average after: {os.getloadavg()[0]:.1f} (1 min), {os.getloadavg()[2]:.1f} (15 min)")


if __name__ == "__main__":
    main()
