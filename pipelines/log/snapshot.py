"""The analysts' copy of the analytics store: one log position, replaced whole, never written in place.

DuckDB lets one process write a file or many read it, never both: an analyst's client or a BI
tool holding the store open would stop every ingest, score and site build. So analysts open a
snapshot instead. It is written to a new file (`COPY FROM DATABASE`, inside the writer's
connection, so it is one consistent position; a DuckDB log's `events` and `commands`, which live
in the log's own file, are copied in beside them) and renamed over the previous one. An analyst's
open connection keeps the file it opened, at its position, for as long as it likes; the pipeline
never opens that file again, and the next analyst to connect gets the new one. The snapshot's own
table `snapshot_position` says which log position (and hash) every answer in it is as of.
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass
from pathlib import Path

import duckdb

from pipelines.log.store import EventStore

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Snapshot:
    """A snapshot in place: where, and the log position its answers are as of."""

    path: Path
    position: int
    hash: str | None


def snapshot_path(store: EventStore) -> Path:
    """The snapshot analysts open: `<stem>.analysts.duckdb` beside the file the store is named by
    (the DuckDB log, or a PostgreSQL log's analytics file)."""
    return store.path.with_name(f"{store.path.stem}.analysts.duckdb")


def publish_snapshot(store: EventStore, target: Path | None = None) -> Snapshot:
    """Copy the analytics store as it stands into a new file and put it in place in one rename."""
    path = target or snapshot_path(store)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    temporary.unlink(missing_ok=True)
    try:
        with store.writer() as con:
            tip = con.execute("SELECT position, hash FROM events ORDER BY position DESC LIMIT 1").fetchall()
            position, hash_ = (int(tip[0][0]), str(tip[0][1])) if tip else (0, None)
            quoted = str(temporary).replace("'", "''")
            con.execute(f"ATTACH '{quoted}' AS analysts_snapshot")
            try:
                con.execute(f"COPY FROM DATABASE {_database(con)} TO analysts_snapshot")
                if store.log_file is not None:  # the DuckDB log's tables are beside the analytics file
                    for table in ("events", "commands"):
                        con.execute(f"CREATE TABLE analysts_snapshot.{table} AS FROM {table}")
                con.execute("CREATE TABLE analysts_snapshot.snapshot_position AS SELECT ?::BIGINT AS position, "
                            "?::VARCHAR AS hash", [position, hash_])
            finally:
                con.execute("DETACH analysts_snapshot")
        os.replace(temporary, path)  # atomic: a new connection opens the old file or the new, never half
    finally:
        temporary.unlink(missing_ok=True)
    log.info("analysts' snapshot %s is at log position %d", path, position)
    return Snapshot(path, position, hash_)


def read_snapshot_position(path: Path) -> Snapshot | None:
    """The position the snapshot at `path` is as of; None when there is none."""
    if not path.exists():
        return None
    with duckdb.connect(str(path), read_only=True) as con:
        row = con.execute("SELECT position, hash FROM snapshot_position").fetchone()
    return Snapshot(path, int(row[0]), row[1]) if row else None


def _database(con: duckdb.DuckDBPyConnection) -> str:
    row = con.execute("SELECT current_database()").fetchone()
    assert row is not None
    return str(row[0])
