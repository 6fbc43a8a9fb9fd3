"""The calls an orchestrator makes: each takes and returns small values (paths, positions).

Airflow tasks and the CLI call these; they hold no Airflow code. Every call is idempotent:
ingesting a file twice is a no-op, and scoring reads a fixed log position, never "latest".
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime
from pathlib import Path

from pipelines.ingest import IngestOptions, ingest_file
from pipelines.projections import export_csv, score_store, write_views
from pipelines.store import EventStore, StoreError

log = logging.getLogger(__name__)

STORE_POOL = "bridgeledger_store"
"""Airflow pool with one slot: DuckDB has one writer at a time."""


def ingest_paths(store_path: str, paths: list[str], *, strict: bool = False) -> int:
    """Ingest each file (one transaction each); return the log position after the last append."""
    store = EventStore(store_path)
    recorded_at = datetime.now(UTC)  # the edge: when the files reached us
    for path in sorted(paths):
        report = ingest_file(store, Path(path), recorded_at=recorded_at, options=IngestOptions(strict=strict))
        log.info("%s: %d events (already ingested: %s)", path, report.events, report.already_ingested)
    return store.head()


def score_at(store_path: str, position: int, outdir: str) -> dict[str, str]:
    """Score the log as it stood at `position`, refresh the views, write CSVs; return their paths."""
    store = EventStore(store_path)
    edition = score_store(store, up_to=position)
    write_views(store, edition)
    return {name: str(path) for name, path in export_csv(edition, outdir).items()}


def verify_store(store_path: str) -> int:
    """Check the hash chain; return the number of events, or raise naming the first bad position."""
    report = EventStore(store_path).verify()
    if not report.ok:
        raise StoreError(f"event log broken at position {report.first_bad_position}: {report.reason}")
    return report.events
