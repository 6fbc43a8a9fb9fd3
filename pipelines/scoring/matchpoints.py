"""Law 78A matchpoints, vectorised over every board of every session at once.

Each table result is compared with every other comparable result on the board, in the same
direction: 2 units for each score beaten, 1 for each tie, 0 for each loss (or 1, ½, 0).

The frame-wide method works on *items*: a table result is one item of weight 1; a weighted
score (Law 12C1(c)) is one item per outcome, weighted. For an item with NS score s in a group,
``L`` is the weight of the items scoring strictly less and ``E`` the weight scoring exactly s
(the item itself included). A row then earns ``raw = sum_k w_k (2 L_k + E_k)``, and its
matchpoints among the n rows of its group are ``raw - 1`` (the self comparisons of a row's own
outcomes always add exactly 1). Neuberg to N results is ``raw * N / n - 1`` (`neuberg.py`).

Artificial adjusted scores (Law 12C2) are left out of the comparisons and of n, and score a
percentage of the board's full top 2(N-1). Fouled boards (Law 87) are compared within their
`fouled_group` and each group is factored to N. A split score (Law 12C1(e)) ranks NS with the NS
outcomes and EW with the EW outcomes, so the two sides' matchpoints need not sum to the top.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Literal

import polars as pl

from models.awards import AWARD_SPELLINGS, Average
from models.conditions import ArtificialScores, MatchpointRules
from pipelines.scoring.neuberg import average_expr, neuberg_expr, ratio_expr

log = logging.getLogger(__name__)

ROW = "_row"
"""Column holding each input row's position: the key every scorer returns its values under."""

MP_COLUMNS: dict[str, pl.DataType] = {
    ROW: pl.UInt32(), "mp_ns": pl.Float64(), "mp_ew": pl.Float64(), "top": pl.Float64(),
    "pct_ns": pl.Float64(), "pct_ew": pl.Float64(),
}
"""What `score_matchpoints` returns, one row per input row."""

View = Literal["ns", "ew"]


# --- helpers shared by every method --------------------------------------------------------------

def with_group_id(frame: pl.DataFrame, board: str, name: str = "_grp") -> pl.DataFrame:
    """Add `name`: the comparison group, i.e. `board` split by Law 87 `fouled_group` when any board
    of the frame is fouled (otherwise the board itself, with no extra pass)."""
    if frame.get_column("fouled_group").null_count() == frame.height:
        return frame.with_columns(pl.col(board).alias(name))
    return dense_id(frame.with_columns(_fouled=pl.col("fouled_group").fill_null("")), [board, "_fouled"], name)


def dense_id(frame: pl.DataFrame, keys: Sequence[str], name: str) -> pl.DataFrame:
    """Add an integer id `name` that is equal exactly when `keys` are (nulls count as equal).

    Two non-null integer keys are paired arithmetically (`a * (max b + 1) + b`); otherwise the id
    is the `_row` of the group's first row. Both are exact (no hashing) and far cheaper than
    joining on several string columns.
    """
    if len(keys) == 2 and all(frame.schema[k].is_integer() for k in keys) and frame.height:
        first, second = frame.get_column(keys[0]), frame.get_column(keys[1])
        if first.null_count() == 0 and second.null_count() == 0 and int(second.min()) >= 0:  # type: ignore[arg-type]
            span = int(second.max()) + 1  # type: ignore[arg-type]
            if int(first.max()) < 2**62 // span:  # type: ignore[arg-type]
                return frame.with_columns((pl.col(keys[0]).cast(pl.Int64) * span + pl.col(keys[1])).alias(name))
    return frame.with_columns(pl.col(ROW).min().over(list(keys)).cast(pl.Int64).alias(name))


def normalise_inputs(frame: pl.DataFrame) -> pl.DataFrame:
    """`kind` lower-cased with a missing value read as a table result, awards in the one vocabulary
    of `models.awards` (`A+`, `A`, `A-` or a number, whatever spelling an event stored): done once,
    so the many tests on them below compare short strings only."""
    return frame.with_columns(
        pl.col("kind").fill_null("result").str.to_lowercase(),
        pl.col("ns_award", "ew_award").str.strip_chars().str.to_uppercase().str.replace_all(r"[_\s]+", "-")
        .replace(AWARD_SPELLINGS),
    )


