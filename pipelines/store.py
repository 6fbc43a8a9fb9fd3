"""The event log: one append-only DuckDB table, a hash chain, and one write path.

Rules (DESIGN.md, "The event log"):
- `append` is the only function that writes events. No UPDATE or DELETE touches `events`; the only
  DELETE in the code base swaps rows of the derived projection tables (`pipelines.live`).
- One call of `append` is one transaction: all its events or none.
- `UNIQUE(stream_id, stream_version)` is the whole optimistic-concurrency story; a clash becomes
  our own `ConcurrencyError`.
- `hash = sha256(prev_hash || canonical event)`; `verify` recomputes the chain and names the first
  position where it breaks.
- DuckDB lets one process write a file at a time. Another process gets `StoreBusy` after a bounded
  wait; nothing is lost or half-written.
- Payloads are upcast on read, never rewritten.
"""

from __future__ import annotations

import hashlib
import logging
import threading
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from itertools import accumulate
from pathlib import Path
from typing import TYPE_CHECKING, Any

import duckdb
import orjson
import polars as pl

from models.events import CURRENT_VERSIONS, UPCASTERS
from models.upcasting import MissingUpcaster, Upcasters
from pipelines.anchor import Head, missing_heads, read_anchor, write_anchor
from pipelines.payloads import encode_payload
from pipelines.query_frames import ArrowStream, for_duckdb

if TYPE_CHECKING:  # a command that only reads, or appends a few events, never imports pyarrow
    import pyarrow as pa

log = logging.getLogger(__name__)

