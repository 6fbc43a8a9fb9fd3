"""The log's streams in SQL: which hold events in a range of the log, and what their first events name.

A stream is known by what its first event says (`pipelines.log.fields.first_events`), not by its
id: `session:a/b/1` may be event `a/b`'s session 1 or event `a`'s session `b/1`. The functions
here find the streams some question needs and name them; the question itself (which sessions a
catalogue lists, which tournaments a refresh rescores) is their caller's.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import polars as pl

from pipelines.base.query_frames import frame_of
from pipelines.log.fields import first_events

if TYPE_CHECKING:
    import duckdb


def stream_ranges(events: Sequence[str], *,
                  kinds: Sequence[str] = ("session:", "tournament:", "players:")) -> tuple[str, list[object]]:
    """An SQL condition (with its parameters) true for the streams of `events`: their sessions'
    (`session:<event>/...`, a key range) and their own (`tournament:<event>`, `players:<event>`).

    Every row group holds many streams, so a prefix test reads the whole `stream_id` column; a key
    range or an equality on `stream_id` is answered from the (stream_id, stream_version) index.
    """
    terms: list[str] = []
    params: list[object] = []
    for event_id in events:
        for kind in kinds:
            if kind == "session:":  # every id starting 'session:<event>/' and nothing else ('0' follows '/')
                terms.append("(stream_id >= ? AND stream_id < ?)")
                params += [f"session:{event_id}/", f"session:{event_id}0"]
            else:
                terms.append("stream_id = ?")
                params.append(f"{kind}{event_id}")
    return " OR ".join(terms) or "false", params


_PREFIX_QUERIES = 64
"""Up to this many tournaments, `session_streams` reads each one's streams; beyond, it reads them all."""


def session_streams(con: duckdb.DuckDBPyConnection, up_to: int, events: Sequence[str] | None) -> pl.DataFrame:
    """`event_id`, `session_id` (as its first event names them), `events` (how many it holds) and
    `first` and `last` (its first and last positions) of every session stream with an event up to
    `up_to`; of `events`' streams only, when given (a stream of another tournament whose id starts
    alike may come too: its `event_id` tells)."""
    params: list[object] = []
    if events is None or len(events) > _PREFIX_QUERIES:
        where = "starts_with(stream_id, 'session:')"
    else:  # a key range per tournament: DuckDB reads those streams, not the log's (see `stream_ranges`)
        where, params = stream_ranges(events, kinds=("session:",))
    firsts = (f"SELECT stream_id, min(position) AS first, max(position) AS last, count(*) AS events FROM events"
              f" WHERE position <= ? AND ({where}) GROUP BY stream_id")
    counts = frame_of(con.sql(firsts, params=[up_to, *params])).cast(
        {"stream_id": pl.String, "events": pl.Int64, "first": pl.Int64, "last": pl.Int64})
    return first_events(con, firsts, [up_to, *params]).join(counts, on="stream_id").select(
        "event_id", "session_id", "events", "first", "last")


def tournament_spans(con: duckdb.DuckDBPyConnection, up_to: int) -> pl.DataFrame:
    """`event_id`, `first` and `last`: the first and last positions up to `up_to` of each
    tournament's own stream (`tournament:<event_id>`, its registrations)."""
    return frame_of(con.sql(
        "SELECT substr(stream_id, 12) AS event_id, min(position) AS first, max(position) AS last FROM events"
        " WHERE position <= ? AND starts_with(stream_id, 'tournament:') GROUP BY stream_id",
        params=[up_to])).cast({"event_id": pl.String, "first": pl.Int64, "last": pl.Int64})


def session_and_tournament_streams(con: duckdb.DuckDBPyConnection, after: int, up_to: int) -> pl.DataFrame:
    """`stream_id`, `event_id` and `session_id` (as its first event names them) of every session
    and tournament stream with an event at a position in (`after`, `up_to`]."""
    return first_events(con, "SELECT stream_id, min(position) AS first FROM events"
                        " WHERE position > ? AND position <= ?"
                        " AND (starts_with(stream_id, 'session:') OR starts_with(stream_id, 'tournament:'))"
                        " GROUP BY stream_id", [after, up_to])


@dataclass(frozen=True)
class LogRange:
    """The events at positions in (`after`, `until`] that happened in (`since`, `by`] (epoch
    microseconds); no lower bound where one is None."""

    until: int
    by: int
    after: int | None = None
    since: int | None = None

    @property
    def empty(self) -> bool:
        """Whether no event can be in it (a lower bound at or past its upper one)."""
        return (self.after is not None and self.after >= self.until) or (
            self.since is not None and self.since >= self.by)

    def where(self) -> tuple[str, list[object]]:
        """The range as a plain conjunction of bounds (so DuckDB skips the row groups outside it)."""
        where, params = ["position <= ?", "epoch_us(occurred_at) <= ?"], [self.until, self.by]
        if self.after is not None:
            where.append("position > ?")
            params.append(self.after)
        if self.since is not None:
            where.append("epoch_us(occurred_at) > ?")
            params.append(self.since)
        return " AND ".join(where), list[object](params)


def streams_in_ranges(con: duckdb.DuckDBPyConnection, ranges: Sequence[LogRange],
                      prefixes: Sequence[str]) -> pl.DataFrame:
    """`stream_id`, `event_id` and `session_id` (as its first event names them) of every stream
    whose id starts with one of `prefixes` and that has an event in one of `ranges` (not empty)."""
    selects, params = [], []
    for log_range in ranges:
        where, bounds = log_range.where()
        selects.append(f"SELECT stream_id, position FROM events WHERE {where}")
        params += bounds
    wanted = " OR ".join("starts_with(stream_id, ?)" for _ in prefixes)
    return first_events(con, f"SELECT stream_id, min(position) AS first FROM ({' UNION ALL '.join(selects)})"
                             f" WHERE {wanted} GROUP BY stream_id", [*params, *prefixes])
