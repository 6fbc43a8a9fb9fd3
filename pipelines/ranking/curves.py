"""Award curves, ties, weights and decay as polars expressions over one row per placed contestant.

The input frame (`PLACED_SCHEMA`) has one row per contestant of a ranking unit (an event's
standings within a section and direction). Every function here is pure and vectorised: the same
expression scores one event or a decade of them.
"""

from __future__ import annotations

from datetime import date
from itertools import pairwise

import polars as pl

from models.ranking_rules import (
    AbfCurve,
    AcblCurve,
    BandedCurve,
    Curve,
    Decay,
    EbuCurve,
    ExponentialDecay,
    LinearCurve,
    NoDecay,
    Rounding,
    RoundingRule,
    RuleSet,
    StepDecay,
    TableCurve,
    WindowDecay,
)

PLACED_SCHEMA: dict[str, pl.DataType] = {
    "unit": pl.String(),          # names one ranking: event, session (or ''), section, direction
    "rank": pl.Int64(),           # the place as published: tied contestants share the best one
    "field": pl.Int64(),          # contestants ranked together
    "tables": pl.Float64(),       # tables in play: contestants × seats / 4 over the section
    "sessions": pl.Int64(),       # sessions of the event the standings add up
    "boards": pl.Int64(),         # boards played in the event
    "seats": pl.Int64(),          # players per contestant: 1 individual, 2 pairs, 4 teams
    "one_field": pl.Boolean(),    # Howell / teams (True) or Mitchell direction (False)
    "base": pl.Float64(),         # the category's base
    "category_weight": pl.Float64(),
    "online": pl.Boolean(),
    "restrictions": pl.Int64(),
    "sum_wk": pl.Float64(),       # PZBS: the field's title coefficients summed
}
"""What a curve reads, one row per placed contestant."""

_EPSILON_DECIMALS = 9
"""Values are rounded to this many decimals before a ceil or floor, so that float noise such as
30 × (1/3) = 9.999999999 never moves a whole number."""


def round_expr(value: pl.Expr, mode: Rounding, decimals: int = 0) -> pl.Expr:
    """`value` rounded as a rule set names it."""
    if mode == "none":
        return value
    scale = 10.0 ** decimals
    scaled = (value * scale).round(_EPSILON_DECIMALS)
    if mode == "ceil":
        whole = scaled.ceil()
    elif mode == "floor":
        whole = scaled.floor()
    else:
        whole = (scaled.abs() + 0.5).floor() * scaled.sign()
    # The last round gives the float nearest the decimal: 16667 / 100 may otherwise come out as
    # 16667 × 0.01 = 166.67000000000002, a total that reads as more than it is.
    return (whole / scale).round(decimals)


def round_rule(value: pl.Expr, rule: RoundingRule) -> pl.Expr:
    """`value` rounded by a `RoundingRule`."""
    return round_expr(value, rule.mode, rule.decimals)


def round_number(value: float, rule: RoundingRule) -> float:
    """One number rounded by a `RoundingRule` (same arithmetic as `round_rule`)."""
    result = pl.select(round_rule(pl.lit(value, dtype=pl.Float64), rule)).item()
    return float(result)


# --- award at a place ---------------------------------------------------------------------------

def award_at_place(curve: Curve, place: pl.Expr) -> pl.Expr:
    """The award for `place` (1 = first) under `curve`, for each row's field and category."""
    if isinstance(curve, LinearCurve):
        return _linear(curve, place)
    if isinstance(curve, TableCurve):
        return _table(curve, place)
    if isinstance(curve, AbfCurve):
        return _abf(curve, place)
    if isinstance(curve, BandedCurve):
        return _banded(curve, place)
    if isinstance(curve, EbuCurve):
        return _ebu(curve, place)
    return _acbl(curve, place)


def _linear(curve: LinearCurve, place: pl.Expr) -> pl.Expr:
    n_awards = round_expr(pl.col("field").cast(pl.Float64) * curve.award_to, curve.awards_rounding)
    award = pl.col("base") / n_awards * (n_awards - place + 1)
    return pl.when(place <= n_awards).then(award).otherwise(0.0)


def _table(curve: TableCurve, place: pl.Expr) -> pl.Expr:
    table = {i + 1: float(a) for i, a in enumerate(curve.awards)}
    award = place.replace_strict(table, default=0.0, return_dtype=pl.Float64)
    return award * pl.col("base") if curve.scaled else award


