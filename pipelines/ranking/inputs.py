"""What the ranking reads from the log besides standings: members, links, merges, tournaments,
sessions and contestants, as of a log position and a time.

Payload fields are extracted in bulk by the log's owner (`pipelines.log.payload_frames.payload_frame`),
one query per event type; nothing is validated row by row. These event types have one schema
version so far, and rows are read whatever their `schema_version`; when one of them gets a second
version, read it through `pipelines.log.payload_frames.PayloadReader`, which upcasts older rows in bulk.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import duckdb
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
from pipelines.log.payload_frames import TournamentScope, payload_frame, tournament_scope
from pipelines.log.store import EventStore

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


def latest(frame: pl.DataFrame, keys: list[str]) -> pl.DataFrame:
    """The last event (in log order) for each key."""
    return frame.unique(keys, keep="last", maintain_order=True)


def log_head(store: EventStore) -> int:
    """The last position in the log (0 when empty)."""
    return store.head() if store.exists() else 0
