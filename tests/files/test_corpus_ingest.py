"""Every corpus file through the real ingest: events appended, counts kept, nothing half-written."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from pipelines.files.ingest import IngestRejected, ingest_file, parse_bytes
from pipelines.log.payloads import encode_payload
from pipelines.log.store import EventStore
from pipelines.replay.frames import replay
from tests import corpus
from tests.conftest import CORPUS, RECORDED_AT
from tests.corpus import IngestedCorpus

FILES = sorted(p for p in CORPUS.rglob("*") if p.suffix.lower() in (".pbn", ".lin", ".xml"))
UNSUPPORTED = {"abf_notsupported_eventtype.xml"}
NO_DATA = {"pbnref_errors_21.pbn"}
"""A PBN verifier's test file: tags of no game with a deal or a result (refused, `ingest.no-data`)."""
INGESTED = [p for p in FILES if p.name not in UNSUPPORTED | NO_DATA]


def test_the_corpus_is_where_the_tests_expect_it() -> None:
    assert len(FILES) == 56


@pytest.mark.parametrize("path", INGESTED, ids=lambda p: p.name)
def test_corpus_file_ingests_with_its_records_as_events(ingested_corpus: IngestedCorpus, tmp_path: Path,
                                                        path: Path) -> None:
    store = ingested_corpus.store(path, tmp_path / "corpus.duckdb")  # ingested into an empty store
    report = ingested_corpus.report(path)
    parsed = corpus.parsed(path)
    counts = Counter(e.type for e in store.read())
    assert counts["ResultRecorded"] == len(parsed.results)
    assert counts["ArtificialScoreAwarded"] == len(parsed.artificial)
    assert counts["BoardDealt"] == len(parsed.boards)
    assert counts["SourceFileIngested"] == 1
    assert report.quarantined == parsed.quarantined
    assert store.verify().ok
    again = ingest_file(store, path, recorded_at=RECORDED_AT)
    assert again.already_ingested and store.head() == report.events
    projection = replay(store)
    assert projection.results.height == len({(r.section, r.board, r.table_id) for r in parsed.results}
                                             | {(a.section, a.board, a.table_id) for a in parsed.artificial})


@pytest.mark.parametrize("name", sorted(NO_DATA))
def test_a_corpus_file_with_nothing_to_score_is_refused_saying_so(tmp_path: Path, name: str) -> None:
    store = EventStore(tmp_path / "x.duckdb")
    [path] = [p for p in FILES if p.name == name]
    with pytest.raises(IngestRejected, match=r"ingest\.no-data"):
        ingest_file(store, path, recorded_at=RECORDED_AT)
    assert store.head() == 0


def test_an_unsupported_usebio_event_type_is_refused_clearly(tmp_path: Path) -> None:
    store = EventStore(tmp_path / "x.duckdb")
    with pytest.raises(IngestRejected, match="NOTSUP"):
        ingest_file(store, CORPUS / "usebio" / "abf_notsupported_eventtype.xml", recorded_at=RECORDED_AT)
    assert store.head() == 0


@pytest.mark.parametrize("damage", ["truncated", "garbage", "nul-bytes"])
def test_damaged_corpus_files_never_half_write(tmp_path: Path, damage: str) -> None:
    source = CORPUS / "pbn" / "ffb_dn1_finale_2022_seance1.pbn"
    data = source.read_bytes()
    damaged = {"truncated": data[: len(data) // 2], "garbage": bytes(range(256)) * 400,
               "nul-bytes": data[:5000] + b"\x00" * 100 + data[5000:]}[damage]
    path = tmp_path / f"{damage}.pbn"
    path.write_bytes(damaged)
    store = EventStore(tmp_path / "d.duckdb")
    parsed = parse_bytes(damaged, path.name)
    try:
        report = ingest_file(store, path, recorded_at=RECORDED_AT)
    except IngestRejected:
        assert store.head() == 0
        return
    counts = Counter(e.type for e in store.read())
    assert counts["ResultRecorded"] == len(parsed.results)  # whole records only, as the reader kept them
    assert report.events == store.head()


@pytest.mark.parametrize("path", INGESTED, ids=lambda p: p.name)
def test_every_payload_written_validates_against_the_catalogue(ingested_corpus: IngestedCorpus, tmp_path: Path,
                                                               path: Path) -> None:
    """Ingest builds hot-path payloads without pydantic; they must still be exactly the catalogue's."""
    from models.events import EVENT_ADAPTER, event_payload

    store = ingested_corpus.store(path, tmp_path / "v.duckdb")
    with store.reader() as con:
        stored = dict(con.execute("SELECT position, payload::VARCHAR FROM events").fetchall())
    for event in store.read():
        model = EVENT_ADAPTER.validate_python({"type": event.type, "schema_version": event.schema_version,
                                               **event.payload})
        assert event_payload(model) == event.payload, (event.type, event.position)
        # Column-wise payloads are hashed as stored: they must be the canonical bytes, not just equal JSON.
        assert encode_payload(event_payload(model)) == stored[event.position], (event.type, event.position)
