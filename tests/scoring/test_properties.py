"""Property tests: the invariants every board and match must satisfy, on random fields."""

from __future__ import annotations

from typing import Any

import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from models.conditions import ConditionsOfContest
from pipelines.scoring.engine import score
from pipelines.scoring.neuberg import neuberg
from pipelines.scoring.vp import victory_points, wbf_victory_points
from tests.conftest import examples

from .builders import results, sessions, traveller

SCORES = st.sampled_from([-1100, -800, -650, -620, -200, -100, -50, 0, 50, 90, 110, 140, 170, 420, 430,
                          450, 620, 650, 680, 920, 990, 1430, 1440, 2210])
FAST = settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])


def boards_of(fields: list[list[int]]) -> list[dict[str, Any]]:
    rows = []
    for number, field in enumerate(fields, start=1):
        rows += traveller(field, board=number)
    return rows


fields = st.lists(st.lists(SCORES, min_size=1, max_size=14), min_size=1, max_size=4)


@FAST
@given(fields, st.sampled_from(["2/1/0", "1/0.5/0"]))
def test_matchpoints_of_a_table_sum_to_the_top(data: list[list[int]], scale: str) -> None:
    conditions = ConditionsOfContest.model_validate({"matchpoints": {"scale": scale, "factoring_basis": "board"}})
    boards, _ = score(results(boards_of(data)), sessions(), {"E": conditions})
    total = boards.select((pl.col("mp_ns") + pl.col("mp_ew") - pl.col("top")).abs().max()).item()
    assert total == pytest.approx(0.0, abs=1e-9)
    per_board = boards.group_by("board").agg(
        pl.col("mp_ns").sum(), pl.col("top").first(), n=pl.len()
    )
    # A board's NS matchpoints sum to top x results / 2.
    gap = per_board.select((pl.col("mp_ns") - pl.col("top") * pl.col("n") / 2).abs().max()).item()
    assert gap == pytest.approx(0.0, abs=1e-9)


@FAST
@given(fields)
def test_neuberg_factored_boards_still_balance(data: list[list[int]]) -> None:
    """With every board factored to the section's top, each board's NS matchpoints sum to
    N(N-1) x n / N = top x n / 2 still (Neuberg preserves the board average)."""
    boards, _ = score(results(boards_of(data)), sessions(), {})
    per_board = boards.group_by("board").agg(pl.col("mp_ns").sum(), pl.col("top").first(), n=pl.len())
    gap = per_board.select((pl.col("mp_ns") - pl.col("top") * pl.col("n") / 2).abs().max()).item()
    assert gap == pytest.approx(0.0, abs=1e-9)


@FAST
@given(st.floats(0, 60, allow_nan=False), st.integers(1, 40))
def test_neuberg_identity(mp: float, n: int) -> None:
    assert neuberg(mp, n, n) == pytest.approx(mp)


@FAST
@given(st.floats(0, 1, allow_nan=False), st.integers(1, 30), st.integers(0, 30))
def test_neuberg_keeps_average_at_average(share: float, n: int, extra: int) -> None:
    """A result at exactly the group's average stays at the full board's average."""
    expected = n + extra
    assert neuberg(n - 1, n, expected) == pytest.approx(expected - 1)
    assert neuberg(share * 2 * (n - 1), n, expected) <= 2 * (expected - 1) + 1e-9


@FAST
@given(fields, st.sampled_from(["n-1", "sum", "n"]))
def test_cross_imps_of_a_board_sum_to_zero(data: list[list[int]], divisor: str) -> None:
    conditions = ConditionsOfContest.model_validate({"cross_imps": {"divisor": divisor}})
    boards, _ = score(results(boards_of(data)), sessions("CROSS_IMP"), {"E": conditions})
    sums = boards.group_by("board").agg(pl.col("imp_ns").sum().abs())["imp_ns"]
    assert sums.max() == pytest.approx(0.0, abs=1e-9)
    assert (boards["imp_ns"] == -boards["imp_ew"]).all()


@FAST
@given(st.lists(SCORES, min_size=1, max_size=10), st.sampled_from([-300, 0, 110, 420]))
def test_butler_of_a_balanced_field_sums_to_zero(half: list[int], centre: int) -> None:
    """Scores mirrored around a datum (untrimmed mean, rounded to 10) score IMPs that cancel."""
    field = [*half, *(2 * centre - s for s in half)]
    boards, _ = score(results(traveller(field)), sessions("BUTLER"), {})
    assert set(boards["datum"]) == {float(centre)}
    assert boards["imp_ns"].sum() == 0.0
    assert (boards["imp_ns"] == -boards["imp_ew"]).all()


@FAST
@given(fields)
def test_butler_is_antisymmetric_and_straddles_zero(data: list[list[int]]) -> None:
    """Negating every score negates every IMP; the best result never loses IMPs, the worst never gains."""
    conditions = {"E": ConditionsOfContest.model_validate({"butler": {"rounding": "none"}})}
    boards, _ = score(results(boards_of(data)), sessions("BUTLER"), conditions)
    mirrored, _ = score(results(boards_of([[-s for s in field] for field in data])), sessions("BUTLER"), conditions)
    assert boards["imp_ns"].to_list() == (-mirrored["imp_ns"]).to_list()
    extremes = boards.group_by("board").agg(lo=pl.col("imp_ns").min(), hi=pl.col("imp_ns").max())
    assert (extremes["lo"] <= 0).all() and (extremes["hi"] >= 0).all()


team_boards = st.lists(st.tuples(SCORES, SCORES), min_size=1, max_size=12)


@FAST
@given(team_boards)
def test_team_imps_are_antisymmetric_and_vps_sum_to_20(boards_played: list[tuple[int, int]]) -> None:
    rows = []
    for number, (open_room, closed_room) in enumerate(boards_played, start=1):
        for table, (ns, ew, value) in enumerate((("A", "B", open_room), ("B", "A", closed_room))):
            rows.append({"event_id": "E", "session_id": "S", "section": "", "board": number,
                         "table_id": str(table), "ns_id": ns, "ew_id": ew, "kind": "result", "score_ns": value})
    boards, standings = score(results(rows), sessions("VP_TEAMS"), {})
    assert (boards["imp_ns"] == -boards["imp_ew"]).all()
    assert standings["vp"].sum() == pytest.approx(20.0, abs=1e-9)
    a = standings.filter(pl.col("contestant_id") == "A")
    margin = boards.filter(pl.col("ns_id") == "A")["imp_ns"].sum()
    assert a["vp"].item() == wbf_victory_points(margin, len(boards_played))[0]


@FAST
@given(st.floats(-120, 120, allow_nan=False), st.integers(4, 64))
def test_vps_sum_to_20_and_grow_with_the_margin(margin: float, boards: int) -> None:
    first, second = wbf_victory_points(margin, boards)
    assert first + second == pytest.approx(20.0, abs=1e-9)
    assert 0.0 <= second <= 20.0
    bigger, _ = wbf_victory_points(margin + 1, boards)
    assert bigger >= first
    rounded, _ = victory_points(margin, boards, ConditionsOfContest().victory_points.model_copy(
        update={"fractional_margin": "round"}))
    assert abs(rounded - first) <= wbf_victory_points(abs(margin) + 1, boards)[0] - wbf_victory_points(
        abs(margin), boards)[0] + 0.011
