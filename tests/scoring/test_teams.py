"""Team matches: rooms paired by board and team pair, ±3 IMP awards (12C2(b)), Law 86 KO averaging,
fouled boards (Law 87C, 86B2), VPs per match, team standings and tie-breaks."""

from __future__ import annotations

from typing import Any

import polars as pl
import pytest
from polars.testing import assert_frame_equal

from models.conditions import ConditionsOfContest
from pipelines.scoring.engine import score
from pipelines.scoring.teams import match_results
from pipelines.scoring.vp import wbf_victory_points

from .builders import results, sessions


def room(board: int, ns: str, ew: str, value: int | str | list[tuple[int, float]], *, table: str = "1",
         room_name: str = "open", round_: int | None = None, form: str | None = None) -> dict[str, Any]:
    """One room's row: an int is a result (NS points), 'A+/A-' an award, a list a weighted score;
    `form` the Law 87 version of a fouled board the room played."""
    row: dict[str, Any] = {"event_id": "E", "session_id": "S", "section": "", "board": board,
                           "table_id": f"{table}{room_name[0]}", "round": round_, "room": room_name,
                           "ns_id": ns, "ew_id": ew, "fouled_group": form}
    if isinstance(value, int):
        row.update(kind="result", score_ns=value)
    elif isinstance(value, str):
        ns_award, ew_award = value.split("/")
        row.update(kind="artificial", ns_award=ns_award, ew_award=ew_award)
    else:
        row.update(kind="weighted", ns_components=[{"score_ns": s, "weight": w} for s, w in value])
    return row


def match(boards: list[tuple[Any, Any]], home: str = "A", away: str = "B", **keys: Any) -> list[dict[str, Any]]:
    """A match: per board (open room with `home` NS, closed room with `away` NS)."""
    rows = []
    for number, (open_value, closed_value) in enumerate(boards, start=1):
        rows.append(room(number, home, away, open_value, **keys))
        rows.append(room(number, away, home, closed_value, room_name="closed", **keys))
    return rows


def scored(
    rows: list[dict[str, Any]], method: str = "IMP_TEAMS", **conditions: Any
) -> tuple[pl.DataFrame, pl.DataFrame]:
    return score(results(rows), sessions(method), {"E": ConditionsOfContest.model_validate(conditions)})


def home_imps(boards: pl.DataFrame) -> list[float]:
    """Team A's IMPs per board (read from the open room, where A sits NS)."""
    return boards.filter(pl.col("ns_id") == "A").sort("board")["imp_ns"].to_list()


def test_rooms_pair_by_board_and_team_pair() -> None:
    # A +420 in the open room; B +170 in the closed room: A's net +250 = 6 IMPs.
    rows = match([(420, 170), (-50, 100), (0, 0)])
    boards, _ = scored(rows)
    expected = pl.DataFrame({
        "board": [1, 1, 2, 2, 3, 3], "table_id": ["1c", "1o"] * 3, "ns_id": ["B", "A"] * 3,
        "imp_ns": [-6.0, 6.0, 4.0, -4.0, 0.0, 0.0], "imp_ew": [6.0, -6.0, -4.0, 4.0, 0.0, 0.0],
        "match_id": ["A v B"] * 6,
    })
    assert_frame_equal(boards.select(expected.columns), expected)


def test_imps_are_antisymmetric_and_match_totals() -> None:
    boards, standings = scored(match([(420, 170), (-50, 100), (1430, -50), (-200, 600)]))
    assert home_imps(boards) == [6.0, -4.0, 16.0, -13.0]
    assert (boards["imp_ns"] == -boards["imp_ew"]).all()
    a = standings.filter(pl.col("contestant_id") == "A").row(0, named=True)
    b = standings.filter(pl.col("contestant_id") == "B").row(0, named=True)
    assert a["score"] == -b["score"] == sum(home_imps(boards))
    assert (a["imps_for"], a["imps_against"]) == (b["imps_against"], b["imps_for"])
    assert a["boards"] == b["boards"] == 4


def test_t1_artificial_average_plus_and_average() -> None:
    """Law 12C2(b): A+ is +3 IMPs, A is 0, whichever room the award was made in."""
    boards, _ = scored(match([("A+/A", 620), (100, "A-/A+")]), artificial={"law_12c2c": False})
    a_rows = boards.filter(pl.col("ns_id") == "A").sort("board")
    b_rows = boards.filter(pl.col("ns_id") == "B").sort("board")
    assert a_rows["imp_ns"].to_list() == [3.0, 3.0]  # board 2: B was given A- in the closed room
    assert a_rows["imp_ew"].to_list() == [0.0, -3.0]
    assert b_rows["imp_ew"].to_list() == [3.0, 3.0]  # both rooms carry the board's team values


