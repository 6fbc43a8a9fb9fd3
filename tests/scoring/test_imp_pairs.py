"""Law 77 and 78B vectors, Butler (datum) and cross-IMP pairs (scoring-notes §3, §6, §8)."""

from __future__ import annotations

from typing import Any

import polars as pl
import pytest
from polars.testing import assert_frame_equal

from models.conditions import ConditionsOfContest
from pipelines.scoring.butler import round_to_ten
from pipelines.scoring.contract import contract_score
from pipelines.scoring.engine import score
from pipelines.scoring.imps import imps

from .builders import results, sessions, traveller, weighted


def scored(rows: list[dict[str, Any]], method: str, **conditions: Any) -> tuple[pl.DataFrame, pl.DataFrame]:
    return score(results(rows), sessions(method), {"E": ConditionsOfContest.model_validate(conditions)})


def by_table(board_scores: pl.DataFrame, column: str) -> list[float]:
    return [round(v, 4) for v in board_scores.sort(pl.col("table_id").cast(pl.Int64))[column].to_list()]


@pytest.mark.parametrize(
    ("contract", "tricks", "vulnerable", "expected"),
    [
        ((1, "NT", "XX"), 7, False, 560),  # C1
        ((2, "H", "X"), 8, False, 470),  # C2
        ((4, "S", "X"), 6, False, -800),  # C3
        ((7, "NT", "XX"), 0, True, -7600),  # C4
        ((7, "NT", "XX"), 13, True, 2980),  # C5
        ((3, "C", "XX"), 11, True, 1640),  # C6
        ((7, "NT", ""), 13, False, 1520),  # C7
        ((0, "", ""), 0, False, 0),  # C8 passed out
    ],
)
def test_contract_vectors(contract: tuple[int, str, str], tricks: int, vulnerable: bool, expected: int) -> None:
    assert contract_score(*contract, tricks, vulnerable) == expected


def test_i1_imp_scale() -> None:
    diffs = [10, 20, 40, 50, 420, 430, 3990, 4000, -750]
    assert [imps(d) for d in diffs] == [0, 1, 1, 2, 9, 10, 23, 24, -13]


def test_b1_trimmed_datum() -> None:
    """Herts: EW +620 x4 and EW +170 x3, one top and one bottom dropped: datum EW 440; +5 / -7."""
    boards, _ = scored(traveller([-620] * 4 + [-170] * 3), "BUTLER", butler={"trim": "count"})
    assert set(boards["datum"]) == {-440.0}
    assert by_table(boards, "imp_ew") == [5.0] * 4 + [-7.0] * 3
    assert by_table(boards, "imp_ns") == [-5.0] * 4 + [7.0] * 3


def test_b2_untrimmed_mean_is_the_default() -> None:
    """BBO forum (Bermuda Bowl Butler): mean 514.55 -> datum 510; +10, -1, -2, -11."""
    boards, _ = scored(traveller([980] * 3 + [480] * 11 + [450] * 7 + [-50]), "BUTLER")
    assert set(boards["datum"]) == {510.0}
    assert sorted(set(boards["imp_ns"])) == [-11.0, -2.0, -1.0, 10.0]


def test_b3_bridge_scorer_trim() -> None:
    boards, _ = scored(traveller([-650, -170, -1440, 100, -170, -200]), "BUTLER",
                       butler={"trim": "bridge_scorer", "rounding": "half_up"})
    assert set(boards["datum"]) == {-300.0}
    assert by_table(boards, "imp_ns") == [-8, 4, -15, 9, 4, 3]


@pytest.mark.parametrize(
    ("mode", "expected"),
    [("half_even", [420, 440, -420, -440]),  # ACBLscore
     ("half_up", [430, 440, -420, -430]),  # bridge-scorer
     ("half_away_from_zero", [430, 440, -430, -440])],  # Magic Contest (-85 -> -90)
)
def test_b4_datum_rounding_of_exact_fives(mode: str, expected: list[int]) -> None:
    frame = pl.DataFrame({"x": [425.0, 435.0, -425.0, -435.0]})
    assert frame.select(round_to_ten(pl.col("x"), mode))["x"].to_list() == expected


def test_butler_artificial_and_weighted_rows() -> None:
    rows = traveller([420, 420, 170, -50, "A+/A-"])
    rows.append(weighted([(420, 0.5), (-50, 0.5)], event_id="E", session_id="S", section="A", board=1,
                         table_id="6", ns_id="N6", ew_id="E6"))
    boards, _ = scored(rows, "BUTLER")
    # Datum: mean of 420, 420, 170, -50 and the weighted 0.5 x 420 + 0.5 x -50, over 5 results = 226 -> 230.
    assert set(boards["datum"]) == {230.0}
    assert by_table(boards, "imp_ns") == [5.0, 5.0, -2.0, -7.0, 3.0, -1.0]  # weighted: (5 - 7) / 2
    assert by_table(boards, "imp_ew") == [-5.0, -5.0, 2.0, 7.0, -3.0, 1.0]


