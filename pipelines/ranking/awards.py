"""Awards: from ranking units to each member's points at the edition date.

unit place -> curve award (ties shared) -> event weight -> each player of the contestant (team
members by boards played) -> decay by the award's age. Every step is a polars expression over
the whole history at once.
"""

from __future__ import annotations

from datetime import date

import polars as pl

from models.ranking_rules import BandedCurve, RuleSet
from pipelines.base.keyed import key_hash
from pipelines.ranking.curves import (
    PLACED_SCHEMA,
    decay_by_kind,
    full_years,
    place_awards,
    weighted_award,
)
from pipelines.ranking.inputs import RankingInputs
from pipelines.ranking.units import UNIT_KEYS, Units

_SEATS = {"individual": 1, "pair": 2, "team": 4}
_TEAM_SCORING = ["IMP_TEAMS", "VP_TEAMS"]

AWARD_COLUMNS = [
    "player_id", "original_id", "player_name", "event_id", "event_name", "session_id", "section", "direction",
    "contestant_id", "team_match", "place", "tied", "field", "category", "base_award", "weight", "share", "award",
    "award_date", "award_kind", "age_years", "decay", "points", "corrections",
]
"""An award row: who, for which unit and place (or, with `team_match`, which match won or drawn:
`pipelines.ranking.matches`), and how its points now were reached."""


def unit_awards(units: Units, inputs: RankingInputs, rules: RuleSet) -> pl.DataFrame:
    """Each contestant's award in each unit: `base_award` (curve, ties shared), `weight`, `award`."""
    placed = _with_field(units.placed, inputs)
    placed = _with_category(placed, inputs.tournaments, rules)
    curve_input = placed.with_columns(
        unit=pl.concat_str(UNIT_KEYS, separator="\x1f"),
        sum_wk=_sum_wk(rules),
    )
    scored = place_awards(curve_input.cast(pl.Schema(PLACED_SCHEMA)), rules)
    return scored.with_columns(award=weighted_award(rules, pl.col("place_award"), pl.col("weight"))).rename(
        {"place_award": "base_award"})


def _with_field(placed: pl.DataFrame, inputs: RankingInputs) -> pl.DataFrame:
    kinds = inputs.contestants.group_by("event_id", pl.col("section").fill_null(""), "contestant_id").agg(
        _kind=pl.col("kind").first())
    team_events = inputs.sessions.filter(pl.col("scoring").is_in(_TEAM_SCORING)).select("event_id").unique()
    seats = (pl.col("_kind").replace_strict(_SEATS, default=None, return_dtype=pl.Int64)
             .fill_null(pl.when(pl.col("_team_event")).then(4).otherwise(2)))
    section_unit = ["event_id", "unit_session", "section"]
    return (
        placed.join(kinds, on=["event_id", "section", "contestant_id"], how="left")
        .with_columns(_team_event=pl.col("event_id").is_in(team_events["event_id"].implode()))
        .with_columns(seats=seats)
        .with_columns(
            field=pl.len().over(UNIT_KEYS).cast(pl.Int64),
            tables=(pl.len().over(section_unit) * pl.col("seats").max().over(section_unit)).cast(pl.Float64) / 4,
            one_field=pl.col("direction") == "ALL",
            contestant_boards=pl.col("boards"),
            unit_boards=pl.col("boards").max().over(UNIT_KEYS).cast(pl.Int64),
        )
        .drop("_kind", "_team_event")
    )


def _with_category(placed: pl.DataFrame, tournaments: pl.DataFrame, rules: RuleSet) -> pl.DataFrame:
    names = tournaments.select("event_id", event_name="name", _category=pl.col("category"))
    known = list(rules.categories)
    category = pl.when(pl.col("_category").is_in(known)).then(pl.col("_category")).otherwise(
        pl.lit(rules.default_category))

    def lookup(attribute: str, dtype: pl.DataType) -> pl.Expr:
        values = {name: getattr(cat, attribute) for name, cat in rules.categories.items()}
        return pl.col("category").replace_strict(values, return_dtype=dtype)

    return (
        placed.join(names, on="event_id", how="left")
        .with_columns(category=category, event_name=pl.col("event_name").fill_null(pl.col("event_id")))
        .with_columns(
            base=lookup("base", pl.Float64()), category_weight=lookup("weight", pl.Float64()),
            online=lookup("online", pl.Boolean()), restrictions=lookup("restrictions", pl.Int64()),
            award_kind=lookup("award_kind", pl.String()),
            boards=pl.col("unit_boards"),
        )
        .drop("_category", "unit_boards")
    )


