"""The analyst's SQL: one read-only query on the store, contained.

The connection opens the store's files read-only, then switches every way out off and locks the
configuration so that no statement can switch it back on:

- `enable_external_access = false`: no file outside the store is read or written (`read_csv`,
  `read_text`, `glob`, `COPY ... TO`, `EXPORT DATABASE`, `ATTACH` of other files all fail);
- no extension is installed or loaded (`INSTALL`, `LOAD`, autoloading);
- `lock_configuration = true`: `SET` and `RESET` are refused.

And only one statement of a reading kind runs (SELECT in any of its forms: FROM-first, WITH,
VALUES, DESCRIBE, SHOW, SUMMARIZE; and EXPLAIN). `ATTACH`, `DETACH`, `USE`, `COPY`, `EXPORT`,
`CREATE`, `INSERT`, `DELETE`, `CHECKPOINT`, `PRAGMA` and anything else are refused before they run,
so a query cannot swap the store for a writable copy of itself.

A query is also bounded: it may use up to `memory_limit` of memory (nothing is spilled to disk,
which would write beside the store) and run for `timeout` seconds, after which it is interrupted.
Either limit ends it with `QueryLimitReached`, which names the limit and the flag that raises it.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass

import duckdb
import polars as pl

from pipelines.base.query_frames import frame_of
from pipelines.log.store import EventStore, StoreError

log = logging.getLogger(__name__)

_CONTAINED: dict[str, bool] = {
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


class QueryLimitReached(StoreError):
    """The analyst's query ran past its time limit or needed more than its memory limit."""


@dataclass(frozen=True)
class QueryLimits:
    """How long one analyst query may run and how much memory it may hold."""

    timeout: float = 60.0
    """Seconds before the query is interrupted (the CLI's `--timeout`)."""
    memory_limit: str = "1GB"
    """DuckDB's memory limit for the query, e.g. `512MB` or `4GB` (the CLI's `--memory-limit`)."""


def contained_connection(store: EventStore, *, busy_timeout: float = 10.0,
                         memory_limit: str = QueryLimits.memory_limit) -> duckdb.DuckDBPyConnection:
    """A read-only connection to `store` that can reach nothing else (see the module), holding at
    most `memory_limit` of memory; `StoreBusy` when a writer keeps it past `busy_timeout`.

    The store's files (the analytics file, and a DuckDB log beside it) are attached first; then
    every way out is switched off and the configuration locked, so the query can read those and
    nothing else.
    """
    con = store.with_busy_timeout(busy_timeout).open_read_only()
    try:
        _contain(con, memory_limit)
    except BaseException:
        con.close()
        raise
    return con


def _contain(con: duckdb.DuckDBPyConnection, memory_limit: str) -> None:
    try:
        con.execute(f"SET memory_limit = '{memory_limit.replace(chr(39), '')}'")
    except duckdb.Error as exc:  # the one setting taken from the analyst
        raise QueryRefused(f"the memory limit {memory_limit!r} is not a size; give --memory-limit "
                           "a number and a unit, such as 512MB or 4GB") from exc
    # Spilling would write a temporary folder beside the store: the limit is a hard one instead.
    con.execute("SET temp_directory = ''")
    for name, value in _CONTAINED.items():
        con.execute(f"SET {name} = {_literal(value)}")


def _literal(value: bool) -> str:
    return "true" if value else "false"


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


def run_query(store: EventStore, query: str, *, busy_timeout: float = 10.0,
              limits: QueryLimits = QueryLimits()) -> pl.DataFrame:
    """Run one reading statement on the store, contained and bounded; its rows as a frame.

    `QueryRefused` for anything but one reading statement; `StoreError` when the store cannot be
    opened; `QueryLimitReached` when the query runs past `limits.timeout` or needs more memory
    than `limits.memory_limit`; DuckDB's own error (a `duckdb.Error`) when the query fails, e.g.
    on a file it may not read.
    """
    con = contained_connection(store, busy_timeout=busy_timeout, memory_limit=limits.memory_limit)
    closing = threading.Lock()  # the timer never interrupts a connection being closed
    timer = threading.Timer(limits.timeout, _interrupt, args=(con, limits.timeout, closing))
    timer.daemon = True  # never what keeps the process alive
    try:
        statement = reading_statement(con, query)
        timer.start()
        # (`frame_of`: a small answer of plain types is built without importing pyarrow, as `.pl()` would)
        return frame_of(con.sql(statement))
    except duckdb.InterruptException as exc:
        raise QueryLimitReached(f"the query ran past its time limit of {limits.timeout:g} s and was stopped; "
                                "give it longer with --timeout SECONDS") from exc
    except duckdb.OutOfMemoryException as exc:
        raise QueryLimitReached(f"the query needed more memory than its limit of {limits.memory_limit} and was "
                                "stopped; give it more with --memory-limit (e.g. --memory-limit 4GB)") from exc
    finally:
        timer.cancel()
        with closing:
            con.close()


def _interrupt(con: duckdb.DuckDBPyConnection, timeout: float, closing: threading.Lock) -> None:
    """Stop the query running on `con` (called by the timer, from its own thread), unless the
    query is over and `con` is being closed."""
    if not closing.acquire(blocking=False):
        return
    try:
        log.warning("analyst query interrupted after %g s", timeout)
        con.interrupt()
    finally:
        closing.release()


ANSWER_FORMATS = ("table", "csv", "json")
"""How `bridgeledger sql` writes an answer (`--format`)."""


def answer_text(frame: pl.DataFrame, fmt: str) -> str:
    """The rows of `frame` as CSV (cells a spreadsheet would run as formulas neutralised, as every
    CSV of ours) or as JSON (one object per row, times as ISO 8601); `table` is the console's."""
    from pipelines.base.neutralise import spreadsheet_safe

    if fmt == "csv":
        return spreadsheet_safe(frame).write_csv()
    if fmt == "json":
        return frame.write_json() + "\n"
    raise ValueError(f"--format is one of {', '.join(ANSWER_FORMATS)}; got {fmt!r}")