def test_butler_frame() -> None:
    boards, standings = scored(traveller([600, 100, -100]), "BUTLER")
    expected = pl.DataFrame({"table_id": ["1", "2", "3"], "datum": [200.0] * 3, "imp_ns": [9.0, -3.0, -7.0],
                             "imp_ew": [-9.0, 3.0, 7.0], "mp_ns": [None, None, None]},
                            schema_overrides={"mp_ns": pl.Float64})
    assert_frame_equal(boards.select(expected.columns), expected)
    assert standings.filter(pl.col("direction") == "NS")["score"].to_list() == [9.0, -3.0, -7.0]


def test_x1_average_cross_imps() -> None:
    boards, _ = scored(traveller([620, 170, 140, 140, -100]), "CROSS_IMP")
    assert by_table(boards, "imp_ns") == [10.5, -0.25, -1.25, -1.25, -7.75]


def test_x2_total_and_average() -> None:
    rows = traveller([420, 450, -100, -200, 400, 590])
    total, _ = scored(rows, "CROSS_IMP", cross_imps={"divisor": "sum"})
    average, _ = scored(rows, "CROSS_IMP")
    assert by_table(total, "imp_ns")[0] == 18.0
    assert by_table(average, "imp_ns")[0] == 3.6


def test_x3_board_sums_to_zero_both_normalisations() -> None:
    rows = traveller([730, -170, 100, -420, -400])
    average, _ = scored(rows, "CROSS_IMP")
    total, _ = scored(rows, "CROSS_IMP", cross_imps={"divisor": "sum"})
    assert by_table(average, "imp_ns") == [14.0, -2.25, 4.25, -8.25, -7.75]
    assert by_table(total, "imp_ns") == [56, -9, 17, -33, -31]
    assert sum(by_table(average, "imp_ns")) == 0


def test_cross_imps_cap_and_per_score_divisor() -> None:
    rows = traveller([2000, -100, -200])
    capped, _ = scored(rows, "CROSS_IMP", cross_imps={"cap": 17})
    per_score, _ = scored(rows, "CROSS_IMP", cross_imps={"divisor": "n"})
    assert by_table(capped, "imp_ns")[0] == 17.0  # 2100 and 2200 are 19 each, capped at 17
    assert by_table(per_score, "imp_ns")[0] == pytest.approx(38 / 3, abs=1e-4)


def test_cross_imps_artificial_scale() -> None:
    rows = traveller([100, 50, "A+/A-"])
    average, _ = scored(rows, "CROSS_IMP")
    total, _ = scored(rows, "CROSS_IMP", cross_imps={"divisor": "sum"})
    assert by_table(average, "imp_ns")[2] == 3.0
    assert by_table(total, "imp_ns")[2] == 6.0  # ACBL "Total IMPs": AVE+ = 3 x (n - 1)
    assert by_table(total, "imp_ns")[:2] == [4.0, -4.0]  # 2 results factored to 3: x (3-1)/(2-1)


def test_butler_12c2c_uses_imps_per_board() -> None:
    """A pair averaging +5 IMPs on its other boards keeps +5 for its A+, not +3."""
    others = ["X1", "X2"]
    rows = traveller([700, 0, -700], board=1, ns_ids=["P", *others])  # datum 0: P +12
    rows += traveller(["A+/A-", 100, -100], board=2, ns_ids=["P", *others])
    boards, _ = scored(rows, "BUTLER")
    assert boards.filter((pl.col("ns_id") == "P") & (pl.col("board") == 2))["imp_ns"].item() == 12.0


def test_butler_rank_per_board() -> None:
    rows = traveller([600, 100, -100]) + traveller([600, 100], board=2)
    _, by_total = scored(rows, "BUTLER")
    _, per_board = scored(rows, "BUTLER", butler={"rank_by": "per_board"})
    # Totals: N1 +15 over 2 boards, N2 -9 over 2 (-4.5 a board), N3 -7 over 1.
    assert by_total.filter(pl.col("direction") == "NS")["contestant_id"].to_list() == ["N1", "N3", "N2"]
    assert per_board.filter(pl.col("direction") == "NS")["contestant_id"].to_list() == ["N1", "N2", "N3"]
    assert per_board.filter(pl.col("direction") == "NS")["boards"].to_list() == [2, 2, 1]