def _sum_wk(rules: RuleSet) -> pl.Expr:
    if isinstance(rules.curve, BandedCurve):
        return pl.col("field").cast(pl.Float64) * pl.col("seats") * rules.curve.title_coefficient
    return pl.lit(None, dtype=pl.Float64)


def player_awards(awards: pl.DataFrame, units: Units, players: pl.DataFrame, standings: pl.DataFrame,
                  rules: RuleSet, lineups: pl.DataFrame | None = None) -> pl.DataFrame:
    """Each matched player's share of the contestant's award (team members by boards played: the
    boards `lineups` seat them for, or every board of a session in which their team has none)."""
    sessions = units.unit_sessions.join(
        standings.select("event_id", "session_id", "section", "direction", "contestant_id",
                         _session_boards="boards"), on=["event_id", "session_id"])
    present = _boards_sat(_present_players(sessions, players), lineups)
    # A one-session unit has each player once (`_present_players` keeps one row per player and
    # session): the boards they played are that session's. Only whole-event units add sessions up.
    whole_event = pl.col("unit_session") == ""
    keys = [*UNIT_KEYS, "contestant_id", "player_name", "original_id", "player_id"]
    played = pl.concat([
        present.filter(~whole_event).select(*keys, _played=pl.col("_session_boards").fill_null(0)),
        present.filter(whole_event).group_by(*keys).agg(_played=pl.col("_session_boards").sum()),
    ])
    if rules.teams.large_team_share:
        played = played.with_columns(_team_size=pl.len().over(*UNIT_KEYS, "contestant_id"))
    joined = awards.join(played, on=[*UNIT_KEYS, "contestant_id"], how="inner")
    return joined.with_columns(share=_team_share(rules)).with_columns(
        award=pl.col("award") * pl.col("share")).drop("_played", "_team_size", strict=False)


def _present_players(sessions: pl.DataFrame, players: pl.DataFrame) -> pl.DataFrame:
    """Matched players registered for a contestant in a session of the unit (or for the event).

    Session registrations join on the session too: contestant ids repeat from session to session
    of an event, and joining on the id alone would multiply every row by the event's sessions.
    """
    matched = players.filter(pl.col("player_id").is_not_null()).select(
        "event_id", "section", "contestant_id", "player_name", "original_id", "player_id",
        _reg_session="session_id", _reg_direction="direction")
    keys = ["event_id", "section", "contestant_id"]
    by_session = sessions.join(matched.filter(pl.col("_reg_session") != ""),
                               left_on=[*keys, "session_id"], right_on=[*keys, "_reg_session"])
    by_event = sessions.join(matched.filter(pl.col("_reg_session") == "").drop("_reg_session"), on=keys)
    direction_fits = (pl.col("_reg_direction").is_null() | (pl.col("direction") == "ALL")
                      | (pl.col("_reg_direction") == pl.col("direction")))
    present = pl.concat([by_session.with_columns(_by_event=pl.lit(False)),
                         by_event.with_columns(_by_event=pl.lit(True))], how="diagonal").filter(direction_fits)
    once = [*UNIT_KEYS, "session_id", "contestant_id", "player_name"]
    # A player registered twice for one contestant (by session and for the event, or a file sent
    # again) is rare: when no two rows share a key hash, no two share the key, and the frame is
    # what `unique` would return, without sorting out a million string keys to find that.
    hashes = key_hash(present, once)
    if hashes.n_unique() < hashes.len():
        # The joins above give their rows in any order: the row kept is chosen by value (a session's
        # registration before the event's, then by ids), the same in every run.
        chosen = present.sort([*once, "_by_event", "original_id", "player_id"], nulls_last=True, maintain_order=True)
        return chosen.unique(once, keep="first", maintain_order=True).drop("_by_event")
    return present.drop("_by_event")


_LINEUP_TEAM = ["event_id", "session_id", "section", "contestant_id"]


