"""Copies of a DuckDB store for tests that start from a prepared one."""

from __future__ import annotations

import shutil
from pathlib import Path

from pipelines.log.anchor import anchor_path
from pipelines.log.store import EventStore, analytics_file_beside


def copy_store(source: Path, target: Path) -> EventStore:
    """The DuckDB store at `source` copied to `target`: its log, its head file and its analytics
    file (whose double-dummy cache spares a test the solver). Copying the log alone is a valid
    store too, whose derived tables are rebuilt from the log."""
    shutil.copy(source, target)
    for beside in (anchor_path, analytics_file_beside):
        if beside(source).exists():
            shutil.copy(beside(source), beside(target))
    return EventStore(target)
