"""Export a session and read it back: what we publish is what we would score from the file."""

from __future__ import annotations

from collections import Counter
from datetime import timedelta
from pathlib import Path

import pytest

from models.cards import Seat
from parsers import lin, pbn
from pipelines.director import TableRef, publish_scores, request_correction
from pipelines.exports import ExportError, export_session
from pipelines.ingest import ingest_bytes, ingest_file
from pipelines.projections import score_store
from pipelines.published import published_differences, published_values
from pipelines.store import EventStore
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
    assert published_values(again, edition.position).height == 337 * 5  # score, both sides' MPs and %
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
