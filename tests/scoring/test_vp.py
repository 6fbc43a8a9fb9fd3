"""Victory points: the WBF 2013 continuous scale (scoring-notes §1) and discrete tables (§1.6)."""

from __future__ import annotations

import itertools
import math

import polars as pl
import pytest
from polars.testing import assert_frame_equal

from models.conditions import ACBL_20_VP, SEED001_24_BOARDS, VictoryPointRules
from pipelines.scoring.vp import (
    add_victory_points,
    blitz,
    discrete_vp,
    victory_points,
    wbf_table,
    wbf_victory_points,
)

WBF_24_BOARDS = (
    10, 10.25, 10.5, 10.75, 10.99, 11.23, 11.46, 11.68, 11.9, 12.12, 12.33, 12.54, 12.75, 12.95, 13.15,
    13.34, 13.53, 13.72, 13.9, 14.08, 14.26, 14.43, 14.6, 14.76, 14.92, 15.08, 15.24, 15.39, 15.54,
    15.69, 15.83, 15.97, 16.11, 16.25, 16.38, 16.51, 16.64, 16.77, 16.89, 17.01, 17.13, 17.25, 17.36,
    17.47, 17.58, 17.69, 17.79, 17.89, 17.99, 18.09, 18.19, 18.29, 18.38, 18.47, 18.56, 18.65, 18.74,
    18.82, 18.9, 18.98, 19.06, 19.14, 19.22, 19.3, 19.37, 19.44, 19.51, 19.58, 19.65, 19.72, 19.79,
    19.85, 19.91, 19.97, 20,
)
"""The independent 24-board WBF table ("Source: WBF VP scale 24 boards", scoring-notes §0), IMPs 0-74."""


@pytest.mark.parametrize(
    ("imps", "boards", "expected"),
    [
        (10, 16, (12.80, 7.20)),  # V1
        (14, 16, (13.75, 6.25)),  # V2: raw 13.74, corrected
        (5, 24, (11.23, 8.77)),  # V3: raw 11.22
        (16, 32, (13.12, 6.88)),  # V4
        (47, 32, (17.21, 2.79)),  # V4
        (40, 8, (19.74, 0.26)),  # V6: raw 19.73
        (-10, 16, (7.20, 12.80)),
        (0, 16, (10.0, 10.0)),
    ],
)
def test_wbf_vectors(imps: int, boards: int, expected: tuple[float, float]) -> None:
    assert wbf_victory_points(imps, boards) == expected


@pytest.mark.parametrize(
    ("boards", "imps", "vp"),
    [
        (16, 1, 10.31), (16, 2, 10.61), (16, 3, 10.91), (16, 4, 11.20), (16, 5, 11.48), (16, 8, 12.29),
        (16, 16, 14.18), (16, 20, 15.00), (16, 27, 16.26), (16, 59, 19.93), (16, 60, 20.00),
        (8, 10, 13.78), (8, 20, 16.46), (8, 42, 19.95), (8, 43, 20.00),
        (24, 10, 12.33), (24, 20, 14.26), (24, 73, 19.97), (24, 74, 20.00),
        (32, 11, 12.24), (12, 10, 13.18), (20, 10, 12.53), (20, 13, 13.20), (14, 8, 12.44),
    ],
)
def test_selected_published_values(boards: int, imps: int, vp: float) -> None:
    assert wbf_victory_points(imps, boards)[0] == vp


@pytest.mark.parametrize(
    ("boards", "blitz_at", "before"),
    [(6, 37, 19.91), (7, 40, 19.92), (8, 43, 19.95), (9, 45, 19.90), (10, 48, 19.96), (12, 52, 19.92),
     (14, 57, 19.99), (16, 60, 19.93), (20, 68, 19.99), (24, 74, 19.97), (32, 85, 19.95)],
)
def test_where_20_0_is_reached(boards: int, blitz_at: int, before: float) -> None:
    """V5 and §1.4: the first 20.00 entry, and the entry one IMP before it."""
    table = wbf_table(boards)
    assert len(table) - 1 == blitz_at
    assert table[-2] / 100 == before
    assert wbf_victory_points(blitz_at + 30, boards) == (20.0, 0.0)


@pytest.mark.parametrize(("boards", "blitz_at"), [(41, 96), (50, 106), (62, 118), (63, 119)])
def test_blitz_below_ceil_x_where_floor_already_rounds_to_20(boards: int, blitz_at: int) -> None:
    assert len(wbf_table(boards)) - 1 == blitz_at < math.ceil(blitz(boards))


def test_24_board_table_matches_the_independent_transcription() -> None:
    assert tuple(v / 100 for v in wbf_table(24)) == WBF_24_BOARDS


