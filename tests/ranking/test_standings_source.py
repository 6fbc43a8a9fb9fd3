"""The ranking's standings from the live projections equal a full replay to the edition's (P, T).

Random histories (the live projections' own steps: ingests and re-sent travellers, publications,
corrections in and out of the window, late approvals, rulings, fouled boards, penalties,
re-registrations with new conditions and periods, closed periods), with the projection tables
refreshed after some steps and not others (so they are current, stale or never built), then an
edition at a random log position (the head, or one before corrections and sessions appended
later) and a random time (before, at and after the correction deadlines, before or after the
tables' clock). The fast path must give the bytes the full replay gives.
"""

from __future__ import annotations

from contextlib import suppress
from datetime import datetime, timedelta
from pathlib import Path

import polars as pl
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

from pipelines.commands.director import (
    DirectorError,
    TableRef,
    approve_late_correction,
    publish_scores,
    request_correction,
)
from pipelines.files.ingest import IngestOptions, ingest_bytes
from pipelines.log.store import EventStore, to_epoch_us
from pipelines.ranking.edition import compute_edition
from pipelines.ranking.rules import load_rules
from pipelines.ranking.standings_source import StandingsSnapshot, read_standings, replay_standings
from pipelines.replay.frames import publication_windows
from pipelines.replay.live import refresh
from tests.conftest import RECORDED_AT, examples
from tests.ranking.scenario import CET, EVENT, SESSION, build_session
from tests.replay.test_live_properties import EVENTS, T0, World, minute, steps, traveller

SBU = load_rules("sbu")


def assert_same(fast: StandingsSnapshot, full: StandingsSnapshot) -> None:
    assert (fast.position, fast.as_of_us) == (full.position, full.as_of_us)
    assert fast.standings.write_csv() == full.standings.write_csv()  # the same rows, the same order, the same bytes
    assert_frame_equal(fast.windows, full.windows)
    assert_frame_equal(fast.corrections, full.corrections)


@settings(max_examples=examples(25), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(sequence=steps, refreshed=st.lists(st.booleans(), min_size=7, max_size=7),
       back=st.integers(0, 12), at=st.integers(-30, 300), on_deadline=st.none() | st.integers(0, 7))
def test_standings_from_the_projections_equal_a_full_replay_to_the_same_position_and_time(
        tmp_path_factory: object, sequence: list[object], refreshed: list[bool], back: int, at: int,
        on_deadline: int | None) -> None:
    root = tmp_path_factory.mktemp("source")  # type: ignore[attr-defined]
    world = World(EventStore(root / "live.duckdb", busy_timeout=2.0))
    for event in EVENTS:
        ingest_bytes(world.store, traveller(event, "1", 0), source=f"first-{event}.csv", recorded_at=RECORDED_AT,
                     options=IngestOptions(occurred_at=T0))
        world.played.append((event, "1"))
    for step, refresh_after in zip([lambda w: None, *sequence], refreshed, strict=False):
        with suppress(DirectorError):
            step(world)  # type: ignore[operator]
        if refresh_after:
            refresh(world.store)
    # An edition at the head or in the past (by position), at any time around the sessions'
    # deadlines, or exactly at one of them (a period is over at its deadline).
    position = max(1, world.store.head() - back)
    as_of_us = to_epoch_us(minute(at))
    deadlines = sorted(publication_windows(world.store, as_of_us=as_of_us)["deadline_us"].drop_nulls())
    if on_deadline is not None and deadlines:
        as_of_us = deadlines[on_deadline % len(deadlines)]
    fast = read_standings(world.store, up_to=position, as_of_us=as_of_us)
    assert_same(fast, replay_standings(world.store, up_to=position, as_of_us=as_of_us))


def editions_agree(store: EventStore, as_of: datetime, up_to: int | None = None) -> bytes:
    """The edition's canonical output, checked equal to the one computed from a full replay."""
    fast = compute_edition(store, SBU, as_of=as_of, up_to=up_to)
    full = compute_edition(store, SBU, as_of=as_of, up_to=up_to, standings=replay_standings)
    assert fast.output_bytes() == full.output_bytes()
    assert_frame_equal(fast.provisional, full.provisional)
    assert_frame_equal(fast.corrections, full.corrections)
    return fast.output_sha256()


def test_editions_from_the_projections_equal_full_replays_through_corrections_and_late_approvals(
        store: EventStore, tmp_path: Path) -> None:
    build_session(store, tmp_path)
    refresh(store)  # the tables' clock is the publication (21:00): the session is provisional in them
    head = store.head()
    open_period = datetime(2026, 11, 21, 21, 29, tzinfo=CET)
    next_day = datetime(2026, 11, 22, 12, 0, tzinfo=CET)
    assert read_standings(store, up_to=head, as_of_us=to_epoch_us(next_day)).standings["status"].unique().to_list() \
        == ["final"]  # read from the tables, its status taken at the edition's time
    first = editions_agree(store, next_day)
    editions_agree(store, open_period)
    # A correction inside the period, typed in later; one after it, approved late; neither refreshed.
    inside = TableRef(EVENT, SESSION, board=1, table_id="4", section="A")
    request_correction(store, inside, at=datetime(2026, 11, 21, 21, 10, tzinfo=CET), correction_id="c1",
                       requested_by="NS pair 4", reason="9 tricks, not 7", tricks=9)
    late = TableRef(EVENT, SESSION, board=2, table_id="3", section="A")
    request_correction(store, late, at=datetime(2026, 11, 22, 9, 0, tzinfo=CET), correction_id="c2",
                       requested_by="EW pair 5", reason="10 tricks", tricks=10)
    second = editions_agree(store, next_day)
    assert second != first
    approve_late_correction(store, "c2", at=datetime(2026, 11, 22, 10, 0, tzinfo=CET), organiser="TO",
                            director="TD", statement="slip shows it")
    third = editions_agree(store, next_day)
    assert third != second
    assert editions_agree(store, next_day, up_to=head) == first  # edition 1 rebuilds from the same log
    refresh(store)
    assert editions_agree(store, next_day) == third  # the same edition once the tables caught up
    assert editions_agree(store, next_day, up_to=head) == first  # and the tables are ahead of it
    editions_agree(store, datetime(2026, 11, 22, 9, 30, tzinfo=CET))  # in the past: before the approval
    # A session of another event published after everything else: rescored, then read.
    ingest_bytes(store, traveller("e9", "1", 1), source="e9.csv", recorded_at=RECORDED_AT,
                 options=IngestOptions(occurred_at=datetime(2026, 11, 23, 19, 0, tzinfo=CET)))
    publish_scores(store, "e9", "1", at=datetime(2026, 11, 23, 21, 0, tzinfo=CET))
    later = datetime(2026, 11, 24, 12, 0, tzinfo=CET)
    editions_agree(store, later)
    refresh(store)
    assert read_standings(store, up_to=store.head(), as_of_us=to_epoch_us(later)).standings.filter(
        pl.col("event_id") == "e9")["status"].unique().to_list() == ["final"]
    editions_agree(store, later)
    editions_agree(store, datetime(2026, 11, 23, 21, 0, tzinfo=CET) + timedelta(minutes=30))  # at e9's deadline
