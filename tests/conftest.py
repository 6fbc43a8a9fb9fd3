"""Shared fixtures: the corpus beside the checkout, fixed clocks, fresh stores."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from pipelines.commands import director
from pipelines.log.store import EventStore
from tests.postgres import pg_url, postgres_server  # noqa: F401 (fixtures for every test folder)

REPO = Path(__file__).resolve().parents[1]
SAMPLE_DATA = REPO / "sample_data"
CORPUS = REPO.parent / "shared" / "corpus"
RECORDED_AT = datetime(2026, 11, 21, 22, 0, tzinfo=UTC)
TYPED_AT = datetime(2000, 1, 1, tzinfo=UTC)
"""When the tests' director commands are typed (`pipelines.commands.director.appended_now`): before any
session of theirs is published, so that each request is entered as its weekend happens, never
back-dated. A test of back-dating sets the clock itself; `WALL_CLOCK` is the real one."""
WALL_CLOCK = director.appended_now


@pytest.fixture(autouse=True, scope="session")
def _director_types_as_it_happens() -> Iterator[None]:
    """Every test's director commands are recorded at `TYPED_AT` (see there), not on the day the
    tests run: a weekend of 2026 replayed in December would be back-dated (issue #36, item 5).
    Session-wide, so that the stores module- and session-scoped fixtures build are typed so too;
    a test that sets the clock itself (`monkeypatch.setattr`) gets this one back afterwards."""
    director.appended_now = lambda: TYPED_AT
    try:
        yield
    finally:
        director.appended_now = WALL_CLOCK


@pytest.fixture
def store(tmp_path: Path) -> EventStore:
    """An empty event store in a temporary directory."""
    return EventStore(tmp_path / "events.duckdb", busy_timeout=2.0)


@pytest.fixture
def traveller() -> Path:
    """The sample session's CSV traveller."""
    return SAMPLE_DATA / "club_championship_traveller.csv"
