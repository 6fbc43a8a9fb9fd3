"""Law 79C as executable policy: the scenario of the issue, on the sample session."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

import polars as pl
import pytest

from pipelines.commands.director import (
    DirectorError,
    TableRef,
    approve_late_correction,
    award_artificial,
    publish_scores,
    request_correction,
)
from pipelines.files.ingest import IngestOptions, ingest_file
from pipelines.log.store import EventStore, to_epoch_us
from pipelines.replay.audit import write_audit
from pipelines.replay.editions import EditionRef, diff_editions
from pipelines.replay.projections import ScoredEdition, export_csv, score_store
from tests.conftest import RECORDED_AT, REPO, SAMPLE_DATA

CET = timezone(timedelta(hours=1))
EVENT, SESSION = "club-championship-2026", "1"
PLAYED = datetime(2026, 11, 21, 19, 0, tzinfo=CET)
PUBLISHED = datetime(2026, 11, 21, 21, 0, tzinfo=CET)
TABLE = TableRef(EVENT, SESSION, board=1, table_id="4", section="A")


def at(hh: int, mm: int) -> datetime:
    return datetime(2026, 11, 21, hh, mm, tzinfo=CET)


def _session(store: EventStore, *, period: float | None = None) -> None:
    ingest_file(store, SAMPLE_DATA / "club_championship_traveller.csv", recorded_at=RECORDED_AT,
                options=IngestOptions(occurred_at=PLAYED))
    publish_scores(store, EVENT, SESSION, at=PUBLISHED, correction_period_minutes=period)


def _ns_table_one(edition: ScoredEdition) -> dict[str, object]:
    row = edition.board_scores.filter((pl.col("board") == 1) & (pl.col("table_id") == "4"))
    return row.select("contract", "declarer", "tricks", "score_ns", "mp_ns", "status").row(0, named=True)


def _in_time_and_late(store: EventStore) -> None:
    # Table 4 recorded 3NT by N with 7 tricks (-100 NV); the players agree it was 9 tricks.
    request_correction(store, TABLE, at=at(21, 10), correction_id="c1", requested_by="NS pair 4",
                       reason="9 tricks, not 7", tricks=9)
    request_correction(store, TableRef(EVENT, SESSION, 2, "3", "A"), at=at(21, 40), correction_id="c2",
                       requested_by="EW pair 3", reason="contract was 2NT", contract="2NT", declarer="S")


def test_a_correction_inside_the_period_changes_the_standings(store: EventStore) -> None:
    _session(store)
    before = score_store(store)
    assert _ns_table_one(before)["score_ns"] == -100
    _in_time_and_late(store)
    after = score_store(store)
    assert _ns_table_one(after) | {"mp_ns": None} == {"contract": "3NT", "declarer": "N", "tricks": 9,
                                                      "score_ns": 400, "mp_ns": None, "status": "final"}
    assert _ns_table_one(after)["mp_ns"] > _ns_table_one(before)["mp_ns"]  # type: ignore[operator]
    ns1 = pl.col("contestant_id").eq("4") & pl.col("direction").eq("NS")
    assert after.standings.filter(ns1)["score"][0] > before.standings.filter(ns1)["score"][0]
    decisions = after.projection.corrections.sort("correction_id").select("correction_id", "applied", "window")
    assert decisions.rows() == [("c1", True, "inside correction period"),
                                ("c2", False, "after correction period")]


def test_a_late_correction_applies_with_a_79c2_approval(store: EventStore) -> None:
    _session(store)
    _in_time_and_late(store)
    board2 = (pl.col("board") == 2) & (pl.col("table_id") == "3")
    assert score_store(store).board_scores.filter(board2)["contract"][0] != "2NT"
    approve_late_correction(store, "c2", at=at(22, 30), organiser="Chief TO", director="TD Smith",
                            statement="the pick-up slip shows 2NT; satisfied beyond reasonable doubt")
    edition = score_store(store)
    assert edition.board_scores.filter(board2).select("contract", "declarer").row(0) == ("2NT", "S")
    rule = edition.projection.corrections.filter(pl.col("correction_id") == "c2")["rule"][0]
    assert rule.startswith("Law 79C2")


def test_an_organiser_period_of_24_hours_accepts_the_late_request(store: EventStore) -> None:
    _session(store, period=24 * 60)
    _in_time_and_late(store)
    decided = score_store(store).projection.corrections.sort("correction_id")
    assert decided["applied"].to_list() == [True, True]


def test_the_deadline_is_exclusive(store: EventStore) -> None:
    _session(store)
    request_correction(store, TABLE, at=at(21, 30), correction_id="edge", requested_by="x", reason="y",
                       tricks=9)
    assert score_store(store).projection.corrections["applied"].to_list() == [False]


def test_a_correction_before_publication_is_an_ordinary_fix(store: EventStore) -> None:
    ingest_file(store, SAMPLE_DATA / "club_championship_traveller.csv", recorded_at=RECORDED_AT,
                options=IngestOptions(occurred_at=PLAYED))
    request_correction(store, TABLE, at=at(20, 50), correction_id="c0", requested_by="scorer",
                       reason="typo", tricks=9)
    edition = score_store(store)
    assert _ns_table_one(edition)["score_ns"] == 400
    assert _ns_table_one(edition)["status"] == "provisional"


def test_events_in_reverse_order_give_the_same_result(tmp_path: Path) -> None:
    forward, backward = EventStore(tmp_path / "f.duckdb"), EventStore(tmp_path / "b.duckdb")
    _session(forward)
    _in_time_and_late(forward)
    events = forward.read()
    session_events, others = events[:-3], events[-3:]
    ingest_file(backward, SAMPLE_DATA / "club_championship_traveller.csv", recorded_at=RECORDED_AT,
                options=IngestOptions(occurred_at=PLAYED))
    for event in reversed(others):  # c2, c1, publication: recorded in the opposite order
        from pipelines.log.store import NewEvent
        backward.append([NewEvent(event.stream_id, event.type, event.payload, event.occurred_at)],
                        recorded_at=event.recorded_at)  # each when it was entered
    assert len(session_events) + 3 == len(backward.read())
    a, b = export_csv(score_store(forward), tmp_path / "fa"), export_csv(score_store(backward), tmp_path / "ba")
    for name in a:
        assert a[name].read_bytes() == b[name].read_bytes()


def test_as_of_2105_reproduces_the_first_publication(store: EventStore, tmp_path: Path) -> None:
    _session(store)
    first = export_csv(score_store(store), tmp_path / "published")
    _in_time_and_late(store)
    approve_late_correction(store, "c2", at=at(22, 30), organiser="TO", director="TD", statement="sure")
    then = export_csv(score_store(store, as_of_us=to_epoch_us(at(21, 5))), tmp_path / "asof")
    now = export_csv(score_store(store), tmp_path / "now")
    for name in first:
        assert then[name].read_bytes() == first[name].read_bytes()
        assert now[name].read_bytes() != first[name].read_bytes()
    assert set(pl.read_csv(then["board_scores"])["status"]) == {"provisional"}


def test_diff_lists_what_changed_and_why(store: EventStore) -> None:
    _session(store)
    published_at = store.head()
    _in_time_and_late(store)
    changes = diff_editions(store, EditionRef(position=published_at), EditionRef())
    rejected = changes.board_changes.filter((pl.col("board") == 2) & (pl.col("table_id") == "3")).row(0, named=True)
    assert (rejected["contract_old"], rejected["contract_new"]) == ("1NT", "1NT")  # c2 was rejected
    assert (rejected["status_old"], rejected["status_new"]) == ("provisional", "final")  # the period ended
    row = changes.board_changes.filter((pl.col("board") == 1) & (pl.col("table_id") == "4")).row(0, named=True)
    assert (row["tricks_old"], row["tricks_new"], row["score_ns_old"], row["score_ns_new"]) == (7, 9, -100, 400)
    assert changes.events["type"].to_list() == ["ScoreCorrectionRequested", "ScoreCorrectionRequested"]
    assert changes.standing_changes.height > 0


def test_audit_report_lists_every_request_with_its_rule(store: EventStore, tmp_path: Path) -> None:
    _session(store)
    _in_time_and_late(store)
    award_artificial(store, TableRef(EVENT, SESSION, 5, "2", "A"), at=at(22, 0), requested_at=at(21, 50),
                     ns_award="A+", ew_award="A-", director="TD Smith", reason="fouled by a late arrival")
    report = write_audit(score_store(store), EVENT, SESSION, tmp_path)
    rows = report.rows.select("kind", "id", "decision", "before_score_ns", "after_score_ns", "rule").rows()
    assert rows[0] == ("correction", "c1", "applied", -100, 400, "Law 79C1: raised within the correction period")
    assert rows[1][:3] == ("correction", "c2", "rejected") and rows[1][3] == rows[1][4]
    assert rows[2][0:3] == ("ruling", rows[2][1], "rejected")
    assert "Law 92B" in rows[2][5]
    html = report.html_path.read_text() if report.html_path else ""
    assert "no Law 79C2 approval" in html and "c1" in html and "class=\"rejected\"" in html


@pytest.mark.parametrize("bad", ["board", "table", "naive-time", "approval"])
def test_wrong_requests_are_refused_and_append_nothing(store: EventStore, bad: str) -> None:
    _session(store)
    head = store.head()
    with pytest.raises((DirectorError, ValueError)) as refused:
        if bad == "board":
            request_correction(store, TableRef(EVENT, SESSION, 99, "1", "A"), at=at(21, 5),
                               correction_id="x", requested_by="x", reason="x", tricks=9)
        elif bad == "table":
            request_correction(store, TableRef(EVENT, SESSION, 1, "42", "A"), at=at(21, 5),
                               correction_id="x", requested_by="x", reason="x", tricks=9)
        elif bad == "naive-time":
            request_correction(store, TABLE, at=datetime(2026, 11, 21, 21, 5), correction_id="x",
                               requested_by="x", reason="x", tricks=9)
        else:
            approve_late_correction(store, "nope", at=at(22, 0), organiser="x", director="x", statement="x")
    assert {"board": "board 99", "table": "'42'", "naive-time": "timezone",
            "approval": "no correction 'nope'"}[bad] in str(refused.value)
    assert store.head() == head


def test_replays_at_different_wall_clock_times_are_byte_identical(store: EventStore, tmp_path: Path) -> None:
    _session(store)
    _in_time_and_late(store)
    cli = [sys.executable, "-m", "pipelines.cli", "score", "--store", str(store.path)]
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    subprocess.run([*cli, "--out", str(tmp_path / "one")], check=True, env=env, capture_output=True)
    time.sleep(1.1)
    subprocess.run([*cli, "--out", str(tmp_path / "two")], check=True, capture_output=True,
                   env={**env, "TZ": "Asia/Tokyo"})
    for name in ("board_scores.csv", "standings.csv"):
        assert (tmp_path / "one" / name).read_bytes() == (tmp_path / "two" / name).read_bytes()


def test_registered_conditions_of_contest_set_the_period(store: EventStore) -> None:
    from models.conditions import ConditionsOfContest
    from pipelines.commands.director import register_tournament

    rules = ConditionsOfContest.from_toml(SAMPLE_DATA / "club_championship_conditions.toml")
    assert (rules.correction_period_minutes, rules.matchpoints.factoring) == (30, "neuberg")
    _session(store)
    register_tournament(store, EVENT, "Club Championship 2026", at=PLAYED,
                        conditions=rules.model_copy(update={"correction_period_minutes": 60}))
    _in_time_and_late(store)
    edition = score_store(store)
    assert edition.projection.corrections.sort("correction_id")["applied"].to_list() == [True, True]
    window = edition.projection.windows.row(0, named=True)
    assert window["deadline_us"] - window["published_us"] == 60 * 60_000_000
