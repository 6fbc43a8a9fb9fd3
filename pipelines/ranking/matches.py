"""Team match points (`RuleSet.match_points`): the matches a team won or drew in an event's matches
by round, and each member's share of their points.

A match's result is read from the scored boards of its session (`pipelines.scoring.teams.match_results`:
the match's IMPs and, where the session converts them, its VPs), replayed to the edition's log
position and time as the standings are, and only for the sessions the rule set counts (by scoring:
the WBF's round robin is a VP_TEAMS session, a knockout an IMP_TEAMS one). A team won a match when it
has more VPs in it than its opponent, or, where the session converts to none, a larger IMP margin
(each team's own margin, as its VPs are read from it); drawn when they have as many. A penalty to a
session score changes the standings, not a match's result. A bye has no match in the store: it earns
nothing.

The points are an award row each (one per member per match won or drawn), in the unit the match's
session belongs to: its category, weight, date and each member's share are those of the team's place
award in that unit (`pipelines.ranking.awards.player_awards`: the boards each member sat for, under the
rule set's minimum share and pro rata rule). Only final sessions are in a unit, so a provisional
session's matches wait as its standings do.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import polars as pl

from models.conditions import ConditionsOfContest
from models.ranking_rules import MatchPoints, RuleSet
from pipelines.log.store import EventStore
from pipelines.ranking.units import UNIT_KEYS, Units
from pipelines.scoring.teams import MATCH_SCHEMA, match_results

MATCH_COLUMNS: dict[str, pl.DataType] = {
    "event_id": pl.String(), "session_id": pl.String(), "section": pl.String(), "match_id": pl.String(),
    "team_id": pl.String(), "opponent_id": pl.String(), "decided_on": pl.String(), "team_score": pl.Float64(),
    "opponent_score": pl.Float64(), "result": pl.String(),
}
"""One row per team per match: what the result was read on (`VP` or `IMP`), both sides' scores on it,
and `result` (`won`, `drawn` or `lost`)."""

TEAM_MATCH = "team_match"
"""The award column naming the match a match-points row is for (null on place awards)."""

_SAME = 1e-9
"""Scores closer than this are equal (VPs are kept to 2 decimals, IMPs to halves)."""


def read_team_matches(store: EventStore, *, up_to: int, as_of_us: int, sessions: pl.DataFrame,
                      rules: MatchPoints) -> pl.DataFrame:
    """`MATCH_COLUMNS` for every match of the `sessions` (event_id, session_id, scoring) whose scoring
    `rules` counts, as a replay to (`up_to`, `as_of_us`) scores them."""
    from pipelines.replay.projections import event_conditions, score_store  # heavy: only when match points count

    counted = sessions.filter(pl.col("scoring").is_in(list(rules.scorings))).select(
        "event_id", "session_id", "scoring").unique().sort("event_id", "session_id")
    if counted.is_empty():
        return pl.DataFrame(schema=MATCH_COLUMNS)
    keys: list[tuple[str, str]] = list(counted.select("event_id", "session_id").iter_rows())
    scored = score_store(store, up_to=up_to, as_of_us=as_of_us, sessions=keys)
    return team_matches(scored.board_scores, counted, event_conditions(scored.projection))


def team_matches(board_scores: pl.DataFrame, sessions: pl.DataFrame,
                 conditions: Mapping[str, Any]) -> pl.DataFrame:
    """`MATCH_COLUMNS` from scored team boards (`BOARD_SCORES_SCHEMA` rows) of the `sessions`
    (event_id, session_id, scoring), each event under its `conditions` (VP scale, match length)."""
    boards = board_scores.filter(pl.col("match_id").is_not_null()).join(
        sessions.select("event_id", "session_id", "scoring"), on=["event_id", "session_id"])
    parts = []
    for (event_id, scoring), part in sorted(boards.partition_by("event_id", "scoring", as_dict=True).items()):
        rules = conditions.get(str(event_id)) or ConditionsOfContest()
        with_vp = scoring == "VP_TEAMS" and rules.victory_points.scale != "none"
        parts.append(match_results(part.drop("scoring"), rules, with_vp=with_vp))
    matches = pl.concat(parts) if parts else pl.DataFrame(schema=MATCH_SCHEMA)
    return match_outcomes(matches)


def match_outcomes(matches: pl.DataFrame) -> pl.DataFrame:
    """`MATCH_COLUMNS` from `pipelines.scoring.teams.MATCH_SCHEMA` rows: each team's result against
    its opponent's row of the same match."""
    on_vp = pl.col("vp").is_not_null()
    scored = matches.select(
        "event_id", "session_id", pl.col("section").fill_null(""), "match_id", "team_id", "opponent_id",
        decided_on=pl.when(on_vp).then(pl.lit("VP")).otherwise(pl.lit("IMP")),
        team_score=pl.when(on_vp).then(pl.col("vp")).otherwise(pl.col("imp_margin")),
    )
    theirs = scored.select("event_id", "session_id", "section", "match_id", opponent_id="team_id",
                           opponent_score="team_score")
    difference = pl.col("team_score") - pl.col("opponent_score")
    return (
        scored.join(theirs, on=["event_id", "session_id", "section", "match_id", "opponent_id"])
        .with_columns(result=pl.when(difference.abs() < _SAME).then(pl.lit("drawn"))
                      .when(difference > 0).then(pl.lit("won")).otherwise(pl.lit("lost")))
        .select(list(MATCH_COLUMNS)).cast(pl.Schema(MATCH_COLUMNS))
        .sort("event_id", "session_id", "section", "match_id", "team_id")
    )


