"""Export a session and read it back: what we publish is what we would score from the file."""

from __future__ import annotations

from collections import Counter
from datetime import timedelta
from pathlib import Path

import polars as pl
import pytest

from models.cards import Seat
from models.events import WeightedComponent
from parsers import lin, pbn
from parsers.records import ArtificialRecord, ResultRecord
from pipelines.commands.director import TableRef, award_artificial, award_weighted, publish_scores, request_correction
from pipelines.files.exports import ExportError, export_session, session_records
from pipelines.files.ingest import ingest_bytes, ingest_file
from pipelines.log.store import EventStore, NewEvent
from pipelines.published.scores import published_differences, published_values
from pipelines.replay.projections import score_store
from tests.conftest import RECORDED_AT, SAMPLE_DATA

EVENT, SESSION = "club-championship-2026", "1"


@pytest.fixture
def sample(store: EventStore) -> EventStore:
    for name in ("club_championship_handrecord.pbn", "club_championship_traveller.csv"):
        ingest_file(store, SAMPLE_DATA / name, recorded_at=RECORDED_AT)
    publish_scores(store, EVENT, SESSION, at=RECORDED_AT)
    return store


def test_exported_pbn_reads_back_whole_and_reproduces_our_scores(sample: EventStore, tmp_path: Path) -> None:
    text = export_session(sample, EVENT, SESSION, "pbn")
    parsed = pbn.loads(text, source="export.pbn", strict=True)
    assert (len(parsed.boards), len(parsed.results), len(parsed.artificial), parsed.errors) == (26, 337, 1, ())
    again = EventStore(tmp_path / "again.duckdb")
    ingest_bytes(again, text.encode(), source="export.pbn", recorded_at=RECORDED_AT)
    edition = score_store(again)
    # Score, both sides' MPs and % of every result; the artificial score's MPs and % (ours, too).
    assert published_values(again, edition.position).height == 337 * 5 + 4
    assert published_differences(again, edition).height == 0
    assert edition.standings.height == 26


def test_exported_lin_keeps_deals_and_results(sample: EventStore) -> None:
    parsed = lin.loads(export_session(sample, EVENT, SESSION, "lin"), source="export.lin")
    assert (len(parsed.boards), len(parsed.results), parsed.errors) == (26, 337, ())
    ours = {(r.board, str(r.contract), r.contract.declarer, r.tricks) for r in parsed.results}
    assert (1, "3NT", "N", 9) in {(b, c, d.value if d else None, t) for b, c, d, t in ours}


def test_exporting_an_unknown_session_or_format_is_a_clear_error(sample: EventStore) -> None:
    with pytest.raises(ExportError, match="no session"):
        export_session(sample, EVENT, "9", "pbn")
    with pytest.raises(ExportError, match="formats: lin, pbn"):
        export_session(sample, EVENT, SESSION, "docx")


def test_an_export_after_corrections_writes_the_results_that_stand(sample: EventStore) -> None:
    # Board 1, table 4 recorded 3NT by N with 7 tricks; board 2, table 3 recorded 1NT by N with 7.
    later = RECORDED_AT + timedelta(minutes=10)
    request_correction(sample, TableRef(EVENT, SESSION, 1, "4", "A"), at=later, correction_id="c1",
                       requested_by="NS 4", reason="9 tricks, not 7", tricks=9)
    request_correction(sample, TableRef(EVENT, SESSION, 2, "3", "A"), at=later, correction_id="c2",
                       requested_by="EW 3", reason="the contract was 2NT by S", contract="2NT", declarer="S",
                       tricks=8)
    parsed = pbn.loads(export_session(sample, EVENT, SESSION, "pbn"), source="export.pbn", strict=True)
    assert parsed.errors == ()
    written = {(r.board, r.table_id): r for r in parsed.results}
    first, second = written[(1, "4")], written[(2, "3")]
    assert (str(first.contract), first.contract.declarer, first.tricks) == ("3NT", Seat.N, 9)
    assert first.published["score_ns"] == 400  # 3NT just made, not vulnerable (board 1)
    assert (str(second.contract), second.contract.declarer, second.tricks) == ("2NT", Seat.S, 8)
    assert second.published["score_ns"] == 120  # 2NT made, NS vulnerable on board 2: no game bonus
    assert (second.auction, second.play) == ((), ())  # the recorded auction led to another contract
    lin_text = export_session(sample, EVENT, SESSION, "lin")
    again = Counter((r.board, str(r.contract), r.tricks) for r in lin.loads(lin_text, source="export.lin").results)
    # Board 1: tables 1, 2, 5, 8 and 10 made nine tricks, and now table 4; table 11 alone has seven.
    assert (again[(1, "3NT", 9)], again[(1, "3NT", 7)], again[(2, "2NT", 8)]) == (6, 1, 1)


# Board 3, table 4 recorded 2D by N with 8 tricks (pairs 4 and 6); board 4, table 4 2DX by E with 6.
RULED, WEIGHTED = TableRef(EVENT, SESSION, 3, "4", "A"), TableRef(EVENT, SESSION, 4, "4", "A")