def normalised_kind() -> pl.Expr:
    """`kind` as `normalise_inputs` left it (the engine normalises every frame it scores)."""
    return pl.col("kind")


def comparable() -> pl.Expr:
    """Rows compared with others: table results with a score, weighted scores with outcomes."""
    kind = normalised_kind()
    return (
        ((kind == "result") & pl.col("score_ns").is_not_null())
        | ((kind == "weighted") & (pl.col("ns_components").list.len().fill_null(0) > 0))
    )


def is_artificial() -> pl.Expr:
    """Rows carrying a Law 12C2 artificial adjusted score."""
    return normalised_kind() == "artificial"


def is_split() -> pl.Expr:
    """Weighted rows scoring EW on outcomes of their own (Law 12C1(e) split score)."""
    return (normalised_kind() == "weighted") & (pl.col("ew_components").list.len().fill_null(0) > 0)


def comparison_items(frame: pl.DataFrame, view: View, group: str) -> pl.DataFrame:
    """The scores a group's rows are compared on: `_row`, `group`, `_score` (NS points), `_w`.

    A table result is one item of weight 1; a weighted score one item per outcome, its weights
    normalised to sum to 1. In the EW view a split score uses its EW outcomes.
    """
    kind = normalised_kind()
    real = frame.filter(kind == "result", pl.col("score_ns").is_not_null()).select(
        ROW, group, _score=pl.col("score_ns"), _w=pl.lit(1.0)
    )
    components = pl.col("ns_components")
    if view == "ew":
        has_ew = pl.col("ew_components").list.len().fill_null(0) > 0
        components = pl.when(has_ew).then(pl.col("ew_components")).otherwise(pl.col("ns_components"))
    weighted = (
        frame.filter(kind == "weighted", pl.col("ns_components").list.len().fill_null(0) > 0)
        .select(ROW, group, _c=components)
        .explode("_c")
        .select(
            ROW, group,
            _score=pl.col("_c").struct.field("score_ns"),
            _w=pl.col("_c").struct.field("weight").cast(pl.Float64),
        )
        .with_columns(_w=pl.col("_w") / pl.col("_w").sum().over(ROW))
    )
    return pl.concat([real, weighted])


def award_expr(award: pl.Expr, plus: float, average: float, minus: float) -> pl.Expr:
    """An artificial award (`Average` or a number, as `normalise_inputs` left it) as a number in the
    method's unit: the conditions' value of a named award, an explicit number as given."""
    return (
        pl.when(award == Average.PLUS).then(pl.lit(plus))
        .when(award == Average.EVEN).then(pl.lit(average))
        .when(award == Average.MINUS).then(pl.lit(minus))
        .otherwise(award.cast(pl.Float64, strict=False))
    )


# --- matchpoints -----------------------------------------------------------------------------------

def board_keys(rules: MatchpointRules) -> list[str]:
    """Columns naming one board's field of comparison (`_sess` / `_es` are the engine's integer
    keys of a session's section / of a session)."""
    if rules.compare_across_sections:
        return ["_es", "board"]
    return ["_sess", "board"]


def raw_counts(items: pl.DataFrame, group: str) -> pl.DataFrame:
    """Per row: ``raw = sum_k w_k (2 L_k + E_k)`` over its items (see the module docstring)."""
    distinct = (
        items.group_by(group, "_score").agg(_eq=pl.col("_w").sum())
        .sort(group, "_score")
        .with_columns(_lt=pl.col("_eq").cum_sum().over(group) - pl.col("_eq"))
    )
    scored = items.join(distinct, on=[group, "_score"], how="left", maintain_order="left").with_columns(
        _raw=pl.col("_w") * (2.0 * pl.col("_lt") + pl.col("_eq"))
    )
    single = scored.filter(pl.col("_w") == 1.0).select(ROW, "_raw")
    several = (
        scored.filter(pl.col("_w") != 1.0)
        .group_by(ROW).agg(pl.col("_raw").sum())
    )
    return pl.concat([single, several])


