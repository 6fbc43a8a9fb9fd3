"""The event store: the one door to the log of record, and to the analytics store beside it.

Rules (DESIGN.md, "The event log"):
- `append` is the only function that writes events. No UPDATE or DELETE touches `events`; the only
  DELETE in the code base swaps rows of the derived projection tables (`pipelines.replay.live`).
- One call of `append` is one transaction: all its events or none. An idempotency key, recorded
  in the same transaction, makes a retried command append nothing twice.
- `UNIQUE(stream_id, stream_version)` is the whole optimistic-concurrency story; a clash becomes
  our own `ConcurrencyError`.
- `hash = sha256(prev_hash || canonical event)` (`pipelines.log.chain`); `verify` recomputes the
  chain and names the first position where it breaks.
- Payloads are upcast on read, never rewritten.

Two backends hold the log, and on both the derived tables (projections, the ranking's kept awards,
the double-dummy cache, manifests) live in a DuckDB analytics file beside it, never in the log's
own database. The embedded DuckDB log file (the default) holds `events`, `commands` and the position
sequence and nothing else; every connection attaches it beside the analytics file
(`<log>.analytics.duckdb`) and reads `events` through a view, so the log is read in place, never
copied. One process at a time may write the pair: another gets `StoreBusy` after a bounded wait.
A `postgresql://` URL puts the log in PostgreSQL (`pipelines.log.postgres`), where many processes
on many machines append at once; its events are mirrored into the analytics file's own `events`
table (`pipelines.log.mirror`). Either way replay, scoring and the site read the same tables.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager, nullcontext
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import duckdb
import polars as pl

from models.events import UPCASTERS
from models.upcasting import Upcasters
from pipelines.base.query_frames import ArrowStream, for_duckdb
from pipelines.log.anchor import Head, missing_heads, published_heads, read_anchor, unheld_heads, write_anchor
from pipelines.log.chain import (
    GENESIS_HASH,
    ROW_SCHEMA,
    ChainCheck,
    VerifyReport,
    arrow_rows,
    canonical_bytes,
    chain,
    from_epoch_us,
    missing_anchor_note,
    rewritten_message,
    shorter_message,
    to_epoch_us,
    with_hashes,
)
from pipelines.log.errors import ConcurrencyError, MirrorMismatch, StoreBusy, StoreError, StoreMissing
from pipelines.log.reads import hashes_at
from pipelines.log.records import (
    AppendResult,
    NewEvent,
    StoredEvent,
    check_expected,
    event_filter,
    event_frame,
    prepared_frame,
    stored_events,
    with_versions,
)

if TYPE_CHECKING:  # a command that only reads, or appends a few events, never imports pyarrow
    import pyarrow as pa

    from pipelines.log.postgres import PostgresLog

__all__ = [
    "GENESIS_HASH", "AppendResult", "ConcurrencyError", "EventStore", "MirrorMismatch", "NewEvent",
    "StoreBusy", "StoreError", "StoreMissing", "StoredEvent", "VerifyReport", "canonical_bytes", "chain",
    "event_frame", "from_epoch_us", "table_columns", "to_epoch_us",
]

log = logging.getLogger(__name__)

ANALYTICS_ENV = "BRIDGELEDGER_ANALYTICS"
"""Names the analytics file of a PostgreSQL log (default: one per database, in the working folder)."""

DUCKDB_MEMORY_ENV = "BRIDGELEDGER_DUCKDB_MEMORY"
"""Overrides `DUCKDB_MEMORY`: a size DuckDB reads (`4GB`, `512MB`, `50%` of the machine's memory)."""
DUCKDB_MEMORY = "2GB"
"""The memory a connection to the store's files lets DuckDB hold (its `memory_limit`): pages of the
tables it read or wrote, and its queries' hash tables and sorts. DuckDB's own default, 80% of the
machine's memory, is never reached on most stores, so it kept every page it had touched: a `score`
that mirrored a PostgreSQL log and rebuilt the projections grew with the log's history. Under the
limit, pages already on disk are evicted and a large sort or grouping spills to
`<analytics file>.tmp` (DuckDB names each process's files apart, and removes its own as it closes).
Set `BRIDGELEDGER_DUCKDB_MEMORY` to raise it on a large machine, or lower it on a small one."""

# Hashes are stored uncompressed: SHA-256 output is incompressible, and the compression analysis
# DuckDB would run on them costs a fifth of a bulk append.
_SCHEMA = """
CREATE SEQUENCE IF NOT EXISTS event_position START 1;
CREATE TABLE IF NOT EXISTS events (
    position        BIGINT      NOT NULL,
    stream_id       VARCHAR     NOT NULL,
    stream_version  BIGINT      NOT NULL,
    type            VARCHAR     NOT NULL,
    schema_version  INTEGER     NOT NULL,
    payload         JSON        NOT NULL,
    occurred_at     TIMESTAMPTZ NOT NULL,
    recorded_at     TIMESTAMPTZ NOT NULL,
    source_sha256   VARCHAR,
    prev_hash       VARCHAR     USING COMPRESSION uncompressed NOT NULL,
    hash            VARCHAR     USING COMPRESSION uncompressed NOT NULL,
    UNIQUE (stream_id, stream_version)
);
CREATE TABLE IF NOT EXISTS commands (
    idempotency_key VARCHAR     PRIMARY KEY,
    first_position  BIGINT      NOT NULL,
    last_position   BIGINT      NOT NULL,
    count           BIGINT      NOT NULL,
    last_hash       VARCHAR     NOT NULL,
    recorded_at     TIMESTAMPTZ NOT NULL
);
"""


_SESSIONS: dict[tuple[Path, int], duckdb.DuckDBPyConnection] = {}
"""The connection `EventStore.session()` holds, by store file and thread. Every `EventStore` of that
file borrows it on that thread: a step that names the store by its path (an Airflow task's function,
the ranking's cache) joins its caller's session instead of failing to attach the file a second time
(DuckDB attaches a file once per process). Other threads open their own, as before."""


def _session_key(path: Path) -> tuple[Path, int]:
    return path.resolve(), threading.get_ident()


class EventStore:
    """The append-only event log: an embedded DuckDB file, or PostgreSQL with a DuckDB analytics file.

    `location` is a file path (the DuckDB log) or a `postgresql://` URL. `path` is the file the
    store is named by: the DuckDB log file, or with a URL the analytics file. `analytics_path` is
    the analytics file on both: `analytics`, else (PostgreSQL only) $BRIDGELEDGER_ANALYTICS, else
    `<log stem>.analytics.duckdb` beside a DuckDB log or one named after the PostgreSQL database in
    the working folder.
    """

    def __init__(self, location: str | Path, *, busy_timeout: float = 10.0,
                 analytics: str | Path | None = None) -> None:
        from pipelines.log.postgres import is_postgres_url

        self.location = str(location)
        self.busy_timeout = busy_timeout
        self._held: duckdb.DuckDBPyConnection | None = None
        self._log: PostgresLog | None = None
        self._last_sync = 0
        self._lazy = False
        if is_postgres_url(self.location):
            from pipelines.log.postgres import PostgresLog

            self._log = PostgresLog(self.location)
            self.path = Path(analytics or os.environ.get(ANALYTICS_ENV) or default_analytics_file(self.location))
            self._analytics = self.path
            self._log_file: Path | None = None
        else:
            self.path = self._log_file = Path(location)
            self._analytics = Path(analytics) if analytics else analytics_file_beside(self.path)

    @property
    def backend(self) -> str:
        """`duckdb` or `postgresql`: where the log of record is."""
        return "duckdb" if self._log is None else "postgresql"

    @property
    def shown_location(self) -> str:
        """Where the log is, fit to print (a URL's password hidden)."""
        from pipelines.log.postgres import redacted

        return redacted(self.location)

    @property
    def analytics_path(self) -> Path:
        """The DuckDB file of the derived tables, which every reader's connection opens."""
        return self._analytics

    @property
    def log_file(self) -> Path | None:
        """The DuckDB log file (None when the log is in PostgreSQL)."""
        return self._log_file

    def with_busy_timeout(self, seconds: float) -> EventStore:
        """The same store, waiting at most `seconds` for a busy DuckDB file."""
        return EventStore(self.location, busy_timeout=seconds, analytics=self._analytics)

    # -- connections -------------------------------------------------------------------------

    def _connect(self, read_only: bool) -> duckdb.DuckDBPyConnection:
        if read_only and not self.path.exists():
            raise StoreMissing(f"no event store at {self.path}; ingest a file first")
        deadline = time.monotonic() + self.busy_timeout
        delay = 0.05
        while True:
            try:
                return _attach(self._analytics, read_only, log_file=self._log_file)
            except duckdb.IOException as exc:
                if "lock" not in str(exc).lower():
                    raise StoreError(f"cannot open {self.path}: {exc}. The file is damaged (cut short or "
                                     "overwritten) or unreadable; nothing was changed. Restore it from a copy, "
                                     "then run `bridgeledger verify`.") from exc
                if time.monotonic() >= deadline:
                    raise StoreBusy(
                        f"{self.path} is busy: another process holds it (a writer, or a reader that "
                        f"keeps it open) and did not let go within {self.busy_timeout:.0f}s; "
                        "try again when it is done"
                    ) from exc
                time.sleep(delay)
                delay = min(delay * 2, 1.0)
            except duckdb.Error as exc:  # e.g. a write-ahead log that fails its checksums on replay
                wal = self.path.with_name(self.path.name + ".wal")
                damaged = f"the store or its write-ahead log {wal}" if wal.exists() else "the store"
                raise StoreError(f"cannot open {self.path}: {exc}. {damaged} is damaged; nothing was changed. "
                                 "Restore it from a copy, then run `bridgeledger verify`.") from exc

    def open_read_only(self) -> duckdb.DuckDBPyConnection:
        """A new read-only connection of the caller's own (to close), waiting for a busy file as
        `reader` does; with a PostgreSQL log the analytics file as it stands (call `refresh_mirror`
        first to bring it up)."""
        return self._connect(read_only=True)

    @contextmanager
    def reader(self) -> Iterator[duckdb.DuckDBPyConnection]:
        """A read-only connection (what analysts get: no write is possible through it).

        Inside `session()` the session's connection is lent instead. On PostgreSQL the analytics
        file is first brought up to the log.
        """
        held = self._lent() or self._open_lazy_session()
        if held is not None:
            yield held
            return
        if self._log is not None:
            self.refresh_mirror()
        con = self._connect(read_only=True)
        try:
            yield con
        finally:
            con.close()

    @contextmanager
    def writer(self) -> Iterator[duckdb.DuckDBPyConnection]:
        """A read-write connection with the schema in place. Only this module appends events."""
        held = self._lent() or self._open_lazy_session()
        if held is not None:
            yield held
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        con = self._connect(read_only=False)
        try:
            self._ensure_schema(con)
            if self._log is not None:
                self._sync(con)
            yield con
        finally:
            con.close()

    @contextmanager
    def session(self) -> Iterator[EventStore]:
        """Hold one read-write connection for several reads and appends.

        Opening a DuckDB file costs tens of milliseconds; an ingest that checks three streams and
        then appends pays it once this way. The write lock is held for the whole session, so keep
        sessions short (read and parse files before opening one). On the thread that opened it,
        any other `EventStore` of the same file borrows the session's connection.

        On PostgreSQL appends need no lock of this machine's: the analytics file is opened at the
        session's first read and held from then on, so parallel workers sharing one analytics file
        (ingest tasks, which mostly append) wait on each other only once they read.
        """
        if self._lent() is not None or self._lazy:
            yield self
            return
        if self._log is not None:
            self._lazy = True
            try:
                yield self
            finally:
                self._lazy = False
                self._release_session()
            return
        key = _session_key(self._analytics)
        with self.writer() as con:
            self._held = _SESSIONS[key] = con
            try:
                yield self
            finally:
                self._held = None
                del _SESSIONS[key]

    def _open_lazy_session(self) -> duckdb.DuckDBPyConnection | None:
        """In a PostgreSQL session: the analytics connection, opened (and brought up) at first use."""
        if not self._lazy:
            return None
        self.path.parent.mkdir(parents=True, exist_ok=True)
        con = self._connect(read_only=False)
        try:
            self._ensure_schema(con)
            self._sync(con)
        except BaseException:
            con.close()
            raise
        self._held = _SESSIONS[_session_key(self._analytics)] = con
        return con

    def _ensure_schema(self, con: duckdb.DuckDBPyConnection) -> None:
        """The log's tables in place: in the DuckDB log file (then shown by the views), or, with a
        PostgreSQL log, the mirror's in the analytics file."""
        if self._log_file is None:
            con.execute(_SCHEMA)
            return
        con.execute(f"USE {_LOG_DATABASE}")
        try:
            con.execute(_SCHEMA)
        finally:
            con.execute(f"USE {_ANALYTICS_DATABASE}")
        _show_log(con)

    def _release_session(self) -> None:
        if self._held is not None:
            self._held.close()
            self._held = None
            _SESSIONS.pop(_session_key(self._analytics), None)

    def _has_events(self, con: duckdb.DuckDBPyConnection) -> bool:
        """Whether the log's table exists. A session's connection was opened by `writer`, which
        creates it; asking the catalog cost a few milliseconds a call, three calls a file ingested."""
        return con is self._lent() or _has_events_table(con)

    def _lent(self) -> duckdb.DuckDBPyConnection | None:
        """The session connection this store lends: its own, or one this thread holds on the same file."""
        if self._held is not None:
            return self._held
        return _SESSIONS.get(_session_key(self._analytics)) if _SESSIONS else None

    # -- the mirror of a PostgreSQL log ----------------------------------------------------------

    def refresh_mirror(self) -> int:
        """Bring the analytics file up to the PostgreSQL log; the events copied (0 on DuckDB)."""
        if self._log is None:
            return 0
        held = self._lent()
        if held is not None:
            return self._sync(held)
        with self.writer():  # `writer` brings the file up to the log as it opens
            return self._last_sync

    def _sync(self, con: duckdb.DuckDBPyConnection) -> int:
        from pipelines.log.mirror import sync_mirror

        assert self._log is not None
        self._last_sync = sync_mirror(self._log, con)
        return self._last_sync

    # -- the one write path --------------------------------------------------------------------

    def append(self, events: Sequence[NewEvent], *, recorded_at: datetime,
               source_sha256: str | None = None,
               expected_versions: Mapping[str, int] | None = None,
               idempotency_key: str | None = None) -> AppendResult:
        """Append `events` in one transaction; all or nothing.

        Stream versions continue each stream. `expected_versions` (stream -> version the caller
        last saw, 0 = new stream) makes the append fail with `ConcurrencyError` if anyone got there
        first; the UNIQUE key catches the same race between concurrent writers. An
        `idempotency_key` the log already holds appends nothing and answers what its first append
        wrote (`AppendResult.replayed`).
        """
        if not events:
            return AppendResult(0, None, None)
        return self.append_frame(event_frame(events), recorded_at=recorded_at, source_sha256=source_sha256,
                                 expected_versions=expected_versions, idempotency_key=idempotency_key)

    def append_frame(self, frame: pl.DataFrame, *, recorded_at: datetime,
                     source_sha256: str | None = None,
                     expected_versions: Mapping[str, int] | None = None,
                     idempotency_key: str | None = None) -> AppendResult:
        """Append a batch of events given as columns, in one transaction; all or nothing.

        `frame` has `stream_id`, `type`, `payload` (canonical JSON as `encode_payload` writes it),
        `occurred_us` (microseconds since the epoch) and optionally `schema_version` (default: the
        version this code writes for the type). Bulk writers (ingest of a large file) build it with
        polars expressions; `append` builds it from `NewEvent`s. Otherwise as `append`.
        """
        frame = prepared_frame(frame, recorded_at=recorded_at, source_sha256=source_sha256)
        if frame.height == 0:
            return AppendResult(0, None, None)
        if self._log is not None:
            result = self._append_to_postgres(frame, expected_versions or {}, idempotency_key)
        else:
            result = self._append_to_duckdb(frame, expected_versions or {}, idempotency_key)
        log.debug("appended %d events at positions %s..%s", result.count, result.first_position,
                  result.last_position)
        return result

    def _append_to_postgres(self, frame: pl.DataFrame, expected: Mapping[str, int],
                            idempotency_key: str | None) -> AppendResult:
        assert self._log is not None
        with self._log.connection() as pg:
            result = self._log.append(pg, frame, expected_versions=expected, idempotency_key=idempotency_key)
        if result.last_position is not None and result.last_hash is not None:
            write_anchor(self.path, Head(result.last_position, result.last_hash))
        held = self._lent()
        if held is not None:  # a session reads what it appended through its connection: bring it up now
            try:
                self._sync(held)
            except StoreError as exc:
                # The events are committed: failing the append would misreport them as lost. The next
                # reader of the analytics file meets the same error and stops there.
                log.warning("appended at positions %s..%s, but the analytics file was not brought up: %s",
                            result.first_position, result.last_position, exc)
        return result

    def _append_to_duckdb(self, frame: pl.DataFrame, expected: Mapping[str, int],
                          idempotency_key: str | None) -> AppendResult:
        with self.writer() as con:
            try:
                con.execute("BEGIN TRANSACTION")
                done = _command(con, idempotency_key) if idempotency_key is not None else None
                if done is not None:
                    con.execute("ROLLBACK")
                    return done
                result = self._append_in_transaction(con, frame, expected)
                if idempotency_key is not None:
                    con.execute(f"INSERT INTO {_LOG_TABLES}.commands VALUES (?, ?, ?, ?, ?, ?)",
                                [idempotency_key, result.first_position, result.last_position, result.count,
                                 result.last_hash, from_epoch_us(int(frame["recorded_us"][0]))])
                _commit(con, checkpoint=_checkpoints_at_commit(frame))
                # Still holding the write lock: anchors are written in commit order.
                write_anchor(self.path, Head(result.last_position or 0, result.last_hash or GENESIS_HASH))
            except duckdb.ConstraintException as exc:
                con.execute("ROLLBACK")
                raise ConcurrencyError(f"a stream version was already taken: {exc}") from exc
            except duckdb.TransactionException as exc:
                con.execute("ROLLBACK")
                # "Current transaction is aborted" follows an earlier failure inside the transaction:
                # a stream version taken first (the usual case), or a file that could not be written.
                raise ConcurrencyError(f"the append's transaction failed ({exc}): another writer took a stream "
                                       f"version first, or {self.path} could not be written; nothing was "
                                       "appended") from exc
            except duckdb.IOException as exc:
                con.execute("ROLLBACK")
                raise StoreError(f"{self.path} could not be read or written: {exc}. The file is damaged or "
                                 "its disk failed; nothing was appended. Restore it from a copy, then run "
                                 "`bridgeledger verify`.") from exc
            except BaseException:
                con.execute("ROLLBACK")
                raise
        return result

    def _append_in_transaction(self, con: duckdb.DuckDBPyConnection, frame: pl.DataFrame,
                               expected: Mapping[str, int]) -> AppendResult:
        current = _current_versions(con, frame["stream_id"].unique().sort().to_list())
        check_expected(current, expected)
        positions = _next_positions(con, frame.height)
        tip = con.execute("SELECT hash FROM events ORDER BY position DESC LIMIT 1").fetchall()
        frame = with_versions(frame.with_columns(position=positions), current)
        prev_hash = tip[0][0] if tip else GENESIS_HASH
        # DuckDB releases the GIL while it inserts, so one writer thread stores chunk k while this
        # thread chains chunk k+1: the hash chain (sequential Python) and the insert overlap
        # instead of adding up. One connection, one transaction, used by one thread at a time:
        # each insert finishes before the next is handed over.
        single = frame.height > _ONE_VECTOR and _chunk_rows(frame.height) <= _SINGLE_THREAD_CHUNK_ROWS
        with _setting(con, "threads", "1") if single else nullcontext():
            last_hash = self._hash_and_insert(con, frame, prev_hash)
        return AppendResult(frame.height, int(positions[0]), int(positions[-1]), last_hash)

    @staticmethod
    def _hash_and_insert(con: duckdb.DuckDBPyConnection, frame: pl.DataFrame, prev_hash: str) -> str:
        """Chain `frame`'s rows on `prev_hash` a chunk at a time, inserting each while the next is hashed."""
        step = _chunk_rows(frame.height)
        if frame.height <= step:  # one chunk: nothing to overlap, and a thread costs more than the insert
            chunk = with_hashes(frame, prev_hash)
            _insert(con, for_duckdb(chunk.select(_COLUMNS)))
            return str(chunk["hash"][-1])
        with ThreadPoolExecutor(max_workers=1, thread_name_prefix="event-insert") as writer:
            pending: Future[None] | None = None
            for start in range(0, frame.height, step):
                chunk = with_hashes(frame.slice(start, step), prev_hash)
                prev_hash = chunk["hash"][-1]
                rows = for_duckdb(chunk.select(_COLUMNS))
                if pending is not None:
                    pending.result()
                pending = writer.submit(_insert, con, rows)
            if pending is not None:
                pending.result()
        return prev_hash

    # -- reading -------------------------------------------------------------------------------

    def exists(self) -> bool:
        """Whether the log exists (the DuckDB file; on PostgreSQL, the log's table)."""
        if self._log is not None:
            with self._log.connection() as pg:
                return self._log.has_log(pg)
        return self.path.exists()

    def head(self) -> int:
        """The position of the last event (0 when the log is empty)."""
        tip = self.tip()
        return tip.position if tip else 0

    def tip(self) -> Head | None:
        """The last event's position and hash (None when the log is empty): what anchors carry."""
        if self._log is not None:
            with self._log.connection() as pg:
                return self._log.tip(pg)
        if not self.exists():
            return None
        with self.reader() as con:
            if not self._has_events(con):
                return None
            rows = con.execute("SELECT position, hash FROM events ORDER BY position DESC LIMIT 1").fetchall()
        return Head(int(rows[0][0]), str(rows[0][1])) if rows else None

    def stream_version(self, stream_id: str) -> int:
        """Current version of a stream (0 = no events yet), read from the log of record."""
        if self._log is not None:
            with self._log.connection() as pg:
                return self._log.stream_version(pg, stream_id)
        if not self.exists():
            return 0
        with self.reader() as con:
            if not self._has_events(con):
                return 0
            return _current_versions(con, [stream_id]).get(stream_id, 0)

    def has_event(self, stream_id: str, event_type: str) -> bool:
        """Whether the stream holds an event of this type (read without decoding any payload)."""
        if self._log is not None:
            with self._log.connection() as pg:
                return self._log.has_event(pg, stream_id, event_type)
        if not self.exists():
            return False
        with self.reader() as con:
            if not self._has_events(con):
                return False
            rows = con.execute("SELECT EXISTS (SELECT 1 FROM events WHERE stream_id = ? AND type = ?)",
                               [stream_id, event_type]).fetchall()
            return bool(rows[0][0])

    def read(self, *, types: Sequence[str] | None = None, up_to: int | None = None,
             stream_id: str | None = None,
             upcasters: Upcasters = UPCASTERS) -> list[StoredEvent]:
        """Events in log order, payloads upcast to the current schema versions (one by one: this
        is the path of the few events a command reads; replay upcasts in bulk)."""
        if self._log is not None:
            with self._log.connection() as pg:
                return stored_events(self._log.raw_events(pg, types=types, up_to=up_to, stream_id=stream_id),
                                     upcasters)
        if not self.exists():
            return []
        query, params = _select_events(types, up_to, stream_id)
        with self.reader() as con:
            if not self._has_events(con):
                return []
            rows = con.execute(query, params).fetchall()
        return stored_events(rows, upcasters)

    def rows_after(self, position: int, *, limit: int = 200_000) -> pl.DataFrame:
        """Up to `limit` whole rows after `position` (`pipelines.log.chain.ROW_COLUMNS`: hashes
        included, times in microseconds), in log order: what a move of the log copies."""
        if self._log is not None:
            with self._log.connection() as pg:
                return self._log.rows_after(pg, position, limit)
        if not self.exists():
            return pl.DataFrame(schema=ROW_SCHEMA)
        with self.reader() as con:
            if not self._has_events(con):
                return pl.DataFrame(schema=ROW_SCHEMA)
            frame: pl.DataFrame = con.sql(
                f"{_ROWS_QUERY} WHERE position > ? ORDER BY position LIMIT ?", params=[position, limit]).pl()
        return frame.cast(ROW_SCHEMA)  # type: ignore[arg-type]

    def verify(self, *, batch_size: int = 100_000) -> VerifyReport:
        """Recompute the hash chain; name the first position where a row was edited, added or removed."""
        if self._log is not None:
            return self._verify_postgres(batch_size)
        if not self.exists():
            raise StoreMissing(f"no event store at {self.path}")
        anchor = read_anchor(self.path)
        with self.reader() as con:
            if not self._has_events(con):
                if anchor is not None:
                    return VerifyReport(0, anchor.position,
                                        shorter_message(anchor, "the anchor file", "has no events table"))
                return VerifyReport(0, None, None)
            check = ChainCheck()
            check.feed(arrow_rows(con.sql(f"{_ROWS_QUERY} ORDER BY position").to_arrow_reader(batch_size)))
            chain_report = check.report()
            if not chain_report.ok:
                return chain_report
            missing = missing_heads(con, anchor)
            held = hashes_at(con, [head.position for head, _ in missing])
            published = published_heads(con)
        return _with_notes(_with_missing_heads(chain_report, missing, held), anchor, self.path, published)

    def _verify_postgres(self, batch_size: int) -> VerifyReport:
        assert self._log is not None
        anchor = read_anchor(self.path)
        check = ChainCheck()
        with self._log.connection() as pg:
            if not self._log.has_log(pg):
                raise StoreMissing(f"no event log in the PostgreSQL database {self._log!r}")
            position = 0
            while True:
                rows = self._log.rows_after(pg, position, batch_size)
                if rows.height == 0 or not check.feed(rows.iter_rows()):
                    break
                position = int(rows["position"][-1])
            chain_report = check.report()
            if not chain_report.ok:
                return chain_report
            published = self._log.published_heads(pg)
            seen = ([(anchor, "the anchor file")] if anchor else []) + published
            held = self._log.hashes_at(pg, [head.position for head, _ in seen])
            missing = unheld_heads(seen, held)
        return _with_notes(_with_missing_heads(chain_report, missing, held), anchor, self.path, published)

    def import_rows(self, rows: pl.DataFrame) -> None:
        """Store rows exactly as another log holds them (hashes included), continuing this log's
        chain at its tip: the move of a log between backends (`pipelines.log.transfer`)."""
        if self._log is not None:
            with self._log.connection() as pg:
                self._log.import_rows(pg, rows)
            return
        with self.writer() as con:
            tip = con.execute("SELECT hash FROM events ORDER BY position DESC LIMIT 1").fetchall()
            if rows.height and rows["prev_hash"][0] != (tip[0][0] if tip else GENESIS_HASH):
                raise StoreError("the rows do not continue this log's chain at its tip; nothing was copied")
            con.execute("BEGIN TRANSACTION")
            try:
                _insert(con, for_duckdb(rows.with_columns(
                    occurred_at=pl.col("occurred_us").cast(pl.Datetime("us", "UTC")),
                    recorded_at=pl.col("recorded_us").cast(pl.Datetime("us", "UTC"))).select(_COLUMNS)))
                last = int(rows["position"].max() or 0)  # type: ignore[arg-type]
                con.execute(f"SELECT setval('{_LOG_TABLES}.event_position', {last})" if last else "SELECT 1")
                con.execute("COMMIT")
            except BaseException:
                con.execute("ROLLBACK")
                raise
        if rows.height:
            write_anchor(self.path, Head(int(rows["position"][-1]), str(rows["hash"][-1])))

    def commands(self) -> pl.DataFrame:
        """Every idempotency key the log recorded, with what its append wrote."""
        from pipelines.log.postgres import COMMAND_SCHEMA

        if self._log is not None:
            with self._log.connection() as pg:
                return self._log.commands(pg)
        if not self.exists():
            return pl.DataFrame(schema=COMMAND_SCHEMA)
        with self.reader() as con:
            if "commands" not in table_columns(con, ["commands"]):
                return pl.DataFrame(schema=COMMAND_SCHEMA)
            frame: pl.DataFrame = con.sql(
                "SELECT idempotency_key, first_position, last_position, count, last_hash, "
                "epoch_us(recorded_at) AS recorded_us FROM commands ORDER BY first_position").pl()
        return frame.cast(COMMAND_SCHEMA)  # type: ignore[arg-type]

    def import_commands(self, commands: pl.DataFrame) -> None:
        """Record another log's idempotency keys as they are."""
        if self._log is not None:
            with self._log.connection() as pg:
                self._log.import_commands(pg, commands)
            return
        with self.writer() as con:
            con.register("incoming_commands", commands.to_arrow())
            try:
                con.execute(f"INSERT INTO {_LOG_TABLES}.commands SELECT idempotency_key, first_position, "
                            "last_position, count, last_hash, make_timestamptz(recorded_us) FROM incoming_commands")
            finally:
                con.unregister("incoming_commands")


def default_analytics_file(url: str) -> Path:
    """The analytics file of a PostgreSQL log when none is named: one per server and database, in
    the working folder, so two databases never share one."""
    import hashlib
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    database = (parts.path.strip("/") or "postgres").replace("/", "_")
    identity = f"{parts.hostname}:{parts.port}/{database}".encode()
    return Path(f"bridgeledger-analytics-{database}-{hashlib.sha256(identity).hexdigest()[:8]}.duckdb")


def _with_missing_heads(chain_report: VerifyReport, missing: list[tuple[Head, str]],
                        held: Mapping[int, str]) -> VerifyReport:
    """The first head seen that the log does not hold: cut from its end when the position is gone,
    rewritten when the position is there with another hash."""
    if not missing:
        return chain_report
    head, where = missing[0]
    if head.position in held:
        return VerifyReport(chain_report.events, head.position, rewritten_message(head, where, held[head.position]))
    return VerifyReport(chain_report.events, head.position,
                        shorter_message(head, where, f"holds {chain_report.events} events"))


def _with_notes(report: VerifyReport, anchor: Head | None, store_path: Path,
                published: list[tuple[Head, str]]) -> VerifyReport:
    """`report`, saying what it could not check when the head file is missing."""
    from dataclasses import replace

    from pipelines.log.anchor import anchor_path

    if anchor is not None or report.events == 0:
        return report
    latest = max((head for head, _ in published), key=lambda head: head.position, default=None)
    return replace(report, notes=(*report.notes, missing_anchor_note(str(anchor_path(store_path)), latest)))


def _command(con: duckdb.DuckDBPyConnection, key: str) -> AppendResult | None:
    rows = con.execute("SELECT first_position, last_position, last_hash FROM commands WHERE idempotency_key = ?",
                       [key]).fetchall()
    if not rows:
        return None
    first, last, last_hash = rows[0]
    log.info("command %s was already appended at positions %s..%s; nothing appended", key, first, last)
    return AppendResult(0, int(first), int(last), str(last_hash), replayed=True)


_ROWS_QUERY = ("SELECT position, stream_id, stream_version, type, schema_version, payload::VARCHAR AS payload,"
               " epoch_us(occurred_at) AS occurred_us, epoch_us(recorded_at) AS recorded_us, source_sha256,"
               " prev_hash, hash FROM events")


ROW_GROUP_SIZE = 16_384
"""Rows per DuckDB row group of the store (DuckDB's default is 122,880).

Each checkpoint rewrites the table's last, partly filled row group with the rows appended to it.
With the default a file's ingest into a grown store re-compressed up to 120k earlier events; with
16k, at most 16k (50 appends of 20k events: 13.2 s against 6.2 s, and a fifth less file). Scans
measured as fast. DuckDB takes the size when a database is attached, not from the file: every
connection of this module attaches it so (`_attach`)."""


_ANALYTICS_DATABASE = "event_store"
"""The analytics file's name in a connection, and its current database: unqualified names are its."""
_LOG_DATABASE = "event_log"
"""The DuckDB log file's name in a connection."""
_LOG_TABLES = f"{_LOG_DATABASE}.main"
_LOG_VIEWS = ("events", "commands")


def analytics_file_beside(log_file: Path) -> Path:
    """The analytics file of the DuckDB log `log_file`: `<stem>.analytics.duckdb` beside it."""
    return log_file.with_name(f"{log_file.stem}.analytics.duckdb")


def _attach(analytics: Path, read_only: bool, *, log_file: Path | None = None) -> duckdb.DuckDBPyConnection:
    """A connection to the analytics file, made current, with the DuckDB log file (if any) beside it.

    Both are attached with the store's row group size. The log's tables are read through
    temporary views of the same names (`_show_log`); only this module writes them, by their
    qualified names. A new log's analytics file is created here, even by a reader: it holds
    nothing yet, and every derived table in it is rebuilt from the log.
    """
    if read_only and log_file is not None and not analytics.exists():
        duckdb.connect(str(analytics)).close()
    con = _bounded_connection(analytics)
    try:
        if log_file is not None:
            _attach_file(con, log_file, _LOG_DATABASE, read_only)
        _attach_file(con, analytics, _ANALYTICS_DATABASE, read_only)
        con.execute(f"USE {_ANALYTICS_DATABASE}")
        con.execute("SET enable_progress_bar = false")  # it would interleave with our output
        if log_file is not None:
            _show_log(con)
    except BaseException:
        con.close()
        raise
    return con


def _bounded_connection(analytics: Path) -> duckdb.DuckDBPyConnection:
    """An in-memory connection held to `DUCKDB_MEMORY` (or $BRIDGELEDGER_DUCKDB_MEMORY), spilling
    beside the analytics file."""
    memory = os.environ.get(DUCKDB_MEMORY_ENV) or DUCKDB_MEMORY
    try:
        return duckdb.connect(config={"memory_limit": memory,
                                      "temp_directory": str(analytics.with_name(f"{analytics.name}.tmp"))})
    except duckdb.Error as exc:
        raise StoreError(f"${DUCKDB_MEMORY_ENV} is {memory!r}, not a size DuckDB reads: give a number and "
                         "a unit, such as 4GB or 512MB, or a share of the memory, such as 50%") from exc


def _attach_file(con: duckdb.DuckDBPyConnection, path: Path, name: str, read_only: bool) -> None:
    quoted = str(path).replace("'", "''")
    con.execute(f"ATTACH '{quoted}' AS {name} (ROW_GROUP_SIZE {ROW_GROUP_SIZE}{', READ_ONLY' if read_only else ''})")


def _show_log(con: duckdb.DuckDBPyConnection) -> None:
    """Temporary views `events` and `commands` over the DuckDB log file's tables (a temporary
    name is found before the analytics file's); a log without them yet gets no view."""
    for name in _LOG_VIEWS:
        try:
            con.execute(f"CREATE OR REPLACE TEMP VIEW {name} AS SELECT * FROM {_LOG_TABLES}.{name}")
        except duckdb.CatalogException:
            continue


_CHUNK_ROWS = 200_000
"""Rows hashed and inserted per step of a large append (see `_append_in_transaction`)."""
_MIN_CHUNK_ROWS = 4_000


_SINGLE_THREAD_CHUNK_ROWS = 50_000
"""Chunks up to this size are inserted on one DuckDB thread. On a few thousand rows DuckDB's
parallel insert spends more CPU than it saves (30 against 43 ms for a file's 20k events) and takes
the core that is hashing the next chunk; on the 200k-row chunks of a bulk load two threads win
(332k against 305k events/s in `bench_store`)."""


_ONE_VECTOR = 2_048
"""DuckDB inserts up to this many rows (one vector) on one thread anyway: no setting to change (the
SET and RESET cost more than a one-board file's insert)."""


def _chunk_rows(rows: int) -> int:
    """Rows per step: a file's tens of thousands of events still overlap in four steps; a handful
    go in one (each step costs an insert statement)."""
    return max(_MIN_CHUNK_ROWS, min(_CHUNK_ROWS, -(-rows // 4)))
_COLUMNS = ["position", "stream_id", "stream_version", "type", "schema_version", "payload",
            "occurred_at", "recorded_at", "source_sha256", "prev_hash", "hash"]


_CHECKPOINT_AT_COMMIT_BYTES = 1 << 20
"""Payload bytes from which an append is checkpointed as it commits (see `_commit`)."""


def _checkpoints_at_commit(frame: pl.DataFrame) -> bool:
    return int(frame["payload"].str.len_bytes().sum()) >= _CHECKPOINT_AT_COMMIT_BYTES


def _commit(con: duckdb.DuckDBPyConnection, *, checkpoint: bool) -> None:
    """Commit; a large batch is checkpointed as it commits.

    A committed transaction is written to the WAL and written again into the database file at the
    next checkpoint (at the latest when the connection closes). A zero checkpoint threshold makes
    DuckDB checkpoint at this commit instead and skip the WAL, so a file's megabytes of events are
    written once, and the `.duckdb` file holds them on its own as soon as the append returns.
    Small appends keep the WAL: a checkpoint per event would cost more than it saves.
    """
    with _setting(con, "checkpoint_threshold", "'0B'") if checkpoint else nullcontext():
        con.execute("COMMIT")


@contextmanager
def _setting(con: duckdb.DuckDBPyConnection, name: str, value: str) -> Iterator[None]:
    """DuckDB setting `name` at `value` (SQL) for the block, then back to DuckDB's default."""
    con.execute(f"SET {name} = {value}")
    try:
        yield
    finally:
        con.execute(f"RESET {name}")


def _next_positions(con: duckdb.DuckDBPyConnection, count: int) -> pl.Series:
    """`count` new positions from the sequence, in increasing order.

    One statement draws them all; when they are one unbroken run (always, with the sequence
    stepping by one) its ends say which they are. Otherwise another statement draws and fetches
    them all (positions may have gaps).
    """
    first, last = con.execute(
        f"SELECT min(p), max(p) FROM (SELECT nextval('{_LOG_TABLES}.event_position') AS p FROM range(?))", [count]
    ).fetchall()[0]
    if last - first + 1 == count:
        return pl.int_range(first, last + 1, dtype=pl.Int64, eager=True).alias("position")
    drawn: pl.DataFrame = con.sql(f"SELECT nextval('{_LOG_TABLES}.event_position') AS position FROM range(?) "
                                  "ORDER BY position",
                                  params=[count]).pl()
    return drawn["position"]


def _insert(con: duckdb.DuckDBPyConnection, rows: pa.Table | ArrowStream) -> None:
    con.register("incoming_events", rows)
    try:
        con.execute(f"INSERT INTO {_LOG_TABLES}.events SELECT * FROM incoming_events")
    finally:
        con.unregister("incoming_events")


def _has_events_table(con: duckdb.DuckDBPyConnection) -> bool:
    return "events" in table_columns(con, ["events"])


def table_columns(con: duckdb.DuckDBPyConnection, names: Sequence[str]) -> dict[str, list[str]]:
    """Each of the tables or views `names` that the store holds, with its columns in order.

    Each is asked for directly (`SELECT * ... LIMIT 0`, which reads no row): 1-2 ms for four
    tables, where the first look at the catalog's own functions (`duckdb_columns()`,
    `information_schema`) in a connection costs 16-25 ms, paid by every command that checks a table
    exists. A missing name costs more (about 9 ms: DuckDB looks for a name to suggest), which only a
    store's first use meets.
    """
    found: dict[str, list[str]] = {}
    for name in names:
        try:
            result = con.execute(f'SELECT * FROM "{name}" LIMIT 0')
        except duckdb.CatalogException:
            continue
        found[name] = [column[0] for column in result.description or ()]
        result.fetchall()  # (no row) a result left open would refuse the connection's next statement
    return found


def _current_versions(con: duckdb.DuckDBPyConnection, stream_ids: Sequence[str]) -> dict[str, int]:
    if not stream_ids:
        return {}
    if len(stream_ids) <= _LISTED_STREAMS:
        # Listed as literals, the streams are a filter DuckDB checks against each row group's
        # min/max; a list parameter is joined, a scan of the whole column (3-16 ms, not 1-4, on
        # ten million events).
        where, params = f"stream_id IN ({', '.join('?' for _ in stream_ids)})", list[object](stream_ids)
    else:
        where, params = "stream_id IN (SELECT unnest(?))", [list(stream_ids)]
    rows = con.execute(f"SELECT stream_id, max(stream_version) FROM events WHERE {where} GROUP BY stream_id",
                       params).fetchall()
    return {stream: int(version) for stream, version in rows}


_LISTED_STREAMS = 64
"""Up to this many streams, `_current_versions` lists them in its query; beyond, it joins a list."""


def _select_events(types: Sequence[str] | None, up_to: int | None,
                   stream_id: str | None) -> tuple[str, list[Any]]:
    where, params = event_filter(types, up_to, stream_id, param="?", any_of="IN (SELECT unnest({}))")
    query = (
        "SELECT position, stream_id, stream_version, type, schema_version, payload::VARCHAR,"
        f" epoch_us(occurred_at), epoch_us(recorded_at), source_sha256 FROM events{where}"
        " ORDER BY position"
    )
    return query, params
