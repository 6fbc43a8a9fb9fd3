"""The analyst's SQL: one read-only query on the store, contained.

The connection opens the store file itself, read-only, with every way out switched off and the
configuration locked so that no statement can switch it back on:

- `enable_external_access = false`: no file outside the store is read or written (`read_csv`,
  `read_text`, `glob`, `COPY ... TO`, `EXPORT DATABASE`, `ATTACH` of other files all fail);
- no extension is installed or loaded (`INSTALL`, `LOAD`, autoloading);
- `lock_configuration = true`: `SET` and `RESET` are refused.

And only one statement of a reading kind runs (SELECT in any of its forms: FROM-first, WITH,
VALUES, DESCRIBE, SHOW, SUMMARIZE; and EXPLAIN). `ATTACH`, `DETACH`, `USE`, `COPY`, `EXPORT`,
`CREATE`, `INSERT`, `DELETE`, `CHECKPOINT`, `PRAGMA` and anything else are refused before they run,
so a query cannot swap the store for a writable copy of itself.
"""

from __future__ import annotations

import time
from pathlib import Path

import duckdb
import polars as pl

from pipelines.query_frames import frame_of
from pipelines.store import StoreBusy, StoreError, StoreMissing

_CONTAINED = {
    "enable_external_access": False,
    "autoinstall_known_extensions": False,
    "autoload_known_extensions": False,
    "allow_community_extensions": False,
    "allow_unsigned_extensions": False,
    "lock_configuration": True,  # last: everything above is fixed from here on
}
_READING = frozenset({duckdb.StatementType.SELECT, duckdb.StatementType.EXPLAIN})


class QueryRefused(StoreError):
    """The analyst's SQL is not one reading statement."""


def contained_connection(path: Path, *, busy_timeout: float = 10.0) -> duckdb.DuckDBPyConnection:
    """A read-only connection to the store at `path` that can reach nothing else (see the module)."""
    if not path.exists():
        raise StoreMissing(f"no event store at {path}; ingest a file first")
    deadline = time.monotonic() + busy_timeout
    delay = 0.05
    while True:
        try:
            con = duckdb.connect(str(path), read_only=True, config=dict(_CONTAINED))
        except duckdb.IOException as exc:
            if "lock" not in str(exc).lower():
                raise StoreError(f"cannot open {path}: {exc}") from exc
            if time.monotonic() >= deadline:
                raise StoreBusy(f"{path} is busy: another process is writing to it; try again when it is done") \
                    from exc
            time.sleep(delay)
            delay = min(delay * 2, 1.0)
        except duckdb.Error as exc:
            raise StoreError(f"cannot open {path}: {exc}") from exc
        return con


def reading_statement(con: duckdb.DuckDBPyConnection, query: str) -> str:
    """`query` when it is exactly one reading statement; else `QueryRefused` saying why."""
    try:
        statements = con.extract_statements(query)
    except duckdb.Error as exc:
        raise QueryRefused(f"the query does not parse: {exc}") from exc
    if len(statements) != 1:
        raise QueryRefused(f"one statement per query, found {len(statements)}")
    kind = statements[0].type
    if kind not in _READING:
        raise QueryRefused(f"the connection is read-only: only queries that read (SELECT, EXPLAIN) run here; "
                           f"this is {kind.name}")
    return query


def run_query(path: Path, query: str, *, busy_timeout: float = 10.0) -> pl.DataFrame:
    """Run one reading statement on the store, contained; its rows as a frame.

    `QueryRefused` for anything but one reading statement; `StoreError` when the store cannot be
    opened; DuckDB's own error (a `duckdb.Error`) when the query fails, e.g. on a file it may not read.
    """
    con = contained_connection(path, busy_timeout=busy_timeout)
    try:
        # (`frame_of`: a small answer of plain types is built without importing pyarrow, as `.pl()` would)
        return frame_of(con.sql(reading_statement(con, query)))
    finally:
        con.close()