GENESIS_HASH = "0" * 64
"""The `prev_hash` of the first event."""

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
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
"""


_SESSIONS: dict[tuple[Path, int], duckdb.DuckDBPyConnection] = {}
"""The connection `EventStore.session()` holds, by store file and thread. Every `EventStore` of that
file borrows it on that thread: a step that names the store by its path (an Airflow task's function,
the ranking's cache) joins its caller's session instead of failing to attach the file a second time
(DuckDB attaches a file once per process). Other threads open their own, as before."""


def _session_key(path: Path) -> tuple[Path, int]:
    return path.resolve(), threading.get_ident()


class StoreError(Exception):
    """Base class of the event store's errors."""


class ConcurrencyError(StoreError):
    """Another writer appended to the same stream version first (UNIQUE(stream_id, stream_version))."""


class StoreBusy(StoreError):
    """Another process holds the DuckDB write lock and did not release it within the wait."""


class StoreMissing(StoreError):
    """A read-only operation was asked of a store file that does not exist."""


@dataclass(frozen=True, slots=True)
class NewEvent:
    """An event about to be appended: the caller says what and when; the store says where."""

    stream_id: str
    type: str
    payload: Mapping[str, Any]
    occurred_at: datetime
    schema_version: int | None = None  # None: the version this code writes for `type`


@dataclass(frozen=True, slots=True)
class AppendResult:
    """What an append wrote."""

    count: int
    first_position: int | None
    last_position: int | None
    last_hash: str | None = None


@dataclass(frozen=True, slots=True)
class StoredEvent:
    """An event as read back, with its payload upcast to the current schema version."""

    position: int
    stream_id: str
    stream_version: int
    type: str
    schema_version: int
    payload: dict[str, Any]
    occurred_at: datetime
    recorded_at: datetime
    source_sha256: str | None


@dataclass(frozen=True, slots=True)
class VerifyReport:
    """Result of recomputing the hash chain."""

    events: int
    first_bad_position: int | None
    reason: str | None

    @property
    def ok(self) -> bool:
        """True when every row is where the chain says it should be, unedited."""
        return self.first_bad_position is None


def to_epoch_us(moment: datetime) -> int:
    """Microseconds since the Unix epoch; naive datetimes are refused (time must carry its zone)."""
    if moment.tzinfo is None or moment.utcoffset() is None:
        raise ValueError(f"time {moment.isoformat()} has no timezone; give one (e.g. +01:00 or Z)")
    return (moment - _EPOCH) // timedelta(microseconds=1)


def from_epoch_us(micros: int) -> datetime:
    """The UTC datetime `micros` microseconds after the Unix epoch."""
    return _EPOCH + timedelta(microseconds=micros)


def canonical_bytes(position: int, stream_id: str, stream_version: int, event_type: str,
                    schema_version: int, payload_json: str, occurred_us: int, recorded_us: int,
                    source_sha256: str | None) -> bytes:
    """The bytes a row's hash covers: every column but the hashes themselves."""
    return (
        f"{position}\x1f{stream_id}\x1f{stream_version}\x1f{event_type}\x1f{schema_version}\x1f"
        f"{occurred_us}\x1f{recorded_us}\x1f{source_sha256 or ''}\x1f{payload_json}"
    ).encode()


def chain(prev_hash: str, canonical: Iterable[bytes]) -> list[bytes]:
    """The raw SHA-256 digest of each row in order, each chained on the one before.

    Link i is sha256(digest of row i-1 || 0x1E || canonical bytes of row i); the stored `hash`
    column is the hex form. Sequential by nature: each link needs the one before.
    """
    sha256 = hashlib.sha256
    links = accumulate(canonical, lambda prev, line: sha256(prev + b"\x1e" + line).digest(),
                       initial=bytes.fromhex(prev_hash))
    next(links)  # the initial value is the previous row's digest, not a new link
    return list(links)


class EventStore:
    """The append-only event log in one DuckDB file."""

    def __init__(self, path: str | Path, *, busy_timeout: float = 10.0) -> None:
        self.path = Path(path)
        self.busy_timeout = busy_timeout
        self._held: duckdb.DuckDBPyConnection | None = None

    # -- connections -------------------------------------------------------------------------

    def _connect(self, read_only: bool) -> duckdb.DuckDBPyConnection:
        if read_only and not self.path.exists():
            raise StoreMissing(f"no event store at {self.path}; ingest a file first")
        deadline = time.monotonic() + self.busy_timeout
        delay = 0.05
        while True:
            try:
                return _attach(self.path, read_only)
            except duckdb.IOException as exc:
                if "lock" not in str(exc).lower():
                    raise StoreError(f"cannot open {self.path}: {exc}") from exc
                if time.monotonic() >= deadline:
                    raise StoreBusy(
                        f"{self.path} is busy: another process is writing to it and did not finish "
                        f"within {self.busy_timeout:.0f}s; try again when it is done"
                    ) from exc
                time.sleep(delay)
                delay = min(delay * 2, 1.0)
            except duckdb.Error as exc:  # e.g. a write-ahead log that fails its checksums on replay
                wal = self.path.with_name(self.path.name + ".wal")
                damaged = f"the store or its write-ahead log {wal}" if wal.exists() else "the store"
                raise StoreError(f"cannot open {self.path}: {exc}. {damaged} is damaged; nothing was changed. "
                                 "Restore it from a copy, then run `bridgeledger verify`.") from exc

    @contextmanager
    def reader(self) -> Iterator[duckdb.DuckDBPyConnection]:
        """A read-only connection (what analysts get: no write is possible through it).

        Inside `session()` the session's connection is lent instead.
        """
        held = self._lent()
        if held is not None:
            yield held
            return
        con = self._connect(read_only=True)
        try:
            yield con
        finally:
            con.close()

    @contextmanager
    def writer(self) -> Iterator[duckdb.DuckDBPyConnection]:
        """A read-write connection with the schema in place. Only this module appends events."""
        held = self._lent()
        if held is not None:
            yield held
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        con = self._connect(read_only=False)
        try:
            con.execute(_SCHEMA)
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
        """
        if self._lent() is not None:
            yield self
            return
        key = _session_key(self.path)
        with self.writer() as con:
            self._held = _SESSIONS[key] = con
            try:
                yield self
            finally:
                self._held = None
                del _SESSIONS[key]

    def _has_events(self, con: duckdb.DuckDBPyConnection) -> bool:
        """Whether the log's table exists. A session's connection was opened by `writer`, which
        creates it; asking the catalog cost a few milliseconds a call, three calls a file ingested."""
        return con is self._lent() or _has_events_table(con)

    def _lent(self) -> duckdb.DuckDBPyConnection | None:
        """The session connection this store lends: its own, or one this thread holds on the same file."""
        if self._held is not None:
            return self._held
        return _SESSIONS.get(_session_key(self.path)) if _SESSIONS else None

    # -- the one write path --------------------------------------------------------------------

    def append(self, events: Sequence[NewEvent], *, recorded_at: datetime,
               source_sha256: str | None = None,
               expected_versions: Mapping[str, int] | None = None) -> AppendResult:
        """Append `events` in one transaction; all or nothing.

        Stream versions continue each stream. `expected_versions` (stream -> version the caller
        last saw, 0 = new stream) makes the append fail with `ConcurrencyError` if anyone got there
        first; the UNIQUE key catches the same race between concurrent writers.
        """
        if not events:
            return AppendResult(0, None, None)
        return self.append_frame(event_frame(events), recorded_at=recorded_at, source_sha256=source_sha256,
                                 expected_versions=expected_versions)

    def append_frame(self, frame: pl.DataFrame, *, recorded_at: datetime,
                     source_sha256: str | None = None,
                     expected_versions: Mapping[str, int] | None = None) -> AppendResult:
        """Append a batch of events given as columns, in one transaction; all or nothing.

        `frame` has `stream_id`, `type`, `payload` (canonical JSON as `encode_payload` writes it),
        `occurred_us` (microseconds since the epoch) and optionally `schema_version` (default: the
        version this code writes for the type). Bulk writers (ingest of a large file) build it with
        polars expressions; `append` builds it from `NewEvent`s. Otherwise as `append`.
        """
        missing = {"stream_id", "type", "payload", "occurred_us"} - set(frame.columns)
        if missing:
            raise ValueError(f"append_frame needs columns {sorted(missing)}")
        if frame.height == 0:
            return AppendResult(0, None, None)
        frame = _with_schema_versions(frame).with_columns(
            recorded_us=pl.lit(to_epoch_us(recorded_at), dtype=pl.Int64),
            source_sha256=pl.lit(source_sha256, dtype=pl.String),
        )
        with self.writer() as con:
            try:
                con.execute("BEGIN TRANSACTION")
                result = self._append_in_transaction(con, frame, expected_versions or {})
                _commit(con, checkpoint=_checkpoints_at_commit(frame))
                # Still holding the write lock: anchors are written in commit order.
                write_anchor(self.path, Head(result.last_position or 0, result.last_hash or GENESIS_HASH))
            except duckdb.ConstraintException as exc:
                con.execute("ROLLBACK")
                raise ConcurrencyError(f"a stream version was already taken: {exc}") from exc
            except duckdb.TransactionException as exc:
                con.execute("ROLLBACK")
                raise ConcurrencyError(f"concurrent append conflicted: {exc}") from exc
            except BaseException:
                con.execute("ROLLBACK")
                raise
        log.debug("appended %d events at positions %s..%s", result.count, result.first_position,
                  result.last_position)
        return result

    def _append_in_transaction(self, con: duckdb.DuckDBPyConnection, frame: pl.DataFrame,
                               expected: Mapping[str, int]) -> AppendResult:
        current = _current_versions(con, frame["stream_id"].unique().sort().to_list())
        for stream, version in expected.items():
            if current.get(stream, 0) != version:
                raise ConcurrencyError(
                    f"stream {stream} is at version {current.get(stream, 0)}, expected {version}"
                )
        positions = _next_positions(con, frame.height)
        tip = con.execute("SELECT hash FROM events ORDER BY position DESC LIMIT 1").fetchall()
        frame = _with_versions(frame.with_columns(position=positions), current)
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
            chunk = _with_hashes(frame, prev_hash)
            _insert(con, for_duckdb(chunk.select(_COLUMNS)))
            return str(chunk["hash"][-1])
        with ThreadPoolExecutor(max_workers=1, thread_name_prefix="event-insert") as writer:
            pending: Future[None] | None = None
            for start in range(0, frame.height, step):
                chunk = _with_hashes(frame.slice(start, step), prev_hash)
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
        """Whether the store file exists."""
        return self.path.exists()

    def head(self) -> int:
        """The position of the last event (0 when the log is empty)."""
        if not self.exists():
            return 0
        with self.reader() as con:
            if not self._has_events(con):
                return 0
            rows = con.execute("SELECT coalesce(max(position), 0) FROM events").fetchall()
            return int(rows[0][0])

    def tip(self) -> Head | None:
        """The last event's position and hash (None when the log is empty): what anchors carry."""
        if not self.exists():
            return None
        with self.reader() as con:
            if not self._has_events(con):
                return None
            rows = con.execute("SELECT position, hash FROM events ORDER BY position DESC LIMIT 1").fetchall()
        return Head(int(rows[0][0]), str(rows[0][1])) if rows else None

    def stream_version(self, stream_id: str) -> int:
        """Current version of a stream (0 = no events yet)."""
        if not self.exists():
            return 0
        with self.reader() as con:
            if not self._has_events(con):
                return 0
            return _current_versions(con, [stream_id]).get(stream_id, 0)

    def has_event(self, stream_id: str, event_type: str) -> bool:
        """Whether the stream holds an event of this type (read without decoding any payload)."""
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
        if not self.exists():
            return []
        query, params = _select_events(types, up_to, stream_id)
        with self.reader() as con:
            if not self._has_events(con):
                return []
            rows = con.execute(query, params).fetchall()
        events = []
        for pos, stream, version, typ, schema, payload, occurred, recorded, sha in rows:
            body = orjson.loads(payload)
            target = CURRENT_VERSIONS.get(typ, schema)
            if schema < target:
                try:
                    body = upcasters.upcast(typ, schema, body, target)
                except MissingUpcaster as exc:
                    raise StoreError(str(exc)) from exc
                schema = target
            events.append(StoredEvent(pos, stream, version, typ, schema, body, from_epoch_us(occurred),
                                      from_epoch_us(recorded), sha))
        return events

    def verify(self, *, batch_size: int = 100_000) -> VerifyReport:
        """Recompute the hash chain; name the first position where a row was edited, added or removed."""
        if not self.exists():
            raise StoreMissing(f"no event store at {self.path}")
        anchor = read_anchor(self.path)
        with self.reader() as con:
            if not self._has_events(con):
                if anchor is not None:
                    return VerifyReport(0, anchor.position, _shorter(anchor, "the anchor file", "has no events table"))
                return VerifyReport(0, None, None)
            cursor = con.sql(
                "SELECT position, stream_id, stream_version, type, schema_version, payload::VARCHAR,"
                " epoch_us(occurred_at), epoch_us(recorded_at), source_sha256, prev_hash, hash"
                " FROM events ORDER BY position"
            ).to_arrow_reader(batch_size)
            chain_report = _verify_batches(cursor)
            if not chain_report.ok:
                return chain_report
            missing = missing_heads(con, anchor)
        if missing:
            head, where = missing[0]
            return VerifyReport(chain_report.events, head.position,
                                _shorter(head, where, f"holds {chain_report.events} events"))
        return chain_report


ROW_GROUP_SIZE = 16_384
"""Rows per DuckDB row group of the store (DuckDB's default is 122,880).

Each checkpoint rewrites the table's last, partly filled row group with the rows appended to it.
With the default a file's ingest into a grown store re-compressed up to 120k earlier events; with
16k, at most 16k (50 appends of 20k events: 13.2 s against 6.2 s, and a fifth less file). Scans
measured as fast. DuckDB takes the size when a database is attached, not from the file: every
connection of this module attaches it so (`_attach`)."""


def _attach(path: Path, read_only: bool) -> duckdb.DuckDBPyConnection:
    """A connection to the store file, attached with the store's row group size and made current."""
    con = duckdb.connect()
    try:
        quoted = str(path).replace("'", "''")
        con.execute(f"ATTACH '{quoted}' AS event_store (ROW_GROUP_SIZE {ROW_GROUP_SIZE}"
                    f"{', READ_ONLY' if read_only else ''})")
        con.execute("USE event_store")
        con.execute("SET enable_progress_bar = false")  # it would interleave with our output
    except BaseException:
        con.close()
        raise
    return con


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
_CANONICAL = ["position", "stream_id", "stream_version", "type", "schema_version", "occurred_us",
              "recorded_us", "source_sha256", "payload"]


def event_frame(events: Sequence[NewEvent]) -> pl.DataFrame:
    """`NewEvent`s as the columns `append_frame` takes, payloads encoded canonically."""
    epoch_us: dict[datetime, int] = {}  # a file's events mostly share one occurred_at
    occurred = []
    for event in events:
        moment = event.occurred_at
        if moment not in epoch_us:
            epoch_us[moment] = to_epoch_us(moment)
        occurred.append(epoch_us[moment])
    return pl.DataFrame(
        {
            "stream_id": [e.stream_id for e in events],
            "type": [e.type for e in events],
            "schema_version": [e.schema_version for e in events],
            "payload": [encode_payload(e.payload) for e in events],
            "occurred_us": occurred,
        },
        schema={"stream_id": pl.String, "type": pl.String, "schema_version": pl.Int32,
                "payload": pl.String, "occurred_us": pl.Int64},
    )


def _with_schema_versions(frame: pl.DataFrame) -> pl.DataFrame:
    """Fill missing schema versions with the version this code writes for each type."""
    current = pl.col("type").replace_strict(CURRENT_VERSIONS, default=1, return_dtype=pl.Int32)
    given = pl.col("schema_version").cast(pl.Int32) if "schema_version" in frame.columns else None
    return frame.with_columns(schema_version=current if given is None else given.fill_null(current))


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
        "SELECT min(p), max(p) FROM (SELECT nextval('event_position') AS p FROM range(?))", [count]
    ).fetchall()[0]
    if last - first + 1 == count:
        return pl.int_range(first, last + 1, dtype=pl.Int64, eager=True).alias("position")
    drawn: pl.DataFrame = con.sql("SELECT nextval('event_position') AS position FROM range(?) ORDER BY position",
                                  params=[count]).pl()
    return drawn["position"]


