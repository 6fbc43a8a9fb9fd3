"""Incremental equals full: live projections after any sequence of facts.

Random sequences of ingests (new sessions and re-sent travellers), publications, corrections in
and out of the window, late approvals, artificial and weighted scores, fouled boards, penalties,
re-registrations with new conditions and closed correction periods. After every step the tables
brought up incrementally are exported and compared byte for byte with a full rebuild of a copy of
the store (`score --full`) and with a replay of the whole log from zero.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from contextlib import suppress
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from models.conditions import CarryOver, ConditionsOfContest, MatchpointRules
from models.events import WeightedComponent
from pipelines.commands.director import (
    DirectorError,
    TableRef,
    approve_late_correction,
    award_artificial,
    award_penalty,
    award_weighted,
    close_correction_period,
    publish_scores,
    record_fouled_board,
    register_tournament,
    request_correction,
)
from pipelines.files.ingest import IngestOptions, ingest_bytes
from pipelines.log.store import EventStore
from pipelines.replay.live import export_tables, refresh
from pipelines.replay.projections import export_csv, score_store
from tests.conftest import RECORDED_AT, examples

T0 = datetime(2026, 11, 21, 19, 0, tzinfo=UTC)
EVENTS = ("e1", "e2")
SESSIONS = ("1", "2")
BOARDS, TABLES = 3, 4
CONTRACTS = [("3NT", "N"), ("4S", "S"), ("2H", "E"), ("3C", "W"), ("1NT", "N")]


def traveller(event: str, session: str, variant: int) -> bytes:
    """A small Mitchell session; `variant` changes the tricks (a re-sent traveller)."""
    lines = ["event,session,board,section,table,ns,ew,contract,declarer,result"]
    for board in range(1, BOARDS + 1):
        for table in range(1, TABLES + 1):
            contract, declarer = CONTRACTS[(board * 3 + table + variant) % len(CONTRACTS)]
            level = int(contract[0])
            tricks = 6 + level + (board + table * variant) % 3 - 1
            lines.append(f"{event},{session},{board},A,{table},{table},{(table + board) % TABLES + 1},"
                         f"{contract},{declarer},{tricks}")
    return ("\n".join(lines) + "\n").encode()


def minute(offset: int) -> datetime:
    return T0 + timedelta(minutes=offset)


@dataclass
class World:
    store: EventStore
    corrections: list[str] = field(default_factory=list)
    played: list[tuple[str, str]] = field(default_factory=list)
    """Sessions ingested so far: director steps pick one of them, so that most steps apply."""

    def pick(self, which: int) -> tuple[str, str]:
        return self.played[which % len(self.played)]


Step = Callable[[World], None]

events = st.sampled_from(EVENTS)
sessions = st.sampled_from(SESSIONS)
which = st.integers(0, 7)
boards = st.integers(1, BOARDS)
tables = st.integers(1, TABLES).map(str)
minutes = st.integers(0, 240)


@st.composite
def ingest_step(draw: st.DrawFn) -> Step:
    event, session, variant, at = draw(events), draw(sessions), draw(st.integers(0, 2)), draw(minutes)

    def run(world: World) -> None:
        ingest_bytes(world.store, traveller(event, session, variant), source=f"{event}-{session}-{variant}.csv",
                     recorded_at=RECORDED_AT, options=IngestOptions(occurred_at=minute(at)))
        if (event, session) not in world.played:
            world.played.append((event, session))
    return run


@st.composite
def publish_step(draw: st.DrawFn) -> Step:
    pick, at = draw(which), draw(minutes)
    period = draw(st.sampled_from([None, 10.0, 60.0]))
    return lambda w: publish_scores(w.store, *w.pick(pick), at=minute(at), correction_period_minutes=period) and None


@st.composite
def correct_step(draw: st.DrawFn) -> Step:
    pick, board, table = draw(which), draw(boards), draw(tables)
    at, tricks = draw(minutes), draw(st.integers(6, 12))

    def run(world: World) -> None:
        ref = TableRef(*world.pick(pick), board, table, "A")
        cid = f"c{len(world.corrections) + 1}"
        request_correction(world.store, ref, at=minute(at), correction_id=cid, requested_by="NS",
                           reason="slip", tricks=tricks)
        world.corrections.append(cid)
    return run


@st.composite
def approve_step(draw: st.DrawFn) -> Step:
    pick, at = draw(st.integers(0, 5)), draw(minutes)

    def run(world: World) -> None:
        if world.corrections:
            approve_late_correction(world.store, world.corrections[pick % len(world.corrections)], at=minute(at),
                                    organiser="TO", director="TD", statement="slip shows it")
    return run


@st.composite
def ruling_step(draw: st.DrawFn) -> Step:
    pick, board, table = draw(which), draw(boards), draw(tables)
    at, requested, weighted = draw(minutes), draw(minutes), draw(st.booleans())

    def run(world: World) -> None:
        ref = TableRef(*world.pick(pick), board, table, "A")
        if weighted:
            award_weighted(world.store, ref, at=minute(at), requested_at=minute(requested), director="TD",
                           reason="UI", ns_components=[WeightedComponent(contract="4S", declarer="N", tricks=10,
                                                                         weight=0.6),
                                                       WeightedComponent(contract="4S", declarer="N", tricks=9,
                                                                         weight=0.4)])
        else:
            award_artificial(world.store, ref, at=minute(at), requested_at=minute(requested), ns_award="A+",
                             ew_award="A-", director="TD", reason="late")
    return run


@st.composite
def foul_step(draw: st.DrawFn) -> Step:
    pick, board, at, cut = draw(which), draw(boards), draw(minutes), draw(st.integers(1, TABLES - 1))
    groups = {"a": [str(t) for t in range(1, cut + 1)], "b": [str(t) for t in range(cut + 1, TABLES + 1)]}
    return lambda w: record_fouled_board(w.store, *w.pick(pick), board, at=minute(at), groups=groups,
                                         reason="swapped", section="A") and None


@st.composite
def penalty_step(draw: st.DrawFn) -> Step:
    pick, pair, at = draw(which), draw(st.integers(1, TABLES)), draw(minutes)
    amount = draw(st.sampled_from([1.0, 2.5]))
    return lambda w: award_penalty(w.store, *w.pick(pick), str(pair), at=minute(at), amount=amount, unit="MP",
                                   reason="slow play", section="A") and None


@st.composite
def register_step(draw: st.DrawFn) -> Step:
    event, at = draw(events), draw(minutes)
    # New conditions that change every score (the matchpoint scale) and the status (the period);
    # the method stays MP, in which the drawn penalties are given.
    rules = ConditionsOfContest(
        method="MP", field_layout="two_field",
        matchpoints=MatchpointRules(scale=draw(st.sampled_from(["2/1/0", "1/0.5/0"]))),
        correction_period_minutes=draw(st.sampled_from([5.0, 30.0, 120.0])),
        carry_over=CarryOver(mode=draw(st.sampled_from(["none", "cumulative"]))))
    return lambda w: register_tournament(w.store, event, event.upper(), at=minute(at), conditions=rules) and None


@st.composite
def close_step(draw: st.DrawFn) -> Step:
    pick, at = draw(which), draw(minutes)
    return lambda w: close_correction_period(w.store, *w.pick(pick), deadline=minute(at)) and None


steps = st.lists(st.one_of(ingest_step(), publish_step(), correct_step(), approve_step(), ruling_step(),
                           foul_step(), penalty_step(), register_step(), close_step()),
                 min_size=2, max_size=6)


def _fresh_copy(store: EventStore, path: Path) -> EventStore:
    """A new store holding the same events, row for row: the log's file alone, without the
    analytics file beside it, so that no projection table comes along. Each event keeps the time
    the log received it, which the Law 79C policy reads (a fact recorded after its session became
    final waits for an acknowledgement): appended anew at one time, a fouled board typed after a
    back-dated publication's period would apply in the copy and not in the original."""
    assert store.log_file is not None  # an embedded store
    shutil.copyfile(store.log_file, path)
    return EventStore(path)


