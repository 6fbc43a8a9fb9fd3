"""Cross-IMPs: each result IMPed against every other result on the board, then normalised (§3.3).

Rather than pairing every two tables (n² rows per board), the board's *distinct* NS scores are
paired, each weighted by how many results (or how much outcome weight) scored it. A result's
sum ``S(s) = sum_t c_t IMP(s - t)`` over distinct scores t then includes itself at IMP(0) = 0,
and a weighted score's own outcomes cancel (IMPs are antisymmetric), so no self-exclusion is
needed. The sum is divided by 1 (total), n - 1 (average over comparisons) or n (per score);
each comparison may be capped (Polish 17). A group of n < N results (a fouled board, missing
results) on the 'sum' scale is factored by (N - 1)/(n - 1); the averages need no factoring.
"""

from __future__ import annotations

import polars as pl

from models.conditions import ArtificialScores, CrossImpRules
from pipelines.scoring.butler import adjusted_or, with_groups
from pipelines.scoring.imps import imps_expr
from pipelines.scoring.matchpoints import ROW, comparison_items, is_split

CROSS_COLUMNS: dict[str, pl.DataType] = {ROW: pl.UInt32(), "imp_ns": pl.Float64(), "imp_ew": pl.Float64()}
"""What `score_cross_imps` returns, one row per input row."""


def capped_imps(difference: pl.Expr, cap: int | None) -> pl.Expr:
    """IMPs of a point difference, each comparison capped at `cap` IMPs either way."""
    imps = imps_expr(difference)
    return imps if cap is None else imps.clip(-cap, cap)


def sums_against_field(items: pl.DataFrame, cap: int | None) -> pl.DataFrame:
    """Per row: ``sum_k w_k S(s_k)``, the weighted IMPs against every result of its group."""
    # Sorted, and joins that keep order: every float sum below adds in the same order on every run.
    distinct = items.group_by("_grp", "_score").agg(_c=pl.col("_w").sum()).sort("_grp", "_score")
    pairs = distinct.join(distinct.rename({"_score": "_other", "_c": "_c_other"}), on="_grp",
                          maintain_order="left_right")
    against = pairs.group_by("_grp", "_score").agg(
        _s=(pl.col("_c_other") * capped_imps(pl.col("_score") - pl.col("_other"), cap)).sum()
    )
    scored = items.join(against, on=["_grp", "_score"], how="left", maintain_order="left").with_columns(
        _sum=pl.col("_w") * pl.col("_s")
    )
    single = scored.filter(pl.col("_w") == 1.0).select(ROW, "_sum")
    several = scored.filter(pl.col("_w") != 1.0).group_by(ROW).agg(pl.col("_sum").sum())
    return pl.concat([single, several])


def divisor(rules: CrossImpRules) -> pl.Expr:
    """What a row's sum is divided by; null when nothing was compared."""
    n = pl.col("_n").cast(pl.Float64)
    comparisons = pl.when(n > 1).then(n - 1.0)
    if rules.divisor == "n-1":
        return comparisons
    if rules.divisor == "n":
        return pl.when(n > 1).then(n)
    # Total IMPs: factor a short group up to the board's expected number of comparisons.
    return comparisons / (pl.col("_nb").cast(pl.Float64) - 1.0)


def award_scale(rules: CrossImpRules) -> pl.Expr:
    """An artificial award is worth so many IMPs per comparison: scale it like a computed sum."""
    others = pl.col("_nb").cast(pl.Float64) - 1.0
    if rules.divisor == "sum":
        return others
    if rules.divisor == "n":
        return others / pl.col("_nb").cast(pl.Float64)
    return pl.lit(1.0)


def score_cross_imps(frame: pl.DataFrame, rules: CrossImpRules, artificial: ArtificialScores) -> pl.DataFrame:
    """Cross-IMPs of every row of `frame` (RESULTS_SCHEMA columns plus `_row`); see `CROSS_COLUMNS`."""
    frame = with_groups(frame)
    ns = sums_against_field(comparison_items(frame, "ns", "_grp"), rules.cap).rename({"_sum": "_ns"})
    split_groups = frame.filter(is_split()).select("_grp").unique()
    in_split = frame.join(split_groups, on="_grp", how="semi", maintain_order="left")
    ew = sums_against_field(comparison_items(in_split, "ew", "_grp"), rules.cap).rename({"_sum": "_ew"})
    scored = (
        frame.join(ns, on=ROW, how="left", maintain_order="left")
        .join(ew, on=ROW, how="left", maintain_order="left")
        .with_columns(_div=divisor(rules))
    )
    value_ns = (pl.col("_ns") / pl.col("_div")).fill_null(0.0)
    value_ew = (-pl.coalesce("_ew", "_ns") / pl.col("_div")).fill_null(0.0)
    scale = award_scale(rules)
    return scored.select(
        ROW,
        imp_ns=adjusted_or(value_ns, "ns_award", artificial, scale),
        imp_ew=adjusted_or(value_ew, "ew_award", artificial, scale),
    )
