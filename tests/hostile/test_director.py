"""Director input is validated at the edge; a stored event replay cannot use is reported and left
out, never a crash of every session; the audit shows when each request claims to be and when it
was recorded."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

from pipelines.cli.app import app
from pipelines.commands import director
from pipelines.commands.director import TableRef, publish_scores, request_correction
from pipelines.log.store import EventStore, NewEvent
from pipelines.log.vetting import collecting
from pipelines.replay.audit import recorded_times, write_audit
from pipelines.replay.projections import score_store
from tests.conftest import WALL_CLOCK
from tests.hostile.conftest import EVENT, SESSION

runner = CliRunner()
S = ["--event", EVENT, "--session", SESSION]
TABLE = ["--board", "1", "--table", "1"]
AT = datetime(2026, 11, 21, 21, tzinfo=UTC)


@pytest.mark.parametrize("arguments", [
    ["publish", *S, "--period", "1e12"],
    ["publish", *S, "--period", "-30"],
    ["publish", *S, "--period", "nan"],
    ["publish", *S, "--period", "inf"],
    ["publish", *S, "--at", "9999-12-31T00:00Z"],
    ["publish", *S, "--at", "nope"],
    ["publish", "--event", "", "--session", SESSION],
    ["adjust", *S, *TABLE, "--ns", "150", "--ew", "-50", "--director", "TD", "--reason", "r",
     "--requested-at", "2026-11-21T21:05Z"],
    ["adjust", *S, *TABLE, "--ns", "nan", "--ew", "A", "--director", "TD", "--reason", "r",
     "--requested-at", "2026-11-21T21:05Z"],
    ["adjust", *S, *TABLE, "--ns", "A+", "--ew", "A-", "--director", "TD", "--reason", "r",
     "--requested-at", "9999-12-31T00:00Z"],
    ["weighted", *S, *TABLE, "--ns", "4S:N:10:nan", "--director", "TD", "--reason", "r",
     "--requested-at", "2026-11-21T21:05Z"],
    ["penalty", *S, "--contestant", "1", "--amount", "inf", "--unit", "MP", "--reason", "r"],
    ["penalty", *S, "--contestant", "1", "--amount", "nan", "--unit", "MP", "--reason", "r"],
    ["penalty", *S, "--contestant", "1", "--amount", "1e300", "--unit", "MP", "--reason", "r"],
    ["correct", *S, *TABLE, "--tricks", "9", "--id", "", "--by", "NS 1", "--reason", "r"],
    ["correct", *S, *TABLE, "--tricks", "99", "--id", "c9", "--by", "NS 1", "--reason", "r"],
    ["correct", *S, "--board", str(10**30), "--table", "1", "--tricks", "9", "--id", "c9", "--by", "x",
     "--reason", "r"],
    ["approve-late", "--id", "", "--organiser", "o", "--director", "d", "--statement", "s"],
    ["approve-late", "--id", "nope", "--organiser", "o", "--director", "d", "--statement", "s"],
    ["foul", *S, "--board", "1", "--group", "a=", "--group", "b=2", "--reason", "r", "--section", "A"],
    ["foul", *S, "--board", "1", "--group", "a=1", "--group", "b=1", "--reason", "r", "--section", "A"],
    ["register", "--event", EVENT, "--name", "n", "--conditions", "/nonexistent.toml"],
    ["register", "--event", "", "--name", "n", "--conditions", "sample_data/club_championship_conditions.toml",
     "--at", "9999-12-31T00:00Z"],
])
def test_director_input_out_of_bounds_is_refused_and_nothing_appended(sample_store: EventStore,
                                                                        arguments: list[str]) -> None:
    result = runner.invoke(app, arguments)
    assert result.exit_code != 0, result.output
    assert isinstance(result.exception, SystemExit), result.exception  # refused, not crashed
    assert sample_store.head() == 367


def _poison(store: EventStore, event_type: str, payload: dict[str, object], at: datetime = AT) -> int:
    """An event as older code, a bug or a hand at a writable connection could have appended it."""
    appended = store.append([NewEvent(f"session:{EVENT}/{SESSION}", event_type, payload, at)], recorded_at=at)
    assert appended.last_position is not None
    return appended.last_position


TABLE_PAYLOAD = {"event_id": EVENT, "session_id": SESSION, "section": "A", "board": 1, "table_id": "1"}
POISONS: dict[str, tuple[str, dict[str, object], str]] = {
    "period 1e12": ("ScoresPublished", {"event_id": EVENT, "session_id": SESSION,
                                        "correction_period_minutes": 1e12}, "correction period"),
    "period -30": ("ScoresPublished", {"event_id": EVENT, "session_id": SESSION,
                                       "correction_period_minutes": -30}, "correction period"),
    "award 150/-50": ("ArtificialScoreAwarded", {**TABLE_PAYLOAD, "ns_id": "1", "ew_id": "1", "ns_award": 150.0,
                                                 "ew_award": -50.0, "requested_at": "2026-11-21T21:05:00+00:00"},
                      "ns_award 150"),
    "requested in 9999": ("ArtificialScoreAwarded", {**TABLE_PAYLOAD, "ns_id": "1", "ew_id": "1", "ns_award": "A",
                                                     "ew_award": "A", "requested_at": "9999-12-31T00:00:00+00:00"},
                          "requested_at is no time within"),
    "penalty unit": ("PenaltyAwarded", {"event_id": EVENT, "session_id": SESSION, "contestant_id": "1",
                                        "section": "A", "amount": 3, "unit": "XX", "reason": "r"}, "unit XX"),
    "penalty 1e308": ("PenaltyAwarded", {"event_id": EVENT, "session_id": SESSION, "contestant_id": "1",
                                         "section": "A", "amount": 1e308, "unit": "MP", "reason": "r"}, "a penalty"),
    "board -5": ("ResultRecorded", {**TABLE_PAYLOAD, "board": -5, "table_id": "99", "ns_id": "1", "ew_id": "1",
                                    "contract": "3NT", "declarer": "N", "tricks": 9}, "board -5"),
    "tricks 40": ("ScoreCorrectionRequested", {**TABLE_PAYLOAD, "correction_id": "c", "tricks": 40,
                                               "requested_by": "x", "reason": "y"}, "40 tricks"),
    "requested garbage": ("ArtificialScoreAwarded", {**TABLE_PAYLOAD, "ns_id": "1", "ew_id": "1", "ns_award": "A",
                                                     "ew_award": "A", "requested_at": "garbage"}, "requested_at"),
    "groups not a map": ("BoardFouled", {**TABLE_PAYLOAD, "groups": "x"}, "groups is not a map"),
    "groups nested": ("BoardFouled", {**TABLE_PAYLOAD, "groups": {"a": [1, {"x": 2}]}}, "groups is not a map"),
    "contract 8NTXXX": ("ResultRecorded", {**TABLE_PAYLOAD, "table_id": "76", "ns_id": "1", "ew_id": "1",
                                           "contract": "8NTXXX", "declarer": "Q", "tricks": 9}, "contract 8NTXXX"),
    "empty session": ("ResultRecorded", {**TABLE_PAYLOAD, "session_id": "", "ns_id": "1", "ew_id": "1",
                                         "contract": "3NT", "declarer": "N", "tricks": 9}, "session_id is empty"),
}


@pytest.mark.parametrize("conditions", ["x", {"mp_scale": "zz"}])
def test_a_registration_replay_cannot_use_is_left_out(sample_store: EventStore, conditions: object) -> None:
    clean = score_store(sample_store).board_scores
    appended = sample_store.append([NewEvent(f"tournament:{EVENT}", "TournamentRegistered",
                                             {"event_id": EVENT, "name": "n", "conditions": conditions}, AT)],
                                   recorded_at=AT)
    with collecting() as left_out:
        edition = score_store(sample_store)
    assert left_out.events.select("position", "reason").rows() == [
        (appended.last_position, "conditions are not valid conditions of contest")]
    assert edition.board_scores.drop("status").equals(clean.drop("status"))


@pytest.mark.parametrize("name", sorted(POISONS))
def test_a_poisoned_event_is_left_out_and_reported_not_a_crash(sample_store: EventStore, name: str) -> None:
    event_type, payload, why = POISONS[name]
    clean = score_store(sample_store).board_scores
    position = _poison(sample_store, event_type, payload)
    with collecting() as left_out:
        edition = score_store(sample_store)
    assert left_out.events.select("position", "type").rows() == [(position, event_type)]
    assert why in left_out.events["reason"][0]
    assert edition.board_scores.drop("status").equals(clean.drop("status"))


def test_score_and_audit_show_what_was_left_out(sample_store: EventStore, tmp_path: Path) -> None:
    position = _poison(sample_store, *POISONS["period 1e12"][:2])
    scored = runner.invoke(app, ["score", "--out", str(tmp_path / "out")])
    assert scored.exit_code == 0, scored.output
    assert f"position {position} (ScoresPublished): a correction period of 1000000000000.0 minutes" in scored.output
    assert pl.read_csv(tmp_path / "out" / "left_out.csv")["position"].to_list() == [position]
    audited = runner.invoke(app, ["audit", *S, "--out", str(tmp_path / "audit")])
    assert audited.exit_code == 0, audited.output
    html = (tmp_path / "audit" / f"audit_{EVENT}_{SESSION}.html").read_text(encoding="utf-8")
    assert f"position {position}" in html and "Events left out of replay" in html


def test_recorded_at_is_when_we_appended_and_the_audit_flags_back_dating(sample_store: EventStore,
                                                                          tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    ref = TableRef(EVENT, SESSION, 1, "1")
    monkeypatch.setattr(director, "appended_now", lambda: datetime(2026, 11, 21, 21, 1, tzinfo=UTC))
    publish_scores(sample_store, EVENT, SESSION, at=AT)
    monkeypatch.setattr(director, "appended_now", lambda: datetime(2026, 11, 21, 21, 10, tzinfo=UTC))
    request_correction(sample_store, ref, at=datetime(2026, 11, 21, 21, 9, tzinfo=UTC), correction_id="prompt",
                       requested_by="NS 1", reason="8 tricks", tricks=8)
    # Entered three days later, claiming to have been raised inside the 30-minute period.
    monkeypatch.setattr(director, "appended_now", lambda: datetime(2026, 11, 24, 10, 0, tzinfo=UTC))
    late = request_correction(sample_store, ref, at=datetime(2026, 11, 21, 21, 20, tzinfo=UTC),
                              correction_id="backdated", requested_by="NS 1", reason="10 tricks", tricks=10)
    stored = {e.position: e for e in sample_store.read(types=["ScoreCorrectionRequested"])}
    assert stored[late].occurred_at == datetime(2026, 11, 21, 21, 20, tzinfo=UTC)
    assert stored[late].recorded_at == datetime(2026, 11, 24, 10, 0, tzinfo=UTC)
    report = write_audit(score_store(sample_store), EVENT, SESSION, tmp_path,
                         recorded=recorded_times(sample_store))
    rows = {r["id"]: r for r in report.rows.to_dicts()}
    assert rows["backdated"]["raised_at"] == "2026-11-21T21:20:00+0000"
    assert rows["backdated"]["recorded_at"] == "2026-11-24T10:00:00+0000"
    assert rows["backdated"]["back_dated"].startswith("yes: claims a time inside the period")
    assert rows["prompt"]["back_dated"] == ""
    assert "2026-11-24T10:00:00" in report.html_path.read_text(encoding="utf-8")


def test_director_commands_record_the_wall_clock_not_the_claim(sample_store: EventStore,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(director, "appended_now", WALL_CLOCK)  # the real clock, not the tests' (conftest)
    before = datetime.now(UTC)
    result = runner.invoke(app, ["publish", *S, "--at", "2026-11-21T21:00+01:00"])
    assert result.exit_code == 0, result.output
    [published] = sample_store.read(types=["ScoresPublished"])
    assert published.occurred_at == datetime(2026, 11, 21, 20, tzinfo=UTC)
    assert published.recorded_at >= before
