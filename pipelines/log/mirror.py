"""The analytics file's copy of a PostgreSQL log: brought up to the log, never ahead of it.

Replay, scoring, the site and analysts read DuckDB tables; with the log in PostgreSQL those
tables live in a local DuckDB file whose `events` table is a row-for-row copy of the log's
(hashes included). Each refresh copies the rows after the copy's last position, a batch at a
time. PostgreSQL appends commit in position order (`pipelines.log.postgres`), so no row below that
position can still appear. Before copying, the copy's last row is checked against the log's row
at that position: a file that mirrors another database, or a log cut shorter than its copy, is
refused (`MirrorMismatch`) rather than mixed.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

import polars as pl

from pipelines.base.query_frames import for_duckdb
from pipelines.log.errors import MirrorMismatch

if TYPE_CHECKING:
    import duckdb

    from pipelines.log.postgres import PostgresLog

log = logging.getLogger(__name__)

BATCH_ROWS = 200_000
"""Rows copied per round trip (a batch of a file's events is tens of megabytes of payload)."""

_COLUMNS = ["position", "stream_id", "stream_version", "type", "schema_version", "payload",
            "occurred_at", "recorded_at", "source_sha256", "prev_hash", "hash"]


def sync_mirror(source: PostgresLog, con: duckdb.DuckDBPyConnection) -> int:
    """Copy the log's rows after the mirror's last one into `con`'s `events`; how many were copied."""
    last = con.execute("SELECT position, hash FROM events ORDER BY position DESC LIMIT 1").fetchall()
    position = int(last[0][0]) if last else 0
    copied = 0
    with source.connection() as pg:
        if last and source.hash_at(pg, position) != last[0][1]:
            raise MirrorMismatch(
                f"the analytics file holds position {position} with a hash the log {source!r} does not have "
                "there: it mirrors another log, or the log lost events. Move the file aside (a new one is "
                "built from the log) or name the right one with $BRIDGELEDGER_ANALYTICS")
        while True:
            rows = source.rows_after(pg, position, BATCH_ROWS)
            if rows.height == 0:
                break
            _insert(con, rows)
            copied += rows.height
            position = int(rows["position"][-1])
    if copied:
        log.info("analytics file brought up to position %d (%d events copied from %r)", position, copied, source)
    return copied


def _insert(con: duckdb.DuckDBPyConnection, rows: pl.DataFrame) -> None:
    frame = rows.with_columns(
        occurred_at=pl.col("occurred_us").cast(pl.Datetime("us", "UTC")),
        recorded_at=pl.col("recorded_us").cast(pl.Datetime("us", "UTC")),
    ).select(_COLUMNS)
    con.register("mirrored_events", for_duckdb(frame))
    try:
        con.execute("INSERT INTO events SELECT * FROM mirrored_events")
    finally:
        con.unregister("mirrored_events")
