"""A few payload fields of many events, read in SQL, every row at its event's current schema version.

Replay reads whole event models through `pipelines.log.payload_frames`; some readers want two or three
fields of millions of rows (a result's table, what a file published with it, the tournament a
stream belongs to) and read them with DuckDB's JSON operators. Read straight from the stored JSON,
a row written under an older `schema_version` would give its old field (or none, for a renamed
one). Here rows at the current version are read in SQL, and the few older ones are brought up to
date by the upcasters (`models.upcasting`) one by one, then read the same way, so every reader of
a payload field sees it as the current model has it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import orjson
import polars as pl

from models.events import CURRENT_VERSIONS, UPCASTERS
from models.upcasting import Upcasters
from pipelines.base.query_frames import ArrowStream, frame_of

if TYPE_CHECKING:
    import duckdb


@dataclass(frozen=True)
class PayloadField:
    """A payload field by its dotted path (`source.sha256`), read as `dtype` (null when missing,
    or when its text is not a value of that type, as SQL's TRY_CAST)."""

    name: str
    path: str
    dtype: pl.DataType = field(default_factory=pl.String)

    @property
    def json_path(self) -> str:
        """The path as DuckDB's JSON operators take it (each key quoted)."""
        return "$." + ".".join(f'"{key}"' for key in self.path.split("."))


def payload_fields(con: duckdb.DuckDBPyConnection, types: Sequence[str] | None, fields: Sequence[PayloadField],
                   *, where: str = "TRUE", params: Sequence[Any] = (),
                   upcasters: Upcasters = UPCASTERS) -> pl.DataFrame:
    """`position`, `stream_id`, `type` and each of `fields` of the events of `types` (None: of
    any type) that match `where` (SQL over the log's own columns, with `params`), in log order."""
    current = _current_sql(types)
    columns = ", ".join(
        f"CASE WHEN {current} THEN payload->>'{f.json_path}' END AS \"{f.name}\"" for f in fields)
    of_types = "TRUE" if types is None else "type IN (SELECT unnest(?))"
    query = (f"SELECT position, stream_id, type, schema_version, {columns},"
             f" CASE WHEN NOT ({current}) THEN payload::VARCHAR END AS _older"
             f" FROM events WHERE {of_types} AND ({where}) ORDER BY position")
    rows = frame_of(con.sql(query, params=[*([] if types is None else [list(types)]), *params]))
    rows = rows.cast({"position": pl.Int64, "stream_id": pl.String, "type": pl.String,
                      **{f.name: pl.String for f in fields}, "_older": pl.String})
    if rows["_older"].null_count() < rows.height:
        rows = _with_older_rows_upcast(rows, fields, upcasters)
    return rows.select("position", "stream_id", "type",
                       *[pl.col(f.name).cast(f.dtype, strict=False) for f in fields])


def repeated_rows(con: duckdb.DuckDBPyConnection, types: Sequence[str], fields: Sequence[PayloadField],
                  keys: Sequence[str], *, keep: str = "TRUE", where: str = "TRUE", params: Sequence[Any] = (),
                  upcasters: Upcasters = UPCASTERS) -> int:
    """How many of the rows `payload_fields` reads (of `types`, matching `where`) that also match
    `keep` (SQL over the fields' names) repeat an earlier one's `stream_id` and `keys` fields: the
    rows less their distinct keys.

    Counted by DuckDB, which groups the rows within its memory limit (`pipelines.log.store`): read as a
    frame, a whole log's results took memory in step with its history (5.7 GB at ten million).
    Rows at the current version are read in SQL; the few older ones through `payload_fields`.
    """
    current = _current_sql(types)
    columns = ", ".join(f"TRY_CAST(payload->>'{f.json_path}' AS {_SQL_TYPES[f.dtype]}) AS \"{f.name}\""
                        for f in fields)
    named = ", ".join(f'"{f.name}"' for f in fields)
    rows = (f"SELECT stream_id, type, {columns} FROM events"
            f" WHERE type IN (SELECT unnest(?)) AND ({current}) AND ({where})")
    older = pl.DataFrame() if current == "TRUE" else payload_fields(
        con, types, fields, where=f"NOT ({current}) AND ({where})", params=params, upcasters=upcasters)
    if older.height:
        con.register("older_rows", ArrowStream(older))
        rows += f" UNION ALL SELECT stream_id, type, {named} FROM older_rows"
    grouped = ", ".join(["stream_id", *(f'"{key}"' for key in keys)])
    try:
        counted = con.execute(f"SELECT coalesce(sum(n - 1), 0) FROM (SELECT count(*) AS n FROM ({rows})"
                              f" WHERE {keep} GROUP BY {grouped})", [list(types), *params]).fetchall()
    finally:
        if older.height:
            con.unregister("older_rows")
    return int(counted[0][0])


_SQL_TYPES = {pl.String(): "VARCHAR", pl.Int64(): "BIGINT", pl.Float64(): "DOUBLE"}
"""The SQL type of each polars type a `PayloadField` is read as (`repeated_rows` casts in SQL)."""


def first_events(con: duckdb.DuckDBPyConnection, streams_sql: str, params: Sequence[Any]) -> pl.DataFrame:
    """`stream_id`, `event_id` and `session_id` that the first event of each stream names, for the
    streams of `streams_sql` (a query with columns `stream_id` and `first`, its first position):
    a stream is known by what its first event says, not by its id ("a/b" under "a")."""
    named = payload_fields(con, None, _NAMES, where=f"position IN (SELECT first FROM ({streams_sql}))", params=params)
    return named.select("stream_id", "event_id", "session_id")


_NAMES = (PayloadField("event_id", "event_id"), PayloadField("session_id", "session_id"))


def _current_sql(types: Sequence[str] | None) -> str:
    """True for a row at (or, from newer code, past) its type's current version: of the types with
    a version past the first (few; none for most types), rows below it are not. Types name our own
    events, never input."""
    bumped = sorted((t, v) for t, v in CURRENT_VERSIONS.items() if v > 1 and (types is None or t in types))
    older = " OR ".join(f"(type = '{t}' AND schema_version < {v})" for t, v in bumped)
    return f"NOT ({older})" if older else "TRUE"


def _with_older_rows_upcast(rows: pl.DataFrame, fields: Sequence[PayloadField],
                            upcasters: Upcasters) -> pl.DataFrame:
    """Rows stored under an older version, their fields read after upcasting: few in any log
    (a schema bump's history), so one by one."""
    older = rows.filter(pl.col("_older").is_not_null())
    values: dict[str, list[str | None]] = {f.name: [] for f in fields}
    for event_type, version, text in older.select("type", "schema_version", "_older").iter_rows():
        payload = upcasters.upcast(event_type, int(version), orjson.loads(text), CURRENT_VERSIONS.get(event_type, 1))
        for f in fields:
            values[f.name].append(_as_text(_at(payload, f.path)))
    upcast = older.with_columns(**{name: pl.Series(name, column, dtype=pl.String) for name, column in values.items()})
    return pl.concat([rows.filter(pl.col("_older").is_null()), upcast]).sort("position")


def _at(payload: Mapping[str, Any], path: str) -> Any:
    value: Any = payload
    for key in path.split("."):
        if not isinstance(value, Mapping):
            return None
        value = value.get(key)
    return value


def _as_text(value: Any) -> str | None:
    """A JSON value as DuckDB's `->>` gives it: a string as itself, anything else as its JSON."""
    if value is None or isinstance(value, str):
        return value
    return orjson.dumps(value).decode()
