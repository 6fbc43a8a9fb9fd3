"""Session standings: totals, percentages, Law 12C2(c), penalties, ranks, ties and tie-breaks.

Scoring produces one value per side per table (matchpoints, IMPs or points). In a two-field
session each direction is ranked on its own; in a one-field session (Howell, barometer) a pair's
NS and EW boards make one total and one ranking ('ALL'). Totals are summed per side straight from
the board rows; the per-contestant *ledger* is built only for the contestants Law 12C2(c) concerns.

Percentages follow scoring-notes §2.3 (Brenning's "Solution 1"): artificial A+/A- boards are
left out of the contestant's own percentage on the other boards; with Law 12C2(c) an A+ scores
the better of average-plus and that percentage, an A- the worse of average-minus and it; boards
a pair did not play (byes, sit-outs) are left out of both numerator and denominator.
"""

from __future__ import annotations

import logging

import polars as pl

from models.awards import Average
from models.conditions import ArtificialScores, FieldLayout
from pipelines.scoring.frames import PENALTIES_SCHEMA, STANDINGS_SCHEMA, conform
from pipelines.scoring.matchpoints import ROW

log = logging.getLogger(__name__)

SESSION_KEYS = ["event_id", "session_id", "section"]
"""Columns naming a session's section: standings rank within it."""
RANK_PARTITION = [*SESSION_KEYS, "direction"]
"""Contestants compete within one of these."""
CONTESTANT_KEYS = [*RANK_PARTITION, "contestant_id"]
"""One standings row per value of these."""
RANK_DECIMALS = 9
"""Totals are compared at this precision, so float noise in sums never splits a genuine tie."""

LEDGER_SCHEMA: dict[str, pl.DataType] = {
    ROW: pl.UInt32(), "_side": pl.String(), "_sess": pl.Int64(), "direction": pl.String(),
    "contestant_id": pl.String(), "value": pl.Float64(), "unit_top": pl.Float64(), "award": pl.String(),
    "artificial": pl.Boolean(),
}
"""One row per contestant per table result: its value and the per-board unit (top, or 1 for IMPs)."""
LEDGER_KEYS = ["_sess", "direction", "contestant_id"]

_PLUS_OR_MINUS = [Average.PLUS.value, Average.MINUS.value]
"""The awards Law 12C2(c) may improve on (average-plus) or lower (average-minus)."""
"""A contestant within a session's section (`_sess` is the engine's integer section key)."""

STANDING_EXTRA_COLUMNS: dict[str, pl.DataType] = {
    "vp": pl.Float64(),
    "imps_for": pl.Float64(),
    "imps_against": pl.Float64(),
    "cumulative_score": pl.Float64(),
}
"""Columns standings carry beyond `frames.STANDINGS_SCHEMA` (teams' VPs and IMPs, carry-over)."""


def _direction(side: str, layout: FieldLayout) -> pl.Expr:
    return pl.lit("ALL" if layout != "two_field" else side)


def ledger(board: pl.DataFrame, layout: FieldLayout, value_ns: str, value_ew: str,
           unit_top: pl.Expr, only: pl.DataFrame | None = None) -> pl.DataFrame:
    """The per-contestant ledger of scored board rows (see `LEDGER_SCHEMA`), for every
    contestant or `only` those listed (`LEDGER_KEYS` columns)."""
    sides = []
    for side, contestant, value, award in (("NS", "ns_id", value_ns, "ns_award"),
                                           ("EW", "ew_id", value_ew, "ew_award")):
        rows = board
        if only is not None:
            wanted = only.filter(pl.col("direction") == _direction(side, layout)).select(
                "_sess", pl.col("contestant_id").alias(contestant))
            rows = board.join(wanted, on=["_sess", contestant], how="semi", nulls_equal=True, maintain_order="left")
        sides.append(rows.select(
            ROW, "_sess",
            _side=pl.lit(side),
            direction=_direction(side, layout),
            contestant_id=pl.col(contestant),
            value=pl.col(value),
            unit_top=unit_top,
            award=pl.col(award),
            artificial=pl.col("kind") == "artificial",
        ))
    return conform(pl.concat(sides), LEDGER_SCHEMA).filter(pl.col("contestant_id").is_not_null())