def abf_winner() -> pl.Expr:
    """ABF winner's award from W (`base`), tables T and sessions S (see `AbfCurve`)."""
    weight, tables, sessions = pl.col("base"), pl.col("tables"), pl.col("sessions").cast(pl.Float64)
    mitchell = pl.when(tables <= 30).then(0.02 * weight * tables).otherwise(weight * (1 - (-tables / 32).exp()))
    howell = pl.when(tables <= 15).then(0.04 * weight * tables).otherwise(weight * (1 - (-tables / 16).exp()))
    extent = tables * (sessions - 1)
    outright = 4.2 * weight * (1 - (-extent / 105).exp() + 0.65 * (-800 / extent).exp())
    return (pl.when(pl.col("sessions") > 1).then(outright)
            .when(pl.col("one_field")).then(howell).otherwise(mitchell))


def _abf(curve: AbfCurve, place: pl.Expr) -> pl.Expr:
    winner = abf_winner()
    field = pl.col("field").cast(pl.Float64)
    depth = (pl.when(pl.col("seats") >= 4).then(round_expr(field * curve.teams_depth, "ceil"))
             .otherwise(round_expr(field * curve.pairs_depth, "floor")))
    award = (pl.when(place == 1).then(winner).when(place == 2).then(winner * curve.second_share)
             .otherwise(winner / (place - 1).cast(pl.Float64)))
    return pl.when(place <= depth).then(award).otherwise(0.0)


def _ebu(curve: EbuCurve, place: pl.Expr) -> pl.Expr:
    full_tables = round_expr(pl.col("tables"), "floor")
    rate: pl.Expr = pl.lit(curve.rates[0][1])
    for fewest, per_table in curve.rates[1:]:
        rate = pl.when(pl.col("boards") >= fewest).then(pl.lit(per_table)).otherwise(rate)
    minimum = pl.col("base")
    winner = rate * full_tables * minimum / curve.club_minimum
    on_full_tables = full_tables * 4 / pl.col("seats").cast(pl.Float64)
    n_awards = round_expr(on_full_tables * curve.award_to, curve.awards_rounding)
    step = winner / n_awards
    award = pl.max_horizontal(winner - step * (place - 1).cast(pl.Float64), minimum)
    return pl.when((place <= n_awards) & (n_awards > 0)).then(award).otherwise(0.0)


def pzbs_first_place(players: pl.Expr, sum_wk: pl.Expr, weight: pl.Expr) -> pl.Expr:
    """PZBS PZ = ceil((ΣWK / P) × weight + 0.05 × P), P the players in the field."""
    return round_expr(sum_wk / players * weight + 0.05 * players, "ceil")


def _banded(curve: BandedCurve, place: pl.Expr) -> pl.Expr:
    field = pl.col("field").cast(pl.Float64)
    players = field * pl.col("seats").cast(pl.Float64)
    unscaled = (pzbs_first_place(players, pl.col("sum_wk"), pl.col("base")) if curve.first_place == "pzbs"
                else pl.col("base"))
    scaled = pl.col("first_scale")  # set by `place_awards`
    first = pl.when(scaled < 1).then(round_expr(unscaled * scaled, curve.rounding)).otherwise(unscaled)
    x = (place - 1).cast(pl.Float64)
    shape: pl.Expr = pl.lit(curve.breakpoints[-1][1])  # past the last breakpoint
    for (x0, y0), (x1, y1) in reversed(list(pairwise(curve.breakpoints))):
        start, end = x0 * field, x1 * field
        between = y0 + (y1 - y0) * (x - start) / (end - start)
        shape = pl.when(x < end).then(between).otherwise(shape)
    award = round_expr(first * shape, curve.rounding)
    online_floor = curve.floor if curve.online_floor is None else curve.online_floor
    least = pl.when(pl.col("online")).then(pl.lit(online_floor)).otherwise(pl.lit(curve.floor))
    floored = pl.when(x < curve.floor_to_share * field).then(pl.max_horizontal(award, least))
    return floored.otherwise(award)


def acbl_first_place(curve: AcblCurve) -> pl.Expr:
    """ACBL first overall: B × R × S × further × restriction factor."""
    tables = pl.col("tables")
    b_factor = pl.when(tables <= 60).then((tables + 10) / 60).otherwise((tables / 4).log10())
    last = len(curve.session_factors)
    s_factor = pl.col("sessions").clip(1, last).replace_strict(
        {i + 1: f for i, f in enumerate(curve.session_factors)}, return_dtype=pl.Float64)
    restricted = pl.col("restrictions").clip(0, len(curve.restricted_factors) - 1).replace_strict(
        dict(enumerate(curve.restricted_factors)), return_dtype=pl.Float64)
    return b_factor * pl.col("base") * s_factor * curve.further_factor * restricted


