"""The one place the ranking reads standings from.

Today it replays and scores the whole log (`pipelines.projections.score_store`). When the
session-keyed materialized projections land, this function switches to them; nothing else in
`pipelines.ranking` knows where standings come from.
"""

from __future__ import annotations

from dataclasses import dataclass

import polars as pl

from pipelines.store import EventStore


@dataclass(frozen=True)
class StandingsSnapshot:
    """Standings with their Law 79C status, as of one log position and time."""

    position: int
    as_of_us: int
    standings: pl.DataFrame
    """`pipelines.scoring.frames.STANDINGS_SCHEMA`: one row per contestant per session, with `status`."""
    windows: pl.DataFrame
    """Per published session: publication time, deadline and status (`pipelines.corrections`)."""
    corrections: pl.DataFrame
    """Every correction request with its decision (`applied`)."""


def read_standings(store: EventStore, *, up_to: int, as_of_us: int) -> StandingsSnapshot:
    """Session standings of every event from the events at positions <= `up_to` that happened by
    `as_of_us`, with each session's status (provisional or final) at `as_of_us`."""
    from pipelines.projections import score_store

    scored = score_store(store, up_to=up_to, as_of_us=as_of_us)
    projection = scored.projection
    return StandingsSnapshot(scored.position, scored.as_of_us, scored.standings, projection.windows,
                             projection.corrections)