def _boards_sat(present: pl.DataFrame, lineups: pl.DataFrame | None) -> pl.DataFrame:
    """`present` with `_session_boards` the boards each player sat for, where their team's line-ups
    in the session are recorded for every board it played (a member who sat for none played none);
    else as it was, every board the team played in the session: a file that names who sat on some
    boards only must not take the others from everyone."""
    if lineups is None or lineups.is_empty():
        return present
    seated = (
        lineups.select(*_LINEUP_TEAM, "players", "boards").with_columns(section=pl.col("section").fill_null(""))
        .explode("players").explode("boards")
        .select(*_LINEUP_TEAM, player_name=pl.col("players").struct.field("name"), _board=pl.col("boards"))
    )
    sat = seated.group_by(*_LINEUP_TEAM, "player_name").agg(_sat=pl.col("_board").n_unique().cast(pl.Int64))
    covered = seated.group_by(_LINEUP_TEAM).agg(_covered=pl.col("_board").n_unique().cast(pl.Int64))
    every_board = pl.col("_covered").is_not_null() & (pl.col("_covered") >= pl.col("_session_boards"))
    return (
        present.join(sat, on=[*_LINEUP_TEAM, "player_name"], how="left")
        .join(covered, on=_LINEUP_TEAM, how="left")
        .with_columns(_session_boards=pl.when(every_board).then(pl.col("_sat").fill_null(0))
                      .otherwise(pl.col("_session_boards")))
        .drop("_sat", "_covered")
    )


def _team_share(rules: RuleSet) -> pl.Expr:
    team = rules.teams
    team_boards = pl.col("contestant_boards").cast(pl.Float64)
    played_share = pl.when(team_boards > 0).then(pl.col("_played") / team_boards).otherwise(1.0)
    below = (played_share / team.min_board_share if team.below == "pro_rata" and team.min_board_share > 0
             else pl.lit(0.0))
    enough = played_share >= team.min_board_share - 1e-9
    share = pl.when(pl.col("seats") < 4).then(1.0).when(enough).then(1.0).otherwise(below)
    if team.large_team_share:
        share = share * pl.when((pl.col("seats") >= 4) & (pl.col("_team_size") > 4)).then(
            4 / pl.col("_team_size").cast(pl.Float64)).otherwise(1.0)
    return share


def award_dates(units: Units, inputs: RankingInputs, windows: pl.DataFrame) -> pl.DataFrame:
    """The date each unit's award was earned: its last session's date, else the tournament's end
    (or start) date, else the day its results were first published (UTC)."""
    session_dates = inputs.sessions.select("event_id", "session_id",
                                           _played=pl.col("session_date").str.to_date(strict=False))
    published = (windows.select("event_id", "session_id",
                                _published=pl.from_epoch("published_us", time_unit="us").dt.date())
                 if "published_us" in windows.columns else
                 pl.DataFrame(schema={"event_id": pl.String, "session_id": pl.String, "_published": pl.Date}))
    tournaments = inputs.tournaments.select(
        "event_id", _event_date=pl.coalesce(pl.col("end_date").str.to_date(strict=False),
                                            pl.col("start_date").str.to_date(strict=False)))
    return (
        units.unit_sessions.join(session_dates, on=["event_id", "session_id"], how="left")
        .join(published, on=["event_id", "session_id"], how="left")
        .group_by("event_id", "unit_session")
        .agg(_played=pl.col("_played").max(), _published=pl.col("_published").max())
        .join(tournaments, on="event_id", how="left")
        .select("event_id", "unit_session", award_date=pl.coalesce("_played", "_event_date", "_published"))
    )


def unit_corrections(units: Units, corrections: pl.DataFrame) -> pl.DataFrame:
    """The applied corrections behind each unit, as a sorted space-separated list of ids."""
    if corrections.is_empty() or "applied" not in corrections.columns:
        return pl.DataFrame(schema={"event_id": pl.String, "unit_session": pl.String, "corrections": pl.String})
    applied = corrections.filter(pl.col("applied")).select("event_id", "session_id", "correction_id")
    return (
        units.unit_sessions.join(applied, on=["event_id", "session_id"])
        .group_by("event_id", "unit_session")
        .agg(corrections=pl.col("correction_id").unique().sort().str.join(" "))
    )


def decayed(awards: pl.DataFrame, rules: RuleSet, edition_date: date) -> pl.DataFrame:
    """Awards with their age in full years at `edition_date`, decay factor and points now (exact:
    the total is rounded once, `pipelines.ranking.edition.player_totals`)."""
    age = full_years(pl.col("award_date"), edition_date)
    return awards.with_columns(age_years=age).with_columns(
        decay=decay_by_kind(rules, pl.col("age_years")),
    ).with_columns(points=(pl.col("award") * pl.col("decay")).round(_POINTS_DECIMALS))


_POINTS_DECIMALS = 9
"""An award's points now are kept to this many decimals (float noise beyond them is not a point)."""
