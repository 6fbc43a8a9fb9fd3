"""Stored payloads as replay's frames: one event type's fields extracted in bulk, old rows upcast in bulk.

The columns are the event model's fields (`models.shape.replayed_fields`), never a list kept here:
DuckDB's `json_transform` turns each payload into a struct of those fields in one pass of its JSON
parser, and the struct's fields become the frame's columns. Rows stored under an older
`schema_version` are extracted the same way (with the older fields their upcasters read) and
brought up to date as one batch (`models.upcasting.Upcasters.upcast_frame`), so a schema bump
costs a few expressions over the old rows, not a Python loop over them.

Times (`Moment`) come out as microseconds since the epoch; JSON objects as JSON text.

The ranking reads a few event types' fields as the polars types it names (`payload_frame`), of
some tournaments' streams (`TournamentScope`), in one pass of the JSON parser too; rows stored
under an older version of their type (none yet: a schema bump's history) are upcast one by one
before their fields are read.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from itertools import count
from typing import Any

import duckdb
import orjson
import polars as pl
from pydantic import BaseModel

from models.events import CURRENT_VERSIONS, EVENT_TYPES, UPCASTERS, session_stream
from models.shape import Shape, json_transform_type, polars_dtype, replayed_fields
from models.upcasting import Upcasters
from pipelines.base.query_frames import frame_of
from pipelines.log.store import table_columns
from pipelines.log.streams import stream_ranges
from pipelines.log.vetting import unreadable_time_sql, vetted

SessionKey = tuple[str, str]
"""(event_id, session_id)."""

_SCALAR_DEFAULTS = (str, int, float, bool)


@dataclass(frozen=True)
class Scope:
    """The part of the log a session-keyed replay reads: streams, then the sessions they must name."""

    streams: list[str]
    keys: list[str]
    """`event_id \x1f session_id` of each session in scope."""
    events: list[str]
    span: tuple[int, int] | None = None
    """The first and last positions of the streams' events, when the caller knows them."""

    @classmethod
    def of(cls, sessions: Collection[SessionKey], span: tuple[int, int] | None = None) -> Scope:
        """The scope of `sessions`: their streams and their tournaments' registrations; `span`, when
        given, must hold every event of those streams (a read of many streams scans it alone)."""
        ordered = sorted(set(sessions))
        events = sorted({event_id for event_id, _ in ordered})
        return cls(streams=[session_stream(e, s) for e, s in ordered] + [f"tournament:{e}" for e in events],
                   keys=[f"{e}\x1f{s}" for e, s in ordered], events=events, span=span)

    def narrow(self, frame: pl.DataFrame) -> pl.DataFrame:
        """Only the rows that name a session (or, for tournaments, an event) in scope.

        The streams already hold only these; this keeps a stray payload that names another
        session out, so that a session-keyed replay never scores a row twice.
        """
        if "session_id" not in frame.columns:
            inside = pl.col("event_id").is_in(self.events)
        else:
            inside = pl.concat_str([pl.col("event_id"), pl.col("session_id")], separator="\x1f").is_in(self.keys)
        narrowed = frame.filter(inside)
        return frame if narrowed.height == frame.height else narrowed


_INDEXED_STREAMS = 512
"""A keyed read of up to this many streams starts at their first position (`PayloadReader._first_position`)."""
_STREAM_QUERIES = 64
"""A keyed read of up to this many streams stages them one equality each (`PayloadReader._scope_rows`)."""