def _read(paths: dict[str, Path]) -> dict[str, bytes]:
    return {name: path.read_bytes() for name, path in paths.items()}


@settings(max_examples=examples(10), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(sequence=steps)
def test_incremental_projections_equal_a_full_rebuild_and_a_replay_from_zero(
        tmp_path_factory: object, sequence: list[Step]) -> None:
    root = tmp_path_factory.mktemp("live")  # type: ignore[attr-defined]
    world = World(EventStore(root / "live.duckdb", busy_timeout=2.0))
    # A session of each event is always there, so that every step has something to act on.
    for event in EVENTS:
        ingest_bytes(world.store, traveller(event, "1", 0), source=f"first-{event}.csv", recorded_at=RECORDED_AT,
                     options=IngestOptions(occurred_at=T0))
        world.played.append((event, "1"))
    for index, step in enumerate([lambda w: None, *sequence]):
        with suppress(DirectorError):  # a refused request appends nothing
            step(world)
        refresh(world.store)
        live = _read(export_tables(world.store, root / f"live-{index}"))
        copy = EventStore(root / f"full-{index}.duckdb")
        shutil.copyfile(world.store.path, copy.path)
        refresh(copy, full=True)
        full = _read(export_tables(copy, root / f"full-{index}"))
        zero = _read(export_csv(score_store(_fresh_copy(world.store, root / f"zero-{index}.duckdb")),
                                root / f"zero-{index}"))
        assert live == full, f"step {index}: incremental differs from score --full"
        assert live == zero, f"step {index}: incremental differs from a replay from zero"
