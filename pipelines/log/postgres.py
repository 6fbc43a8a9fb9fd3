"""The log of record in PostgreSQL: many writers, on many machines.

What the database itself guarantees, whoever connects:
- `UNIQUE (stream_id, stream_version)`: a stream cannot fork, whatever a writer believes.
- Triggers refuse UPDATE, DELETE and TRUNCATE on `events` and on `commands`: the log is append-only.
- `payload` is `text`, the exact bytes that were hashed (`jsonb` would rewrite key order and spacing,
  and no stored hash could be recomputed).
- `commands` records each idempotency key in the transaction of its events: a retried task whose
  first try committed appends nothing twice.

Appends are serialised by one transaction-level advisory lock, because every event is chained on
the one before it (`hash = sha256(prev_hash || event)`). Positions are the tip's plus one, drawn
under that lock, so commit order is position order: a reader that has seen position N has seen
every position below it, and a cursor over positions cannot skip a transaction that commits late
(`tests/log/test_postgres.py` holds one open to show it).
"""

from __future__ import annotations

import io
import logging
import os
import re
import threading
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

import polars as pl

from pipelines.log.anchor import ANCHORING_TYPES, Head
from pipelines.log.chain import GENESIS_HASH, ROW_COLUMNS, ROW_SCHEMA, with_hashes
from pipelines.log.errors import ConcurrencyError, StoreError
from pipelines.log.records import AppendResult, RawRow, check_expected, event_filter, with_versions

if TYPE_CHECKING:
    import psycopg

log = logging.getLogger(__name__)

_LOCK_KEY = 0x6272_6964_6765  # "bridge": the advisory lock that serialises appends (and schema creation)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS events (
    position        bigint      PRIMARY KEY,
    stream_id       text        NOT NULL,
    stream_version  bigint      NOT NULL,
    type            text        NOT NULL,
    schema_version  integer     NOT NULL,
    payload         text        NOT NULL,
    occurred_at     timestamptz NOT NULL,
    recorded_at     timestamptz NOT NULL,
    source_sha256   text,
    prev_hash       text        NOT NULL,
    hash            text        NOT NULL,
    UNIQUE (stream_id, stream_version)
);
CREATE INDEX IF NOT EXISTS events_type ON events (type);
CREATE TABLE IF NOT EXISTS commands (
    idempotency_key text        PRIMARY KEY,
    first_position  bigint      NOT NULL,
    last_position   bigint      NOT NULL,
    count           bigint      NOT NULL,
    last_hash       text        NOT NULL,
    recorded_at     timestamptz NOT NULL
);
CREATE OR REPLACE FUNCTION bridgeledger_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'the bridgeledger log is append-only: % on % is refused', TG_OP, TG_TABLE_NAME
        USING ERRCODE = 'insufficient_privilege';
END $$;
CREATE OR REPLACE TRIGGER events_append_only BEFORE UPDATE OR DELETE ON events
    FOR EACH ROW EXECUTE FUNCTION bridgeledger_append_only();
CREATE OR REPLACE TRIGGER events_never_truncated BEFORE TRUNCATE ON events
    FOR EACH STATEMENT EXECUTE FUNCTION bridgeledger_append_only();
CREATE OR REPLACE TRIGGER commands_append_only BEFORE UPDATE OR DELETE ON commands
    FOR EACH ROW EXECUTE FUNCTION bridgeledger_append_only();
CREATE OR REPLACE TRIGGER commands_never_truncated BEFORE TRUNCATE ON commands
    FOR EACH STATEMENT EXECUTE FUNCTION bridgeledger_append_only();