class PayloadReader:
    """Reads one event type's payload fields into a frame, upcasting rows of older versions.

    `frame` is the one point where stored payloads become replay's rows. Used as a context manager
    over a scope of up to `_INDEXED_STREAMS` streams (a replay of some sessions), it reads the scope's
    events from the log once, into a temporary table, and each event type from there: a replay asks
    for a dozen types, and each read of the log costs a scan of the row groups its streams touch.
    """

    def __init__(self, con: duckdb.DuckDBPyConnection, position: int, upcasters: Upcasters,
                 as_of_us: int, scope: Scope | None = None) -> None:
        self.con = con
        self.position = position
        self.upcasters = upcasters
        self.as_of_us = as_of_us
        self.scope = scope
        self._first: int | None = None
        self._staged: str | None = None
        self._oldest: dict[str, int] = {}
        """Staged: each event type the scope holds, and the oldest schema version it is stored at."""

    def __enter__(self) -> PayloadReader:
        if self.scope is not None and 0 < len(self.scope.streams) <= _INDEXED_STREAMS:
            staged = f"replay_scope_{next(_STAGED)}"
            select, params = self._scope_rows()
            self.con.execute(f"CREATE TEMP TABLE {staged} AS {select}", params)
            self._staged = staged
            self._oldest = dict(self.con.execute(
                f"SELECT type, min(schema_version) FROM {staged} GROUP BY type").fetchall())
        return self

    def __exit__(self, *_: object) -> None:
        if self._staged is not None:
            self.con.execute(f"DROP TABLE IF EXISTS {self._staged}")
            self._staged = None

    def _scope_rows(self) -> tuple[str, list[Any]]:
        """The query of the scope's events in log order (the staged copy), and its parameters.

        Up to `_STREAM_QUERIES` streams it is one equality per stream: DuckDB answers each from the
        (stream_id, stream_version) index, where an `IN` list reads every row group from the
        streams' first position on. Staging one event's two sessions of a ten-million-event log
        took 6-7 ms so, against 32-45 ms (the event near the log's start; at 96 streams, 0.2 s
        against 0.8-3.7 s; at 384, alike).
        """
        assert self.scope is not None
        columns = "position, occurred_at, type, schema_version, payload"
        streams = self.scope.streams
        if len(streams) > _STREAM_QUERIES:
            where, params = self._where()
            return f"SELECT {columns} FROM events WHERE {where}", params
        each = f"SELECT {columns} FROM events WHERE stream_id = ? AND position <= ? AND epoch_us(occurred_at) <= ?"
        return (" UNION ALL ".join([each] * len(streams)) + " ORDER BY position",
                [value for stream in streams for value in (stream, self.position, self.as_of_us)])

    def _source(self) -> tuple[str, str, list[Any]]:
        """The table read, and the filter (after `type` and `schema_version`) with its parameters."""
        if self._staged is not None:
            return self._staged, "TRUE", []
        return ("events", *self._where())

    def _where(self) -> tuple[str, list[Any]]:
        """The filter on the log (after `type` and `schema_version`) and its parameters."""
        params: list[Any] = [self.position, self.as_of_us]
        where = "position <= ? AND epoch_us(occurred_at) <= ?"
        if self.scope is not None:
            # stream_id's min/max prune few row groups (every row group holds many streams), so a
            # keyed read also starts at its streams' first position: a weekend's sessions are read
            # from the log's last row groups, not from all of them once per event type. A span
            # known to the caller (a rebuild's batch) bounds it on both sides: a rebuild's batches
            # then read the log once between them, not once each.
            where += " AND position >= ? AND stream_id IN (SELECT unnest(?))"
            params += [self._first_position(), self.scope.streams]
            if self.scope.span is not None:
                where += " AND position <= ?"
                params.append(self.scope.span[1])
        return where, params

    def _first_position(self) -> int:
        """The first position of the scope's streams (0 for a scope of many), then cached: each
        stream's first event is its version 1, which the (stream_id, stream_version) index finds
        when the streams are listed as literals (a list parameter is joined, a whole-column scan)."""
        if self._first is None:
            assert self.scope is not None
            if self.scope.span is not None:
                self._first = self.scope.span[0]
                return self._first
            streams = self.scope.streams
            self._first = 0
            if 0 < len(streams) <= _INDEXED_STREAMS:
                rows = self.con.execute(
                    f"SELECT coalesce(min(position), 0) FROM events WHERE stream_version = 1"
                    f" AND stream_id IN ({', '.join('?' for _ in streams)})", streams).fetchall()
                self._first = int(rows[0][0])
        return self._first

    def frame(self, event_type: str, model: type[BaseModel] | None = None) -> pl.DataFrame:
        """`position`, `occurred_us` and the replayed fields of `model` (default: the catalogue's
        model of `event_type`) of every such event in scope, in log order."""
        fields = {name: f.shape for name, f in replayed_fields(model or EVENT_TYPES[event_type]).items()}
        if self._staged is not None and event_type not in self._oldest:
            # None in scope (most sessions have no fouled board, penalty or weighted score): the
            # frame's columns without a query, each of which costs about 10 ms to bind and run.
            return empty_frame(fields)
        # Events replay cannot use are reported and left out, never a crash (pipelines.log.vetting).
        frame = vetted(event_type, self._read_frame(event_type, fields))
        return _with_defaults(frame, model or EVENT_TYPES[event_type])

    def _read_frame(self, event_type: str, fields: Mapping[str, Shape]) -> pl.DataFrame:
        current = CURRENT_VERSIONS.get(event_type, 1)
        source, where, params = self._source()
        relation = self.con.sql(frame_sql(fields, f"schema_version = ? AND {where}", source=source),
                                params=[event_type, current, *params])
        frame = frame_of(relation)
        # DuckDB scans in insertion order, which is log order; sorting millions of wide rows in SQL
        # would cost far more than this check (and the sort it guards, should the order ever differ).
        if not frame["position"].is_sorted():
            frame = frame.sort("position")
        older = self._older(event_type, current, fields)
        if older is not None:
            frame = pl.concat([frame, older]).sort("position")
        return frame if self.scope is None else self.scope.narrow(frame)

    def _older(self, event_type: str, current: int, fields: Mapping[str, Shape]) -> pl.DataFrame | None:
        """Rows stored under an older version, upcast as one batch (None when there are none)."""
        if self._staged is not None and self._oldest.get(event_type, current) >= current:
            return None
        source, where, params = self._source()
        versions = self.con.execute(
            f"SELECT min(schema_version) FROM {source} WHERE type = ? AND schema_version < ? AND {where}",
            [event_type, current, *params]).fetchall()[0][0]
        if versions is None:
            return None
        wanted = {**fields, **self.upcasters.old_fields(event_type, int(versions), current, fields)}
        rows = frame_of(self.con.sql(
            frame_sql(wanted, f"schema_version < ? AND {where}", with_version=True, source=source),
            params=[event_type, current, *params]))
        upcast = self.upcasters.upcast_frame(event_type, rows, current)
        return upcast.select("position", "occurred_us", *fields)