def _exported(store: EventStore) -> tuple[dict[tuple[int, str], ResultRecord], dict[tuple[int, str], ArtificialRecord]]:
    parsed = pbn.loads(export_session(store, EVENT, SESSION, "pbn"), source="export.pbn", strict=True)
    assert parsed.errors == ()
    return ({(r.board, r.table_id): r for r in parsed.results},
            {(a.board, a.table_id): a for a in parsed.artificial})


def test_a_table_under_an_artificial_ruling_is_written_as_the_ruling_not_as_its_recorded_contract(
        sample: EventStore) -> None:
    later = RECORDED_AT + timedelta(minutes=10)
    award_artificial(sample, RULED, at=later, requested_at=later, ns_award="A+", ew_award="A-",
                     director="TD", reason="the board was fouled at this table")
    results, artificial = _exported(sample)
    assert (3, "4") not in results  # 2D by N, 8 tricks was not the result that stands
    ruled = artificial[(3, "4")]
    assert (ruled.ns_id, ruled.ew_id, ruled.ns_award, ruled.ew_award) == ("4", "6", "A+", "A-")
    assert (ruled.published["pct_ns"], ruled.published["pct_ew"]) == (60.0, 40.0)
    assert sorted(artificial) == [(3, "4"), (7, "5")]  # the file's own award on board 7 is still there
    lin_results = lin.loads(export_session(sample, EVENT, SESSION, "lin"), source="export.lin").results
    assert (3, "4") not in {(r.board, r.table_id) for r in lin_results}  # LIN has no artificial row: no line
    assert len(lin_results) == 336


def test_a_rejected_or_superseded_artificial_ruling_is_not_written(sample: EventStore) -> None:
    later, late = RECORDED_AT + timedelta(minutes=10), RECORDED_AT + timedelta(hours=3)
    award_artificial(sample, RULED, at=later, requested_at=later, ns_award="A+", ew_award="A-",
                     director="TD", reason="first ruling")
    award_artificial(sample, RULED, at=later + timedelta(minutes=1), requested_at=later, ns_award="A",
                     ew_award="A", director="TD", reason="on review, both sides partly at fault")
    # Asked for three hours after publication: outside the Law 92B period, recorded and rejected.
    award_artificial(sample, TableRef(EVENT, SESSION, 5, "4", "A"), at=late, requested_at=late,
                     ns_award="A+", ew_award="A-", director="TD", reason="too late")
    results, artificial = _exported(sample)
    assert sorted(artificial) == [(3, "4"), (7, "5")]
    assert (artificial[(3, "4")].ns_award, artificial[(3, "4")].ew_award) == ("A", "A")
    assert (artificial[(3, "4")].published["pct_ns"], artificial[(3, "4")].published["pct_ew"]) == (50.0, 50.0)
    late_table = results[(5, "4")]  # the result recorded there stands, with its own score
    assert (str(late_table.contract), late_table.tricks, late_table.published["score_ns"]) == ("1NT", 9, 150)


def test_a_table_under_a_weighted_ruling_writes_the_rulings_score_and_no_contract(sample: EventStore) -> None:
    later = RECORDED_AT + timedelta(minutes=10)
    award_weighted(sample, WEIGHTED, at=later, requested_at=later, director="TD", reason="misinformation",
                   ns_components=[WeightedComponent(contract="4S", declarer="N", tricks=10, weight=0.5),
                                  WeightedComponent(contract="4S", declarer="N", tricks=9, weight=0.5)])
    results, artificial = _exported(sample)
    assert (4, "4") not in results  # not 2DX by E, 6 tricks beside the ruling's matchpoints
    ruled = artificial[(4, "4")]
    scored = score_store(sample).board_scores.filter(
        (pl.col("board") == 4) & (pl.col("table_id") == "4")).row(0, named=True)
    assert (ruled.ns_award, ruled.ew_award) == (45.83, 54.17)
    assert (round(scored["pct_ns"], 2), round(scored["pct_ew"], 2)) == (45.83, 54.17)
    assert (ruled.published["mp_ns"], ruled.published["mp_ew"]) == (11.0, 13.0)


def test_an_earlier_editions_records_hold_only_the_events_up_to_it(sample: EventStore) -> None:
    edition = score_store(sample)
    recorded = {(r.board, r.table_id) for r in session_records(sample, EVENT, SESSION, edition).results}
    row = edition.projection.results.filter(pl.col("board") == 1).row(0, named=True)
    late = {k: row[k] for k in ("event_id", "session_id", "section", "board", "ns_id", "ew_id")}
    sample.append([NewEvent(f"session:{EVENT}/{SESSION}", "ResultRecorded",
                            {**late, "table_id": "99", "contract": "3NT", "declarer": "N", "tricks": 9},
                            RECORDED_AT + timedelta(hours=1))], recorded_at=RECORDED_AT + timedelta(hours=1))
    assert {(r.board, r.table_id) for r in session_records(sample, EVENT, SESSION, edition).results} == recorded
    assert (1, "99") in {(r.board, r.table_id) for r in session_records(sample, EVENT, SESSION).results}
