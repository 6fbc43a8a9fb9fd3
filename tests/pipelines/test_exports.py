"""Export a session and read it back: what we publish is what we would score from the file."""

from __future__ import annotations

from pathlib import Path

import pytest

from parsers import lin, pbn
from pipelines.director import publish_scores
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
    assert published_values(again, edition.position).height == 337 * 3  # score and both sides' MPs
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