def empty_frame(fields: Mapping[str, Shape]) -> pl.DataFrame:
    """The frame `frame_sql` gives for no row: `position`, `occurred_us`, then each field as the
    query types it (a time as epoch microseconds, a JSON object as its text)."""
    return pl.DataFrame(schema={"position": pl.Int64(), "occurred_us": pl.Int64(), **{
        name: pl.Int64() if shape.kind == "time" else polars_dtype(shape) for name, shape in fields.items()}})


_STAGED = count(1)
"""Numbers the temporary tables of scoped reads (a held connection may run several at once)."""


def _with_defaults(frame: pl.DataFrame, model: type[BaseModel]) -> pl.DataFrame:
    """Payloads written before an optional field was added lack it: they read as its default, as
    pydantic would fill it (a scalar default; null stays null)."""
    fills = {
        name: pl.col(name).fill_null(f.default)
        for name, f in replayed_fields(model).items()
        if isinstance(f.default, _SCALAR_DEFAULTS) and f.default is not None and frame[name].null_count()
    }
    return frame.with_columns(**fills) if fills else frame


def frame_sql(fields: Mapping[str, Shape], where: str, *, with_version: bool = False, source: str = "events") -> str:
    """One pass of DuckDB's JSON parser per row: `json_transform` into a struct, then columns.

    Field names and types come from the event models (never user input); `where` holds `?`
    placeholders for the type and the filter values; `source` is `events` or a staged copy of
    some of its rows (`PayloadReader`).
    """
    struct = ", ".join(f'"{name}": {json_transform_type(shape)}' for name, shape in fields.items())
    columns = ", ".join(
        f"{unreadable_time_sql(f'p.{name}')} AS {name}" if shape.kind == "time" else f"p.{name} AS {name}"
        for name, shape in fields.items()
    )
    version = "schema_version, " if with_version else ""
    return (
        f"SELECT position, occurred_us, {version}{columns} FROM ("
        f" SELECT position, epoch_us(occurred_at) AS occurred_us, schema_version,"
        f" json_transform(payload, '{{{struct}}}') AS p"
        f" FROM {source} WHERE type = ? AND {where}"
        ")"
    )


# -- the ranking's frames -------------------------------------------------------------------------

@dataclass(frozen=True)
class TournamentScope:
    """Some tournaments' events: those on their streams (`session:<event>/...`, `tournament:<event>`,
    `players:<event>`) at positions from `first` on, then only rows whose payload names one of them."""

    events: tuple[str, ...]
    first: int

    def where(self) -> tuple[str, list[object]]:
        """An SQL filter (with its parameters) that narrows a scan to the scope's streams: a position
        bound skips the row groups before them, the streams' key ranges the rows in between."""
        if len(self.events) > _SCOPE_STREAMS:
            return " AND position >= ?", [self.first]
        ranges, params = stream_ranges(self.events)
        return f" AND position >= ? AND ({ranges})", [self.first, *params]


_SCOPE_STREAMS = 64
"""Up to this many tournaments a scoped read names their streams; beyond, it bounds positions only."""


def tournament_scope(con: duckdb.DuckDBPyConnection, events: Sequence[str], up_to: int) -> TournamentScope:
    """The scope of `events`: its first position is the first of their streams' events."""
    scope = TournamentScope(tuple(sorted(set(events))), 0)
    if not _has_events(con) or not scope.events or len(scope.events) > _SCOPE_STREAMS:
        return scope
    ranges, params = stream_ranges(scope.events)
    rows = con.execute(f"SELECT coalesce(min(position), ?) FROM events WHERE position <= ? AND ({ranges})",
                       [up_to + 1, up_to, *params]).fetchall()
    return TournamentScope(scope.events, int(rows[0][0]))


