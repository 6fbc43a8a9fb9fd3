"""The scoring entry point: every board of every session, all methods, in one call.

`score` reads the session schedule and the conditions of contest, splits the results into the
few groups of sessions that share a method and its rules, scores each group with polars
expressions, and returns board scores and standings in a deterministic order. Nothing here
loops over results: Python loops run over sessions (to resolve their conditions) and over the
handful of distinct (method, rules) groups.

Grouping and ordering use integer keys built once (`lexical_codes`): `_es` per session and `_sess`
per section of a session, numbered in the strings' own sort order, so windows and joins never hash
strings and the published order is one integer sort.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass, replace

import polars as pl

from models.conditions import ConditionsOfContest, FieldLayout, ScoringMethod
from pipelines.scoring.butler import score_butler
from pipelines.scoring.cross_imps import score_cross_imps
from pipelines.scoring.frames import (
    BOARD_SCORES_SCHEMA,
    RESULTS_SCHEMA,
    SESSIONS_SCHEMA,
    conform,
)
from pipelines.scoring.matchpoints import (
    ROW,
    View,
    award_expr,
    comparison_items,
    is_artificial,
    normalise_inputs,
    percentage,
    score_matchpoints,
)
from pipelines.scoring.standings import (
    add_cumulative,
    adjust_artificial,
    artificial_shares,
    conform_standings,
    encounters,
    pairs_standings,
    sort_standings,
    team_standings,
    totals,
)
from pipelines.scoring.teams import matches_from_boards, score_team_boards

log = logging.getLogger(__name__)

BOARD_SCORE_EXTRA_COLUMNS: dict[str, pl.DataType] = {
    "match_id": pl.String(),
    "datum": pl.Float64(),
    "points_ns": pl.Float64(),
    "points_ew": pl.Float64(),
    "board_rule": pl.String(),
}
"""Columns board scores carry beyond `frames.BOARD_SCORES_SCHEMA`: the team match a row belongs to,
the Butler datum, total points (Law 78C, weighted scores included) and the rule that gave a board
its value when it is not a plain comparison."""

BOARD_ORDER = ["event_id", "session_id", "section", "board", "table_id"]
"""Board scores are sorted on these (then on input order)."""

SCORING_INPUT = [
    "event_id", "session_id", "section", "board", "round", "ns_id", "ew_id", "kind", "score_ns",
    "ns_award", "ew_award", "ns_components", "ew_components", "fouled_group",
]
"""The result columns scoring reads; the others only pass through to the board scores."""

VALUE_SCHEMA: dict[str, pl.DataType] = {
    ROW: pl.UInt32(), "mp_ns": pl.Float64(), "mp_ew": pl.Float64(), "top": pl.Float64(),
    "pct_ns": pl.Float64(), "pct_ew": pl.Float64(), "imp_ns": pl.Float64(), "imp_ew": pl.Float64(),
    "match_id": pl.String(), "datum": pl.Float64(), "points_ns": pl.Float64(), "points_ew": pl.Float64(),
    "board_rule": pl.String(),
}
"""What each method returns per input row (columns it does not produce are null)."""


DEFAULT_CONDITIONS = ConditionsOfContest()
"""The Laws' defaults, for events the caller gave no conditions for."""


@dataclass(frozen=True)
class SessionGroup:
    """Sessions scored alike: one method, one field layout, one set of conditions."""

    method: ScoringMethod
    layout: FieldLayout
    conditions: ConditionsOfContest