def apply_law_12c2c(ledger_frame: pl.DataFrame, plus: float, minus: float, row_key: str = ROW,
                    keys: list[str] = LEDGER_KEYS) -> pl.DataFrame:
    """Law 12C2(c): replace A+ / A- values by the contestant's own score on the other boards.

    `plus` and `minus` are the awards as a share of `unit_top` (0.6 and 0.4 of the top in pairs;
    +3 and -3 IMPs per board at IMPs, where `unit_top` is 1). Only contestants holding an A+ or
    A- are looked at. `row_key` and `_side` name a ledger entry; `keys` a contestant.
    """
    special = pl.col("artificial") & pl.col("award").is_in(_PLUS_OR_MINUS)
    holders = ledger_frame.filter(special).select(keys).unique()
    if holders.height == 0:
        return ledger_frame
    other = ~special & pl.col("value").is_not_null() & (pl.col("unit_top") > 0)
    own = (
        ledger_frame.join(holders, on=keys, how="semi", nulls_equal=True, maintain_order="left")
        .filter(other)
        .group_by(keys)
        .agg(_basis=pl.col("unit_top").sum(), _sum=pl.col("value").sum())
        # No other board scored: nothing to improve on, the award stands.
        .select(*keys, _own=pl.when(pl.col("_basis") > 0).then(pl.col("_sum") / pl.col("_basis")))
    )
    better = (
        pl.when((pl.col("award") == Average.PLUS) & (pl.col("_own") > plus).fill_null(False))
        .then(pl.col("_own") * pl.col("unit_top"))
        .when((pl.col("award") == Average.MINUS) & (pl.col("_own") < minus).fill_null(False))
        .then(pl.col("_own") * pl.col("unit_top"))
        .otherwise(pl.col("value"))
    )
    changed = (
        ledger_frame.filter(special)
        .join(own, on=keys, how="left", nulls_equal=True, maintain_order="left")
        .select(row_key, "_side", _new=better)
    )
    return (
        ledger_frame.join(changed, on=[row_key, "_side"], how="left", maintain_order="left")
        .with_columns(value=pl.coalesce("_new", "value"))
        .drop("_new")
    )


def adjust_artificial(board: pl.DataFrame, layout: FieldLayout, value_ns: str, value_ew: str,
                      unit_top: pl.Expr, plus: float, minus: float) -> pl.DataFrame:
    """Law 12C2(c) on a session's board rows (sorted by `_row`): only the contestants holding an
    A+ or A- are put in a ledger, and only their artificial rows' values change."""
    special = pl.col("kind") == "artificial"
    awards = [pl.col(c).is_in(_PLUS_OR_MINUS) for c in ("ns_award", "ew_award")]
    flagged = board.filter(special & (awards[0] | awards[1]))
    if flagged.height == 0:
        return board
    holders = pl.concat([
        flagged.select("_sess", direction=_direction("NS", layout), contestant_id="ns_id"),
        flagged.select("_sess", direction=_direction("EW", layout), contestant_id="ew_id"),
    ]).unique()
    book = ledger(board, layout, value_ns, value_ew, unit_top, only=holders)
    adjusted = apply_law_12c2c(book, plus, minus).filter(pl.col("artificial"))
    rows = board.get_column(ROW)
    for side, column in (("NS", value_ns), ("EW", value_ew)):
        values = adjusted.filter(pl.col("_side") == side)
        positions = rows.search_sorted(values.get_column(ROW))
        board = board.with_columns(board.get_column(column).scatter(positions, values.get_column("value")))
    return board