def _insert(con: duckdb.DuckDBPyConnection, rows: pa.Table | ArrowStream) -> None:
    con.register("incoming_events", rows)
    try:
        con.execute("INSERT INTO events SELECT * FROM incoming_events")
    finally:
        con.unregister("incoming_events")


def _with_versions(frame: pl.DataFrame, current: Mapping[str, int]) -> pl.DataFrame:
    base = pl.DataFrame({"stream_id": list(current), "base": list(current.values())},
                        schema={"stream_id": pl.String, "base": pl.Int64})
    return (
        frame.join(base, on="stream_id", how="left", maintain_order="left")
        .with_columns(
            stream_version=pl.col("base").fill_null(0) + pl.int_range(1, pl.len() + 1).over("stream_id")
        )
        .drop("base")
    )


def _with_hashes(frame: pl.DataFrame, prev_hash: str) -> pl.DataFrame:
    canonical = frame.select(
        pl.concat_str([pl.col(c).cast(pl.String).fill_null("") for c in _CANONICAL], separator="\x1f")
    ).to_series()
    digests = pl.Series(chain(prev_hash, canonical.cast(pl.Binary).to_list()), dtype=pl.Binary)
    hashes = digests.bin.encode("hex")
    return frame.with_columns(
        hash=hashes,
        prev_hash=hashes.shift(1, fill_value=prev_hash),
        occurred_at=pl.col("occurred_us").cast(pl.Datetime("us", "UTC")),
        recorded_at=pl.col("recorded_us").cast(pl.Datetime("us", "UTC")),
    )