def test_t2_knockout_averaging_of_unbalanced_scores() -> None:
    """Law 86: A's own calculation +5, B's -1 (A +1): both get the average, A +3 / B -3."""
    rows = match([([(600, 1.0)], 400)])  # an assigned score for NS: +600
    rows[0]["ew_components"] = [{"score_ns": 430, "weight": 1.0}]  # split: EW scored as if NS made +430
    plain, _ = scored(rows)
    ko, _ = scored(rows, teams={"knockout_averaging": True})
    open_row = plain.filter(pl.col("ns_id") == "A").row(0, named=True)
    assert (open_row["imp_ns"], open_row["imp_ew"]) == (5.0, -1.0)  # A: IMP(600-400); B: IMP(400-430)
    open_ko = ko.filter(pl.col("ns_id") == "A").row(0, named=True)
    assert (open_ko["imp_ns"], open_ko["imp_ew"]) == (3.0, -3.0)


def test_t2_awards_averaged() -> None:
    """A+ to A and A+ to B in a knockout: each side's +3 against the other's averages to 0."""
    _, plain = scored(match([("A+/A+", 100)]), artificial={"law_12c2c": False})
    _, ko = scored(match([("A+/A+", 100)]), teams={"knockout_averaging": True}, artificial={"law_12c2c": False})
    assert sorted(plain["score"].to_list()) == [3.0, 3.0]
    assert sorted(ko["score"].to_list()) == [0.0, 0.0]


def test_weighted_team_score_imps_each_outcome() -> None:
    boards, _ = scored(match([([(620, 0.5), (-100, 0.5)], 170)]))
    # A: 0.5 x IMP(620 - 170) + 0.5 x IMP(-100 - 170) = 0.5 x 10 + 0.5 x -7 = 1.5
    assert home_imps(boards) == [1.5]


def test_a_board_played_in_one_room_is_average_for_both_teams() -> None:
    # Law 12C2(a): no result could be obtained at the other table; nobody is known to be at fault.
    rows = [*match([(420, 170)]), room(2, "A", "B", 100)]
    boards, standings = scored(rows, artificial={"avg_imps": 0})
    board2 = boards.filter(pl.col("board") == 2)
    assert board2.select("imp_ns", "imp_ew").rows() == [(0.0, 0.0)]
    assert board2["board_rule"][0] == ("Law 12C2(a): no result in the other room; average (0 IMPs) to both "
                                       "teams until the director rules")
    assert standings.sort("contestant_id").select("contestant_id", "score", "boards").rows() == [
        ("A", 6.0, 2), ("B", -6.0, 2)]


def test_two_results_in_one_room_are_not_scored_and_say_so() -> None:
    rows = [*match([(420, 170)]), room(2, "A", "B", 100), room(2, "A", "B", 110, table="2")]
    boards, standings = scored(rows)
    assert boards.filter(pl.col("board") == 2)["imp_ns"].to_list() == [None, None]
    assert set(boards.filter(pl.col("board") == 2)["board_rule"]) == {"not scored: more than one result in a room"}
    assert standings["boards"].to_list() == [1, 1]


@pytest.mark.parametrize(("stated", "scale"), [(None, 4), (6, 6)])
def test_a_short_match_keeps_its_scheduled_vp_scale(stated: int | None, scale: int) -> None:
    # Law 78D and the conditions: 4 boards scheduled, board 4 played in one room only. The margin
    # (6 IMPs, board 4 at average) is converted on the scheduled length, not on the 3 boards compared.
    rows = [*match([(420, 170), (100, 100), (100, 100)]), room(4, "A", "B", 100)]
    _, standings = scored(rows, "VP_TEAMS", teams={"boards_per_match": stated})
    a_vp, b_vp = wbf_victory_points(6, scale)
    assert standings.sort("contestant_id").select("vp", "boards").rows() == [(a_vp, 4), (b_vp, 4)]
    assert (a_vp, b_vp) != wbf_victory_points(6, 3)