def totals(board: pl.DataFrame, layout: FieldLayout, value_ns: str, value_ew: str,
           unit_top: pl.Expr, with_percentage: bool) -> pl.DataFrame:
    """Sum each contestant's values: score, boards and (matchpoints) percentage.

    NS and EW rows are summed separately and, in a one-field session, the two partial sums added:
    polars sums each group in row order whatever the thread count, so totals are reproducible bit
    for bit.
    """
    parts = []
    for side, contestant, value in (("NS", "ns_id", value_ns), ("EW", "ew_id", value_ew)):
        scored = pl.col(value).is_not_null()
        parts.append(
            board.filter(pl.col(contestant).is_not_null())
            .group_by("_sess", contestant, maintain_order=True)
            .agg(
                score=pl.col(value).sum(),
                _top=unit_top.filter(scored).sum(),
                _board_top=unit_top.filter(scored).max(),
                boards=scored.sum().cast(pl.Int64),
            )
            .select("_sess", direction=_direction(side, layout), contestant_id=pl.col(contestant),
                    score="score", _top="_top", _board_top="_board_top", boards="boards")
        )
    summed = pl.concat(parts)
    if layout != "two_field":
        summed = summed.group_by(LEDGER_KEYS, maintain_order=True).agg(
            pl.col("score", "_top", "boards").sum(), pl.col("_board_top").max())
    names = board.select("_sess", "event_id", "session_id", "section").unique("_sess", keep="first")
    summed = summed.join(names, on="_sess", how="left", maintain_order="left")
    percentage = pl.col("score") / pl.col("_top") * 100.0 if with_percentage else pl.lit(None)
    return summed.with_columns(percentage=pl.when(pl.col("_top") > 0).then(percentage))


def deduct_penalties(standing: pl.DataFrame, penalties: pl.DataFrame | None, method: str) -> pl.DataFrame:
    """Deduct penalties (Laws 90/91) in the session's unit. In matchpoints a '%' penalty lowers
    the percentage by that much (the score by that share of all the contestant's tops), and a
    'TOP%' penalty deducts that share of one board's top (the largest top of a board it played).

    A penalty names its contestant's section and, in a two-field session, its direction; one
    recorded without them (section '', no direction) applies to every standing its id names.
    A penalty in a unit the session does not score is left out, with a warning (the director's
    command refuses it; one already in the log must not stop the rest being scored).
    """
    if penalties is None or penalties.height == 0:
        return standing
    penalties = _in_session_units(conform(penalties, PENALTIES_SCHEMA), standing, method)
    if penalties.height == 0:
        return standing
    indexed = standing.with_row_index("_standing")
    named = (
        indexed.select("_standing", "event_id", "session_id", "section", "direction", "contestant_id")
        .join(penalties.rename({"section": "_p_section", "direction": "_p_direction"}),
              on=["event_id", "session_id", "contestant_id"], how="inner", maintain_order="left_right")
        .filter(((pl.col("_p_section") == pl.col("section")) | (pl.col("_p_section") == ""))
                & (pl.col("_p_direction").is_null() | (pl.col("_p_direction") == pl.col("direction"))))
    )
    # Each contestant's penalties summed in log order, so totals are the same bits on every replay.
    per_standing = named.group_by("_standing", maintain_order=True).agg(
        _points=pl.col("amount").filter(~pl.col("unit").is_in(["%", "TOP%"])).sum(),
        _percent=pl.col("amount").filter(pl.col("unit") == "%").sum(),
        _board_share=pl.col("amount").filter(pl.col("unit") == "TOP%").sum(),
    )
    joined = indexed.join(per_standing, on="_standing", how="left", maintain_order="left")
    deduction = pl.col("_points").fill_null(0.0)
    if "_top" in joined.columns:
        deduction = deduction + pl.col("_percent").fill_null(0.0) / 100.0 * pl.col("_top").fill_null(0.0)
    if "_board_top" in joined.columns:
        deduction = deduction + pl.col("_board_share").fill_null(0.0) / 100.0 * pl.col("_board_top").fill_null(0.0)
    joined = joined.with_columns(score=pl.col("score") - deduction)
    if method == "MP":
        joined = joined.with_columns(
            percentage=pl.when(pl.col("_top") > 0).then(pl.col("score") / pl.col("_top") * 100.0)
        )
    return joined.drop("_standing", "_points", "_percent", "_board_share")


PENALTY_UNITS: dict[str, tuple[str, ...]] = {
    "MP": ("MP", "%", "TOP%"), "BUTLER": ("IMP",), "CROSS_IMP": ("IMP",), "IMP_TEAMS": ("IMP",), "VP_TEAMS": ("VP",),
    "TOTAL": (),
}
"""Scoring method -> the units a penalty in its sessions may be given in."""