def _verify_batches(reader: Any) -> VerifyReport:
    expected_prev = GENESIS_HASH
    count = 0
    for batch in reader:
        columns = [batch.column(i).to_pylist() for i in range(batch.num_columns)]
        for row in zip(*columns, strict=True):
            position, stream, version, typ, schema, payload, occ, rec, sha, prev_hash, stored = row
            count += 1
            if prev_hash != expected_prev:
                return VerifyReport(count, position, "the row before it was removed, inserted or edited")
            digest = chain(prev_hash, [canonical_bytes(position, stream, version, typ, schema,
                                                       payload, occ, rec, sha)])[0]
            if digest.hex() != stored:
                return VerifyReport(count, position, "this row was edited after it was written")
            expected_prev = stored
    return VerifyReport(count, None, None)


def _shorter(head: Head, where: str, found: str) -> str:
    return (f"the log is shorter than a head it has seen: {where} says position {head.position} "
            f"(hash {head.hash[:12]}) was written, but the log {found}, without that event; "
            "events were cut from its end, or its write-ahead log (.wal) was lost")


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
    clauses: list[str] = []
    params: list[Any] = []
    if types is not None:
        clauses.append("type IN (SELECT unnest(?))")
        params.append(list(types))
    if up_to is not None:
        clauses.append("position <= ?")
        params.append(up_to)
    if stream_id is not None:
        clauses.append("stream_id = ?")
        params.append(stream_id)
    where = f" WHERE {' AND '.join(clauses)}" if clauses else ""
    query = (
        "SELECT position, stream_id, stream_version, type, schema_version, payload::VARCHAR,"
        f" epoch_us(occurred_at), epoch_us(recorded_at), source_sha256 FROM events{where}"
        " ORDER BY position"
    )
    return query, params
