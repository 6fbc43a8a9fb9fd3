"""Law 78A matchpoints, Neuberg, artificial (12C2), weighted and split (12C1) scores, fouled boards (87)."""

from __future__ import annotations

from typing import Any

import polars as pl
import pytest
from polars.testing import assert_frame_equal

from models.conditions import ConditionsOfContest
from pipelines.scoring.engine import score
from pipelines.scoring.neuberg import neuberg

from .builders import results, sessions, traveller, weighted


def scored(
    rows: list[dict[str, Any]], layout: str = "two_field", **conditions: Any
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Score rows of event E, session S as matchpoints."""
    return score(results(rows), sessions("MP", layout), {"E": ConditionsOfContest.model_validate(conditions)})


def by_table(board_scores: pl.DataFrame, column: str) -> list[float | None]:
    """`column` in table order (table ids are 1, 2, ...)."""
    ordered = board_scores.sort(pl.col("table_id").cast(pl.Int64))
    return [None if v is None else round(v, 4) for v in ordered[column].to_list()]


def test_seed_001_traveller() -> None:
    """LAWS.md, seed 001: +1380 +920 -50 -100 +430 +420 earn NS 10 8 2 0 6 4, EW the complement."""
    boards, _ = scored(traveller([1380, 920, -50, -100, 430, 420]))
    assert by_table(boards, "mp_ns") == [10, 8, 2, 0, 6, 4]
    assert by_table(boards, "mp_ew") == [0, 2, 8, 10, 4, 6]
    assert set(boards["top"]) == {10.0}


def test_m1_passout_is_a_real_score() -> None:
    boards, _ = scored(traveller([90, 0, -50, -50]))
    assert by_table(boards, "mp_ns") == [6, 4, 1, 1]
    assert by_table(boards, "mp_ew") == [0, 2, 5, 5]


def test_m2_acbl_units_are_half() -> None:
    boards, _ = scored(traveller([90, 0, -50, -50]), matchpoints={"scale": "1/0.5/0"})
    assert by_table(boards, "mp_ns") == [3, 2, 0.5, 0.5]
    assert set(boards["top"]) == {3.0}


def test_board_frame_is_exact() -> None:
    boards, _ = scored(traveller([90, 0, -50, -50]))
    expected = pl.DataFrame({
        "table_id": ["1", "2", "3", "4"], "score_ns": [90, 0, -50, -50],
        "mp_ns": [6.0, 4.0, 1.0, 1.0], "mp_ew": [0.0, 2.0, 5.0, 5.0], "top": [6.0] * 4,
        "pct_ns": [100.0, 400 / 6, 100 / 6, 100 / 6], "pct_ew": [0.0, 200 / 6, 500 / 6, 500 / 6],
        "imp_ns": [None] * 4, "imp_ew": [None] * 4,
    }, schema_overrides={"imp_ns": pl.Float64, "imp_ew": pl.Float64})
    assert_frame_equal(boards.select(expected.columns), expected)


def test_m3_neuberg_ten_of_eleven() -> None:
    """EBU/Bavin: 10 distinct results on a board expected 11 times, top 20."""
    rows = traveller([1000 - 100 * i for i in range(10)])
    rows += traveller([50], board=2, first_table=11)  # another board played 11 times sets N = 11
    rows += traveller([10 * i for i in range(10)], board=2, first_table=1)
    boards, _ = scored(rows)
    board1 = boards.filter(pl.col("board") == 1)
    assert by_table(board1, "mp_ns") == [19.9, 17.7, 15.5, 13.3, 11.1, 8.9, 6.7, 4.5, 2.3, 0.1]
    assert set(board1["top"]) == {20.0}


def test_m4_m5_neuberg_scalar() -> None:
    assert neuberg(4, 6, 7) == pytest.approx(4.8333333333)
    assert neuberg(9, 6, 7) == pytest.approx(10.6666666667)
    assert neuberg(2, 6, 7, top_per_comparison=1) == pytest.approx(2.4166666667)


@pytest.mark.parametrize("mp", [0.0, 1.0, 2.5, 10.0, 38.0])
@pytest.mark.parametrize("n", [1, 2, 13, 20])
def test_neuberg_at_full_count_is_the_identity(mp: float, n: int) -> None:
    assert neuberg(mp, n, n) == pytest.approx(mp)
    assert neuberg(mp, n, n, top_per_comparison=1) == pytest.approx(mp)


def test_neuberg_rejects_empty_groups() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        neuberg(0, 0, 5)


def test_m6_fouled_board_groups_are_neubergged_to_the_full_count() -> None:
    """pjms.nl: 7 results split 3 / 4 by a fouled board, sole top in each: 88.9 % and 93.75 %."""
    rows = traveller([600, 100, 50, 420, 400, 300, 200])
    for row, group in zip(rows, ["a", "a", "a", "b", "b", "b", "b"], strict=True):
        row["fouled_group"] = group
    boards, _ = scored(rows)
    pct = by_table(boards, "pct_ns")
    assert pct[0] == pytest.approx(88.8889, abs=1e-4)
    assert pct[3] == pytest.approx(93.75)
    assert set(boards["top"]) == {12.0}


def test_m7_artificial_scores_are_out_of_neuberg_and_use_the_full_top() -> None:
    rows = traveller([650, 620, 620, 600, 170, 140, 140, -100, -100, -200, "A+/A-"])
    boards, _ = scored(rows)
    assert by_table(boards, "mp_ns") == [19.9, 16.6, 16.6, 13.3, 11.1, 7.8, 7.8, 3.4, 3.4, 0.1, 12.0]
    assert by_table(boards, "mp_ew")[-1] == 8.0


def _brenning_rows() -> list[dict[str, Any]]:
    """M8: top 24 (13 results). Pair P: board 1 scores 15.0, board 2 A+, board 3 A-, board 4 a bye."""
    others = [f"X{i}" for i in range(12)]
    rows = traveller([100, 100, *[50] * 7, *[200] * 4], board=1, ns_ids=["P", *others])
    rows += traveller(["A+/A-", *[10 * i for i in range(12)]], board=2, ns_ids=["P", *others])
    rows += traveller(["A-/A+", *[10 * i for i in range(12)]], board=3, ns_ids=["P", *others])
    rows += traveller([10 * i for i in range(13)], board=4, ns_ids=[f"Y{i}" for i in range(13)])
    return rows


def test_m8_brenning_session_percentage_with_12c2c_and_a_bye() -> None:
    boards, standings = scored(_brenning_rows())
    p = boards.filter(pl.col("ns_id") == "P").sort("board")
    assert p["mp_ns"].to_list() == [15.0, 15.0, pytest.approx(9.6)]  # A+ -> own 62.5 %, A- stays 40 %
    row = standings.filter(pl.col("contestant_id") == "P").row(0, named=True)
    assert row["score"] == pytest.approx(39.6)
    assert row["percentage"] == pytest.approx(55.0)
    assert row["boards"] == 3  # the bye is in neither numerator nor denominator


def test_m8_without_12c2c_average_plus_stays_60() -> None:
    boards, standings = scored(_brenning_rows(), artificial={"law_12c2c": False})
    p = boards.filter(pl.col("ns_id") == "P").sort("board")
    assert p["mp_ns"].to_list() == [15.0, pytest.approx(14.4), pytest.approx(9.6)]
    assert standings.filter(pl.col("contestant_id") == "P")["percentage"].item() == pytest.approx(54.1666667)


def test_offender_below_40_keeps_own_lower_percentage() -> None:
    """12C2(c): an offender (A-) averaging under 40 % on the other boards gets that instead."""
    others = [f"X{i}" for i in range(4)]
    rows = traveller([-500, 100, 200, 300, 400], board=1, ns_ids=["P", *others])  # P: 0 %
    rows += traveller(["A-/A+", 10, 20, 30, 40], board=2, ns_ids=["P", *others])
    boards, _ = scored(rows)
    assert boards.filter((pl.col("ns_id") == "P") & (pl.col("board") == 2))["mp_ns"].item() == 0.0


def test_explicit_percentage_award() -> None:
    boards, _ = scored(traveller([100, 200, 300, "55/45"]))
    assert by_table(boards, "pct_ns")[-1] == 55.0
    assert by_table(boards, "pct_ew")[-1] == 45.0


def test_weighted_score_is_matchpointed_component_by_component() -> None:
    """12C1(c): 0.5 x 4S= (+420) + 0.5 x 4S-1 (-50) against +420, +170, -50."""
    rows = traveller([420, 170, -50])
    rows.append(weighted([(420, 0.5), (-50, 0.5)], event_id="E", session_id="S", section="A", board=1,
                         table_id="4", ns_id="N4", ew_id="E4"))
    boards, _ = scored(rows)
    # +420: beats 170 and -50 (4), against the weighted table 0.5 x tie + 0.5 x win (1.5) = 5.5.
    # The weighted table: 0.5 x MP(+420) + 0.5 x MP(-50) = 0.5 x 5 + 0.5 x 1 = 3.
    assert by_table(boards, "mp_ns") == [5.5, 3.0, 0.5, 3.0]
    assert by_table(boards, "mp_ew") == [0.5, 3.0, 5.5, 3.0]
    assert sum(by_table(boards, "mp_ns")) == 12.0  # top 6 x 4 results / 2


def test_split_score_ranks_each_side_on_its_own_outcomes() -> None:
    """12C1(e): NS get +420, EW are scored as if -50 (NS view): the sides need not sum to the top."""
    rows = traveller([420, 170, -50])
    rows.append(weighted([(420, 1.0)], [(-50, 1.0)], event_id="E", session_id="S", section="A", board=1,
                         table_id="4", ns_id="N4", ew_id="E4"))
    boards, _ = scored(rows)
    ns, ew = by_table(boards, "mp_ns"), by_table(boards, "mp_ew")
    assert ns[3] == 5.0 and ew[3] == 5.0  # NS tie the other +420; EW beat two of the three others
    assert sum(ns) == 12.0 and sum(ew) == 12.0  # each direction's board total still sums to top x n / 2


def test_unscored_row_is_left_out_and_others_are_factored() -> None:
    rows = traveller([100, 50, None]) + traveller([10, 20, 30], board=2)
    boards, _ = scored(rows)
    board1 = boards.filter(pl.col("board") == 1)
    assert by_table(board1, "mp_ns")[:2] == [3.5, 0.5]  # 2 and 0 of 2, Neuberg-factored from 2 to 3
    assert board1.sort("table_id")["mp_ns"][2] is None


def test_ratio_factoring_legacy_option() -> None:
    rows = traveller([300, 200, 100, "A/A"])
    boards, _ = scored(rows, matchpoints={"factoring": "ratio"})
    assert by_table(boards, "mp_ns")[:3] == [6.0, 3.0, 0.0]  # 4, 2, 0 of top 4 scaled to top 6


def test_average_factoring_counts_each_missing_comparison_as_a_tie() -> None:
    """ScoreBridge's rule: MP_n + (top_N - top_n) / 2; the artificial row makes N = 4, n = 3."""
    rows = traveller([300, 200, 100, "A/A"])
    boards, _ = scored(rows, matchpoints={"factoring": "average"})
    assert by_table(boards, "mp_ns")[:3] == [5.0, 3.0, 1.0]  # 4, 2, 0 of top 4, plus one tie each
    assert by_table(boards, "mp_ew")[:3] == [1.0, 3.0, 5.0]
    halves, _ = scored(rows, matchpoints={"factoring": "average", "scale": "1/0.5/0"})
    assert by_table(halves, "mp_ns")[:3] == [2.5, 1.5, 0.5]
    neuberg, _ = scored(rows)
    assert by_table(neuberg, "mp_ns")[:3] == pytest.approx([5.6667, 3.0, 0.3333], abs=1e-4)


def test_board_basis_versus_section_basis() -> None:
    """A board played 3 times in a section where others were played 4 times."""
    rows = traveller([300, 200, 100, 0]) + traveller([300, 200, 100], board=2)
    section_basis, _ = scored(rows)
    board_basis, _ = scored(rows, matchpoints={"factoring_basis": "board"})
    b2 = pl.col("board") == 2
    assert set(section_basis.filter(b2)["top"]) == {6.0}
    assert by_table(section_basis.filter(b2), "mp_ns") == pytest.approx([5.6667, 3.0, 0.3333], abs=1e-4)
    assert set(board_basis.filter(b2)["top"]) == {4.0}
    assert by_table(board_basis.filter(b2), "mp_ns") == [4.0, 2.0, 0.0]


def test_one_field_standings_sum_both_directions() -> None:
    rows = traveller([100, 50], ns_ids=["1", "2"], ew_ids=["3", "4"])
    rows += traveller([-100, -50], board=2, ns_ids=["3", "4"], ew_ids=["1", "2"])
    _, standings = scored(rows, layout="one_field")
    expected = pl.DataFrame({
        "direction": ["ALL"] * 4, "contestant_id": ["1", "4", "2", "3"], "rank": [1, 1, 3, 3],
        "tied": [True, True, True, True], "score": [4.0, 4.0, 0.0, 0.0], "percentage": [100.0, 100.0, 0.0, 0.0],
        "boards": [2, 2, 2, 2],
    })
    assert_frame_equal(standings.select(expected.columns), expected)


def test_two_field_ranks_and_ties() -> None:
    _, standings = scored(traveller([420, 420, 170, -50]))
    ns = standings.filter(pl.col("direction") == "NS")
    assert ns["contestant_id"].to_list() == ["N1", "N2", "N3", "N4"]
    assert ns["rank"].to_list() == [1, 1, 3, 4]
    assert ns["tied"].to_list() == [True, True, False, False]
    ew = standings.filter(pl.col("direction") == "EW")
    assert ew["contestant_id"].to_list() == ["E4", "E3", "E1", "E2"]
    assert ew["rank"].to_list() == [1, 2, 3, 3]


def test_board_decimals_round_before_totals() -> None:
    rows = traveller([1000 - 100 * i for i in range(10)]) + traveller([0] * 11, board=2, first_table=1)
    boards, standings = scored(rows, board_decimals=1)
    assert by_table(boards.filter(pl.col("board") == 1), "mp_ns")[:2] == [19.9, 17.7]
    assert standings.filter(pl.col("contestant_id") == "N1")["score"].item() == pytest.approx(29.9)


def test_compare_across_sections() -> None:
    rows = traveller([100, 50]) + traveller([75, 0], section="B")
    within, _ = scored(rows)
    across, _ = scored(rows, matchpoints={"compare_across_sections": True})
    assert set(within["top"]) == {2.0}
    assert set(across["top"]) == {6.0}
    assert across.sort("section", "table_id")["mp_ns"].to_list() == [6.0, 2.0, 4.0, 0.0]