def _in_session_units(penalties: pl.DataFrame, standing: pl.DataFrame, method: str) -> pl.DataFrame:
    """The penalties of `standing`'s sessions given in a unit `method` scores; any other is logged."""
    here = penalties.join(standing.select("event_id", "session_id").unique(),
                          on=["event_id", "session_id"], how="semi", maintain_order="left")
    fits = pl.col("unit").is_in(list(PENALTY_UNITS[method]))
    for wrong in here.filter(~fits).iter_rows(named=True):  # a handful at most: the command refuses them
        log.warning("penalty of %g %s to %s in %s/%s left out: a %s session deducts only %s",
                    wrong["amount"], wrong["unit"], wrong["contestant_id"], wrong["event_id"],
                    wrong["session_id"], method, " or ".join(PENALTY_UNITS[method]) or "nothing")
    return here.filter(fits)


def rank(standing: pl.DataFrame, key: pl.Expr, encounters: pl.DataFrame | None = None) -> pl.DataFrame:
    """Rank within each section and direction on `key` (higher is better), then, when the
    conditions ask for it, on the direct encounters among the contestants tied on `key`
    (`encounters`, see `head_to_head_points`).

    Tied contestants (equal on every key) share the best place of their group (`rank` = the
    group's minimum) and are flagged `tied`. A contestant with no key (nothing scored) ranks last.
    """
    rounded = key.round(RANK_DECIMALS).fill_null(float("-inf")).fill_nan(float("-inf"))
    ranked = standing.with_columns(_key=rounded)
    keys = ["_key"]
    if encounters is not None:
        ranked = ranked.with_columns(_h2h=head_to_head_points(ranked, encounters))
        keys.append("_h2h")
    ranked = ranked.with_columns(
        rank=pl.struct(keys).rank("min", descending=True).over(RANK_PARTITION).cast(pl.Int64),
        tied=(pl.len().over([*RANK_PARTITION, *keys]) > 1),
    )
    return ranked.drop(keys)


def encounters(board: pl.DataFrame, layout: FieldLayout, value_ns: str, value_ew: str) -> pl.DataFrame:
    """Each contestant's total against each opponent it met, and the opponent's: one row per
    (section, contestant, opponent), both with their direction (for the pairs tie-break)."""
    sides = [
        board.select("_sess", direction=_direction(me, layout), me=pl.col(mine_id),
                     them_direction=_direction(them, layout), them=pl.col(their_id),
                     mine=pl.col(mine), theirs=pl.col(theirs))
        for me, them, mine_id, their_id, mine, theirs in (("NS", "EW", "ns_id", "ew_id", value_ns, value_ew),
                                                           ("EW", "NS", "ew_id", "ns_id", value_ew, value_ns))
    ]
    return (
        pl.concat(sides).drop_nulls(["me", "them"])
        .group_by("_sess", "direction", "me", "them_direction", "them", maintain_order=True)
        .agg(pl.col("mine", "theirs").sum())
    )


def head_to_head_points(ranked: pl.DataFrame, met: pl.DataFrame) -> pl.Series:
    """Per standings row: 2 points for each contestant tied with it on `_key` that it beat over the
    boards they played against each other, 1 for each it drew with (Magic Contest's `Tiebreak`)."""
    tied = ranked.select("_sess", "direction", me="contestant_id", _k_me="_key")
    among = (
        met.join(tied, on=["_sess", "direction", "me"])
        .join(tied.rename({"direction": "them_direction", "me": "them", "_k_me": "_k_them"}),
              on=["_sess", "them_direction", "them"])
        .filter((pl.col("direction") == pl.col("them_direction")) & (pl.col("_k_me") == pl.col("_k_them")))
    )
    margin = (pl.col("mine") - pl.col("theirs")).round(RANK_DECIMALS)
    points = among.group_by("_sess", "direction", "me").agg(
        _points=pl.when(margin > 0).then(2).when(margin == 0).then(1).otherwise(0).sum().cast(pl.Float64))
    joined = ranked.join(points, left_on=["_sess", "direction", "contestant_id"],
                         right_on=["_sess", "direction", "me"], how="left", maintain_order="left")
    return joined.get_column("_points").fill_null(0.0)


