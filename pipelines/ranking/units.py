"""Ranking units: the final standings an award is computed from.

A unit is one ranking within an event: a section's direction (Mitchell) or the whole section
(Howell, teams). An event whose conditions carry scores over (`carry_over.mode = "cumulative"`)
is one unit over all its sessions, ranked by the running total after the last session, and it
counts only when every session is final. Otherwise each session is a unit of its own. Sessions
that are not final at the edition's time (Law 79C period still open, or never published) are
left out and listed.
"""

from __future__ import annotations

from dataclasses import dataclass

import polars as pl

from pipelines.ranking.standings_source import StandingsSnapshot

UNIT_KEYS = ["event_id", "unit_session", "section", "direction"]
"""One ranking: `unit_session` is '' when the unit is the whole event."""
RANK_DECIMALS = 9


@dataclass(frozen=True)
class Units:
    """Final standings as ranking units, and what was left out."""

    placed: pl.DataFrame
    """One row per contestant per unit: UNIT_KEYS, contestant_id, rank, boards, sessions."""
    unit_sessions: pl.DataFrame
    """Which sessions make each unit: event_id, unit_session, session_id."""
    provisional: pl.DataFrame
    """Sessions left out: event_id, session_id, status."""


def ranking_units(snapshot: StandingsSnapshot, tournaments: pl.DataFrame) -> Units:
    """Split the standings into units (see the module docstring)."""
    standings = snapshot.standings.select(
        "event_id", "session_id", "section", "direction", "contestant_id", "rank", "score", "boards", "status")
    carry = _carry_over_events(tournaments)
    is_carry = pl.col("event_id").is_in(carry["event_id"].implode())
    single, provisional_single = _single_session_units(standings.filter(~is_carry))
    whole, provisional_whole = _whole_event_units(standings.filter(is_carry), carry)
    placed = pl.concat([single[0], whole[0]]).sort([*UNIT_KEYS, "rank", "contestant_id"])
    sessions = pl.concat([single[1], whole[1]]).unique().sort(["event_id", "unit_session", "session_id"])
    provisional = pl.concat([provisional_single, provisional_whole]).unique().sort(["event_id", "session_id"])
    return Units(placed, sessions, provisional)


def _carry_over_events(tournaments: pl.DataFrame) -> pl.DataFrame:
    carry = pl.col("conditions").struct.field("carry_over")
    return tournaments.filter(carry.struct.field("mode") == "cumulative").select(
        "event_id",
        fraction=carry.struct.field("fraction").fill_null(1.0),
        session_order=carry.struct.field("session_order"),
    )


def _left_out(rows: pl.DataFrame) -> pl.DataFrame:
    return rows.filter(pl.col("status") != "final").select("event_id", "session_id", "status").unique()


def _single_session_units(standings: pl.DataFrame) -> tuple[tuple[pl.DataFrame, pl.DataFrame], pl.DataFrame]:
    final = standings.filter(pl.col("status") == "final")
    placed = final.select("event_id", unit_session="session_id", section="section", direction="direction",
                          contestant_id="contestant_id", rank="rank", boards="boards", sessions=pl.lit(1, pl.Int64))
    sessions = final.select("event_id", unit_session="session_id", session_id="session_id").unique()
    return (placed, sessions), _left_out(standings)


def _whole_event_units(standings: pl.DataFrame,
                       carry: pl.DataFrame) -> tuple[tuple[pl.DataFrame, pl.DataFrame], pl.DataFrame]:
    if standings.is_empty():
        return (_empty_placed(), _empty_sessions()), _left_out(standings)
    complete = standings.group_by("event_id").agg(_final=(pl.col("status") == "final").all())
    final = standings.join(complete.filter("_final"), on="event_id", how="semi")
    left_out = standings.join(complete.filter(~pl.col("_final")), on="event_id", how="semi")
    ordered = _session_ordinals(final, carry)
    totals = (
        ordered.sort("_ordinal")
        .group_by("event_id", "section", "direction", "contestant_id", maintain_order=True)
        .agg(_scores=pl.col("score"), boards=pl.col("boards").sum(), _last=pl.col("_ordinal").max(),
             fraction=pl.col("fraction").first())
    )
    last_session = ordered.group_by("event_id").agg(_final_ordinal=pl.col("_ordinal").max())
    total = pl.col("_scores").list.last() + pl.col("fraction") * (pl.col("_scores").list.sum()
                                                                   - pl.col("_scores").list.last())
    placed = (
        totals.join(last_session, on="event_id").filter(pl.col("_last") == pl.col("_final_ordinal"))
        .with_columns(_total=total.round(RANK_DECIMALS))
        .with_columns(rank=pl.col("_total").rank("min", descending=True).over(
            "event_id", "section", "direction").cast(pl.Int64))
        .join(ordered.group_by("event_id").agg(sessions=pl.col("session_id").n_unique().cast(pl.Int64)),
              on="event_id")
        .select("event_id", unit_session=pl.lit(""), section="section", direction="direction",
                contestant_id="contestant_id", rank="rank", boards="boards", sessions="sessions")
    )
    sessions = final.select("event_id", unit_session=pl.lit(""), session_id="session_id").unique()
    return (placed, sessions), _left_out(left_out)


def _session_ordinals(standings: pl.DataFrame, carry: pl.DataFrame) -> pl.DataFrame:
    """Each session's place in the event's carry-over order (listed sessions first, then by id)."""
    listed = carry.select("event_id", session_id=pl.col("session_order")).explode("session_id").with_columns(
        _listed=pl.int_range(pl.len()).over("event_id"))
    sessions = standings.select("event_id", "session_id").unique().join(listed, on=["event_id", "session_id"],
                                                                        how="left")
    ordinals = sessions.sort("event_id", "_listed", "session_id", nulls_last=True).with_columns(
        _ordinal=pl.int_range(pl.len()).over("event_id")).drop("_listed")
    return standings.join(ordinals, on=["event_id", "session_id"]).join(
        carry.select("event_id", "fraction"), on="event_id")


def _empty_placed() -> pl.DataFrame:
    return pl.DataFrame(schema={"event_id": pl.String, "unit_session": pl.String, "section": pl.String,
                                "direction": pl.String, "contestant_id": pl.String, "rank": pl.Int64,
                                "boards": pl.Int64, "sessions": pl.Int64})


def _empty_sessions() -> pl.DataFrame:
    return pl.DataFrame(schema={"event_id": pl.String, "unit_session": pl.String, "session_id": pl.String})