@pytest.mark.parametrize("boards_in_match", [8, 16])
def test_vps_per_match_and_standings(boards_in_match: int) -> None:
    swings = [(420, 170)] + [(100, 100)] * (boards_in_match - 1)  # A +6 IMPs
    rows = match(swings, round_=1) + match([(100, 100)] * boards_in_match, home="C", away="D", round_=1)
    boards, standings = scored(rows, "VP_TEAMS")
    a_vp, b_vp = wbf_victory_points(6, boards_in_match)
    assert standings.select("contestant_id", "vp", "score", "rank", "tied").rows() == [
        ("A", a_vp, a_vp, 1, False), ("C", 10.0, 10.0, 2, True), ("D", 10.0, 10.0, 2, True),
        ("B", b_vp, b_vp, 4, False),
    ]
    matches = match_results(boards, ConditionsOfContest())
    assert matches.filter(pl.col("team_id") == "A").select("match_id", "boards", "imp_margin", "vp").rows() == [
        ("R1 A v B", boards_in_match, 6.0, a_vp)
    ]
    assert matches.group_by("match_id").agg(pl.col("vp").sum().round(9))["vp"].to_list() == [20.0, 20.0]


def test_tie_break_head_to_head() -> None:
    """Three-team round robin, one board a match, ACBL discrete VPs (1-8 boards):
    A beats B by 6 (13-7), loses to C by 1 (9-11); B beats C by 11 (15-5). A and B tie on 22."""
    rows = (
        match([(420, 170)], home="A", away="B", round_=1)
        + match([(100, 130)], home="A", away="C", round_=2)
        + match([(420, -170)], home="B", away="C", round_=3)
    )
    acbl = {"scale": "discrete", "preset": "acbl_20"}
    _, plain = scored(rows, "VP_TEAMS", victory_points=acbl)
    _, broken = scored(rows, "VP_TEAMS", victory_points=acbl, tie_breaks=["head_to_head_vp", "imp_quotient"])
    assert plain.select("contestant_id", "score", "rank", "tied").rows() == [
        ("A", 22.0, 1, True), ("B", 22.0, 1, True), ("C", 16.0, 3, False),
    ]
    assert broken.select("contestant_id", "rank", "tied").rows() == [("A", 1, False), ("B", 2, False),
                                                                      ("C", 3, False)]


def test_imp_quotient_tie_break() -> None:
    scores = {"A": 10.0, "B": 10.0}
    rows = match([(420, 170), (-420, -170)], home="A", away="B")  # A +6 then -6: a 10-10 draw
    _, standings = scored(rows, "VP_TEAMS", tie_breaks=["imp_quotient"])
    assert dict(standings.select("contestant_id", "score").rows()) == scores
    assert standings["tied"].to_list() == [True, True]  # equal quotients: still tied


def test_team_penalty_in_vps() -> None:
    rows = match([(420, 170)])
    penalties = pl.DataFrame({"event_id": ["E"], "session_id": ["S"], "section": [""], "contestant_id": ["A"],
                              "amount": [1.0], "unit": ["VP"]})
    _, standings = score(results(rows), sessions("VP_TEAMS"), {}, penalties)
    a_vp, _ = wbf_victory_points(6, 1)
    assert standings.filter(pl.col("contestant_id") == "A")["score"].item() == pytest.approx(a_vp - 1)
    assert standings.filter(pl.col("contestant_id") == "A")["vp"].item() == a_vp


def test_the_issue_match_ten_imps_on_four_scheduled_boards_is_15_to_5() -> None:
    # 4 boards scheduled, board 4 played in one room: 10 IMPs on the WBF 4-board scale is 15.00-5.00
    # (scoring-notes §1); on the 3 compared boards it would have been 15.58-4.42.
    rows = [*match([(420, -50), (100, 100), (100, 100)]), room(4, "A", "B", 100)]
    _, standings = scored(rows, "VP_TEAMS")
    assert standings.sort("contestant_id").select("contestant_id", "score", "vp", "boards").rows() == [
        ("A", 15.0, 15.0, 4), ("B", 5.0, 5.0, 4)]


# --- Law 87C / 86B2: a fouled board in a team match ------------------------------------------------

def fouled_swiss(board2: tuple[Any, Any] = (620, 100), forms: tuple[str, str] = ("original", "fouled"),
                 ) -> list[dict[str, Any]]:
    """Round 1 of a Swiss, 4 boards. Board 2 was fouled (two cards swapped) after A v B's open room
    played it: A v B's closed room and both rooms of C v D played the fouled form."""
    ab = match([(420, 170), board2, (100, 100), (-50, -50)], round_=1)
    cd = match([(100, 100), (420, 170), (100, 100), (-50, -50)], home="C", away="D", table="2", round_=1)
    for row in ab:
        if row["board"] == 2:
            row["fouled_group"] = forms[0] if row["room"] == "open" else forms[1]
    for row in cd:
        if row["board"] == 2:
            row["fouled_group"] = "fouled"
    return ab + cd