def sort_standings(standing: pl.DataFrame) -> pl.DataFrame:
    """Standings in their published order."""
    return standing.sort([*RANK_PARTITION, "rank", "contestant_id"], nulls_last=True, maintain_order=True)


def pairs_standings(standing: pl.DataFrame, method: str, penalties: pl.DataFrame | None,
                    rank_per_board: bool = False, average_unplayed: bool = False,
                    met: pl.DataFrame | None = None) -> pl.DataFrame:
    """Standings of a pairs method from its `totals`: unplayed boards, penalties, ranks.

    With `average_unplayed` a contestant who played fewer boards than the most anyone played in
    its section and direction has its total scaled up to that many boards (its own average on the
    others). With `met` (`encounters`), ties are broken on the direct encounters among the tied.
    """
    if average_unplayed:
        most = pl.col("boards").max().over(RANK_PARTITION).cast(pl.Float64)
        factor = pl.when(pl.col("boards") > 0).then(most / pl.col("boards").cast(pl.Float64)).otherwise(1.0)
        standing = standing.with_columns(score=pl.col("score") * factor, _top=pl.col("_top") * factor)
    standing = deduct_penalties(standing, penalties, method)
    if method == "MP":
        key = pl.coalesce("percentage", "score")
    elif rank_per_board:
        key = pl.col("score") / pl.col("boards").cast(pl.Float64)
    else:
        key = pl.col("score")
    return rank(standing, key, met)


def artificial_shares(method: str, artificial: ArtificialScores) -> tuple[float, float]:
    """Average-plus and average-minus as a share of `unit_top` for Law 12C2(c)."""
    if method == "MP":
        return artificial.avg_plus_pct / 100.0, artificial.avg_minus_pct / 100.0
    return artificial.avg_plus_imps, artificial.avg_minus_imps


def conform_standings(standing: pl.DataFrame) -> pl.DataFrame:
    """Standings with exactly the published columns (plus `STANDING_EXTRA_COLUMNS`)."""
    return conform(standing, STANDINGS_SCHEMA | STANDING_EXTRA_COLUMNS)


# --- teams --------------------------------------------------------------------------------------------

def team_standings(matches: pl.DataFrame, method: str, penalties: pl.DataFrame | None,
                   tie_breaks: tuple[str, ...], use_vp: bool) -> pl.DataFrame:
    """Standings of team sessions from their matches (`teams.MATCH_SCHEMA`).

    The score is the VP total (VP_TEAMS with a VP scale) or the IMP margin; ties are broken by the
    conditions' tie-breaks in order, each computed within the group tied on the score.
    """
    standing = (
        matches.group_by("event_id", "session_id", "section", "team_id", maintain_order=True)
        .agg(
            vp=pl.col("vp").sum() if use_vp else pl.lit(None, dtype=pl.Float64),
            imps_for=pl.col("imps_for").sum(),
            imps_against=pl.col("imps_against").sum(),
            _margin=pl.col("imp_margin").sum(),
            boards=pl.col("boards").sum().cast(pl.Int64),
        )
        .with_columns(direction=pl.lit("ALL"), contestant_id=pl.col("team_id"))
        .with_columns(score=pl.col("vp") if use_vp else pl.col("_margin"))
    )
    standing = deduct_penalties(standing, penalties, method)
    return rank_with_tie_breaks(standing, matches, tie_breaks)


def rank_with_tie_breaks(
    standing: pl.DataFrame, matches: pl.DataFrame, tie_breaks: tuple[str, ...]
) -> pl.DataFrame:
    """Rank on the score, then on each tie-break (CBAI / WBF cascade); equal on all keys = tied."""
    work = standing.with_columns(_k0=pl.col("score").round(RANK_DECIMALS).fill_null(float("-inf")))
    keys = ["_k0"]
    for index, rule in enumerate(tie_breaks, start=1):
        name = f"_k{index}"
        work = work.with_columns(_tie_break(work, matches, rule).alias(name))
        keys.append(name)
    ranked = work.with_columns(
        rank=pl.struct(keys).rank("min", descending=True).over(RANK_PARTITION).cast(pl.Int64),
        tied=pl.len().over([*RANK_PARTITION, *keys]) > 1,
    )
    return ranked.drop(keys)


