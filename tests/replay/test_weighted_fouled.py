"""Weighted and split scores (Law 12C1) and fouled boards (Law 87) from the log to the scores."""

from __future__ import annotations

from datetime import UTC, datetime

import polars as pl
import pytest

from models.events import WeightedComponent
from pipelines.commands.director import DirectorError, TableRef, award_weighted, publish_scores, record_fouled_board
from pipelines.files.ingest import ingest_bytes
from pipelines.log.store import EventStore
from pipelines.replay.projections import score_store
from tests.conftest import RECORDED_AT

HEADER = "event,session,board,section,table,ns,ew,contract,declarer,result,lead\n"
BOARD_1 = [  # board 1, nobody vulnerable
    "e,s,1,A,1,1,1,4S,N,=,\n",    # +420
    "e,s,1,A,2,2,2,4S,N,-1,\n",   # -50
    "e,s,1,A,3,3,3,3NT,N,=,\n",   # +400
    "e,s,1,A,4,4,4,2S,N,+2,\n",   # +170
    "e,s,1,A,5,5,5,4S,N,+1,\n",   # +450
]
AT = datetime(2026, 11, 21, 21, 0, tzinfo=UTC)


@pytest.fixture
def board(store: EventStore) -> EventStore:
    ingest_bytes(store, (HEADER + "".join(BOARD_1)).encode(), source="b.csv", recorded_at=RECORDED_AT)
    return store


def _mp(store: EventStore) -> dict[str, tuple[float, float]]:
    scores = score_store(store).board_scores.sort("table_id")
    return {t: (ns, ew) for t, ns, ew in scores.select("table_id", "mp_ns", "mp_ew").rows()}


def test_a_weighted_score_is_matchpointed_outcome_by_outcome(board: EventStore) -> None:
    # Table 2's -50 is replaced by 60% of 4S= (+420) and 40% of 4S-1 (-50).
    award_weighted(board, TableRef("e", "s", 1, "2"), at=AT, requested_at=AT, director="TD", reason="UI",
                   ns_components=[WeightedComponent(contract="4S", declarer="N", tricks=10, weight=0.6),
                                  WeightedComponent(contract="4S", declarer="N", tricks=9, weight=0.4)])
    mp = _mp(board)
    # Against +420 (t1), +400, +170, +450: outcome +420 scores 1+2+2+0 = 5, outcome -50 scores 0.
    assert mp["2"] == (pytest.approx(0.6 * 5 + 0.4 * 0), pytest.approx(8 - (0.6 * 5 + 0.4 * 0)))
    # Table 1 (+420) against the weighted table: ties 60% of it, beats 40% of it -> 0.6*1 + 0.4*2.
    assert mp["1"][0] == pytest.approx(0.6 + 0.8 + 2 + 2 + 0)
    assert sum(ns for ns, _ in mp.values()) == pytest.approx(8 * 5 / 2)


def test_a_split_score_ranks_each_side_with_its_own_outcome(board: EventStore) -> None:
    award_weighted(board, TableRef("e", "s", 1, "2"), at=AT, requested_at=AT, director="TD", reason="12C1(e)",
                   ns_components=[WeightedComponent(contract="4S", declarer="N", tricks=10, weight=1.0)],
                   ew_components=[WeightedComponent(contract="4S", declarer="N", tricks=9, weight=1.0)])
    mp = _mp(board)
    assert mp["2"] == (5.0, 8.0)  # NS as if +420 (1 tie, 2 beaten); EW as if -50 for NS: best for EW


def test_a_late_weighted_ruling_is_rejected_under_law_92b(board: EventStore) -> None:
    publish_scores(board, "e", "s", at=AT)
    award_weighted(board, TableRef("e", "s", 1, "2"), at=datetime(2026, 11, 21, 22, 0, tzinfo=UTC),
                   requested_at=datetime(2026, 11, 21, 21, 45, tzinfo=UTC), director="TD", reason="late",
                   ns_components=[WeightedComponent(contract="4S", declarer="N", tricks=10, weight=1.0)])
    edition = score_store(board)
    assert edition.projection.rulings.select("kind", "applied").rows() == [("weighted", False)]
    assert edition.board_scores.filter(pl.col("table_id") == "2")["score_ns"][0] == -50