def test_a_board_fouled_between_the_rooms_is_cancelled_with_average_plus_to_both_teams() -> None:
    """Law 87C -> 86B2(a): +620 (original form) against +100 (fouled form) is no comparison. Nobody is
    at fault: average-plus, +3 IMPs, to each team (12C2(a), (b)), not IMP(520) = 11 to A.
    A: +6 (board 1) +3 = 9 IMPs -> WBF 4-board VPs 10 + 10(1 - tau^(27/30))/(1 - tau^3) = 14.60.
    B: -6 +3 = -3 IMPs -> the loser's side of 3 IMPs, 20 - 11.76 = 8.24 (the scores need not balance).
    12C2(c) changes nothing: A's other boards average +2 IMPs, below average-plus."""
    boards, standings = scored(fouled_swiss(), "VP_TEAMS")
    ab2 = boards.filter((pl.col("board") == 2) & pl.col("match_id").str.ends_with("A v B")).sort("table_id")
    assert ab2.select("table_id", "imp_ns", "imp_ew").rows() == [("1c", 3.0, 3.0), ("1o", 3.0, 3.0)]
    assert ab2["board_rule"].to_list() == ["Law 87C, 86B2(a): fouled board, the rooms played different forms; "
                                           "cancelled, average-plus (+3 IMPs) to both teams"] * 2
    assert standings.sort("contestant_id").select("contestant_id", "score", "vp", "boards").rows() == [
        ("A", 14.6, 14.6, 4), ("B", 8.24, 8.24, 4), ("C", 13.28, 13.28, 4), ("D", 6.72, 6.72, 4)]


def test_rooms_that_played_the_same_fouled_form_are_compared() -> None:
    """Law 87A: C v D played the fouled form in both rooms; +420 against +170 is 6 IMPs to C
    (WBF 4 boards: 13.28 - 6.72), and the board carries no rule."""
    boards, _ = scored(fouled_swiss(), "VP_TEAMS")
    cd2 = boards.filter((pl.col("board") == 2) & (pl.col("ns_id") == "C"))
    assert cd2.select("imp_ns", "imp_ew", "board_rule").rows() == [(6.0, -6.0, None)]


def test_the_conditions_may_give_average_on_a_fouled_board() -> None:
    """`teams.fouled_board = "average"`: 0 IMPs each; A's 6 IMPs -> 13.28, B's -6 -> 6.72."""
    boards, standings = scored(fouled_swiss(), "VP_TEAMS", teams={"fouled_board": "average"})
    assert boards.filter((pl.col("board") == 2) & (pl.col("ns_id") == "A"))["imp_ns"].to_list() == [0.0]
    assert standings.filter(pl.col("contestant_id").is_in(["A", "B"])).sort("contestant_id").select(
        "score").to_series().to_list() == [13.28, 6.72]


def test_a_directors_ruling_of_fault_stands_over_the_fouled_board_default() -> None:
    """Law 86B2(b): B's closed-room pair fouled the board: A+ to A (EW there), A- to B (NS).
    A: 6 + 3 = 9 IMPs (14.60 VPs); B: -6 - 3 = -9 IMPs (5.40)."""
    rows = fouled_swiss(board2=(620, "A-/A+"))  # type: ignore[arg-type]
    boards, standings = scored(rows, "VP_TEAMS")
    assert boards.filter((pl.col("board") == 2) & (pl.col("ns_id") == "A")).select(
        "imp_ns", "imp_ew", "board_rule").rows() == [(3.0, -3.0, None)]
    assert standings.filter(pl.col("contestant_id").is_in(["A", "B"])).sort("contestant_id").select(
        "score").to_series().to_list() == [14.6, 5.4]


def test_law_12c2c_lifts_a_team_above_average_plus_on_a_fouled_board() -> None:
    """A 2-board match: A won board 1 by IMP(1430 - 420) = 1010 -> 14 IMPs. On fouled board 2 A, not
    at fault, keeps its own average of 14 IMPs (12C2(c)); B keeps average-plus, +3.
    Margins: A 28, B -14 + 3 = -11 IMPs, in IMPs (no VPs)."""
    rows = match([(1430, 420), (620, 100)])
    for row in rows:
        if row["board"] == 2:
            row["fouled_group"] = "original" if row["room"] == "open" else "fouled"
    boards, standings = scored(rows)
    assert home_imps(boards) == [14.0, 14.0]
    assert boards.filter((pl.col("board") == 2) & (pl.col("ns_id") == "A"))["imp_ew"].to_list() == [3.0]
    assert standings.sort("contestant_id").select("contestant_id", "score").rows() == [("A", 28.0), ("B", -11.0)]
