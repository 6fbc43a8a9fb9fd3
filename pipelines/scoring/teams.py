"""IMP team matches (Law 78B, Law 86) and their victory points (Law 78D).

A match is the unordered pair of teams {lo, hi} of a session (and round). On every board the
*home* room has lo sitting NS and the *away* room hi sitting NS. Team lo's result on the board is
``IMP(home NS score - away NS score)``: lo's NS score in one room against hi's NS score in the
other (which is lo's EW score, negated). Weighted scores IMP each outcome against the other
room's outcomes and weight the IMPs (scoring-notes §2.4); a split score uses each side's own
outcomes, so the two teams' IMPs need not balance.

An artificial score in either room (Law 12C2(b)) replaces the board for both teams: +3 / 0 / -3
IMPs as awarded (averaged when both rooms were given one). With `knockout_averaging` (Law 86B,
12C4) unbalanced boards award the average of the two teams' own calculations to both.

A fouled board (Law 87) whose two rooms played different forms has no comparison either: Law 87C
sends teams to Law 86B2, under which the board is cancelled and each team gets an artificial score,
average-plus when no contestant is at fault (86B2(a), 12C2(a)) or what the conditions'
`teams.fouled_board` says; a director's artificial score at either table stands instead (86B2(b),
(c)). Two rooms that played the same form, even a fouled one, are compared as usual (Law 87A).

A board with a result in one room only could not be compared: no result can be obtained, so both
teams get an artificial average (Law 12C2(a), 0 IMPs under 12C2(b)) unless the director rules
otherwise (an `adjust` of the table that played it replaces the board). The match is still
converted to VPs on its scheduled length (Law 78D and the conditions: `teams.boards_per_match`, else
the boards the match has in the log), never on the boards that happened to be compared. Board rows
whose value comes from such a rule say so in `board_rule`.

Board-score rows carry, for their NS and EW teams, the team's IMPs on that board: the same
number appears in both rooms, so a team's match total counts each board once (`match_results`).

Nearly every board has one plain result in each room; those are IMPed with a single join. Only
boards with a weighted or artificial score, rooms that played different forms, or without both
rooms, take the general path.
"""

from __future__ import annotations

import logging

import polars as pl

from models.awards import Average
from models.conditions import ArtificialScores, ConditionsOfContest
from pipelines.scoring.imps import imps_expr
from pipelines.scoring.matchpoints import (
    ROW,
    View,
    award_expr,
    comparable,
    comparison_items,
    dense_id,
    is_artificial,
    normalised_kind,
)
from pipelines.scoring.standings import apply_law_12c2c
from pipelines.scoring.vp import add_victory_points

log = logging.getLogger(__name__)

MATCH_KEYS = ["_sess", "_round", "_lo", "_hi"]
"""Columns naming one match (`_sess`: the engine's integer key of a session's section)."""
BOARD_COLUMNS = ["event_id", "session_id", "section", "_sess", "_round", "_lo", "_hi", "board", "match_id"]
"""What a match-board result carries besides the two teams' IMPs."""

TEAM_BOARD_COLUMNS: dict[str, pl.DataType] = {
    ROW: pl.UInt32(), "imp_ns": pl.Float64(), "imp_ew": pl.Float64(), "match_id": pl.String(),
    "board_rule": pl.String(),
}
"""What `score_team_boards` returns, one row per input row."""

MATCH_SCHEMA: dict[str, pl.DataType] = {
    "event_id": pl.String(), "session_id": pl.String(), "section": pl.String(), "match_id": pl.String(),
    "team_id": pl.String(), "opponent_id": pl.String(), "boards": pl.Int64(), "scheduled_boards": pl.Int64(),
    "imps_for": pl.Float64(), "imps_against": pl.Float64(), "imp_margin": pl.Float64(), "vp": pl.Float64(),
}
"""One row per team per match: what `match_results` returns."""


