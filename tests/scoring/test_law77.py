"""Law 77: all 2,940 cases against a table written from the Law's text, and against endplay."""

from __future__ import annotations

import itertools

import polars as pl
import pytest
from endplay.types import Contract as EndplayContract
from endplay.types import Denom, Penalty, Player, Vul

from pipelines.scoring.contract import contract_score, declarer_score_expr
from pipelines.scoring.imps import imps, imps_expr

# Written independently of pipelines.scoring.contract: trick by trick, as the Law lists them.
ODD_TRICK = {"C": [20] * 7, "D": [20] * 7, "H": [30] * 7, "S": [30] * 7, "NT": [40] + [30] * 6}
UNDERTRICKS = {  # (doubling, vulnerable) -> penalty for the 1st, 2nd, ... undertrick
    ("", False): [50] * 13,
    ("", True): [100] * 13,
    ("X", False): [100, 200, 200] + [300] * 10,
    ("X", True): [200] + [300] * 12,
    ("XX", False): [200, 400, 400] + [600] * 10,
    ("XX", True): [400] + [600] * 12,
}
MULTIPLIER = {"": 1, "X": 2, "XX": 4}


def law77_table(level: int, strain: str, doubling: str, tricks: int, vulnerable: bool) -> int:
    if level == 0:
        return 0
    needed = level + 6
    if tricks < needed:
        return -sum(UNDERTRICKS[(doubling, vulnerable)][: needed - tricks])
    trick_score = sum(ODD_TRICK[strain][:level]) * MULTIPLIER[doubling]
    score = trick_score
    if trick_score >= 100:
        score += 500 if vulnerable else 300
    else:
        score += 50
    if level == 6:
        score += 750 if vulnerable else 500
    if level == 7:
        score += 1500 if vulnerable else 1000
    score += {"": 0, "X": 50, "XX": 100}[doubling]
    overtricks = tricks - needed
    if doubling == "":
        score += overtricks * ODD_TRICK[strain][-1]
    else:
        per = (200 if vulnerable else 100) * (2 if doubling == "XX" else 1)
        score += overtricks * per
    return score


CASES = list(itertools.product(range(1, 8), ["C", "D", "H", "S", "NT"], ["", "X", "XX"],
                               [False, True], range(14)))


def test_there_are_2940_cases() -> None:
    assert len(CASES) == 2940


def test_vectorised_scores_match_the_table_on_all_cases() -> None:
    frame = pl.DataFrame(CASES, schema=["level", "strain", "doubling", "vulnerable", "tricks"], orient="row")
    ours = frame.select(declarer_score_expr(pl.col("level"), pl.col("strain"), pl.col("doubling"),
                                            pl.col("tricks"), pl.col("vulnerable")))
    expected = [law77_table(lv, st, db, tr, vul) for lv, st, db, vul, tr in CASES]
    mismatches = [(case, got, want) for case, got, want in zip(CASES, ours.to_series(), expected, strict=True)
                  if got != want]
    assert mismatches == []


def test_scalar_helper_matches_endplay_on_all_cases() -> None:
    denoms = {"C": Denom.clubs, "D": Denom.diamonds, "H": Denom.hearts, "S": Denom.spades, "NT": Denom.nt}
    penalties = {"": Penalty.passed, "X": Penalty.doubled, "XX": Penalty.redoubled}
    mismatches = []
    for level, strain, doubling, vulnerable, tricks in CASES:
        theirs = EndplayContract(level=level, denom=denoms[strain], declarer=Player.north,
                                 penalty=penalties[doubling], result=tricks - level - 6)
        want = theirs.score(Vul.ns if vulnerable else Vul.none)
        if law77_table(level, strain, doubling, tricks, vulnerable) != want:
            mismatches.append((level, strain, doubling, vulnerable, tricks))
    assert mismatches == []


@pytest.mark.parametrize(("case", "expected"), [
    ((1, "NT", "XX", 7, False), 560), ((2, "H", "X", 8, False), 470), ((4, "S", "X", 6, False), -800),
    ((7, "NT", "XX", 0, True), -7600), ((7, "NT", "XX", 13, True), 2980), ((3, "C", "XX", 11, True), 1640),
    ((7, "NT", "", 13, False), 1520), ((0, "", "", 0, False), 0), ((1, "NT", "X", 8, False), 280),
    ((1, "NT", "XX", 8, True), 1160), ((2, "S", "XX", 8, False), 640), ((5, "C", "X", 8, False), -500),
    ((5, "C", "X", 6, False), -1100), ((7, "S", "X", 0, False), -3500), ((6, "NT", "", 12, False), 990),
    ((7, "C", "", 13, True), 2140), ((3, "NT", "", 10, False), 430), ((3, "NT", "", 10, True), 630),
    ((1, "C", "X", 6, False), -100), ((1, "C", "X", 6, True), -200), ((4, "H", "X", 9, True), -200),
])
def test_scoring_notes_vectors(case: tuple[int, str, str, int, bool], expected: int) -> None:
    assert contract_score(*case) == expected


@pytest.mark.parametrize("bad", [(8, "S", "", 10, False), (4, "Z", "", 10, False), (4, "S", "XXX", 10, False),
                                 (4, "S", "", 14, False)])
def test_scalar_helper_refuses_impossible_input(bad: tuple[int, str, str, int, bool]) -> None:
    with pytest.raises(ValueError):
        contract_score(*bad)


IMP_VECTORS = [(10, 0), (20, 1), (40, 1), (50, 2), (420, 9), (430, 10), (3990, 23), (4000, 24), (-750, -13),
               (0, 0), (15, 0), (45, 1), (-4500, -24)]


@pytest.mark.parametrize(("difference", "expected"), IMP_VECTORS)
def test_imps_scalar(difference: int, expected: int) -> None:
    assert imps(difference) == expected


def test_imps_expression_agrees_with_scalar() -> None:
    diffs = list(range(-5000, 5001, 10))
    frame = pl.DataFrame({"d": diffs})
    assert frame.select(imps_expr(pl.col("d"))).to_series().to_list() == [imps(d) for d in diffs]


def test_public_helpers_are_importable_from_the_package() -> None:
    import pipelines.scoring as scoring

    assert scoring.contract_score(4, "S", "", 10, False) == 420
    assert scoring.imps(-750) == -13
    assert set(scoring.__all__) >= {"contract_score", "imps"}