def _with_counts(frame: pl.DataFrame, rules: MatchpointRules) -> pl.DataFrame:
    """Add `_grp` (comparison group), `_n` (rows compared in it) and `_N` (expected results)."""
    keys = board_keys(rules)
    frame = with_group_id(dense_id(frame, keys, "_board"), "_board")
    field = keys[0]  # the engine's integer key of the section (or of the session, across sections)
    in_group = comparable()
    counted = in_group | is_artificial()
    frame = frame.with_columns(
        _in=in_group,
        _n=in_group.cast(pl.Int64).sum().over("_grp"),
        _nb=counted.cast(pl.Int64).sum().over("_board"),
    )
    if rules.factoring == "none":
        expected = pl.when(pl.col("_in")).then(pl.col("_n")).otherwise(pl.col("_nb"))
    elif rules.factoring_basis == "section":
        expected = pl.col("_nb").max().over(field)
    else:
        expected = pl.col("_nb")
    return frame.with_columns(_N=expected)


def _factor(raw: pl.Expr, rules: MatchpointRules) -> pl.Expr:
    """Matchpoints in 2/1/0 units from `raw`, factored from `_n` to `_N` as the rules say."""
    if rules.factoring == "neuberg":
        return neuberg_expr(raw, pl.col("_n"), pl.col("_N"))
    if rules.factoring == "ratio":
        return ratio_expr(raw, pl.col("_n"), pl.col("_N"))
    if rules.factoring == "average":
        return average_expr(raw, pl.col("_n"), pl.col("_N"))
    return raw - 1.0


def score_matchpoints(
    frame: pl.DataFrame, rules: MatchpointRules, artificial: ArtificialScores
) -> pl.DataFrame:
    """Matchpoints of every row of `frame` (RESULTS_SCHEMA columns plus `_row`).

    Returns `MP_COLUMNS`: NS and EW matchpoints, the board's full top and the percentages.
    Artificial rows get their award as a percentage of the full top (Law 12C2 before 12C2(c),
    which needs the whole session and is applied by `standings.adjust_artificial`).
    """
    frame = _with_counts(frame, rules)
    raw_ns = raw_counts(comparison_items(frame, "ns", "_grp"), "_grp").rename({"_raw": "_raw_ns"})
    raw_ew = _raw_ew_view(frame)
    unit = 0.5 if rules.scale == "1/0.5/0" else 1.0
    top2 = 2.0 * (pl.col("_N").cast(pl.Float64) - 1.0)
    scored = (
        frame.join(raw_ns, on=ROW, how="left", maintain_order="left")
        .join(raw_ew, on=ROW, how="left", maintain_order="left")
        .with_columns(_raw_ew=pl.coalesce("_raw_ew", "_raw_ns"), top=top2 * unit)
        .with_columns(
            mp_ns=_matchpoints(_factor(pl.col("_raw_ns"), rules) * unit, "ns_award", artificial),
            mp_ew=_matchpoints((top2 - _factor(pl.col("_raw_ew"), rules)) * unit, "ew_award", artificial),
        )
    )
    return scored.select(
        ROW, "mp_ns", "mp_ew", "top",
        pct_ns=percentage(pl.col("mp_ns"), pl.col("top")),
        pct_ew=percentage(pl.col("mp_ew"), pl.col("top")),
    )


def _raw_ew_view(frame: pl.DataFrame) -> pl.DataFrame:
    """`_raw_ew` per row of the groups holding a split score (elsewhere the NS view serves)."""
    groups = frame.filter(is_split()).select("_grp").unique()
    if groups.height == 0:
        return pl.DataFrame(schema={ROW: pl.UInt32(), "_raw_ew": pl.Float64()})
    in_split = frame.join(groups, on="_grp", how="semi", maintain_order="left")
    return raw_counts(comparison_items(in_split, "ew", "_grp"), "_grp").rename({"_raw": "_raw_ew"})


def _matchpoints(real: pl.Expr, award: str, artificial: ArtificialScores) -> pl.Expr:
    """Computed matchpoints for compared rows; the award's share of the top for artificial rows."""
    pct = award_expr(pl.col(award), artificial.avg_plus_pct, artificial.avg_pct, artificial.avg_minus_pct)
    return (
        pl.when(pl.col("_in")).then(real)
        .when(is_artificial()).then(pct / 100.0 * pl.col("top"))
        .otherwise(None)
    )


def percentage(value: pl.Expr, top: pl.Expr) -> pl.Expr:
    """`value` as a percentage of `top`; null when the top is 0 (nothing to compare with)."""
    return pl.when(top > 0).then(value / top * 100.0).otherwise(None)
