"""Totals that rank what they show: awards summed exact, placed on the exact total, rounded once."""

from __future__ import annotations

import math
from decimal import ROUND_HALF_UP, Decimal

import polars as pl
from hypothesis import given, settings
from hypothesis import strategies as st

from pipelines.ranking.edition import player_totals, rank_players
from pipelines.ranking.rules import load_rules
from tests.conftest import examples

MEMBERS = pl.DataFrame(schema={"federation_id": pl.String, "name": pl.String, "club": pl.String,
                               "region": pl.String, "gender": pl.String, "birth_year": pl.Int64})


def awards(points: dict[str, list[float]]) -> pl.DataFrame:
    return pl.DataFrame([{"player_id": p, "points": v} for p, values in points.items() for v in values],
                        schema={"player_id": pl.String, "points": pl.Float64})


def test_two_thirds_of_an_award_tie_with_the_award_they_add_up_to() -> None:
    ranking = rank_players(awards({"A": [100 / 3, 100 / 3], "B": [200 / 3]}), MEMBERS, load_rules("sbu"))
    assert ranking.select("player_id", "place", "points").rows() == [("A", 1, 66.67), ("B", 1, 66.67)]


def test_pzbs_places_on_the_pkl_not_on_the_rounded_hundredths() -> None:
    # 25 PKL and 24.5 PKL both show as 0.25 after dividing by 100; 25 is ahead.
    ranking = rank_players(awards({"A": [24.5], "B": [25.0]}), MEMBERS, load_rules("pzbs-3"))
    assert ranking.select("player_id", "place", "points").rows() == [("B", 1, 0.25), ("A", 2, 0.25)]


@settings(max_examples=examples(60), deadline=None)
@given(st.dictionaries(st.sampled_from("ABCDEFGH"),
                       st.lists(st.sampled_from([100 / 3, 200 / 3, 12.5, 0.005, 1.0, 7 / 9, 24.5, 0.01]),
                                min_size=1, max_size=6), min_size=1),
       st.sampled_from(["sbu", "pzbs-3", "wbf", "abf"]))
def test_places_follow_the_exact_sums_and_points_round_them_once(points: dict[str, list[float]],
                                                                preset: str) -> None:
    # The oracle: exact sums (fractions of thirds and ninths added in any order), a place is
    # 1 + the number of players with a larger sum, the shown points that sum rounded half up.
    rules = load_rules(preset)
    totals = player_totals(awards(points), MEMBERS, rules)
    exact = {p: Decimal(repr(round(math.fsum(v), 9))) / Decimal(repr(rules.points_divisor))
             for p, v in points.items()}
    step = Decimal(1).scaleb(-rules.points_rounding.decimals)
    assert totals.height == len(points)
    for player, place, shown in totals.select("player_id", "place", "points").iter_rows():
        ahead = sum(1 for other in exact.values() if other - exact[player] > Decimal("1e-7"))
        assert place == ahead + 1
        assert shown == float(exact[player].quantize(step, rounding=ROUND_HALF_UP))
