"""A final session stays final (issue #36, items 4 and 5): a republication names no new period once
the period has ended, and a correction entered after the session became final, claiming an earlier
time, applies only when someone acknowledges it (or under a Law 79C2 approval)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import polars as pl
import pytest

from pipelines.commands import director
from pipelines.commands.director import (
    Acknowledgement,
    DirectorError,
    TableRef,
    acknowledge_back_dated,
    approve_late_correction,
    describe_correction,
    describe_publication,
    publish_scores,
    request_correction,
)
from pipelines.files.ingest import IngestOptions, ingest_file
from pipelines.log.store import EventStore, to_epoch_us
from pipelines.replay.audit import recorded_times, write_audit
from pipelines.replay.projections import ScoredEdition, score_store
from pipelines.rulings.corrections import BACK_DATED_RULE
from tests.conftest import RECORDED_AT, SAMPLE_DATA

CET = timezone(timedelta(hours=1))
EVENT, SESSION = "club-championship-2026", "1"
PUBLISHED = datetime(2026, 11, 21, 21, 0, tzinfo=CET)
DECEMBER = datetime(2026, 12, 2, 9, 0, tzinfo=UTC)
"""When the late entries are typed: eleven days after the session became final (21:30 on the 21st)."""
TABLE = TableRef(EVENT, SESSION, board=1, table_id="4", section="A")
"""Recorded 3NT by N with 7 tricks: NS -100; with 9 tricks, +400."""


def _typed_at(monkeypatch: pytest.MonkeyPatch, moment: datetime) -> None:
    monkeypatch.setattr(director, "appended_now", lambda: moment)


def _published(store: EventStore, monkeypatch: pytest.MonkeyPatch) -> None:
    ingest_file(store, SAMPLE_DATA / "club_championship_traveller.csv", recorded_at=RECORDED_AT,
                options=IngestOptions(occurred_at=PUBLISHED - timedelta(hours=2)))
    _typed_at(monkeypatch, PUBLISHED + timedelta(minutes=1))
    publish_scores(store, EVENT, SESSION, at=PUBLISHED)


def _table(edition: ScoredEdition) -> tuple[int, str]:
    row = edition.board_scores.filter((pl.col("board") == 1) & (pl.col("table_id") == "4"))
    return row["score_ns"][0], row["status"][0]


def _decided(store: EventStore, correction_id: str) -> dict[str, object]:
    decisions = score_store(store, as_of_us=to_epoch_us(DECEMBER)).projection.corrections
    return decisions.filter(pl.col("correction_id") == correction_id).row(0, named=True)


# --- item 4: republishing a final session -------------------------------------------------------------

def test_republishing_a_final_session_with_a_year_long_period_leaves_it_final(
        store: EventStore, monkeypatch: pytest.MonkeyPatch) -> None:
    _published(store, monkeypatch)
    _typed_at(monkeypatch, DECEMBER)
    position = publish_scores(store, EVENT, SESSION, at=DECEMBER, correction_period_minutes=525600)
    edition = score_store(store, as_of_us=to_epoch_us(DECEMBER))
    window = edition.projection.windows.row(0, named=True)
    assert window["deadline_us"] == to_epoch_us(PUBLISHED + timedelta(minutes=30))
    assert (window["correction_minutes"], window["status"]) == (30.0, "final")
    assert set(edition.board_scores["status"]) == {"final"}
    said = describe_publication(store, EVENT, SESSION, position, now=DECEMBER)
    assert "already final" in said and "525600 minutes) is not applied" in said and "2026-11-21T20:30:00" in said


def test_a_back_dated_republication_does_not_reopen_it_either(store: EventStore,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    _published(store, monkeypatch)
    _typed_at(monkeypatch, DECEMBER)  # typed in December, claiming ten minutes after the first publication
    position = publish_scores(store, EVENT, SESSION, at=PUBLISHED + timedelta(minutes=10),
                              correction_period_minutes=525600)
    window = score_store(store, as_of_us=to_epoch_us(DECEMBER)).projection.windows.row(0, named=True)
    assert (window["correction_minutes"], window["status"]) == (30.0, "final")
    assert "is not applied" in describe_publication(store, EVENT, SESSION, position, now=DECEMBER)


def test_a_period_named_while_provisional_still_applies(store: EventStore, monkeypatch: pytest.MonkeyPatch) -> None:
    _published(store, monkeypatch)
    position = publish_scores(store, EVENT, SESSION, at=PUBLISHED + timedelta(minutes=20),
                              correction_period_minutes=120)
    window = score_store(store).projection.windows.row(0, named=True)
    assert window["deadline_us"] == to_epoch_us(PUBLISHED + timedelta(hours=2))
    said = describe_publication(store, EVENT, SESSION, position, now=PUBLISHED + timedelta(minutes=21))
    assert said == "republished; the session is provisional, its correction period ends at 2026-11-21T22:00:00+00:00"


# --- item 5: a back-dated correction ------------------------------------------------------------------

def test_a_correction_typed_after_finality_claiming_an_earlier_time_is_not_applied(
        store: EventStore, monkeypatch: pytest.MonkeyPatch) -> None:
    _published(store, monkeypatch)
    before = _table(score_store(store, as_of_us=to_epoch_us(DECEMBER)))
    _typed_at(monkeypatch, DECEMBER)
    request_correction(store, TABLE, at=datetime(2026, 11, 21, 10, 0, tzinfo=CET), correction_id="typed-late",
                       requested_by="NS 4", reason="9 tricks", tricks=9)
    assert _table(score_store(store, as_of_us=to_epoch_us(DECEMBER))) == before == (-100, "final")
    decided = _decided(store, "typed-late")
    assert (decided["window"], decided["applied"], decided["back_dated"], decided["awaiting"], decided["rule"]) == (
        "before publication", False, True, "acknowledgement", BACK_DATED_RULE)
    said = describe_correction(store, "typed-late", now=DECEMBER)
    assert said.startswith("not applied: back-dated") and "acknowledge-back-dated --id typed-late" in said


def test_claiming_a_time_inside_the_period_is_back_dated_too(store: EventStore,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    _published(store, monkeypatch)
    _typed_at(monkeypatch, DECEMBER)
    request_correction(store, TABLE, at=PUBLISHED + timedelta(minutes=10), correction_id="inside",
                       requested_by="NS 4", reason="9 tricks", tricks=9)
    decided = _decided(store, "inside")
    assert (decided["window"], decided["applied"], decided["awaiting"]) == (
        "inside correction period", False, "acknowledgement")


def test_an_acknowledgement_lets_it_in_and_the_audit_says_who_and_why(
        store: EventStore, monkeypatch: pytest.MonkeyPatch, tmp_path: object) -> None:
    _published(store, monkeypatch)
    _typed_at(monkeypatch, DECEMBER)
    request_correction(store, TABLE, at=datetime(2026, 11, 21, 10, 0, tzinfo=CET), correction_id="slip",
                       requested_by="NS 4", reason="9 tricks", tricks=9)
    acknowledge_back_dated(store, "slip", Acknowledgement("TD Smith", "pick-up slip found in the box on Monday"))
    edition = score_store(store, as_of_us=to_epoch_us(DECEMBER))
    assert _table(edition) == (400, "final")
    decided = _decided(store, "slip")
    assert decided["applied"] is True and decided["awaiting"] is None
    assert (decided["rule"], decided["acknowledged_by"], decided["acknowledgement"]) == (
        "ordinary fix before publication", "TD Smith", "pick-up slip found in the box on Monday")
    [stored] = store.read(types=["BackDatedCorrectionAcknowledged"])
    assert (stored.payload["correction_id"], stored.recorded_at) == ("slip", DECEMBER)
    from pathlib import Path

    report = write_audit(edition, EVENT, SESSION, Path(str(tmp_path)), recorded=recorded_times(store))
    row = report.rows.filter(pl.col("id") == "slip").row(0, named=True)
    assert (row["decision"], row["back_dated"][:4]) == ("applied", "yes:")
    assert row["back_dated"].endswith("; acknowledged by TD Smith: pick-up slip found in the box on Monday")
    with pytest.raises(DirectorError, match="already acknowledged"):
        acknowledge_back_dated(store, "slip", Acknowledgement("TD Jones", "again"))


def test_the_acknowledgement_can_come_with_the_request(store: EventStore, monkeypatch: pytest.MonkeyPatch) -> None:
    _published(store, monkeypatch)
    _typed_at(monkeypatch, DECEMBER)
    position = request_correction(store, TABLE, at=PUBLISHED + timedelta(minutes=10), correction_id="with",
                                  requested_by="NS 4", reason="9 tricks", tricks=9,
                                  acknowledgement=Acknowledgement("Scorer", "entered from the paper log"))
    assert [e.type for e in store.read()[-2:]] == ["ScoreCorrectionRequested", "BackDatedCorrectionAcknowledged"]
    assert store.read()[-2].position == position
    assert _decided(store, "with")["applied"] is True


def test_a_correction_entered_in_time_needs_no_acknowledgement(store: EventStore,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    _published(store, monkeypatch)
    _typed_at(monkeypatch, PUBLISHED + timedelta(minutes=11))
    request_correction(store, TABLE, at=PUBLISHED + timedelta(minutes=10), correction_id="prompt",
                       requested_by="NS 4", reason="9 tricks", tricks=9)
    decided = _decided(store, "prompt")
    assert (decided["applied"], decided["back_dated"]) == (True, False)
    assert describe_correction(store, "prompt", now=DECEMBER) == (
        "applied (inside correction period): Law 79C1: raised within the correction period")
    with pytest.raises(DirectorError, match="not back-dated"):
        acknowledge_back_dated(store, "prompt", Acknowledgement("TD", "why"))
    assert store.read(types=["BackDatedCorrectionAcknowledged"]) == []


def test_a_79c2_approval_lets_a_back_dated_correction_in(store: EventStore, monkeypatch: pytest.MonkeyPatch) -> None:
    _published(store, monkeypatch)
    _typed_at(monkeypatch, DECEMBER)
    request_correction(store, TABLE, at=PUBLISHED + timedelta(minutes=10), correction_id="approved",
                       requested_by="NS 4", reason="9 tricks", tricks=9)
    approve_late_correction(store, "approved", at=DECEMBER, organiser="Chief TO", director="TD",
                            statement="satisfied beyond reasonable doubt")
    decided = _decided(store, "approved")
    assert (decided["applied"], decided["rule"]) == (True, "Law 79C2: late correction approved by the organiser")


def test_a_late_correction_waits_for_a_79c2_approval(store: EventStore, monkeypatch: pytest.MonkeyPatch) -> None:
    _published(store, monkeypatch)
    _typed_at(monkeypatch, DECEMBER)
    request_correction(store, TABLE, at=DECEMBER, correction_id="late", requested_by="NS 4", reason="9 tricks",
                       tricks=9)
    decided = _decided(store, "late")
    assert (decided["applied"], decided["back_dated"], decided["awaiting"]) == (False, False, "Law 79C2 approval")
    said = describe_correction(store, "late", now=DECEMBER)
    assert said.startswith("rejected: Law 79C1: correction period had expired") and "approve-late --id late" in said
    with pytest.raises(DirectorError, match="a late correction, which only a Law 79C2 approval lets in"):
        acknowledge_back_dated(store, "late", Acknowledgement("TD", "why"))