def _acbl(curve: AcblCurve, place: pl.Expr) -> pl.Expr:
    depth = round_expr(pl.col("field").cast(pl.Float64) * curve.award_to, "ceil")
    award = acbl_first_place(curve) * pl.lit(curve.place_ratio).pow((place - 1).cast(pl.Float64))
    return pl.when(place <= depth).then(award).otherwise(0.0)


# --- a unit's awards: ties, then weights ----------------------------------------------------------

def place_awards(placed: pl.DataFrame, rules: RuleSet) -> pl.DataFrame:
    """`placed` with `place_award` (the curve's award, ties shared) and `weight` (event weight).

    Tied contestants occupy consecutive places from their shared rank; each gets the mean of
    those places' awards, rounded by the rule set's tie rounding.
    """
    group = ["unit", "rank"]
    first_scale = online_factor(rules) if rules.weight.online_scales == "first_place" else pl.lit(1.0)
    # Each window is computed once into a column: a curve reads the place many times over.
    raw = placed.with_columns(
        first_scale=first_scale, _place=pl.col("rank") + pl.int_range(pl.len()).over(group),
        tied=pl.len().over(group) > 1,
    ).with_columns(_raw=award_at_place(rules.curve, pl.col("_place")))
    shared = round_rule(pl.col("_raw").mean().over(group), rules.ties.rounding)
    awarded = pl.when(pl.col("tied")).then(shared).otherwise(pl.col("_raw"))
    return raw.with_columns(
        place_award=pl.when(pl.col("field") >= rules.weight.min_field).then(awarded).otherwise(0.0),
        weight=event_weight(rules),
    ).drop("_raw", "_place").select(*placed.columns, "first_scale", "place_award", "tied", "weight")


def online_factor(rules: RuleSet) -> pl.Expr:
    """min(1, boards / online_boards) for online events, 1 for the others."""
    boards = (pl.col("boards").cast(pl.Float64) / rules.weight.online_boards).clip(upper_bound=1.0)
    return pl.when(pl.col("online")).then(boards).otherwise(1.0)


def event_weight(rules: RuleSet) -> pl.Expr:
    """Category weight × sessions weight × team factor × online factor (unless it scaled first place)."""
    weight = rules.weight
    factor = pl.col("category_weight")
    if weight.session_weights:
        last = len(weight.session_weights)
        factor = factor * pl.col("sessions").clip(1, last).replace_strict(
            {i + 1: w for i, w in enumerate(weight.session_weights)}, return_dtype=pl.Float64)
    if weight.team_factor != 1.0:
        factor = factor * pl.when(pl.col("seats") >= 4).then(weight.team_factor).otherwise(1.0)
    if weight.online_scales == "first_place":
        return factor
    return factor * online_factor(rules)


def weighted_award(rules: RuleSet, award: pl.Expr, weight: pl.Expr) -> pl.Expr:
    """An award times its weight; online awards rounded as the rule set says (when the online
    factor is in the weight)."""
    weighted = award * weight
    if rules.weight.online_scales == "first_place":
        return weighted
    return pl.when(pl.col("online")).then(round_rule(weighted, rules.weight.online_rounding)).otherwise(weighted)


# --- decay ----------------------------------------------------------------------------------------

def full_years(award_date: pl.Expr, edition: date) -> pl.Expr:
    """Whole years from `award_date` to `edition` (an anniversary completes a year)."""
    years = edition.year - award_date.dt.year().cast(pl.Int64)
    before_anniversary = (award_date.dt.month().cast(pl.Int64) * 100 + award_date.dt.day().cast(pl.Int64)
                          > edition.month * 100 + edition.day)
    return years - before_anniversary.cast(pl.Int64)


def decay_factor(decay: Decay, age: pl.Expr) -> pl.Expr:
    """The share of an award left at `age` full years (awards from the future count in full)."""
    age = age.clip(lower_bound=0)
    if isinstance(decay, NoDecay):
        return pl.lit(1.0)
    if isinstance(decay, StepDecay):
        return age.replace_strict({i: f for i, f in enumerate(decay.factors)}, default=0.0,
                                  return_dtype=pl.Float64)
    if isinstance(decay, ExponentialDecay):
        return pl.lit(1 - decay.rate).pow(age.cast(pl.Float64))
    assert isinstance(decay, WindowDecay)
    return pl.when(age < decay.years).then(1.0).otherwise(0.0)


def decay_by_kind(rules: RuleSet, age: pl.Expr) -> pl.Expr:
    """Decay factor for each row's `award_kind` (kinds the rule set does not list keep 1.0)."""
    factor: pl.Expr = pl.lit(1.0)
    for kind, decay in sorted(rules.decay.items(), reverse=True):
        factor = pl.when(pl.col("award_kind") == kind).then(decay_factor(decay, age)).otherwise(factor)
    return factor

