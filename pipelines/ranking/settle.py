"""Settling who a player is: the unmatched list, links and identity merges (each one event).

A link or merge that names something that does not exist (a member, a player in the event) is
refused with a clear error and nothing is appended.
"""

from __future__ import annotations

from datetime import datetime

import polars as pl

from models.events import PlayerIdentitiesMerged, PlayerLinked, event_payload
from pipelines.log.store import EventStore, NewEvent, to_epoch_us
from pipelines.ranking.inputs import RankingInputs, log_head, read_inputs
from pipelines.ranking.players import contestant_players, merged_ids, resolve_players, unmatched_players


class IdentityError(ValueError):
    """A link or merge that cannot be recorded as given."""


def find_unmatched(store: EventStore, *, as_of: datetime, federation: str | None = None) -> pl.DataFrame:
    """Players of the events that no member is found for, as of `as_of`."""
    inputs = read_inputs(store, up_to=log_head(store), as_of_us=to_epoch_us(as_of), federation=federation)
    return unmatched_players(resolve_players(contestant_players(inputs.contestants), inputs, federation))


def link_player(store: EventStore, *, event_id: str, player_name: str, federation_id: str, at: datetime,
                linked_by: str | None = None, reason: str | None = None) -> int:
    """Record that `player_name` in `event_id` is member `federation_id`."""
    inputs = read_inputs(store, up_to=log_head(store), as_of_us=to_epoch_us(at))
    _require_member(inputs, federation_id)
    players = contestant_players(inputs.contestants).filter(pl.col("event_id") == event_id)
    if players.filter(pl.col("player_name") == player_name).is_empty():
        known = sorted(players["player_name"].unique().to_list())[:10]
        raise IdentityError(f"no player named {player_name!r} in event {event_id!r}"
                            f"{'; some that are: ' + ', '.join(known) if known else ' (the event has no players)'}")
    event = PlayerLinked(event_id=event_id, player_name=player_name, federation_id=federation_id,
                         linked_by=linked_by, reason=reason)
    return _append(store, f"players:{event_id}", event, at)


def merge_players(store: EventStore, *, kept_id: str, merged_id: str, at: datetime, reason: str | None = None) -> int:
    """Record that `merged_id` is the same person as `kept_id`, from `at` on."""
    if kept_id == merged_id:
        raise IdentityError(f"cannot merge {kept_id} with itself")
    inputs = read_inputs(store, up_to=log_head(store), as_of_us=to_epoch_us(at))
    _require_member(inputs, kept_id)
    _require_member(inputs, merged_id)
    current = pl.DataFrame({"id": [kept_id, merged_id]}).select(merged_ids(pl.col("id"), inputs.merges))["id"]
    if current[0] == current[1]:
        raise IdentityError(f"{merged_id} and {kept_id} are already merged (both are {current[0]})")
    if current[1] != merged_id:
        raise IdentityError(f"{merged_id} was already merged into {current[1]}")
    event = PlayerIdentitiesMerged(kept_id=kept_id, merged_id=merged_id, reason=reason)
    return _append(store, "identities", event, at)


def _require_member(inputs: RankingInputs, federation_id: str) -> None:
    if inputs.members.filter(pl.col("federation_id") == federation_id).is_empty():
        raise IdentityError(f"{federation_id} is not a member (import the member list first)")


def _append(store: EventStore, stream: str, event: PlayerLinked | PlayerIdentitiesMerged, at: datetime) -> int:
    result = store.append([NewEvent(stream, event.type, event_payload(event), at)], recorded_at=at,
                          expected_versions={stream: store.stream_version(stream)})
    assert result.last_position is not None
    return result.last_position
