"""The audit's "before" scores, kept by what they are computed from: a correction looks them up, a new
result or ruling, new conditions or new scoring code scores them again."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta, timezone

import polars as pl
import pytest
from polars.testing import assert_frame_equal

import pipelines.replay.audit_before as audit_before
from models.conditions import ConditionsOfContest, MatchpointRules
from pipelines.commands.director import (
    TableRef,
    award_artificial,
    publish_scores,
    register_tournament,
    request_correction,
)
from pipelines.files.ingest import IngestOptions, ingest_file
from pipelines.log.store import EventStore
from pipelines.replay.audit import audit_rows
from pipelines.replay.audit_before import TABLE, remembered
from pipelines.replay.projections import score_store
from tests.conftest import RECORDED_AT, SAMPLE_DATA

CET = timezone(timedelta(hours=1))
EVENT, SESSION = "club-championship-2026", "1"


def at(hh: int, mm: int) -> datetime:
    return datetime(2026, 11, 21, hh, mm, tzinfo=CET)


@pytest.fixture
def corrected(store: EventStore) -> EventStore:
    ingest_file(store, SAMPLE_DATA / "club_championship_traveller.csv", recorded_at=RECORDED_AT,
                options=IngestOptions(occurred_at=at(19, 0)))
    publish_scores(store, EVENT, SESSION, at=at(21, 0))
    request_correction(store, TableRef(EVENT, SESSION, 1, "4", "A"), at=at(21, 10), correction_id="c1",
                       requested_by="NS pair 4", reason="9 tricks, not 7", tricks=9)
    return store


class Counting:
    """`remembered` on a store, counting the scorings it could not spare."""

    def __init__(self, store: EventStore) -> None:
        self.store = store
        self.scored = 0

    def __call__(self, key: str, score: Callable[[], pl.DataFrame]) -> pl.DataFrame:
        def counted() -> pl.DataFrame:
            self.scored += 1
            return score()

        return remembered(self.store, key, counted)


def _audit(store: EventStore, remember: Counting | None) -> pl.DataFrame:
    return audit_rows(score_store(store), EVENT, SESSION, remember=remember)


def test_kept_before_scores_give_the_audit_a_scoring_gives(corrected: EventStore) -> None:
    remember = Counting(corrected)
    fresh = _audit(corrected, None)
    assert fresh.select("id", "before_score_ns", "after_score_ns").row(0) == ("c1", -100, 400)
    assert fresh["before_mp_ns"][0] is not None and fresh["before_mp_ns"][0] < fresh["after_mp_ns"][0]
    assert_frame_equal(_audit(corrected, remember), fresh)  # scored, then kept
    assert_frame_equal(_audit(corrected, remember), fresh)  # looked up
    assert remember.scored == 1
    with corrected.reader() as con:
        assert con.execute(f"SELECT count(*) FROM {TABLE}").fetchall() == [(1,)]


def test_a_correction_looks_the_scores_up_and_a_ruling_scores_them_again(corrected: EventStore) -> None:
    remember = Counting(corrected)
    _audit(corrected, remember)
    request_correction(corrected, TableRef(EVENT, SESSION, 3, "2", "A"), at=at(21, 20), correction_id="c2",
                       requested_by="EW pair 2", reason="one more trick", tricks=10)
    second = _audit(corrected, remember)
    assert remember.scored == 1 and second["id"].to_list() == ["c1", "c2"]  # the inputs are the same
    assert_frame_equal(second, _audit(corrected, None))
    award_artificial(corrected, TableRef(EVENT, SESSION, 5, "2", "A"), at=at(21, 30), requested_at=at(21, 25),
                     ns_award="A+", ew_award="A-", director="TD Smith", reason="a late arrival")
    third = _audit(corrected, remember)
    assert remember.scored == 2  # a ruling stands in "before" too: new inputs, scored again
    assert_frame_equal(third, _audit(corrected, None))


def test_new_conditions_or_new_scoring_code_score_again(corrected: EventStore,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    remember = Counting(corrected)
    _audit(corrected, remember)
    register_tournament(corrected, EVENT, "Club championship", at=at(21, 15),
                        conditions=ConditionsOfContest(matchpoints=MatchpointRules(factoring="none")))
    _audit(corrected, remember)
    assert remember.scored == 2
    monkeypatch.setattr(audit_before, "_code_digest", lambda: b"other scoring code")
    _audit(corrected, remember)
    assert remember.scored == 3