def with_matches(frame: pl.DataFrame) -> pl.DataFrame:
    """Add the match columns: `_lo`, `_hi`, `_round`, `_home`, `match_id`, `_mb` (match-board id),
    `_paired` (the board has exactly one home and one away row) and `_forms_differ` (its rooms played
    different forms of a fouled board)."""
    lo = pl.min_horizontal("ns_id", "ew_id")
    hi = pl.max_horizontal("ns_id", "ew_id")
    frame = frame.with_columns(_lo=lo, _hi=hi, _round=pl.col("round").fill_null(-1))
    frame = frame.with_columns(
        _home=pl.col("ns_id") == pl.col("_lo"),
        match_id=pl.concat_str(
            pl.when(pl.col("round").is_not_null())
            .then(pl.concat_str(pl.lit("R"), pl.col("round").cast(pl.String), pl.lit(" ")))
            .otherwise(pl.lit("")),
            pl.col("_lo"), pl.lit(" v "), pl.col("_hi"),
        ),
    )
    frame = dense_id(frame, [*MATCH_KEYS, "board"], "_mb")
    homes = pl.col("_home").cast(pl.Int64).sum().over("_mb")
    rows = pl.len().over("_mb")
    frame = frame.with_columns(_paired=(homes == 1) & (rows == 2), _one_room=rows == 1,
                               _forms_differ=_forms_differ(frame))
    muddled = frame.filter(~pl.col("_paired") & ~pl.col("_one_room")).get_column("_mb").n_unique()
    if muddled:
        log.warning("%d team board(s) have more than one result in a room; they are not scored", muddled)
    return frame


def _forms_differ(frame: pl.DataFrame) -> pl.Expr:
    """Per row: the rooms of its match-board played different forms of a fouled board (Law 87A).

    A table the director's groups do not name played the board as dealt, its own form. Sessions with
    no fouled board (nearly all) skip the window.
    """
    if frame.get_column("fouled_group").null_count() == frame.height:
        return pl.lit(False)
    return pl.col("fouled_group").fill_null("").n_unique().over("_mb") > 1


def _plain() -> pl.Expr:
    """Rows of a paired board whose two rooms both hold a plain table result of the same form."""
    plain_row = (normalised_kind() == "result") & pl.col("score_ns").is_not_null()
    return pl.col("_paired") & ~pl.col("_forms_differ") & plain_row.all().over("_mb")


def _plain_boards(frame: pl.DataFrame) -> pl.DataFrame:
    """The common case, one join: lo scores IMP(home NS - away NS), hi the opposite."""
    home = frame.filter(pl.col("_home")).select(*BOARD_COLUMNS, "_mb", _h=pl.col("score_ns"))
    away = frame.filter(~pl.col("_home")).select("_mb", _a=pl.col("score_ns"))
    swing = imps_expr(pl.col("_h") - pl.col("_a")).cast(pl.Float64)
    return home.join(away, on="_mb", how="inner", maintain_order="left").select(
        *BOARD_COLUMNS, "_mb", _lo_v=swing, _hi_v=-swing, _artificial=pl.lit(False),
        _lo_label=pl.lit(None, dtype=pl.String), _hi_label=pl.lit(None, dtype=pl.String),
        _rule=pl.lit(None, dtype=pl.String),
    )


def _computed(frame: pl.DataFrame) -> pl.DataFrame:
    """Per match-board: each team's weighted IMPs from the two rooms' compared results."""
    home = frame.filter(pl.col("_home"))
    away = frame.filter(~pl.col("_home"))

    def crossed(first: pl.DataFrame, first_view: View, second: pl.DataFrame,
                second_view: View) -> pl.DataFrame:
        mine = comparison_items(first, first_view, "_mb")
        theirs = comparison_items(second, second_view, "_mb").select(
            "_mb", _other=pl.col("_score"), _w_other=pl.col("_w")
        )
        return mine.join(theirs, on="_mb", maintain_order="left_right").group_by("_mb", maintain_order=True).agg(
            _v=(pl.col("_w") * pl.col("_w_other") * imps_expr(pl.col("_score") - pl.col("_other"))).sum()
        )

    lo = crossed(home, "ns", away, "ew").rename({"_v": "_lo_calc"})
    hi = crossed(away, "ns", home, "ew").rename({"_v": "_hi_calc"})
    return lo.join(hi, on="_mb", how="full", coalesce=True, maintain_order="left_right")


def _awarded(frame: pl.DataFrame, artificial: ArtificialScores) -> pl.DataFrame:
    """Per match-board with an artificial score: each team's award and its label (for 12C2(c))."""
    def award(column: str) -> pl.Expr:
        return award_expr(pl.col(column), artificial.avg_plus_imps, artificial.avg_imps,
                          artificial.avg_minus_imps)

    lo_side = pl.when(pl.col("_home")).then(pl.col("ns_award")).otherwise(pl.col("ew_award"))
    hi_side = pl.when(pl.col("_home")).then(pl.col("ew_award")).otherwise(pl.col("ns_award"))
    return (
        frame.filter(is_artificial())
        .with_columns(_lo_label=lo_side, _hi_label=hi_side)
        .group_by("_mb").agg(
            _lo_art=pl.when(pl.col("_home")).then(award("ns_award")).otherwise(award("ew_award")).mean(),
            _hi_art=pl.when(pl.col("_home")).then(award("ew_award")).otherwise(award("ns_award")).mean(),
            _lo_label=pl.col("_lo_label").first(),
            _hi_label=pl.col("_hi_label").first(),
        )
    )


