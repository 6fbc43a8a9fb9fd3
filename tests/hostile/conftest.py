"""A scored sample session to attack: built once, copied for each test."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from pipelines.files.ingest import ingest_file
from pipelines.log.store import EventStore
from tests.conftest import RECORDED_AT, SAMPLE_DATA

EVENT, SESSION = "club-championship-2026", "1"


@pytest.fixture(scope="session")
def _template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("template") / "events.duckdb"
    ingest_file(EventStore(path), SAMPLE_DATA / "club_championship_traveller.csv", recorded_at=RECORDED_AT)
    return path


@pytest.fixture
def sample_store(_template: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> EventStore:
    """The sample session ingested (367 events), in a store of its own that the CLI uses too."""
    path = tmp_path / "events.duckdb"
    for suffix in ("", ".head"):
        shutil.copy(str(_template) + suffix, str(path) + suffix)
    monkeypatch.setenv("BRIDGELEDGER_STORE", str(path))
    return EventStore(path)
