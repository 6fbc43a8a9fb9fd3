"""Property: whatever the director rules, every result stays with both its contestants, and every
contestant is scored on exactly the boards its movement gave it.

The movement is read straight from the recorded facts in the log (SQL over the payloads), not
through replay or scoring, the code under test.
"""

from __future__ import annotations

import contextlib
import shutil
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from models.events import WeightedComponent
from pipelines.commands.director import (
    DirectorError,
    TableRef,
    award_artificial,
    award_penalty,
    award_weighted,
    publish_scores,
    record_fouled_board,
    request_correction,
)
from pipelines.files.ingest import IngestOptions, ingest_file
from pipelines.log.store import EventStore
from pipelines.replay.projections import score_store
from tests.conftest import CORPUS, RECORDED_AT, SAMPLE_DATA, examples

PUBLISHED = datetime(2026, 11, 21, 21, 0, tzinfo=UTC)
Tables = dict[tuple[str, int], list[str]]
Movement = dict[tuple[str, str, str], int]


@dataclass(frozen=True)
class Session:
    """A session to rule on: its base store (ingested and published once) and its movement."""

    path: Path
    event_id: str
    session_id: str
    teams: bool
    tables: Tables
    """(section, board) -> the tables that played it."""
    movement: Movement
    """(section, direction, contestant) -> boards the movement gave it."""



def _movement(store: EventStore, teams: bool) -> tuple[Tables, Movement]:
    with store.reader() as con:
        seats = con.sql(
            "SELECT DISTINCT payload->>'$.section' AS section, CAST(payload->>'$.board' AS BIGINT) AS board,"
            " payload->>'$.table_id' AS table_id, payload->>'$.ns_id' AS ns_id, payload->>'$.ew_id' AS ew_id"
            " FROM events WHERE type IN ('ResultRecorded', 'ArtificialScoreAwarded')").pl()
    tables = {(s, b): sorted(t) for s, b, t in seats.group_by("section", "board").agg("table_id").iter_rows()}
    sides = pl.concat([seats.select("section", "board", direction=pl.lit("ALL" if teams else "NS"), id="ns_id"),
                       seats.select("section", "board", direction=pl.lit("ALL" if teams else "EW"), id="ew_id")])
    boards = sides.unique().group_by("section", "direction", "id").len()
    return tables, {(s, d, c): n for s, d, c, n in boards.iter_rows()}


def _base(tmp: Path, source: Path, teams: bool) -> Session:
    store = EventStore(tmp / f"{source.stem}.duckdb")
    report = ingest_file(store, source, recorded_at=RECORDED_AT,
                         options=IngestOptions(occurred_at=PUBLISHED - timedelta(hours=2)))
    assert report.event_id is not None and report.session_id is not None
    publish_scores(store, report.event_id, report.session_id, at=PUBLISHED)
    tables, movement = _movement(store, teams)
    return Session(store.path, report.event_id, report.session_id, teams, tables, movement)


@pytest.fixture(scope="module")
def sessions(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Session]:
    tmp = tmp_path_factory.mktemp("rulings")
    return {"mitchell": _base(tmp, SAMPLE_DATA / "club_championship_traveller.csv", teams=False),
            "teams": _base(tmp, CORPUS / "pbn" / "lintopbn_wbtc2015_swe_pol.pbn", teams=True)}


CONTRACTS = ["1NT", "3NT", "4S", "2HX", "6C", "5DXX"]
outcome = st.builds(lambda c, d, t: (c, d, t), st.sampled_from(CONTRACTS), st.sampled_from("NESW"),
                    st.integers(0, 13))
weights = st.sampled_from([(1.0,), (0.5, 0.5), (0.7, 0.3), (0.2, 0.3, 0.5)])
award = st.sampled_from(["A+", "A", "A-", 55.0])
ruling = st.one_of(
    st.tuples(st.just("adjust"), st.integers(0, 10**6), award, award, st.integers(-30, 45)),
    st.tuples(st.just("weighted"), st.integers(0, 10**6), weights, st.lists(outcome, min_size=3, max_size=3),
              st.booleans(), st.integers(-30, 45)),
    st.tuples(st.just("correct"), st.integers(0, 10**6), st.integers(0, 13), st.integers(-30, 45)),
    st.tuples(st.just("foul"), st.integers(0, 10**6), st.integers(1, 5)),
    st.tuples(st.just("penalty"), st.integers(0, 10**6), st.sampled_from([1.0, 2.5])),
)


def _apply(store: EventStore, session: Session, step: tuple[Any, ...], index: int) -> None:
    kind, pick = step[0], step[1]
    (section, board), tables = sorted(session.tables.items())[pick % len(session.tables)]
    ref = TableRef(session.event_id, session.session_id, board, tables[pick % len(tables)], section)
    at = PUBLISHED + timedelta(minutes=5 + index)
    if kind == "adjust":
        requested = PUBLISHED + timedelta(minutes=step[4])
        award_artificial(store, ref, at=at, requested_at=requested, ns_award=step[2], ew_award=step[3],
                         director="TD", reason="property")
    elif kind == "weighted":
        split, components = step[2], step[3]
        ns = [WeightedComponent(contract=c, declarer=d, tricks=t, weight=w)  # type: ignore[arg-type]
              for (c, d, t), w in zip(components, split, strict=False)]
        award_weighted(store, ref, at=at, requested_at=PUBLISHED + timedelta(minutes=step[5]), director="TD",
                       reason="property", ns_components=ns, ew_components=list(reversed(ns)) if step[4] else ())
    elif kind == "correct":
        request_correction(store, ref, at=PUBLISHED + timedelta(minutes=step[3]), correction_id=f"c{index}",
                           requested_by="NS", reason="property", tricks=step[2])
    elif kind == "foul" and len(tables) > step[2]:
        record_fouled_board(store, session.event_id, session.session_id, board, at=at, section=section,
                            reason="property", groups={"a": tables[:step[2]], "b": tables[step[2]:]})
    elif kind == "penalty":
        contestants = sorted(session.movement)
        _, direction, contestant = contestants[pick % len(contestants)]
        award_penalty(store, session.event_id, session.session_id, contestant, at=at, amount=step[2],
                      unit="IMP" if session.teams else "MP", reason="property",
                      direction=None if direction == "ALL" else direction)


@settings(max_examples=examples(12), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(which=st.sampled_from(["mitchell", "teams"]), rulings=st.lists(ruling, min_size=1, max_size=4))
def test_every_ruling_keeps_results_with_both_contestants_and_boards_with_the_movement(
        sessions: dict[str, Session], tmp_path: Path, which: str, rulings: list[tuple[Any, ...]]) -> None:
    session = sessions[which]
    copy = tmp_path / f"{which}-{len(list(tmp_path.iterdir()))}.duckdb"
    shutil.copyfile(session.path, copy)
    store = EventStore(copy, busy_timeout=2.0)
    for index, step in enumerate(rulings):
        with contextlib.suppress(DirectorError):  # e.g. a correction that changes nothing recorded
            _apply(store, session, step, index)
    edition = score_store(store)
    boards = edition.board_scores
    assert boards.height == sum(len(t) for t in session.tables.values())
    assert boards.filter(pl.col("ns_id").is_null() | pl.col("ew_id").is_null()).is_empty()
    assert boards.filter(pl.col("imp_ns" if session.teams else "mp_ns").is_null()).is_empty()
    scored = {(s, d, c): n for s, d, c, n in edition.standings.select(
        "section", "direction", "contestant_id", "boards").iter_rows()}
    assert scored == session.movement