def _other_boards(frame: pl.DataFrame, artificial: ArtificialScores, fouled_rule: str) -> pl.DataFrame:
    """Boards with a weighted or artificial score, rooms that played different forms of a fouled
    board, or without both rooms: the general path."""
    keys = frame.sort(ROW).group_by("_mb", maintain_order=True).agg(
        *(pl.col(c).first() for c in BOARD_COLUMNS), pl.col("_paired").first(), pl.col("_one_room").first(),
        pl.col("_forms_differ").first(),
    )
    computed = _computed(frame.filter(pl.col("_paired") & comparable()))
    awarded = _awarded(frame, artificial)
    boards = (
        keys.join(computed, on="_mb", how="left", maintain_order="left")
        .join(awarded, on="_mb", how="left", maintain_order="left")
        .with_columns(_awarded=pl.col("_lo_art").is_not_null() | pl.col("_hi_art").is_not_null())
    )
    # A director's artificial score stands for the board. Otherwise rooms that played different
    # forms of a fouled board are not compared (Law 86B2(a)); a paired board is compared; with one
    # room only, no result could be obtained: average to both (Law 12C2(a)).
    fouled = pl.col("_paired") & pl.col("_forms_differ") & ~pl.col("_awarded")
    one_room = pl.col("_one_room") & ~pl.col("_awarded")
    counted = pl.col("_awarded") | pl.col("_paired") | one_room
    label, value, words = _fouled_award(fouled_rule, artificial)
    ruled = (
        pl.when(fouled).then(pl.lit(value))
        .when(one_room).then(pl.lit(artificial.avg_imps))
    )
    given = pl.when(fouled).then(pl.lit(label)).when(one_room).then(pl.lit(Average.EVEN.value))
    return boards.select(
        *BOARD_COLUMNS, "_mb",
        _lo_v=pl.when(counted).then(pl.coalesce("_lo_art", ruled, "_lo_calc")),
        _hi_v=pl.when(counted).then(pl.coalesce("_hi_art", ruled, "_hi_calc")),
        _artificial=pl.col("_awarded") | fouled | one_room,
        _lo_label=pl.coalesce(given, "_lo_label"),
        _hi_label=pl.coalesce(given, "_hi_label"),
        _rule=pl.when(fouled).then(pl.lit(
            f"Law 87C, 86B2(a): fouled board, the rooms played different forms; cancelled, {words} "
            f"({value:+g} IMPs) to both teams"))
        .when(one_room).then(pl.lit(
            f"Law 12C2(a): no result in the other room; average ({artificial.avg_imps:g} IMPs) to both "
            "teams until the director rules"))
        .when(~counted).then(pl.lit("not scored: more than one result in a room")),
    )


def _fouled_award(rule: str, artificial: ArtificialScores) -> tuple[str, float, str]:
    """The award (label, IMPs, words) each team gets on a fouled board no room could compare."""
    award = Average.EVEN if rule == "average" else Average.PLUS
    imps = artificial.avg_imps if award is Average.EVEN else artificial.avg_plus_imps
    return award.value, imps, award.law_name


def board_results(frame: pl.DataFrame, conditions: ConditionsOfContest) -> pl.DataFrame:
    """One row per match-board: its keys and each team's IMPs (`_lo_v`, `_hi_v`)."""
    plain = _plain()
    boards = pl.concat([
        _plain_boards(frame.filter(plain)),
        _other_boards(frame.filter(~plain), conditions.artificial, conditions.teams.fouled_board),
    ])
    if conditions.artificial.law_12c2c:
        boards = _law_12c2c(boards, conditions.artificial)
    if conditions.teams.knockout_averaging:
        net = (pl.col("_lo_v") - pl.col("_hi_v")) / 2.0
        boards = boards.with_columns(_lo_v=net, _hi_v=-net)
    return boards.sort("_mb")


def _law_12c2c(boards: pl.DataFrame, artificial: ArtificialScores) -> pl.DataFrame:
    """Law 12C2(c) in IMPs: a team's own average on its other boards of the session, if better."""
    if boards.filter(pl.col("_artificial")).height == 0:
        return boards
    sides = []
    for side in ("lo", "hi"):
        sides.append(boards.select(
            "_mb", "_sess",
            _side=pl.lit(side), direction=pl.lit("ALL"), contestant_id=pl.col(f"_{side}"),
            value=pl.col(f"_{side}_v"), unit_top=pl.lit(1.0),
            award=pl.col(f"_{side}_label"), artificial=pl.col("_artificial"),
        ))
    adjusted = apply_law_12c2c(pl.concat(sides), artificial.avg_plus_imps, artificial.avg_minus_imps,
                               row_key="_mb")
    for side in ("lo", "hi"):
        values = adjusted.filter(pl.col("_side") == side).select("_mb", _new=pl.col("value"))
        boards = boards.join(values, on="_mb", how="left", maintain_order="left").with_columns(
            pl.col("_new").alias(f"_{side}_v")
        ).drop("_new")
    return boards


