"""A player's statement: every award in an edition and how its points now were reached."""

from __future__ import annotations

from dataclasses import dataclass

import polars as pl

from models.ranking_rules import BandedCurve
from pipelines.ranking.curves import decay_by_kind
from pipelines.ranking.edition import RankingEdition
from pipelines.ranking.players import merged_ids, normalised_name

STATEMENT_COLUMNS = ["event_name", "session_id", "team_match", "award_date", "category", "place", "field",
                     "base_award", "weight", "share", "award", "age_years", "decay", "points", "decays_on",
                     "points_then", "corrections", "merged_from"]
"""Each award: how its points now were reached, and when and to what they next change; `team_match`
names the match (session, round, teams) of a match-points line (empty on a place award); `merged_from`
names the id it was earned under when that id was merged into the player's."""


@dataclass(frozen=True)
class Statement:
    """One player's awards in one edition."""

    player_id: str
    name: str | None
    place: int | None
    points: float
    awards: pl.DataFrame
    """`STATEMENT_COLUMNS`, oldest first."""
    divisor: float
    merged_into: str | None = None
    """When the id asked for was merged away: that id (`player_id` is the id it went to)."""
    notes: tuple[str, ...] = ()
    """What a reader of the columns needs to know (where a category's weight is)."""


def player_statement(edition: RankingEdition, player: str) -> Statement:
    """The statement of `player` (a federation id, or a member's name) in `edition`; the statement of
    an id merged into another is the statement of the id it went to, saying so.

    Raises `LookupError` when nobody or more than one player answers to the name.
    """
    asked = _find(edition, player)
    player_id = _kept_id(edition, asked)
    row = edition.ranking.filter(pl.col("player_id") == player_id)
    awards = _with_next_change(edition, edition.awards.filter(pl.col("player_id") == player_id)).with_columns(
        merged_from=pl.when(pl.col("original_id") != pl.col("player_id")).then(pl.col("original_id")))
    name = row["name"][0] if row.height else (awards["player_name"][0] if awards.height else None)
    return Statement(
        player_id=player_id, name=name, place=row["place"][0] if row.height else None,
        points=row["points"][0] if row.height else 0.0,
        awards=awards.sort("award_date", "event_id", "session_id", "team_match", nulls_last=False,
                           maintain_order=True).select(STATEMENT_COLUMNS),
        divisor=edition.rules.points_divisor, merged_into=player_id if player_id != asked else None,
        notes=_notes(edition),
    )


def _kept_id(edition: RankingEdition, player_id: str) -> str:
    """The id `player_id` was merged into (through every merge in force), or itself."""
    kept = pl.DataFrame({"id": [player_id]}).select(merged_ids(pl.col("id"), edition.merges))
    return str(kept["id"][0])


def _notes(edition: RankingEdition) -> tuple[str, ...]:
    rules = edition.rules
    notes = []
    if isinstance(rules.curve, BandedCurve) and rules.curve.first_place == "pzbs":
        bases = ", ".join(f"{name} {cat.base:g}" for name, cat in rules.categories.items())
        notes.append(f"the category's weight ({bases}) is inside base_award (first place PZ = ceil(sum WK / P x "
                     "weight + 0.05 P)); `weight` is what multiplies it after (teams, online)")
    if rules.match_points is not None:
        points = rules.match_points
        scaled = " times the category base" if points.scaled else ""
        notes.append(f"a line with a team_match is match points: base_award is {points.per_match_won:g} for the "
                     f"match won, {points.per_match_drawn:g} for a drawn one{scaled}; share is the player's share of "
                     "the team's award in that event")
    return tuple(notes)


def _with_next_change(edition: RankingEdition, awards: pl.DataFrame) -> pl.DataFrame:
    """The award's next anniversary and its points from then on (what expires next)."""
    rules = edition.rules
    next_age = pl.col("age_years").clip(lower_bound=0) + 1
    return awards.with_columns(
        decays_on=pl.col("award_date").dt.offset_by(pl.format("{}y", next_age)),
        # As `awards.decayed` keeps points now: exact, to 9 decimals.
        points_then=(pl.col("award") * decay_by_kind(rules, next_age)).round(9),
    ).with_columns(
        decays_on=pl.when(pl.col("points_then") != pl.col("points")).then(pl.col("decays_on")),
        points_then=pl.when(pl.col("points_then") != pl.col("points")).then(pl.col("points_then")),
    )


def _find(edition: RankingEdition, player: str) -> str:
    ids = (set(edition.awards["player_id"].to_list()) | set(edition.ranking["player_id"].to_list())
           | set(edition.merges["merged_id"].to_list()))
    if player in ids:
        return player
    names = pl.concat([edition.ranking.select("player_id", "name"),
                       edition.awards.select("player_id", name="player_name")]).unique()
    wanted = pl.select(normalised_name(pl.lit(player))).item()
    found = names.filter(normalised_name(pl.col("name")) == wanted)["player_id"].unique().sort().to_list()
    if len(found) == 1:
        return str(found[0])
    if found:
        raise LookupError(f"{player!r} could be any of {', '.join(found)}; give the federation id")
    raise LookupError(f"no player {player!r} has awards in this edition")
