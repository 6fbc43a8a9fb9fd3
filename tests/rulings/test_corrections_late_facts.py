"""A final session stays final for every director fact (issue #36, item 5): an adjusted or weighted
score, a fouled board or a penalty typed after the session became final, claiming an earlier time,
changes neither its scores, its standings nor the ranking until someone acknowledges it."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path

import polars as pl
import pytest

from models.awards import parse_award
from models.events import WeightedComponent
from pipelines.commands import director
from pipelines.commands.director import (
    Acknowledgement,
    DirectorError,
    TableRef,
    acknowledge_late_fact,
    award_artificial,
    award_penalty,
    award_weighted,
    describe_fact,
    record_fouled_board,
)
from pipelines.log.store import EventStore, to_epoch_us
from pipelines.ranking.edition import compute_edition
from pipelines.ranking.rules import load_rules
from pipelines.replay.audit import recorded_times, write_audit
from pipelines.replay.projections import score_store
from tests.ranking.scenario import CET, EVENT, FINAL, PUBLISHED, SESSION, build_session

DECEMBER = datetime(2026, 12, 2, 10, 0, tzinfo=CET)
"""When the late facts are typed: eleven days after the session became final (21:30 on the 21st)."""
CLAIMED = PUBLISHED + timedelta(minutes=10)
"""The time the late facts claim: inside the correction period."""
AS_OF = DECEMBER + timedelta(hours=1)
SBU = load_rules("sbu")
TABLE = TableRef(EVENT, SESSION, board=1, table_id="4", section="A")
"""NS 4 against EW 7: 3NT by N, 7 tricks (NS -100)."""
WHO = Acknowledgement("TD Smith", "the ruling slip was found in the box on Monday")

Typed = Callable[[EventStore, datetime, Acknowledgement | None], int]


def _adjusted(store: EventStore, at: datetime, acknowledgement: Acknowledgement | None = None) -> int:
    return award_artificial(store, TABLE, at=at, requested_at=at - timedelta(minutes=5),
                            ns_award=parse_award("A+"), ew_award=parse_award("A-"), director="TD",
                            reason="no play possible", acknowledgement=acknowledgement)


def _weighted(store: EventStore, at: datetime, acknowledgement: Acknowledgement | None = None) -> int:
    return award_weighted(store, TABLE, at=at, requested_at=at - timedelta(minutes=5),
                          ns_components=[WeightedComponent(contract="3NT", declarer="N", tricks=9, weight=1.0)],
                          director="TD", reason="misinformation", acknowledgement=acknowledgement)


def _fouled(store: EventStore, at: datetime, acknowledgement: Acknowledgement | None = None) -> int:
    return record_fouled_board(store, EVENT, SESSION, 1, at=at, section="A", reason="a card moved after round 2",
                               groups={"original": [str(t) for t in range(1, 5)],
                                       "fouled": [str(t) for t in range(5, 14)]},
                               acknowledgement=acknowledgement)


def _penalised(store: EventStore, at: datetime, acknowledgement: Acknowledgement | None = None) -> int:
    # NS 7 won the session: 60 MP off drops it out of the ranking's places.
    return award_penalty(store, EVENT, SESSION, "7", at=at, amount=60, unit="MP", reason="slow play", law="90B2",
                         direction="NS", acknowledgement=acknowledgement)


FACTS: dict[str, Typed] = {"adjust": _adjusted, "weighted": _weighted, "foul": _fouled, "penalty": _penalised}


def _typed_at(monkeypatch: pytest.MonkeyPatch, moment: datetime) -> None:
    monkeypatch.setattr(director, "appended_now", lambda: moment)


def _state(store: EventStore) -> tuple[list[tuple[object, ...]], list[tuple[object, ...]], str]:
    """The session's board scores and standings, and the ranking edition's output, as of December."""
    edition = score_store(store, as_of_us=to_epoch_us(AS_OF))
    boards = edition.board_scores.sort("board", "table_id").select(
        "board", "table_id", "score_ns", "mp_ns", "mp_ew", "status").rows()
    standings = edition.standings.sort("direction", "contestant_id").select(
        "direction", "contestant_id", "score", "status").rows()
    return boards, standings, compute_edition(store, SBU, as_of=AS_OF).output_sha256()


@pytest.fixture
def final(store: EventStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> EventStore:
    """The sample session published at 21:00 on 21 November, final at 21:30, and December on the clock."""
    build_session(store, tmp_path)
    _typed_at(monkeypatch, DECEMBER)
    return store


@pytest.mark.parametrize("kind", FACTS)
def test_a_back_dated_fact_changes_nothing_until_acknowledged(final: EventStore, kind: str) -> None:
    before = _state(final)
    position = FACTS[kind](final, CLAIMED, None)
    assert _state(final) == before
    said = describe_fact(final, position, now=DECEMBER)
    assert said.startswith("not applied: back-dated;") and "2026-11-21T20:30:00+00:00" in said
    assert f"bridgeledger acknowledge-back-dated --position {position} --by NAME --reason WHY" in said

    acknowledge_late_fact(final, position, WHO)
    after = _state(final)
    assert after[1] != before[1]  # the session's standings change...
    assert after[2] != before[2]  # ...and so does the ranking edition
    assert describe_fact(final, position, now=DECEMBER).startswith("applied")
    assert "acknowledged by TD Smith: the ruling slip was found in the box on Monday" in \
        describe_fact(final, position, now=DECEMBER)
    # A replay as of before the acknowledgement still shows the session as it stood then.
    early = score_store(final, as_of_us=to_epoch_us(FINAL + timedelta(days=1)))
    late = score_store(final, as_of_us=to_epoch_us(AS_OF))
    assert early.standings.sort("direction", "contestant_id")["score"].to_list() == \
        [row[2] for row in before[1]]
    assert late.standings.sort("direction", "contestant_id")["score"].to_list() == [row[2] for row in after[1]]


@pytest.mark.parametrize("kind", FACTS)
def test_the_acknowledgement_can_come_with_the_fact(final: EventStore, kind: str) -> None:
    before = _state(final)
    position = FACTS[kind](final, CLAIMED, WHO)
    assert [e.type for e in final.read()[-2:]][1] == "BackDatedCorrectionAcknowledged"
    assert final.read()[-2].position == position
    assert _state(final)[1] != before[1]
    assert describe_fact(final, position, now=DECEMBER).startswith("applied")


def test_a_fact_typed_in_time_needs_no_acknowledgement(final: EventStore, monkeypatch: pytest.MonkeyPatch) -> None:
    _typed_at(monkeypatch, CLAIMED + timedelta(minutes=1))
    before = _state(final)
    position = _penalised(final, CLAIMED)
    assert _state(final)[1] != before[1]
    assert describe_fact(final, position, now=DECEMBER) == (
        "applied: recorded before the session became final (2026-11-21T20:30:00+00:00)")
    with pytest.raises(DirectorError, match="was recorded before its session became final"):
        acknowledge_late_fact(final, position, WHO)


def test_a_penalty_typed_honestly_after_finality_waits_for_an_acknowledgement_too(final: EventStore) -> None:
    before = _state(final)
    position = _penalised(final, DECEMBER)
    assert _state(final) == before
    said = describe_fact(final, position, now=DECEMBER)
    assert said.startswith("not applied: recorded at 2026-12-02T09:00:00+00:00, after the session became final")
    assert "Law 79C" in said and "--position" in said
    acknowledge_late_fact(final, position, WHO)
    assert _state(final)[1] != before[1]
    with pytest.raises(DirectorError, match="already acknowledged by TD Smith"):
        acknowledge_late_fact(final, position, WHO)


def test_a_ruling_requested_after_the_law_92b_period_cannot_be_acknowledged(final: EventStore) -> None:
    before = _state(final)
    position = award_artificial(final, TABLE, at=DECEMBER, requested_at=DECEMBER, ns_award=parse_award("A+"),
                                ew_award=parse_award("A-"), director="TD", reason="late")
    assert _state(final) == before
    said = describe_fact(final, position, now=DECEMBER)
    assert said.startswith("rejected: Law 92B: period for requesting a ruling had expired")
    with pytest.raises(DirectorError, match="Law 92B"):
        acknowledge_late_fact(final, position, WHO)


def test_acknowledging_a_position_that_is_no_director_fact_is_refused(final: EventStore) -> None:
    with pytest.raises(DirectorError, match="position 1 is a MemberRegistered"):
        acknowledge_late_fact(final, 1, WHO)
    with pytest.raises(DirectorError, match="there is no event at log position 999999"):
        acknowledge_late_fact(final, 999999, WHO)


def test_the_audit_lists_a_late_fact_with_its_back_dating(final: EventStore, tmp_path: Path) -> None:
    held = _penalised(final, CLAIMED)
    let_in = _weighted(final, CLAIMED)
    acknowledge_late_fact(final, let_in, WHO)
    edition = score_store(final, as_of_us=to_epoch_us(AS_OF), sessions=[(EVENT, SESSION)])
    report = write_audit(edition, EVENT, SESSION, tmp_path / "audit", recorded=recorded_times(final))
    rows = {row["kind"]: row for row in report.rows.iter_rows(named=True)}
    assert (rows["penalty"]["decision"], rows["penalty"]["back_dated"][:4]) == ("awaiting acknowledgement", "yes:")
    assert rows["penalty"]["id"] == str(held)
    assert rows["ruling"]["decision"] == "applied"
    assert rows["ruling"]["back_dated"].endswith(f"; acknowledged by {WHO.acknowledged_by}: {WHO.reason}")
    assert pl.read_csv(report.csv_path).height == report.rows.height


def test_the_cli_says_what_was_decided_and_how_to_let_it_in(final: EventStore, tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    from typer.testing import CliRunner

    from pipelines.cli.app import app

    monkeypatch.setenv("BRIDGELEDGER_STORE", str(final.path))
    runner = CliRunner()
    penalty = runner.invoke(app, ["penalty", "--event", EVENT, "--session", SESSION, "--contestant", "7",
                                  "--direction", "NS", "--amount", "60", "--unit", "MP", "--reason", "slow play",
                                  "--at", "2026-11-21T21:10+01:00"])
    assert penalty.exit_code == 0, penalty.output
    position = int(penalty.output.split("recorded at log position ")[1].split()[0])
    said = " ".join(penalty.output.split())
    assert "not applied: back-dated; the penalty claims 2026-11-21T20:10:00+00:00" in said
    assert f"acknowledge-back-dated --position {position} --by NAME --reason WHY" in said
    half = runner.invoke(app, ["foul", "--event", EVENT, "--session", SESSION, "--board", "1", "--section", "A",
                               "--group", "a=1,2", "--group", "b=3,4", "--reason", "x",
                               "--acknowledged-by", "TD"])
    assert half.exit_code != 0 and "go together" in half.output
    both = runner.invoke(app, ["acknowledge-back-dated", "--id", "c1", "--position", str(position), "--by", "TD",
                               "--reason", "why"])
    assert both.exit_code != 0 and "name one fact" in both.output
    let_in = runner.invoke(app, ["acknowledge-back-dated", "--position", str(position), "--by", "TD Smith",
                                 "--reason", "slip found on Monday"])
    assert let_in.exit_code == 0, let_in.output
    assert "applied: back-dated, acknowledged by TD Smith: slip found on Monday" in " ".join(let_in.output.split())
    again = runner.invoke(app, ["acknowledge-back-dated", "--position", str(position), "--by", "TD", "--reason", "x"])
    assert again.exit_code == 1 and "already acknowledged by TD Smith" in again.output


def test_an_old_log_s_acknowledgement_replays_unchanged(final: EventStore) -> None:
    """A version 1 acknowledgement (a correction's, before facts could be named) reads as version 2."""
    from models.events import session_stream
    from pipelines.commands.director import request_correction
    from pipelines.log.store import NewEvent

    request_correction(final, TABLE, at=CLAIMED, correction_id="slip", requested_by="NS 4", reason="9 tricks",
                       tricks=9)
    payload = {"correction_id": "slip", "event_id": EVENT, "session_id": SESSION, "acknowledged_by": "TD",
               "reason": "found on Monday"}
    final.append([NewEvent(session_stream(EVENT, SESSION), "BackDatedCorrectionAcknowledged", payload, DECEMBER,
                           schema_version=1)], recorded_at=DECEMBER)
    [stored] = final.read(types=["BackDatedCorrectionAcknowledged"])
    assert (stored.schema_version, stored.payload["fact_version"], stored.payload["correction_id"]) == (2, None, "slip")
    with final.reader() as con:  # upcast on read: the row stays as written
        assert con.execute("SELECT schema_version FROM events WHERE position = ?",
                           [stored.position]).fetchall() == [(1,)]
    decided = score_store(final, as_of_us=to_epoch_us(AS_OF)).projection.corrections.row(0, named=True)
    assert (decided["applied"], decided["acknowledged_by"], decided["acknowledgement"]) == (
        True, "TD", "found on Monday")


def test_an_acknowledgement_naming_no_fact_is_left_out_of_replay(final: EventStore) -> None:
    from models.events import BackDatedCorrectionAcknowledged, session_stream
    from pipelines.log.store import NewEvent

    with pytest.raises(ValueError, match="names one fact"):
        BackDatedCorrectionAcknowledged(event_id=EVENT, session_id=SESSION, acknowledged_by="TD", reason="x")
    before = _state(final)
    position = _penalised(final, CLAIMED)
    final.append([NewEvent(session_stream(EVENT, SESSION), "BackDatedCorrectionAcknowledged",
                           {"event_id": EVENT, "session_id": SESSION, "acknowledged_by": "TD", "reason": "x"},
                           DECEMBER)], recorded_at=DECEMBER)
    assert _state(final) == before
    assert describe_fact(final, position, now=DECEMBER).startswith("not applied: back-dated")


def test_a_ruling_typed_while_its_longer_law_92b_period_is_open_needs_no_acknowledgement(
        final: EventStore, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Rulings may be requested for 90 minutes here while corrections close after 30: a ruling
    typed at 22:00, when the session is final but its 92B period open, is not late; typed after
    22:30 while claiming a request at 21:50, it is."""
    from models.conditions import ConditionsOfContest
    from pipelines.commands.director import register_tournament
    from tests.conftest import SAMPLE_DATA

    rules = ConditionsOfContest.from_toml(SAMPLE_DATA / "club_championship_conditions.toml")
    register_tournament(final, EVENT, "Club Championship 2026", at=PUBLISHED - timedelta(hours=3),
                        conditions=rules.model_copy(update={"appeal_period_minutes": 90}))
    open_92b = PUBLISHED + timedelta(minutes=50)
    _typed_at(monkeypatch, PUBLISHED + timedelta(hours=1))
    in_time = award_artificial(final, TABLE, at=PUBLISHED + timedelta(hours=1), requested_at=open_92b,
                               ns_award=parse_award("A+"), ew_award=parse_award("A-"), director="TD", reason="x")
    assert describe_fact(final, in_time, now=DECEMBER) == (
        "applied (inside ruling period): Law 92B: ruling requested within the period")
    _typed_at(monkeypatch, DECEMBER)
    late = award_artificial(final, TableRef(EVENT, SESSION, board=2, table_id="4", section="A"), at=DECEMBER,
                            requested_at=open_92b, ns_award=parse_award("A"), ew_award=parse_award("A"),
                            director="TD", reason="y")
    said = describe_fact(final, late, now=DECEMBER)
    assert said.startswith("not applied: back-dated; the adjusted score claims 2026-11-21T20:50:00+00:00")
    assert "after the session was final and its Law 92B period had ended at 2026-11-21T21:30:00+00:00" in said
    edition = score_store(final, as_of_us=to_epoch_us(AS_OF), sessions=[(EVENT, SESSION)])
    report = write_audit(edition, EVENT, SESSION, tmp_path / "audit", recorded=recorded_times(final))
    marks = dict(report.rows.select("id", "back_dated").iter_rows())
    assert marks[str(in_time)] == "" and marks[str(late)].startswith("yes: ")