def score(
    results: pl.DataFrame,
    sessions: pl.DataFrame,
    conditions: Mapping[str, ConditionsOfContest],
    penalties: pl.DataFrame | None = None,
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Score every result and rank every session.

    `results` follows `RESULTS_SCHEMA`, `sessions` `SESSIONS_SCHEMA`, `penalties` `PENALTIES_SCHEMA`;
    `conditions` is keyed by event id (a missing event is scored with the default conditions of its
    sessions' scheduled methods). Returns `(board_scores, standings)` conformed to
    `BOARD_SCORES_SCHEMA` and `STANDINGS_SCHEMA` (plus the extra columns named in this package),
    with `status` left null for the caller to set.
    """
    frame = conform(results, RESULTS_SCHEMA)
    groups, assignment = plan_sessions(frame, sessions, conditions)
    codes = lexical_codes(frame, ["event_id", "session_id", "section"])
    # Scoring works on a narrow copy keyed by input row; the wide frame is touched once at the end.
    narrow = normalise_inputs(frame.select(SCORING_INPUT)).with_row_index(ROW).with_columns(
        _es=_integer_key(frame, codes, 2), _sess=_integer_key(frame, codes, 3)
    )
    session_groups = narrow.select("_es", "event_id", "session_id").unique("_es").join(
        assignment, on=["event_id", "session_id"], how="left"
    )
    narrow = narrow.with_columns(
        _group=pl.col("_es").replace_strict(session_groups["_es"], session_groups["_group"], return_dtype=pl.Int64)
    )
    values: list[pl.DataFrame] = []
    standings: list[pl.DataFrame] = []
    for index, group in enumerate(groups):
        part = narrow.filter(pl.col("_group") == index).drop("_group")
        if part.height == 0:
            continue
        scored, standing = _score_group(part, group, penalties)
        values.append(conform(scored, VALUE_SCHEMA))
        standings.append(standing)
    del narrow
    order = composite([*codes, *lexical_codes(frame, ["board", "table_id"])])
    return _finish_boards(frame, values, order), _finish_standings(standings)


Codes = list[tuple[pl.Series, int]]


def _integer_key(frame: pl.DataFrame, codes: Codes, width: int) -> pl.Series:
    """An Int64 key per distinct value of the first `width` coded columns, in their sort order."""
    key = composite(codes[:width])
    if key is None:  # more distinct values than 63 bits can pair up: rank the tuples instead
        names = [column.name for column, _ in codes[:width]]
        key = frame.select(pl.struct(names).rank("dense").cast(pl.Int64)).to_series()
    return key


def lexical_codes(frame: pl.DataFrame, columns: list[str]) -> Codes:
    """Each column as integer codes in sorted order (nulls last), with the number of codes.

    Grouping and sorting on these is far cheaper than on strings, and their order is the strings'.
    """
    coded = []
    for name in columns:
        column = frame.get_column(name)
        if column.dtype == pl.Int64 and column.len() and column.null_count() < column.len():
            # Integers already sort as themselves: shift them to start at 0.
            low, high = int(column.min()), int(column.max())  # type: ignore[arg-type]
            coded.append(((column - low).fill_null(high - low + 1), high - low + 2))
            continue
        uniques = column.drop_nulls().unique().sort()
        codes = pl.Series(name, range(len(uniques)), dtype=pl.Int64)
        mapped = column.replace_strict(uniques, codes, default=None, return_dtype=pl.Int64)
        coded.append((mapped.fill_null(len(uniques)), len(uniques) + 1))
    return coded


def composite(codes: Codes) -> pl.Series | None:
    """One Int64 key ordering like the tuple of `codes`; None if it would not fit in 63 bits."""
    size = 1
    for _, count in codes:
        size *= count
    if size >= 2**63 or not codes:
        return None
    key = codes[0][0].rename("_key")
    for column, count in codes[1:]:
        key = key * count + column
    return key


def plan_sessions(
    frame: pl.DataFrame, sessions: pl.DataFrame, conditions: Mapping[str, ConditionsOfContest]
) -> tuple[list[SessionGroup], pl.DataFrame]:
    """Assign every (event, session) present in `frame` to a group of sessions scored alike.

    Returns the groups and a frame `event_id, session_id, _group` (the group's index).
    """
    present = frame.select("event_id", "session_id").unique().sort("event_id", "session_id")
    scheduled = conform(sessions, SESSIONS_SCHEMA).unique(["event_id", "session_id"], keep="first")
    present = present.join(scheduled, on=["event_id", "session_id"], how="left", maintain_order="left")
    groups: dict[str, int] = {}
    ordered: list[SessionGroup] = []
    indices: list[int] = []
    dumped: dict[int, str] = {}  # conditions are shared by an event's sessions: serialise each once
    for event_id, session_id, scoring, layout in present.select(
        "event_id", "session_id", "scoring", "field_layout"
    ).iter_rows():  # one iteration per session, not per result
        if scoring is None:
            log.warning("session %s/%s is not scheduled; scoring it with defaults", event_id, session_id)
        rules = conditions.get(event_id) or DEFAULT_CONDITIONS
        group = SessionGroup(rules.session_method(session_id, scoring),
                             rules.session_layout(session_id, layout), rules)
        if id(rules) not in dumped:
            dumped[id(rules)] = rules.model_dump_json()
        key = f"{group.method}|{group.layout}|{dumped[id(rules)]}"
        if key not in groups:
            groups[key] = len(ordered)
            ordered.append(group)
        indices.append(groups[key])
    assignment = present.select("event_id", "session_id").with_columns(
        _group=pl.Series(indices, dtype=pl.Int64)
    )
    return ordered, assignment


def _score_group(
    part: pl.DataFrame, group: SessionGroup, penalties: pl.DataFrame | None
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Board scores and standings of one group of sessions."""
    if group.method in ("IMP_TEAMS", "VP_TEAMS"):
        board, standing = _score_teams(part, group, penalties)
    else:
        board, standing = _score_pairs(part, group, penalties)
    carry = group.conditions.carry_over
    if carry.mode == "cumulative":
        standing = add_cumulative(standing, carry.fraction, carry.session_order)
    return board, standing


_PAIRS_VALUES = {
    "MP": ("mp_ns", "mp_ew"),
    "BUTLER": ("imp_ns", "imp_ew"),
    "CROSS_IMP": ("imp_ns", "imp_ew"),
    "TOTAL": ("points_ns", "points_ew"),
}


def _pairs_values(part: pl.DataFrame, group: SessionGroup) -> pl.DataFrame:
    """The method's per-row values, keyed by `_row`."""
    rules = group.conditions
    if group.method == "MP":
        return score_matchpoints(part, rules.matchpoints, rules.artificial)
    if group.method == "BUTLER":
        return score_butler(part, rules.butler, rules.artificial)
    if group.method == "CROSS_IMP":
        return score_cross_imps(part, rules.cross_imps, rules.artificial)
    return total_points(part)


def _score_pairs(
    part: pl.DataFrame, group: SessionGroup, penalties: pl.DataFrame | None
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Pairs methods: score the boards, apply Law 12C2(c), total and rank."""
    rules = group.conditions
    board = _pairs_board(part, group)
    value_ns, value_ew = _PAIRS_VALUES[group.method]
    unit_top = pl.col("top") if group.method == "MP" else pl.lit(1.0)
    summed = totals(board, group.layout, value_ns, value_ew, unit_top, with_percentage=group.method == "MP")
    per_board = group.method == "BUTLER" and rules.butler.rank_by == "per_board"
    met = encounters(board, group.layout, value_ns, value_ew) if "head_to_head_mp" in rules.tie_breaks else None
    standing = pairs_standings(summed, group.method, penalties, rank_per_board=per_board,
                               average_unplayed=rules.unplayed_boards == "session_average", met=met)
    display = rules.matchpoints.display_basis
    if group.method == "MP" and display not in (None, rules.matchpoints.factoring_basis):
        shown = rules.model_copy(update={"matchpoints": rules.matchpoints.model_copy(
            update={"factoring_basis": display})})
        board = _pairs_board(part, replace(group, conditions=shown))
    return board, standing


def _pairs_board(part: pl.DataFrame, group: SessionGroup) -> pl.DataFrame:
    """A pairs session's board values: scored, rounded as published, Law 12C2(c) applied."""
    rules = group.conditions
    board = part.join(_pairs_values(part, group), on=ROW, how="left", maintain_order="left")
    value_ns, value_ew = _PAIRS_VALUES[group.method]
    if rules.board_decimals is not None:
        board = board.with_columns(
            pl.col(value_ns, value_ew).round(rules.board_decimals, mode="half_away_from_zero")
        )
    unit_top = pl.col("top") if group.method == "MP" else pl.lit(1.0)
    if rules.artificial.law_12c2c and group.method != "TOTAL":
        plus, minus = artificial_shares(group.method, rules.artificial)
        board = adjust_artificial(board, group.layout, value_ns, value_ew, unit_top, plus, minus)
    if group.method == "MP":
        board = board.with_columns(
            pct_ns=percentage(pl.col("mp_ns"), pl.col("top")),
            pct_ew=percentage(pl.col("mp_ew"), pl.col("top")),
        )
    return board


def total_points(part: pl.DataFrame) -> pl.DataFrame:
    """Law 78C total points per row: the NS score (weighted outcomes averaged), EW its negative.

    An artificial score counts its explicit number of points, and nothing for A+/A/A-.
    """
    def summed(view: View) -> pl.DataFrame:
        items = comparison_items(part.with_columns(_one=pl.lit(0)), view, "_one")
        return items.group_by(ROW).agg(_p=(pl.col("_w") * pl.col("_score")).sum())

    ns = summed("ns").rename({"_p": "_ns"})
    ew = summed("ew").rename({"_p": "_ew"})

    def award(column: str) -> pl.Expr:
        return award_expr(pl.col(column), 0.0, 0.0, 0.0)

    joined = part.join(ns, on=ROW, how="left", maintain_order="left").join(
        ew, on=ROW, how="left", maintain_order="left"
    )
    return joined.select(
        ROW,
        points_ns=pl.when(is_artificial()).then(award("ns_award")).otherwise(pl.col("_ns")),
        points_ew=pl.when(is_artificial()).then(award("ew_award")).otherwise(-pl.col("_ew")),
    )


def _score_teams(
    part: pl.DataFrame, group: SessionGroup, penalties: pl.DataFrame | None
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Team sessions: IMP the boards across rooms, total the matches, convert to VPs, rank."""
    rules = group.conditions
    rows, boards = score_team_boards(part, rules)
    board = part.join(rows, on=ROW, how="left", maintain_order="left")
    use_vp = group.method == "VP_TEAMS" and rules.victory_points.scale != "none"
    matches = matches_from_boards(boards, rules, with_vp=use_vp)
    standing = team_standings(matches, group.method, penalties, rules.tie_breaks, use_vp)
    return board, standing


def _finish_boards(frame: pl.DataFrame, values: list[pl.DataFrame], order: pl.Series | None) -> pl.DataFrame:
    """Input columns and scored values side by side, in the published order (`order` is the
    composite sort key, or None to sort on the columns themselves)."""
    schema = BOARD_SCORES_SCHEMA | BOARD_SCORE_EXTRA_COLUMNS
    if not values:
        return conform(frame, schema).clear()
    passed_through = [c for c in schema if c in frame.columns and c not in VALUE_SCHEMA]
    scored = pl.concat(values)
    values.clear()  # let the per-group frames go before the output is built
    if order is None:
        aligned = _positive_zeros(scored.sort(ROW).drop(ROW), SIGNED)
        board = conform(frame.select(passed_through).hstack(aligned), schema)
        return board.sort(BOARD_ORDER, nulls_last=True, maintain_order=True)
    if order.is_sorted():  # already in published order: the input columns need no copy
        aligned = scored.sort(ROW).drop(ROW)
        return conform(frame.select(passed_through).hstack(_positive_zeros(aligned, SIGNED)), schema)
    # One sort puts the values in published order; one gather does the same for the input columns.
    aligned = scored.with_columns(_key=order.gather(scored.get_column(ROW))).sort("_key", ROW).drop("_key", ROW)
    del scored
    permutation = order.to_frame().with_row_index("_at").sort("_key", maintain_order=True).get_column("_at")
    moved = frame.select(passed_through).gather(permutation)
    return conform(moved.hstack(_positive_zeros(aligned, SIGNED)), schema)


SIGNED = ["imp_ns", "imp_ew", "points_ns", "points_ew"]
"""Value columns that can hold a negated zero."""


def _positive_zeros(frame: pl.DataFrame, columns: list[str] | None = None) -> pl.DataFrame:
    """Turn -0.0 (from negating a 0) into 0.0 in `columns` (default: every float column), so
    published files never show "-0"."""
    floats = columns or [name for name, dtype in frame.schema.items() if dtype == pl.Float64]
    # `x + 0.0` would do in IEEE arithmetic, but the optimiser drops it as a no-op.
    return frame.with_columns(pl.when(pl.col(c) == 0.0).then(0.0).otherwise(pl.col(c)).alias(c) for c in floats)


def _finish_standings(standings: list[pl.DataFrame]) -> pl.DataFrame:
    if not standings:
        return conform_standings(pl.DataFrame()).clear()
    return _positive_zeros(sort_standings(pl.concat([conform_standings(s) for s in standings])))
