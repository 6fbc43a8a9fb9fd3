"""Every test of the log's contract runs against both backends."""

from __future__ import annotations

from pathlib import Path

import pytest

from pipelines.log.store import EventStore

BACKENDS = ["duckdb", "postgresql"]


@pytest.fixture(params=BACKENDS)
def log_store(request: pytest.FixtureRequest, tmp_path: Path) -> EventStore:
    """An empty store: the embedded DuckDB file, or a fresh PostgreSQL database with its analytics file."""
    if request.param == "duckdb":
        return EventStore(tmp_path / "events.duckdb", busy_timeout=2.0)
    url = request.getfixturevalue("pg_url")
    return EventStore(url, analytics=tmp_path / "analytics.duckdb", busy_timeout=2.0)