def _tie_break(work: pl.DataFrame, matches: pl.DataFrame, rule: str) -> pl.Series:
    """One tie-break key per standings row (higher is better); the pairs criterion breaks nothing."""
    if rule == "head_to_head_mp":
        return pl.Series([0.0] * work.height, dtype=pl.Float64)
    if rule == "imp_quotient":
        quotient = (
            pl.when(pl.col("imps_against") > 0).then(pl.col("imps_for") / pl.col("imps_against"))
            .when(pl.col("imps_for") > 0).then(float("inf"))
            .otherwise(1.0)
        )
        return work.select(quotient.round(RANK_DECIMALS).fill_null(float("-inf"))).to_series()
    if rule == "imp_margin":
        margin = pl.col("imps_for") - pl.col("imps_against")
        return work.select(margin.round(RANK_DECIMALS).fill_null(float("-inf"))).to_series()
    column = "vp" if rule == "head_to_head_vp" else "imp_margin"
    return _head_to_head(work, matches, column)


def _head_to_head(work: pl.DataFrame, matches: pl.DataFrame, column: str) -> pl.Series:
    """Each team's `column` total in its matches against teams tied with it on the score."""
    keys = ["event_id", "session_id", "section"]
    tied_on = work.select(*keys, team_id=pl.col("contestant_id"), _k=pl.col("_k0"))
    among = (
        matches.join(tied_on, on=[*keys, "team_id"], maintain_order="left")
        .join(tied_on.rename({"team_id": "opponent_id", "_k": "_k_opp"}), on=[*keys, "opponent_id"],
              maintain_order="left")
        .filter(pl.col("_k") == pl.col("_k_opp"))
        .group_by(*keys, "team_id").agg(_h2h=pl.col(column).fill_null(0.0).sum())
    )
    joined = work.join(among, left_on=[*keys, "contestant_id"], right_on=[*keys, "team_id"],
                       how="left", nulls_equal=True, maintain_order="left")
    return joined.select(pl.col("_h2h").fill_null(0.0).round(RANK_DECIMALS)).to_series()


def add_cumulative(standing: pl.DataFrame, fraction: float, session_order: tuple[str, ...]) -> pl.DataFrame:
    """Multi-session carry-over: `cumulative_score` = this session's score plus `fraction` of the
    contestant's scores in the event's earlier sessions (ordered as given, else by session id)."""
    sessions = standing.select("event_id", "session_id").unique()
    order = {sid: i for i, sid in enumerate(session_order)}
    ordinal = sessions.with_columns(
        _order=pl.col("session_id").replace_strict(order, default=None, return_dtype=pl.Int64)
    ).sort("event_id", "_order", "session_id", nulls_last=True).with_columns(
        _ordinal=pl.int_range(pl.len()).over("event_id")
    ).drop("_order")
    ranked = standing.join(ordinal, on=["event_id", "session_id"], how="left", maintain_order="left")
    ordered = ranked.with_columns(_who=_carried_identity()).sort(
        "event_id", "_who", "_ordinal", maintain_order=True).with_columns(
        _earlier=(pl.col("score").cum_sum() - pl.col("score")).over(["event_id", "_who"])
    ).with_columns(cumulative_score=pl.col("score") + fraction * pl.col("_earlier"))
    return ordered.drop("_ordinal", "_earlier", "_who")


def _carried_identity() -> pl.Expr:
    """Who a standing row's score carries over to: the contestant id, when the event's sessions use
    each id once (pairs numbered across the field keep their number whatever their seat); else the
    id in its section and direction (a Mitchell's NS 1 and EW 1 are two pairs)."""
    repeated = (pl.len().over("event_id", "session_id", "contestant_id") > 1).any().over("event_id")
    return (pl.when(repeated)
            .then(pl.concat_str("section", "direction", "contestant_id", separator="\x1f", ignore_nulls=True))
            .otherwise(pl.col("contestant_id")))
