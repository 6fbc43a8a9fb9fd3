"""Victory points (Law 78D): the WBF 2013 continuous 20-VP scale and discrete tables.

The WBF scale (scoring-notes §1): with tau = (sqrt 5 - 1)/2 and blitz X = 15 sqrt(N) for an
N-board match, ``V(I) = 10 + 10 (1 - tau^(3I/X)) / (1 - tau^3)`` below X and 20 from X on,
rounded to 2 decimals half up; then wherever rounding made an increment larger than the one
before it, the middle value is raised by 0.01 until the increments never grow. The tables are
computed in integer hundredths so no float rounding can creep in.

Fractional IMP margins (weighted adjustments, Butler or cross-IMP equivalents) interpolate
linearly between the neighbouring whole margins by default, or are rounded first.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import cache
from typing import Literal

import polars as pl

from models.conditions import DiscreteVPTable, VictoryPointRules

TAU = (math.sqrt(5) - 1) / 2
"""The golden-ratio constant of the WBF 2013 scale."""
TOTAL_VP = 20
"""VPs shared by the two teams of a match on the WBF scale."""

FractionalMargin = Literal["interpolate", "round"]


def blitz(boards: int) -> float:
    """The WBF blitz margin X = 15 sqrt(N) (the first 20.00 entry is `wbf_table(N)`'s last)."""
    return 15.0 * math.sqrt(boards)


@cache
def wbf_table(boards: int) -> tuple[int, ...]:
    """The winner's VPs in hundredths for margins 0, 1, ... up to the first 20.00 entry."""
    if boards < 1:
        raise ValueError(f"a match has at least 1 board, got {boards}")
    x = blitz(boards)
    # One point past ceil(X) so the last increment is checked too.
    values = [_raw_hundredths(i, x) for i in range(math.ceil(x) + 2)]
    _correct_concavity(values)
    first_blitz = values.index(TOTAL_VP * 100)
    return tuple(values[: first_blitz + 1])


def _raw_hundredths(imps: int, x: float) -> int:
    if imps >= x:
        return TOTAL_VP * 100
    raw = 10 + 10 * (1 - math.pow(TAU, 3 * imps / x)) / (1 - math.pow(TAU, 3))
    return math.floor(raw * 100 + 0.5)


def _correct_concavity(values: list[int]) -> None:
    """Raise the middle value by 0.01 at the first growing increment, until none grows (§1.3)."""
    i = 2
    while i < len(values):
        if (values[i] - values[i - 1]) > (values[i - 1] - values[i - 2]):
            values[i - 1] += 1
            i = 2  # a raise can create a violation earlier on: restart
        else:
            i += 1


def wbf_vp(imp_margin: int, boards: int) -> float:
    """The winner's VPs for a whole, non-negative IMP margin on the WBF 2013 scale."""
    table = wbf_table(boards)
    return table[min(imp_margin, len(table) - 1)] / 100


def discrete_vp(imp_margin: float, table: DiscreteVPTable) -> float:
    """The winner's VPs for a non-negative margin on a discrete table."""
    return table.draw + sum(1 for bound in table.lower_bounds if imp_margin >= bound)


def wbf_victory_points(imp_margin: float, boards: int) -> tuple[float, float]:
    """VPs of (first team, second team) for the first team's IMP margin on the WBF 2013 scale.

    A fractional margin interpolates linearly between the neighbouring whole margins, rounded to
    2 decimals (half away from zero); the two always sum to 20: ``wbf_victory_points(10, 16)``
    is ``(12.8, 7.2)``.
    """
    winner = _interpolated(abs(imp_margin), lambda m: wbf_vp(m, boards))
    loser = round(TOTAL_VP - winner, 2)
    return (winner, loser) if imp_margin >= 0 else (loser, winner)


def victory_points(imp_margin: float, boards: int, rules: VictoryPointRules) -> tuple[float, float]:
    """VPs of (first team, second team) for the first team's margin under `rules`."""
    if rules.scale == "none":
        raise ValueError("these conditions convert no IMPs to VPs")
    margin = abs(imp_margin)
    if rules.fractional_margin == "round":
        margin = float(math.floor(margin + 0.5))
    if rules.scale == "wbf_2013":
        winner, total = _interpolated(margin, lambda m: wbf_vp(m, boards)), float(TOTAL_VP)
    else:
        table = discrete_table(rules, boards)
        winner, total = _interpolated(margin, lambda m: discrete_vp(m, table)), table.total
    loser = round(total - winner, 2)
    return (winner, loser) if imp_margin >= 0 else (loser, winner)


def _interpolated(margin: float, vp_at: Callable[[int], float]) -> float:
    low = math.floor(margin)
    value = vp_at(low)
    if margin > low:
        value += (vp_at(low + 1) - value) * (margin - low)
    return _round2(value)


def _round2(value: float) -> float:
    """Round to hundredths, an exact half away from zero (interpolated VPs are shown to 2 dp)."""
    return math.floor(abs(value) * 100 + 0.5 + 1e-9) / 100 * (1 if value >= 0 else -1)


def discrete_table(rules: VictoryPointRules, boards: int) -> DiscreteVPTable:
    """The discrete table in force for a match of `boards` boards."""
    for table in rules.discrete_tables():
        if table.min_boards <= boards and (table.max_boards is None or boards <= table.max_boards):
            return table
    tables = rules.discrete_tables()
    if len(tables) == 1:
        return tables[0]
    raise ValueError(f"no discrete VP table covers a {boards}-board match")


# --- frame-wide -------------------------------------------------------------------------------------

def vp_lookup(boards: list[int], rules: VictoryPointRules) -> pl.DataFrame:
    """The winner's VPs per (`_boards`, `_margin`) for whole margins, with each scale's total.

    Columns: `_boards`, `_margin` (0 up to the scale's maximum), `_vp`, `_total`, `_last` (the
    margin from which the winner gets the maximum).
    """
    parts = []
    for count in sorted(set(boards)):
        if rules.scale == "wbf_2013":
            values = [v / 100 for v in wbf_table(count)]
            total = float(TOTAL_VP)
        else:
            table = discrete_table(rules, count)
            last = math.ceil(table.lower_bounds[-1]) if table.lower_bounds else 0
            values = [discrete_vp(m, table) for m in range(last + 1)]
            total = table.total
        parts.append(pl.DataFrame({
            "_boards": [count] * len(values), "_margin": list(range(len(values))),
            "_vp": values, "_total": [total] * len(values), "_last": [len(values) - 1] * len(values),
        }, schema={"_boards": pl.Int64, "_margin": pl.Int64, "_vp": pl.Float64, "_total": pl.Float64,
                   "_last": pl.Int64}))
    if not parts:
        return pl.DataFrame(schema={"_boards": pl.Int64, "_margin": pl.Int64, "_vp": pl.Float64,
                                    "_total": pl.Float64, "_last": pl.Int64})
    return pl.concat(parts)


def add_victory_points(frame: pl.DataFrame, margin: str, boards: str, rules: VictoryPointRules,
                       into: str = "vp") -> pl.DataFrame:
    """Add column `into`: the VPs of the side whose IMP margin is `margin` in a `boards`-board match."""
    if rules.scale == "none" or frame.height == 0:
        return frame.with_columns(pl.lit(None, dtype=pl.Float64).alias(into))
    counts = frame.get_column(boards).drop_nulls().cast(pl.Int64).unique().to_list()
    lookup = vp_lookup(counts, rules)
    edges = lookup.group_by("_boards").agg(pl.col("_last").first(), pl.col("_total").first())
    size = pl.col(margin).abs()
    if rules.fractional_margin == "round":
        size = (size + 0.5 + 1e-9).floor()
    work = frame.with_columns(_size=size, _b=pl.col(boards).cast(pl.Int64)).join(
        edges, left_on="_b", right_on="_boards", how="left", maintain_order="left"
    )
    low = pl.min_horizontal(pl.col("_size").floor().cast(pl.Int64), pl.col("_last"))
    high = pl.min_horizontal(low + 1, pl.col("_last"))
    table = lookup.select("_boards", "_margin", "_vp")
    work = (
        work.with_columns(_low=low, _high=high)
        .join(table.rename({"_vp": "_v_low"}), left_on=["_b", "_low"], right_on=["_boards", "_margin"],
              how="left", maintain_order="left")
        .join(table.rename({"_vp": "_v_high"}), left_on=["_b", "_high"], right_on=["_boards", "_margin"],
              how="left", maintain_order="left")
    )
    fraction = (pl.col("_size") - pl.col("_size").floor()).clip(0.0, 1.0)
    winner = pl.col("_v_low") + (pl.col("_v_high") - pl.col("_v_low")) * fraction
    # In whole hundredths, so both sides are the doubles nearest their 2-decimal values.
    winner_h = (winner * 100 + 0.5 + 1e-9).floor().cast(pl.Int64)
    loser_h = (pl.col("_total") * 100).round(0).cast(pl.Int64) - winner_h
    # polars divides by a literal through its reciprocal (1470 / 100 -> 14.700000000000001):
    # round back to the 2-decimal double.
    vp = (pl.when(pl.col(margin) >= 0).then(winner_h).otherwise(loser_h) / 100).round(2)
    helpers = ["_size", "_b", "_last", "_total", "_low", "_high", "_v_low", "_v_high"]
    return work.with_columns(vp.alias(into)).drop(helpers)
