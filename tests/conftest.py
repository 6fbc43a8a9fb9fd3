"""Shared fixtures: the corpus beside the checkout, fixed clocks, fresh stores."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from pipelines.store import EventStore
from tests.postgres import pg_url, postgres_server  # noqa: F401 (fixtures for every test folder)

REPO = Path(__file__).resolve().parents[1]
SAMPLE_DATA = REPO / "sample_data"
CORPUS = REPO.parent / "shared" / "corpus"
RECORDED_AT = datetime(2026, 11, 21, 22, 0, tzinfo=UTC)


@pytest.fixture
def store(tmp_path: Path) -> EventStore:
    """An empty event store in a temporary directory."""
    return EventStore(tmp_path / "events.duckdb", busy_timeout=2.0)


@pytest.fixture
def traveller() -> Path:
    """The sample session's CSV traveller."""
    return SAMPLE_DATA / "club_championship_traveller.csv"
