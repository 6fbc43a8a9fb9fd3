"""Butler: IMP pairs against a datum (scoring-notes §3.2).

The datum of a board (of each fouled group) is the mean, or median, NS score of its compared
results, optionally after trimming results from each end, rounded to the nearest 10. Each side
then scores IMP(own score - datum), a weighted score the weighted IMPs of its outcomes. Trimming
works on cumulative weights, so trimming k results, a fraction of them (even a fraction of one
result, EBU White Book 4.2.4) and weighted outcomes are all one formula.
"""

from __future__ import annotations

import polars as pl

from models.conditions import ArtificialScores, ButlerRules
from pipelines.scoring.imps import imps_expr
from pipelines.scoring.matchpoints import (
    ROW,
    award_expr,
    comparable,
    comparison_items,
    dense_id,
    is_artificial,
    is_split,
    with_group_id,
)

IMP_COLUMNS: dict[str, pl.DataType] = {
    ROW: pl.UInt32(), "imp_ns": pl.Float64(), "imp_ew": pl.Float64(), "datum": pl.Float64(),
}
"""What `score_butler` returns, one row per input row."""

BOARD_KEYS = ["_sess", "board"]
"""Columns naming one board's field of comparison (`_sess`: the engine's integer section key)."""
TIE_TOLERANCE = 1e-9
"""A datum within this of an exact 5 (in tens) is a tie for the rounding rule."""


def with_groups(frame: pl.DataFrame) -> pl.DataFrame:
    """Add `_grp` (board and fouled group), `_in` (row compared) and `_n` (rows compared in the group)."""
    frame = with_group_id(dense_id(frame, BOARD_KEYS, "_board"), "_board")
    return frame.with_columns(_in=comparable()).with_columns(
        _n=pl.col("_in").cast(pl.Int64).sum().over("_grp"),
        _nb=(pl.col("_in") | is_artificial()).cast(pl.Int64).sum().over("_board"),
    )


def trim_per_end(rules: ButlerRules, n: pl.Expr) -> pl.Expr:
    """How many results' weight is left out at each end of a group of `n` results."""
    n = n.cast(pl.Float64)
    if rules.trim == "count":
        k = float(rules.trim_count)
        return pl.when(n - 2 * k >= 1).then(pl.lit(k)).otherwise(0.0)
    if rules.trim == "fraction":
        return n * rules.trim_fraction
    if rules.trim == "whole_fraction":
        # The tolerance keeps an exact product (0.4875 x 80 = 39) from flooring to one less.
        return (n * rules.trim_fraction + TIE_TOLERANCE).floor()
    if rules.trim == "acbl":
        return n * 0.05
    if rules.trim == "bridge_scorer":
        return pl.when(n > 3).then(((n - 10) / 15).ceil() + 1).otherwise(0.0)
    return pl.lit(0.0)


def datum_per_group(items: pl.DataFrame, rules: ButlerRules) -> pl.DataFrame:
    """The unrounded datum of every group: `_grp`, `_datum_raw`."""
    ordered = (
        items.sort("_grp", "_score", ROW)
        .with_columns(_end=pl.col("_w").cum_sum().over("_grp"), _total=pl.col("_w").sum().over("_grp"))
        .with_columns(_start=pl.col("_end") - pl.col("_w"))
    )
    if rules.statistic == "median":
        half = pl.col("_total") / 2
        lower = pl.col("_score").filter((pl.col("_start") < half) & (half <= pl.col("_end"))).first()
        upper = pl.col("_score").filter((pl.col("_start") <= half) & (half < pl.col("_end"))).first()
        return ordered.group_by("_grp").agg(_datum_raw=(lower.cast(pl.Float64) + upper) / 2)
    trim = trim_per_end(rules, pl.col("_total").round(0))
    kept = (
        pl.min_horizontal(pl.col("_end"), pl.col("_total") - trim)
        - pl.max_horizontal(pl.col("_start"), trim)
    ).clip(lower_bound=0.0)
    return ordered.with_columns(_kept=kept).group_by("_grp").agg(
        _datum_raw=(pl.col("_score") * pl.col("_kept")).sum() / pl.col("_kept").sum()
    )


def round_to_ten(value: pl.Expr, mode: str) -> pl.Expr:
    """Round to the nearest 10; an exact 5 goes as `mode` says (half_up, half_away_from_zero, half_even);
    or cut to the ten toward zero (toward_zero)."""
    if mode == "none":
        return value
    tens = value / 10.0
    if mode == "toward_zero":
        # A mean that should be a whole ten may come out a hair short of it: the tolerance keeps it.
        cut = pl.when(tens >= 0).then((tens + TIE_TOLERANCE).floor()).otherwise((tens - TIE_TOLERANCE).ceil())
        return cut * 10.0
    floor = tens.floor()
    tie = ((tens - floor) - 0.5).abs() < TIE_TOLERANCE
    if mode == "half_up":
        on_tie = floor + 1
    elif mode == "half_away_from_zero":
        on_tie = pl.when(tens > 0).then(floor + 1).otherwise(floor)
    else:
        on_tie = pl.when(floor % 2 == 0).then(floor).otherwise(floor + 1)
    return pl.when(tie).then(on_tie).otherwise((tens + 0.5).floor()) * 10.0


def weighted_imps(items: pl.DataFrame, against: str) -> pl.DataFrame:
    """Per row: the weighted IMPs of its items' scores against column `against` (NS view)."""
    return (
        items.with_columns(_imps=pl.col("_w") * imps_expr(pl.col("_score") - pl.col(against)))
        .group_by(ROW).agg(pl.col("_imps").sum())
    )


def score_butler(frame: pl.DataFrame, rules: ButlerRules, artificial: ArtificialScores) -> pl.DataFrame:
    """Butler IMPs of every row of `frame` (RESULTS_SCHEMA columns plus `_row`); see `IMP_COLUMNS`."""
    frame = with_groups(frame)
    ns_items = comparison_items(frame, "ns", "_grp")
    datum = datum_per_group(ns_items, rules).with_columns(
        datum=round_to_ten(pl.col("_datum_raw"), rules.rounding)
    ).select("_grp", "datum")
    ns = weighted_imps(ns_items.join(datum, on="_grp", maintain_order="left"), "datum").rename({"_imps": "_ns"})
    # Only a split score ranks EW on other outcomes; everywhere else EW scores minus NS.
    ew_items = comparison_items(frame.filter(is_split()), "ew", "_grp").join(datum, on="_grp", maintain_order="left")
    ew = weighted_imps(ew_items, "datum").rename({"_imps": "_ew"})
    scored = (
        frame.join(datum, on="_grp", how="left", maintain_order="left")
        .join(ns, on=ROW, how="left", maintain_order="left").join(ew, on=ROW, how="left", maintain_order="left")
    )
    return scored.select(
        ROW,
        imp_ns=adjusted_or(pl.col("_ns"), "ns_award", artificial),
        imp_ew=adjusted_or(-pl.coalesce("_ew", "_ns"), "ew_award", artificial),
        datum=pl.col("datum"),
    )


def adjusted_or(
    computed: pl.Expr, award: str, artificial: ArtificialScores, scale: pl.Expr | None = None
) -> pl.Expr:
    """`computed` for compared rows; the Law 12C2 award in IMPs (times `scale`) for artificial rows."""
    imps = award_expr(pl.col(award), artificial.avg_plus_imps, artificial.avg_imps, artificial.avg_minus_imps)
    if scale is not None:
        imps = imps * scale
    return pl.when(pl.col("_in")).then(computed).when(is_artificial()).then(imps).otherwise(None)
