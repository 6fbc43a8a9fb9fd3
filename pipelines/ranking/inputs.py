"""What the ranking reads from the log besides standings: members, links, merges, tournaments,
sessions and contestants, as of a log position and a time.

Payload fields are extracted in bulk (DuckDB -> JSON text -> polars `json_decode`), one query per
event type; nothing is validated row by row. These event types have one schema version so far, and
rows are read whatever their `schema_version`; when one of them gets a second version, read it
through `pipelines.payload_frames.PayloadReader`, which upcasts older rows in bulk.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import duckdb
import orjson
import polars as pl

from models.events import (
    ContestantRegistered,
    LineupRecorded,
    MemberRegistered,
    PlayerIdentitiesMerged,
    PlayerLinked,
    SessionScheduled,
    TournamentRegistered,
)
from models.shape import polars_columns
from pipelines.live import stream_ranges
from pipelines.query_frames import frame_of
from pipelines.store import EventStore, table_columns

# Names are chosen here; their types are the event models' (`models.shape`).
MEMBER_FIELDS: dict[str, pl.DataType] = polars_columns(
    MemberRegistered, ["federation", "federation_id", "name", "club", "gender", "birth_year", "region"])
LINK_FIELDS: dict[str, pl.DataType] = polars_columns(
    PlayerLinked, ["event_id", "player_name", "federation_id", "linked_by", "reason"])
MERGE_FIELDS: dict[str, pl.DataType] = polars_columns(PlayerIdentitiesMerged, ["kept_id", "merged_id", "reason"])
TOURNAMENT_FIELDS: dict[str, pl.DataType] = {
    **polars_columns(TournamentRegistered, ["event_id", "name", "category", "start_date", "end_date"]),
    # Of the conditions (a JSON object in the payload) only the carry-over settings, as a struct.
    "conditions": pl.Struct({"carry_over": pl.Struct({
        "mode": pl.String(), "fraction": pl.Float64(), "session_order": pl.List(pl.String())})}),
}
SESSION_FIELDS: dict[str, pl.DataType] = polars_columns(
    SessionScheduled, ["event_id", "session_id", "number", "session_date", "scoring"])
CONTESTANT_FIELDS: dict[str, pl.DataType] = polars_columns(
    ContestantRegistered, ["event_id", "session_id", "contestant_id", "kind", "section", "direction", "players"])

LINEUP_FIELDS: dict[str, pl.DataType] = polars_columns(
    LineupRecorded, ["event_id", "session_id", "section", "contestant_id", "players", "boards"])


def _no_lineups() -> pl.DataFrame:
    return pl.DataFrame(schema=LINEUP_FIELDS)


@dataclass(frozen=True)
class RankingInputs:
    """Facts the ranking needs beyond standings, each frame in log order."""

    members: pl.DataFrame
    links: pl.DataFrame
    merges: pl.DataFrame
    tournaments: pl.DataFrame
    sessions: pl.DataFrame
    contestants: pl.DataFrame
    lineups: pl.DataFrame = field(default_factory=_no_lineups)
    """Who sat for a team on which boards (`LineupRecorded`): `LINEUP_FIELDS`."""


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


def read_inputs(store: EventStore, *, up_to: int, as_of_us: int, events: Sequence[str] | None = None,
                federation: str | None = None) -> RankingInputs:
    """The ranking's inputs from events at positions <= `up_to` that happened by `as_of_us`: the
    members of `federation` (default: of every federation) and every merge, and the links,
    tournaments, sessions and contestants of `events` (default: all)."""
    if not store.exists():
        with duckdb.connect() as con:  # no log yet: every frame empty, with its columns
            return _read_all(con, up_to, as_of_us, None, federation)
    with store.reader() as con:
        scope = None if events is None else tournament_scope(con, events, up_to)
        return _read_all(con, up_to, as_of_us, scope, federation)


def federation_members(registered: pl.DataFrame, federation: str | None) -> pl.DataFrame:
    """The members in force: a member is (federation, id), the latest registration of each.

    Two federations may number their members alike: a federation's ranking reads its own list
    only. Without a federation, ids are read across lists (the latest registration of an id, from
    whichever list, is the one in force), as a rule set with no federation asks.
    """
    if federation is None:
        return latest(registered, ["federation_id"])
    return latest(registered.filter(pl.col("federation") == federation), ["federation", "federation_id"])


def _read_all(con: duckdb.DuckDBPyConnection, up_to: int, as_of_us: int,
              scope: TournamentScope | None, federation: str | None) -> RankingInputs:
    def read(event_type: str, fields: dict[str, pl.DataType], scoped: bool = True) -> pl.DataFrame:
        return payload_frame(con, event_type, fields, up_to=up_to, as_of_us=as_of_us,
                             scope=scope if scoped else None)

    return RankingInputs(
        members=federation_members(read("MemberRegistered", MEMBER_FIELDS, scoped=False), federation),
        links=latest(read("PlayerLinked", LINK_FIELDS), ["event_id", "player_name"]),
        merges=read("PlayerIdentitiesMerged", MERGE_FIELDS, scoped=False),
        tournaments=latest(read("TournamentRegistered", TOURNAMENT_FIELDS), ["event_id"]),
        sessions=latest(read("SessionScheduled", SESSION_FIELDS), ["event_id", "session_id"]),
        contestants=read("ContestantRegistered", CONTESTANT_FIELDS),
        lineups=read("LineupRecorded", LINEUP_FIELDS),
    )


def payload_frame(con: duckdb.DuckDBPyConnection, event_type: str, fields: dict[str, pl.DataType], *,
                  up_to: int, as_of_us: int, scope: TournamentScope | None = None) -> pl.DataFrame:
    """`position`, `occurred_us` and the payload `fields` of every `event_type` event in range.

    DuckDB parses each payload once (`json_transform` into a struct of the fields, as replay reads
    its events) and hands polars typed columns: at a decade's scale (700,000 registrations with
    their players) that is several times faster than one JSON path per field, and faster still
    than handing JSON text to polars to decode. A value of another type reads as null, as a
    `TRY_CAST` would.
    """
    schema = pl.Schema({"position": pl.Int64(), "occurred_us": pl.Int64(), **fields})
    if not _has_events(con) or (scope is not None and not scope.events):
        return pl.DataFrame(schema=schema)
    narrow, narrowing = scope.where() if scope is not None else ("", [])
    structure = orjson.dumps({name: _json_structure(dtype) for name, dtype in fields.items()}).decode()
    columns = ", ".join(f"p.{name} AS {name}" for name in fields)  # names are ours, never user input
    frame: pl.DataFrame = frame_of(con.sql(
        f"SELECT position, occurred_us, {columns} FROM (SELECT position, epoch_us(occurred_at) AS occurred_us,"
        f" json_transform(payload, '{structure}') AS p FROM events"
        f" WHERE type = ? AND position <= ? AND epoch_us(occurred_at) <= ?{narrow})",
        params=[event_type, up_to, as_of_us, *narrowing],
    ))
    if scope is not None and frame.height:  # a prefix may match another tournament ("a" under "ab")
        frame = frame.filter(pl.col("event_id").is_in(list(scope.events)))
    if not frame.height:
        return pl.DataFrame(schema=schema)
    # DuckDB scans in insertion order, which is log order; sorting in SQL would cost more than this check.
    return (frame if frame["position"].is_sorted() else frame.sort("position")).cast(schema)


def _json_structure(dtype: pl.DataType) -> object:
    """DuckDB's `from_json` structure for a polars type."""
    if isinstance(dtype, pl.Struct):
        return {field.name: _json_structure(field.dtype) for field in dtype.fields}  # type: ignore[arg-type]
    if isinstance(dtype, pl.List):
        return [_json_structure(dtype.inner)]  # type: ignore[arg-type]
    return _SQL_TYPES[type(dtype)]


_SQL_TYPES: dict[type[pl.DataType], str] = {pl.String: "VARCHAR", pl.Int64: "BIGINT", pl.Float64: "DOUBLE",
                                            pl.Boolean: "BOOLEAN"}


def latest(frame: pl.DataFrame, keys: list[str]) -> pl.DataFrame:
    """The last event (in log order) for each key."""
    return frame.unique(keys, keep="last", maintain_order=True)


def _has_events(con: duckdb.DuckDBPyConnection) -> bool:
    return bool(table_columns(con, ["events"]))


def log_head(store: EventStore) -> int:
    """The last position in the log (0 when empty)."""
    return store.head() if store.exists() else 0