def score_team_boards(
    frame: pl.DataFrame, conditions: ConditionsOfContest
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Team IMPs of every row of `frame` (RESULTS_SCHEMA columns plus `_row` and `_sess`).

    Returns the rows (`TEAM_BOARD_COLUMNS`) and the match-board results (see `board_results`).
    """
    frame = with_matches(frame)
    boards = board_results(frame, conditions)
    values = boards.select("_mb", "_lo_v", "_hi_v", "_rule")
    rows = frame.join(values, on="_mb", how="left", maintain_order="left").select(
        ROW,
        imp_ns=pl.when(pl.col("_home")).then(pl.col("_lo_v")).otherwise(pl.col("_hi_v")),
        imp_ew=pl.when(pl.col("_home")).then(pl.col("_hi_v")).otherwise(pl.col("_lo_v")),
        match_id=pl.col("match_id"),
        board_rule=pl.col("_rule"),
    )
    return rows, boards


def matches_from_boards(boards: pl.DataFrame, conditions: ConditionsOfContest, with_vp: bool) -> pl.DataFrame:
    """One row per team per match (`MATCH_SCHEMA`) from the match-board results.

    `boards` counts the boards scored; `scheduled_boards`, the match length its VPs are read on, is
    the conditions' `teams.boards_per_match`, else every board the match has (scored or not).
    """
    sides = []
    for me, them in (("lo", "hi"), ("hi", "lo")):
        sides.append(boards.select(
            "event_id", "session_id", "section", "match_id", "_round",
            team_id=pl.col(f"_{me}"), opponent_id=pl.col(f"_{them}"), _v=pl.col(f"_{me}_v"),
        ))
    long = pl.concat(sides)
    scored = pl.col("_v").is_not_null()
    matches = long.group_by("event_id", "session_id", "section", "_round", "match_id", "team_id",
                            "opponent_id", maintain_order=True).agg(
        boards=scored.sum().cast(pl.Int64),
        scheduled_boards=pl.len().cast(pl.Int64),
        imps_for=pl.col("_v").clip(lower_bound=0.0).sum(),
        imps_against=(-pl.col("_v")).clip(lower_bound=0.0).sum(),
        imp_margin=pl.col("_v").sum(),
    ).filter(pl.col("boards") > 0)
    if conditions.teams.boards_per_match is not None:
        matches = matches.with_columns(scheduled_boards=pl.lit(conditions.teams.boards_per_match, pl.Int64))
    if with_vp:
        matches = add_victory_points(matches, "imp_margin", "scheduled_boards", conditions.victory_points)
    else:
        matches = matches.with_columns(vp=pl.lit(None, dtype=pl.Float64))
    return matches.sort("event_id", "session_id", "section", "_round", "match_id", "team_id").select(
        list(MATCH_SCHEMA)
    )


def match_results(board_scores: pl.DataFrame, conditions: ConditionsOfContest,
                  with_vp: bool = True) -> pl.DataFrame:
    """One row per team per match (`MATCH_SCHEMA`) rebuilt from scored team board rows.

    `board_scores` needs `match_id`, `ns_id`, `ew_id`, `board`, `imp_ns`, `imp_ew` and the session
    columns; both rooms carry both teams' IMPs, so any one row of a board serves.
    """
    scored = board_scores.filter(pl.col("match_id").is_not_null())
    home = scored.with_columns(
        _lo=pl.min_horizontal("ns_id", "ew_id"), _hi=pl.max_horizontal("ns_id", "ew_id"), _round=pl.lit(-1),
    ).with_columns(_home=pl.col("ns_id") == pl.col("_lo"))
    boards = home.with_columns(
        _lo_v=pl.when(pl.col("_home")).then(pl.col("imp_ns")).otherwise(pl.col("imp_ew")),
        _hi_v=pl.when(pl.col("_home")).then(pl.col("imp_ew")).otherwise(pl.col("imp_ns")),
    ).unique(["event_id", "session_id", "section", "match_id", "board"], keep="first", maintain_order=True)
    return matches_from_boards(boards, conditions, with_vp)