def payload_frame(con: duckdb.DuckDBPyConnection, event_type: str, fields: dict[str, pl.DataType], *,
                  up_to: int, as_of_us: int, scope: TournamentScope | None = None,
                  upcasters: Upcasters = UPCASTERS) -> pl.DataFrame:
    """`position`, `occurred_us` and the payload `fields` of every `event_type` event in range, each
    as the type's current version has it.

    DuckDB parses each payload once (`json_transform` into a struct of the fields, as replay reads
    its events) and hands polars typed columns: at a decade's scale (700,000 registrations with
    their players) that is several times faster than one JSON path per field, and faster still
    than handing JSON text to polars to decode. A value of another type reads as null, as a
    `TRY_CAST` would. Rows of an older version are upcast first (`_older_rows`).
    """
    schema = pl.Schema({"position": pl.Int64(), "occurred_us": pl.Int64(), **fields})
    if not _has_events(con) or (scope is not None and not scope.events):
        return pl.DataFrame(schema=schema)
    narrow, narrowing = scope.where() if scope is not None else ("", [])
    current = CURRENT_VERSIONS.get(event_type, 1)
    structure = orjson.dumps({name: _json_structure(dtype) for name, dtype in fields.items()}).decode()
    columns = ", ".join(f"p.{name} AS {name}" for name in fields)  # names are ours, never user input
    frame: pl.DataFrame = frame_of(con.sql(
        f"SELECT position, occurred_us, {columns} FROM (SELECT position, epoch_us(occurred_at) AS occurred_us,"
        f" json_transform(payload, '{structure}') AS p FROM events"
        f" WHERE type = ? AND schema_version >= ? AND position <= ? AND epoch_us(occurred_at) <= ?{narrow})",
        params=[event_type, current, up_to, as_of_us, *narrowing],
    ))
    if current > 1:
        older = _older_rows(con, event_type, current, schema, upcasters,
                            where=f"position <= ? AND epoch_us(occurred_at) <= ?{narrow}",
                            params=[up_to, as_of_us, *narrowing])
        frame = pl.concat([frame.cast(schema), older]) if older.height else frame
    if scope is not None and frame.height:  # a prefix may match another tournament ("a" under "ab")
        frame = frame.filter(pl.col("event_id").is_in(list(scope.events)))
    if not frame.height:
        return pl.DataFrame(schema=schema)
    # DuckDB scans in insertion order, which is log order; sorting in SQL would cost more than this check.
    return (frame if frame["position"].is_sorted() else frame.sort("position")).cast(schema)


def _older_rows(con: duckdb.DuckDBPyConnection, event_type: str, current: int, schema: pl.Schema,
                upcasters: Upcasters, *, where: str, params: Sequence[Any]) -> pl.DataFrame:
    """The rows of `event_type` stored under a version before `current`, upcast one by one (few in
    any log: a schema bump's history), their fields as `schema` types them (another type: null)."""
    rows = con.execute(f"SELECT position, epoch_us(occurred_at), schema_version, payload::VARCHAR FROM events"
                       f" WHERE type = ? AND schema_version < ? AND {where} ORDER BY position",
                       [event_type, current, *params]).fetchall()
    upcast = []
    for position, occurred_us, version, text in rows:
        payload = upcasters.upcast(event_type, int(version), orjson.loads(text), current)
        upcast.append({"position": position, "occurred_us": occurred_us,
                       **{name: payload.get(name) for name in schema if name not in ("position", "occurred_us")}})
    return pl.DataFrame(upcast, schema=schema, strict=False)


def _json_structure(dtype: pl.DataType) -> object:
    """DuckDB's `from_json` structure for a polars type."""
    if isinstance(dtype, pl.Struct):
        return {field.name: _json_structure(field.dtype) for field in dtype.fields}  # type: ignore[arg-type]
    if isinstance(dtype, pl.List):
        return [_json_structure(dtype.inner)]  # type: ignore[arg-type]
    return _SQL_TYPES[type(dtype)]


_SQL_TYPES: dict[type[pl.DataType], str] = {pl.String: "VARCHAR", pl.Int64: "BIGINT", pl.Float64: "DOUBLE",
                                            pl.Boolean: "BOOLEAN"}


def _has_events(con: duckdb.DuckDBPyConnection) -> bool:
    """Whether the connection shows the log (a reader with no store yet is handed an empty database)."""
    return bool(table_columns(con, ["events"]))
