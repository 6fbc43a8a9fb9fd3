"""The log's positions, times and hashes, read in SQL by small named functions.

Every module that needs to know where the log ends, when an event happened or reached the log, or
what a position holds asks here (payload fields go through `pipelines.log.fields`, whole payloads
through `pipelines.log.payload_frames`, streams through `pipelines.log.streams`). Each function
takes the caller's connection: a unit of work opens one (tens of milliseconds) and asks several
questions on it. Every value is a bound parameter; only the placeholders' count is written in.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import polars as pl

from pipelines.base.query_frames import frame_of

if TYPE_CHECKING:
    import duckdb


def head_position(con: duckdb.DuckDBPyConnection) -> int:
    """The log's last position (0 when it is empty)."""
    return int(con.execute("SELECT coalesce(max(position), 0) FROM events").fetchall()[0][0])


def latest_occurred_us(con: duckdb.DuckDBPyConnection, up_to: int) -> int:
    """The latest time (epoch microseconds) an event at a position up to `up_to` claims to have
    happened: the log's own clock there (0 when it holds none)."""
    rows = con.execute("SELECT coalesce(max(epoch_us(occurred_at)), 0) FROM events WHERE position <= ?",
                       [up_to]).fetchall()
    return int(rows[0][0])


def latest_occurred_us_after(con: duckdb.DuckDBPyConnection, after: int, up_to: int) -> int | None:
    """The latest time an event at a position in (`after`, `up_to`] claims (None when there is none)."""
    later = con.execute("SELECT max(epoch_us(occurred_at)) FROM events WHERE position > ? AND position <= ?",
                        [after, up_to]).fetchall()[0][0]
    return None if later is None else int(later)


def last_stream_position(con: duckdb.DuckDBPyConnection, stream_id: str, up_to: int) -> int:
    """The position of the stream's latest event up to `up_to` (0 when it has none)."""
    found = con.execute("SELECT coalesce(max(position), 0) FROM events WHERE stream_id = ? AND position <= ?",
                        [stream_id, up_to]).fetchall()
    return int(found[0][0])


def last_positions_by_stream(con: duckdb.DuckDBPyConnection, types: Sequence[str]) -> pl.DataFrame:
    """`stream_id` and `last`, the position of its latest event of `types`, for every stream with one."""
    of_types, params = _of_types(types)
    frame = frame_of(con.sql(f"SELECT stream_id, max(position) AS last FROM events WHERE {of_types}"
                             " GROUP BY stream_id", params=params))
    return frame.cast({"stream_id": pl.String, "last": pl.Int64})


def event_at(con: duckdb.DuckDBPyConnection, position: int) -> tuple[str, str, int] | None:
    """The type, stream and stream version of the event at `position` (None: no event there)."""
    rows = con.execute("SELECT type, stream_id, stream_version FROM events WHERE position = ?",
                       [position]).fetchall()
    if not rows:
        return None
    event_type, stream_id, version = rows[0]
    return str(event_type), str(stream_id), int(version)


def hashes_at(con: duckdb.DuckDBPyConnection, positions: Sequence[int]) -> dict[int, str]:
    """The hash the log holds at each of `positions` (a position it does not hold is left out)."""
    if not positions:
        return {}
    rows = con.execute("SELECT position, hash FROM events WHERE position IN (SELECT unnest(?))",
                       [list(positions)]).fetchall()
    return {int(position): str(hash_) for position, hash_ in rows}


def recorded_times_at(con: duckdb.DuckDBPyConnection, positions: Sequence[int], *,
                      with_versions: bool = False) -> pl.DataFrame:
    """`position` and `recorded_us` (when the log received it) of the events at `positions`; with
    `with_versions`, also `stream_version`. They are a few among millions, so only the range they
    span is read."""
    columns = ["position", "recorded_us", *(["stream_version"] if with_versions else [])]
    if not positions:
        return pl.DataFrame(schema=dict.fromkeys(columns, pl.Int64))
    frame = frame_of(con.sql(
        f"SELECT position, epoch_us(recorded_at) AS recorded_us{', stream_version' if with_versions else ''}"
        " FROM events WHERE position BETWEEN ? AND ? AND list_contains(?, position)",
        params=[min(positions), max(positions), list(positions)]))
    return frame.cast(dict.fromkeys(columns, pl.Int64))


def recorded_times_of_types(con: duckdb.DuckDBPyConnection, types: Sequence[str]) -> pl.DataFrame:
    """`position` and `recorded_us` (when the log received it) of every event of `types`."""
    of_types, params = _of_types(types)
    frame = frame_of(con.sql(f"SELECT position, epoch_us(recorded_at) AS recorded_us FROM events WHERE {of_types}",
                             params=params))
    return frame.cast({"position": pl.Int64, "recorded_us": pl.Int64})


def claimed_and_recorded_times(con: duckdb.DuckDBPyConnection, types: Sequence[str]) -> pl.DataFrame:
    """`position`, `claimed_us` (when it says it happened) and `recorded_us` (when the log received
    it) of every event of `types`."""
    of_types, params = _of_types(types)
    frame = frame_of(con.sql("SELECT position, epoch_us(occurred_at) AS claimed_us, epoch_us(recorded_at) AS "
                             f"recorded_us FROM events WHERE {of_types}", params=params))
    return frame.cast({"position": pl.Int64, "claimed_us": pl.Int64, "recorded_us": pl.Int64})


def events_between(con: duckdb.DuckDBPyConnection, earlier: tuple[int, int], later: tuple[int, int],
                   streams: Sequence[str] | None = None) -> list[tuple[int, str, str, int]]:
    """(position, type, stream_id, occurred_us) of every event a replay to `later` counts and one
    to `earlier` does not (each a (position, time in epoch microseconds) pair, `earlier` the lower
    of the two), of `streams` only when given, in log order."""
    (low_position, low_us), (high_position, high_us) = earlier, later
    where = "position <= ? AND epoch_us(occurred_at) <= ? AND (position > ? OR epoch_us(occurred_at) > ?)"
    params: list[object] = [high_position, high_us, low_position, low_us]
    if streams is not None:
        where += " AND stream_id IN (SELECT unnest(?))"
        params.append(list(streams))
    rows = con.execute(f"SELECT position, type, stream_id, epoch_us(occurred_at) FROM events WHERE {where}"
                       " ORDER BY position", params).fetchall()
    return [(int(position), str(event_type), str(stream_id), int(occurred_us))
            for position, event_type, stream_id, occurred_us in rows]


def _of_types(types: Sequence[str]) -> tuple[str, list[object]]:
    """A filter on the event type, one placeholder per type: DuckDB checks a listed value as it
    scans, where a list parameter would be joined."""
    if not types:
        return "FALSE", []
    return f"type IN ({', '.join('?' for _ in types)})", list(types)