def with_match_points(per_player: pl.DataFrame, matches: pl.DataFrame | None, units: Units,
                      rules: RuleSet) -> pl.DataFrame:
    """`per_player` (`player_awards` rows) with a `team_match` column (null: a place award) and, when
    `rules` gives match points, a row per member per match their team won or drew (see the module)."""
    place_rows = per_player.with_columns(pl.lit(None, dtype=pl.String).alias(TEAM_MATCH))
    points = rules.match_points
    if points is None or matches is None or matches.is_empty():
        return place_rows
    return pl.concat([place_rows, match_point_rows(place_rows, matches, units, points)])


def match_point_rows(place_rows: pl.DataFrame, matches: pl.DataFrame, units: Units,
                     points: MatchPoints) -> pl.DataFrame:
    """A row per member per match won or drawn, in `place_rows`' columns: `base_award` the points for
    the result (times the category base when scaled), `award` = base × weight × the member's share."""
    counted = matches.filter(pl.col("result").is_in(["won", "drawn"])).join(
        units.unit_sessions, on=["event_id", "session_id"])
    won = pl.col("result") == "won"
    per_match = counted.select(
        "event_id", "unit_session", _section=pl.col("section").fill_null(""), contestant_id="team_id",
        _points=pl.when(won).then(points.per_match_won).otherwise(points.per_match_drawn),
        _match=pl.format("session {}, {}", "session_id", "match_id"),
    )
    members = place_rows.with_columns(_section=pl.col("section").fill_null(""))
    if points.categories:
        members = members.filter(pl.col("category").is_in(list(points.categories)))
    base = pl.col("_points") * (pl.col("base") if points.scaled else 1.0)
    kind = pl.lit(points.award_kind) if points.award_kind is not None else pl.col("award_kind")
    joined = members.drop(TEAM_MATCH).join(per_match, on=["event_id", "unit_session", "_section", "contestant_id"])
    return joined.with_columns(
        rank=pl.lit(None, dtype=pl.Int64), tied=pl.lit(None, dtype=pl.Boolean), base_award=base,
        award=base * pl.col("weight") * pl.col("share"), award_kind=kind,
        **{TEAM_MATCH: pl.col("_match")},
    ).select(place_rows.columns).sort([*UNIT_KEYS, "contestant_id", TEAM_MATCH, "player_name"])