def test_weights_must_sum_to_one(board: EventStore) -> None:
    head = board.head()
    with pytest.raises(DirectorError, match=r"sum to 0\.9"):
        award_weighted(board, TableRef("e", "s", 1, "2"), at=AT, requested_at=AT, director="TD", reason="x",
                       ns_components=[WeightedComponent(contract="4S", declarer="N", tricks=10, weight=0.9)])
    assert board.head() == head


def test_a_fouled_board_is_scored_in_its_groups(board: EventStore) -> None:
    record_fouled_board(board, "e", "s", 1, at=AT, section="A", reason="two cards swapped after round 2",
                        groups={"original": ["1", "2", "3"], "fouled": ["4", "5"]})
    scores = score_store(board).board_scores.sort("table_id")
    # Each group of n is Neubergged to the board's 5 results (top 8): (MP_n + 1) * 5/n - 1.
    # original: +420 beats both (4 of top 4), +400 beats one (2), -50 none; fouled: +450 over +170.
    expected = {"1": (4 + 1) * 5 / 3 - 1, "2": (0 + 1) * 5 / 3 - 1, "3": (2 + 1) * 5 / 3 - 1,
                "4": (0 + 1) * 5 / 2 - 1, "5": (2 + 1) * 5 / 2 - 1}
    assert dict(scores.select("table_id", "mp_ns").rows()) == pytest.approx(expected)
    assert scores["top"].to_list() == [8.0] * 5


def test_fouled_groups_must_name_the_tables_that_played(board: EventStore) -> None:
    with pytest.raises(DirectorError, match="unknown: \\['9'\\]"):
        record_fouled_board(board, "e", "s", 1, at=AT, section="A", reason="x",
                            groups={"a": ["1", "9"], "b": ["2"]})


def test_a_weighted_score_stored_without_its_pairs_keeps_the_tables_pairs(board: EventStore) -> None:
    # Events recorded before WeightedScoreAwarded named the pairs: replay takes them from the table.
    from models.events import WeightedScoreAwarded, event_payload, session_stream
    from pipelines.log.store import NewEvent

    old = WeightedScoreAwarded(event_id="e", session_id="s", section="A", board=1, table_id="2",
                               ns_components=(WeightedComponent(contract="4S", declarer="N", tricks=10, weight=1),),
                               requested_at=AT)
    payload = {k: v for k, v in event_payload(old).items() if k not in ("ns_id", "ew_id")}
    board.append([NewEvent(session_stream("e", "s"), old.type, payload, AT)], recorded_at=AT)
    scores = score_store(board)
    row = scores.board_scores.filter(pl.col("table_id") == "2").row(0, named=True)
    assert (row["ns_id"], row["ew_id"], row["mp_ns"], row["mp_ew"]) == ("2", "2", 5.0, 3.0)
    assert scores.standings.filter(pl.col("contestant_id") == "2")["boards"].to_list() == [1, 1]


def test_a_late_ruling_does_not_erase_the_one_before_it_and_a_later_one_replaces_it(board: EventStore) -> None:
    from pipelines.commands.director import award_artificial

    publish_scores(board, "e", "s", at=AT)
    minutes = [datetime(2026, 11, 21, 21, m, tzinfo=UTC) for m in (5, 10, 45)]
    award_weighted(board, TableRef("e", "s", 1, "2"), at=minutes[0], requested_at=minutes[0], director="TD",
                   reason="UI", ns_components=[WeightedComponent(contract="4S", declarer="N", tricks=10, weight=1)])
    award_weighted(board, TableRef("e", "s", 1, "2"), at=minutes[2], requested_at=minutes[2], director="TD",
                   reason="too late", ns_components=[WeightedComponent(contract="4S", declarer="N", tricks=8,
                                                                       weight=1)])
    assert _mp(board)["2"] == (5.0, 3.0)  # the first stands: +420 for NS; the late one is rejected (Law 92B)
    award_artificial(board, TableRef("e", "s", 1, "2"), at=minutes[1], requested_at=minutes[1], ns_award="A",
                     ew_award="A", director="TD", reason="no result after all")
    edition = score_store(board)
    rows = edition.board_scores.filter(pl.col("table_id") == "2")
    assert rows.select("ns_id", "ew_id", "mp_ns", "mp_ew").rows() == [("2", "2", 4.0, 4.0)]  # average, top 8
    decided = edition.projection.rulings.sort("position").select("kind", "applied", "rule").rows()
    assert decided == [("weighted", False, "superseded by a later ruling for the same table"),
                       ("weighted", False, "Law 92B: period for requesting a ruling had expired"),
                       ("artificial", True, "Law 92B: ruling requested within the period")]