"""

_US = "(extract(epoch FROM {0}) * 1000000)::bigint"
_SELECT_ROWS = (
    "SELECT position, stream_id, stream_version, type, schema_version, payload, "
    f"{_US.format('occurred_at')}, {_US.format('recorded_at')}, source_sha256, prev_hash, hash FROM events"
)
_COPY_IN = ("COPY events (position, stream_id, stream_version, type, schema_version, payload, occurred_at, "
            "recorded_at, source_sha256, prev_hash, hash) FROM STDIN (FORMAT csv)")


def is_postgres_url(location: str) -> bool:
    """Whether `location` names a PostgreSQL database rather than a DuckDB file."""
    return location.startswith(("postgresql://", "postgres://"))


def redacted(url: str) -> str:
    """`url` without its password, for messages and logs."""
    return re.sub(r"(://[^:/@]+):[^@]*@", r"\1:***@", url)


class PostgresLog:
    """The event log in a PostgreSQL database named by a `postgresql://` URL."""

    def __init__(self, url: str, *, connect_timeout: int = 10) -> None:
        self.url = url
        self.connect_timeout = connect_timeout
        self._schema_ready = False
        self._local = threading.local()

    def __repr__(self) -> str:
        return f"PostgresLog({redacted(self.url)!r})"

    # -- connections -------------------------------------------------------------------------

    @contextmanager
    def connection(self) -> Iterator[psycopg.Connection[Any]]:
        """The connection of this thread's unit of work (autocommit; appends open their own
        transaction). It is kept for the next call: a connection costs a round trip and a backend
        process, and a command or task makes many calls. A broken one, or one inherited across a
        fork, is replaced."""
        import psycopg

        con: psycopg.Connection[Any] | None = getattr(self._local, "con", None)
        if con is None or con.closed or con.broken or self._local.pid != os.getpid():
            try:
                con = psycopg.connect(self.url, autocommit=True, connect_timeout=self.connect_timeout,
                                      application_name="bridgeledger")
            except psycopg.OperationalError as exc:
                raise StoreError(f"cannot reach the PostgreSQL log at {redacted(self.url)}: {exc}") from exc
            self._local.con, self._local.pid = con, os.getpid()
        try:
            yield con
        except psycopg.OperationalError as exc:
            con.close()
            raise StoreError(f"the PostgreSQL log at {redacted(self.url)} failed: {exc}") from exc

    def close(self) -> None:
        """Close this thread's connection (the next call opens another)."""
        con = getattr(self._local, "con", None)
        if con is not None:
            con.close()
            self._local.con = None

    def ensure_schema(self, con: psycopg.Connection[Any]) -> None:
        """Create the log's tables and guards if they are not there (once per process)."""
        if self._schema_ready:
            return
        with con.transaction():
            con.execute("SELECT pg_advisory_xact_lock(%s)", [_LOCK_KEY])  # two first writers race otherwise
            con.execute(_SCHEMA)
        self._schema_ready = True

    def has_log(self, con: psycopg.Connection[Any]) -> bool:
        """Whether the database holds the log's table."""
        row = con.execute("SELECT to_regclass('events') IS NOT NULL").fetchone()
        return bool(row and row[0])

    # -- the one write path --------------------------------------------------------------------

    def append(self, con: psycopg.Connection[Any], frame: pl.DataFrame, *,
               expected_versions: Mapping[str, int], idempotency_key: str | None) -> AppendResult:
        """Append a prepared frame (`records.prepared_frame`) in one transaction; all or nothing."""
        import psycopg

        self.ensure_schema(con)
        try:
            with con.transaction():
                con.execute("SELECT pg_advisory_xact_lock(%s)", [_LOCK_KEY])
                if idempotency_key is not None:
                    done = _command(con, idempotency_key)
                    if done is not None:
                        return done
                result = self._append_locked(con, frame, expected_versions)
                if idempotency_key is not None:
                    con.execute("INSERT INTO commands VALUES (%s, %s, %s, %s, %s, now())",
                                [idempotency_key, result.first_position, result.last_position, result.count,
                                 result.last_hash])
        except psycopg.errors.UniqueViolation as exc:
            raise ConcurrencyError(f"a stream version was already taken: {exc}") from exc
        except psycopg.errors.SerializationFailure as exc:
            raise ConcurrencyError(f"concurrent append conflicted: {exc}") from exc
        return result

    def _append_locked(self, con: psycopg.Connection[Any], frame: pl.DataFrame,
                       expected: Mapping[str, int]) -> AppendResult:
        current = _current_versions(con, frame["stream_id"].unique().to_list())
        check_expected(current, expected)
        tip = self.tip(con)
        first = (tip.position if tip else 0) + 1
        frame = with_versions(frame.with_columns(position=pl.int_range(first, first + frame.height,
                                                                       dtype=pl.Int64)), current)
        chained = with_hashes(frame, tip.hash if tip else GENESIS_HASH)
        self._copy_in(con, chained)
        return AppendResult(chained.height, first, first + chained.height - 1, str(chained["hash"][-1]))

    def import_rows(self, con: psycopg.Connection[Any], rows: pl.DataFrame) -> None:
        """Store rows exactly as another log holds them (`ROW_COLUMNS`, hashes included): the move of
        a log between backends. Refused unless they continue this log's chain at its tip."""
        self.ensure_schema(con)
        with con.transaction():
            con.execute("SELECT pg_advisory_xact_lock(%s)", [_LOCK_KEY])
            tip = self.tip(con)
            if rows.height and rows["prev_hash"][0] != (tip.hash if tip else GENESIS_HASH):
                raise StoreError("the rows do not continue this log's chain at its tip; nothing was copied")
            self._copy_in(con, rows.with_columns(
                occurred_at=pl.col("occurred_us").cast(pl.Datetime("us", "UTC")),
                recorded_at=pl.col("recorded_us").cast(pl.Datetime("us", "UTC"))))

    @staticmethod
    def _copy_in(con: psycopg.Connection[Any], chained: pl.DataFrame) -> None:
        iso = "%Y-%m-%d %H:%M:%S%.6f+00"
        text = chained.select(
            "position", "stream_id", "stream_version", "type", "schema_version", "payload",
            pl.col("occurred_at").dt.convert_time_zone("UTC").dt.strftime(iso),
            pl.col("recorded_at").dt.convert_time_zone("UTC").dt.strftime(iso),
            "source_sha256", "prev_hash", "hash",
        )
        buffer = io.BytesIO()
        text.write_csv(buffer, include_header=False, null_value="")
        with con.cursor() as cur, cur.copy(_COPY_IN) as copy:
            copy.write(buffer.getvalue())

    # -- reading -------------------------------------------------------------------------------

    def tip(self, con: psycopg.Connection[Any]) -> Head | None:
        """The last event's position and hash; None when the log is empty."""
        if not self.has_log(con):
            return None
        row = con.execute("SELECT position, hash FROM events ORDER BY position DESC LIMIT 1").fetchone()
        return Head(int(row[0]), str(row[1])) if row else None

    def count(self, con: psycopg.Connection[Any]) -> int:
        """How many events the log holds."""
        if not self.has_log(con):
            return 0
        row = con.execute("SELECT count(*) FROM events").fetchone()
        return int(row[0]) if row else 0

    def stream_version(self, con: psycopg.Connection[Any], stream_id: str) -> int:
        """Current version of a stream (0 = no events yet)."""
        if not self.has_log(con):
            return 0
        return _current_versions(con, [stream_id]).get(stream_id, 0)

    def has_event(self, con: psycopg.Connection[Any], stream_id: str, event_type: str) -> bool:
        """Whether the stream holds an event of this type."""
        if not self.has_log(con):
            return False
        row = con.execute("SELECT EXISTS (SELECT 1 FROM events WHERE stream_id = %s AND type = %s)",
                          [stream_id, event_type]).fetchone()
        return bool(row and row[0])

    def raw_events(self, con: psycopg.Connection[Any], *, types: Sequence[str] | None, up_to: int | None,
                   stream_id: str | None) -> list[RawRow]:
        """Events in log order as `records.RawRow`s (payloads as stored, not yet upcast)."""
        if not self.has_log(con):
            return []
        where, params = event_filter(types, up_to, stream_id, param="%s", any_of="= ANY({})")
        query = (f"SELECT position, stream_id, stream_version, type, schema_version, payload, "
                 f"{_US.format('occurred_at')}, {_US.format('recorded_at')}, source_sha256 FROM events{where}"
                 " ORDER BY position")
        return [tuple(row) for row in con.execute(query, params).fetchall()]

    def rows_after(self, con: psycopg.Connection[Any], position: int, limit: int) -> pl.DataFrame:
        """Up to `limit` whole rows (`ROW_COLUMNS`, hashes included) after `position`, in order."""
        if not self.has_log(con):
            return pl.DataFrame(schema=ROW_SCHEMA)
        query = f"COPY ({_SELECT_ROWS} WHERE position > {int(position)} ORDER BY position LIMIT {int(limit)}) " \
                "TO STDOUT (FORMAT csv)"
        buffer = io.BytesIO()
        with con.cursor() as cur, cur.copy(query) as copy:
            for block in copy:
                buffer.write(block)
        if buffer.tell() == 0:
            return pl.DataFrame(schema=ROW_SCHEMA)
        buffer.seek(0)
        return pl.read_csv(buffer, has_header=False, new_columns=ROW_COLUMNS, schema=ROW_SCHEMA)

    def hash_at(self, con: psycopg.Connection[Any], position: int) -> str | None:
        """The hash of the event at `position`, if the log holds one there."""
        if not self.has_log(con):
            return None
        row = con.execute("SELECT hash FROM events WHERE position = %s", [position]).fetchone()
        return str(row[0]) if row else None

    def published_heads(self, con: psycopg.Connection[Any]) -> list[tuple[Head, str]]:
        """The log heads publications carry (`log_head`), with where each was seen."""
        if not self.has_log(con):
            return []
        rows = con.execute(
            "SELECT position, type, payload::json->'log_head'->>'position', payload::json->'log_head'->>'hash'"
            " FROM events WHERE type = ANY(%s) ORDER BY position", [list(ANCHORING_TYPES)]).fetchall()
        return [(Head(int(head_position), str(head_hash)), f"{typ} at position {position}")
                for position, typ, head_position, head_hash in rows
                if head_hash is not None and str(head_position or "").isdigit()]

    def hashes_at(self, con: psycopg.Connection[Any], positions: Sequence[int]) -> dict[int, str]:
        """The hash at each of `positions` that the log holds."""
        rows = con.execute("SELECT position, hash FROM events WHERE position = ANY(%s)", [list(positions)])
        return {int(position): str(hash_) for position, hash_ in rows.fetchall()}

    def commands(self, con: psycopg.Connection[Any]) -> pl.DataFrame:
        """Every idempotency key recorded, with what its append wrote (for the move of a log)."""
        if not self.has_log(con):
            return pl.DataFrame(schema=COMMAND_SCHEMA)
        rows = con.execute(f"SELECT idempotency_key, first_position, last_position, count, last_hash, "
                           f"{_US.format('recorded_at')} FROM commands ORDER BY first_position").fetchall()
        return pl.DataFrame(rows, schema=COMMAND_SCHEMA, orient="row")

    def import_commands(self, con: psycopg.Connection[Any], commands: pl.DataFrame) -> None:
        """Record another log's idempotency keys as they are."""
        self.ensure_schema(con)
        with con.transaction(), con.cursor() as cur:
            cur.executemany("INSERT INTO commands VALUES (%s, %s, %s, %s, %s, "
                            "timestamptz 'epoch' + %s * interval '1 microsecond')", commands.rows())


COMMAND_SCHEMA = {"idempotency_key": pl.String, "first_position": pl.Int64, "last_position": pl.Int64,
                  "count": pl.Int64, "last_hash": pl.String, "recorded_us": pl.Int64}
"""The `commands` table as both backends hand it over."""


def _command(con: psycopg.Connection[Any], key: str) -> AppendResult | None:
    row = con.execute("SELECT first_position, last_position, last_hash FROM commands WHERE idempotency_key = %s",
                      [key]).fetchone()
    if row is None:
        return None
    log.info("command %s was already appended at positions %s..%s; nothing appended", key, row[0], row[1])
    return AppendResult(0, int(row[0]), int(row[1]), str(row[2]), replayed=True)


def _current_versions(con: psycopg.Connection[Any], stream_ids: Sequence[str]) -> dict[str, int]:
    if not stream_ids:
        return {}
    rows = con.execute("SELECT stream_id, max(stream_version) FROM events WHERE stream_id = ANY(%s) "
                       "GROUP BY stream_id", [list(stream_ids)]).fetchall()
    return {str(stream): int(version) for stream, version in rows}