@pytest.mark.parametrize("boards", range(4, 65))
def test_generated_scales_4_to_64_boards_have_the_published_shape(boards: int) -> None:
    """For every match length: starts at 10, ends at the first 20.00 (at ceil(X) or just before),
    is strictly increasing up to the blitz, and after the correction its increments never grow."""
    table = wbf_table(boards)
    x = blitz(boards)
    assert table[0] == 1000
    assert table[-1] == 2000 and 2000 not in table[:-1]
    assert len(table) - 1 in (math.floor(x), math.ceil(x))
    steps = [b - a for a, b in itertools.pairwise(table)]
    assert all(step > 0 for step in steps)
    assert all(later <= earlier for earlier, later in itertools.pairwise(steps))
    for imps in range(len(table) + 5):
        winner, loser = wbf_victory_points(imps, boards)
        assert winner + loser == pytest.approx(20.0, abs=1e-9)
        assert winner >= loser


def test_the_correction_only_ever_raises_by_hundredths() -> None:
    """Each corrected entry is within a few hundredths above the plain 2-dp rounding."""
    tau = (math.sqrt(5) - 1) / 2
    for boards in range(4, 65):
        x = blitz(boards)
        for imps, value in enumerate(wbf_table(boards)[:-1]):
            plain = math.floor((10 + 10 * (1 - tau ** (3 * imps / x)) / (1 - tau**3)) * 100 + 0.5)
            assert 0 <= value - plain <= 3


def test_fractional_margins_interpolate_by_default() -> None:
    low, high = wbf_victory_points(10, 16)[0], wbf_victory_points(11, 16)[0]
    assert wbf_victory_points(10.5, 16)[0] == round((low + high) / 2 + 1e-9, 2)
    rules = VictoryPointRules(fractional_margin="round")
    assert victory_points(10.5, 16, rules) == wbf_victory_points(11, 16)
    assert victory_points(10.4, 16, rules) == wbf_victory_points(10, 16)


def test_acbl_discrete_v7() -> None:
    """V7: ACBL discrete, 7 boards: 5 IMPs -> 13-7, 28 IMPs -> 20-0."""
    rules = VictoryPointRules(scale="discrete", preset="acbl_20")
    assert victory_points(5, 7, rules) == (13.0, 7.0)
    assert victory_points(28, 7, rules) == (20.0, 0.0)
    assert victory_points(-5, 7, rules) == (7.0, 13.0)
    assert victory_points(0, 7, rules) == (10.0, 10.0)
    assert ACBL_20_VP[0].max_boards == 8


@pytest.mark.parametrize(
    ("imps", "vp"),
    [(0, 10), (2, 10), (3, 11), (6, 11), (7, 12), (11, 12), (12, 13), (16, 13), (17, 14), (21, 14),
     (22, 15), (27, 15), (28, 16), (33, 16), (34, 17), (39, 17), (40, 18), (46, 18), (47, 19), (54, 19),
     (55, 20), (90, 20)],
)
def test_seed_001_24_board_table(imps: int, vp: float) -> None:
    """LAWS.md, seed 001: 0-2 10-10, 3-6 11-9, ..., 47-54 19-1, 55+ 20-0."""
    assert discrete_vp(imps, SEED001_24_BOARDS) == vp
    rules = VictoryPointRules(scale="discrete", preset="seed001_24")
    assert victory_points(imps, 24, rules) == (vp, 20 - vp)


def test_frame_wide_vps_equal_the_scalar_ones() -> None:
    margins = [-70.0, -10.5, -1.0, 0.0, 0.25, 10.0, 14.0, 59.0, 60.0, 100.0]
    frame = pl.DataFrame({"margin": margins, "boards": [16] * 5 + [24] * 5})
    got = add_victory_points(frame, "margin", "boards", VictoryPointRules())
    expected = frame.with_columns(
        vp=pl.Series([wbf_victory_points(m, b)[0] for m, b in zip(margins, frame["boards"], strict=True)])
    )
    assert_frame_equal(got, expected)


def test_frame_wide_discrete_vps_equal_the_scalar_ones() -> None:
    rules = VictoryPointRules(scale="discrete", preset="acbl_20")
    frame = pl.DataFrame({"margin": [-40.0, -5.0, 0.0, 5.0, 6.5, 29.0], "boards": [7, 7, 7, 7, 12, 30]})
    got = add_victory_points(frame, "margin", "boards", rules)
    expected = [victory_points(m, b, rules)[0] for m, b in frame.iter_rows()]
    assert got["vp"].to_list() == expected
