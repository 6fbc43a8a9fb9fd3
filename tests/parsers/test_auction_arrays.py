"""The rules of the auction (`parsers.bridge.auction_arrays`, the only place they are written) against
a plain walk of the Laws written here, call by call, as a reference: the same problem for every
call, the same end, final bid, doubling and declarer, for random sequences of calls, legal or not,
alone or many at once; then exact cases, and the fast paths' `read_auctions`, which declines on any
problem."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from parsers.bridge.auction_arrays import Auctions, judge_auctions, read_auctions
from parsers.bridge.calls import (
    AFTER_END,
    BAD_DOUBLE,
    BAD_REDOUBLE,
    BIDS,
    CALL_NAMES,
    DOUBLE,
    INSUFFICIENT,
    LEGAL,
    PASS,
    REDOUBLE,
)
from parsers.declined import Declined
from tests.conftest import examples


def table(auctions: list[list[str]]) -> np.ndarray:
    """Call numbers, one auction a row, padded with -1 (as the readers build them)."""
    width = max([len(calls) for calls in auctions] + [1])
    rows = np.full((len(auctions), width), -1, dtype=np.int8)
    for row, calls in enumerate(auctions):
        rows[row, :len(calls)] = [CALL_NAMES.index(call) for call in calls]
    return rows


class Walked(NamedTuple):
    """What the reference walk finds."""

    problems: list[int]
    last_bids: list[int]
    """The call number of the last bid before each call (-1 before any)."""
    end: int
    contract: tuple[int, int, int] | None
    """(bid, doubling, declarer's seat) when the auction ended with a bid."""


def walk(calls: list[str], dealer: int) -> Walked:
    """The Laws, one call at a time. Every call, legal or not, changes the state as it was made (a
    reader that goes on after a problem sees the rest as the table did); after the end, every call
    is one too many."""
    bid: tuple[int, int] | None = None  # (call number, place) of the last bid
    doubled, passes, end = 0, 0, -1
    named: dict[tuple[int, str], int] = {}  # (side, strain) -> place of the first call naming it
    problems: list[int] = []
    last_bids: list[int] = []
    for place, call in enumerate(calls):
        last_bids.append(-1 if bid is None else bid[0])
        if end >= 0:
            problems.append(AFTER_END)
            continue
        ours = bid is not None and bid[1] % 2 == place % 2
        if call == PASS:
            problems.append(LEGAL)
            passes += 1
        elif call == DOUBLE:
            problems.append(LEGAL if bid is not None and not ours and doubled == 0 else BAD_DOUBLE)
            passes, doubled = 0, 1
        elif call == REDOUBLE:
            problems.append(LEGAL if bid is not None and ours and doubled == 1 else BAD_REDOUBLE)
            passes, doubled = 0, 2
        else:
            number = BIDS.index(call)
            problems.append(LEGAL if bid is None or number > bid[0] else INSUFFICIENT)
            bid, passes, doubled = (number, place), 0, 0
            named.setdefault((place % 2, call[1:]), place)
        if passes == 4 or (passes == 3 and bid is not None):
            end = place
    contract = None
    if end >= 0 and bid is not None:
        first = named[(bid[1] % 2, BIDS[bid[0]][1:])]
        contract = (bid[0], doubled, (dealer + first) % 4)
    return Walked(problems, last_bids, end, contract)


def assert_judged(judged: Auctions, row: int, calls: list[str], dealer: int) -> None:
    """Row `row` of `judged` says of `calls` what the reference walk says."""
    walked = walk(calls, dealer)
    width = judged.problem.shape[1]
    assert judged.problem[row].tolist() == walked.problems + [LEGAL] * (width - len(calls))
    judged_calls = len(calls) if walked.end < 0 else min(walked.end + 2, len(calls))  # to the first after the end
    assert judged.last_bid[row, :judged_calls].tolist() == walked.last_bids[:judged_calls]
    assert (int(judged.end[row]), bool(judged.complete[row])) == (walked.end, walked.end >= 0)
    wrong = [place for place, problem in enumerate(walked.problems) if problem != LEGAL]
    assert int(judged.first_problem[row]) == (wrong[0] if wrong else -1)
    assert int(judged.calls[row]) == len(calls)
    found = (int(judged.bid[row]), int(judged.doubling[row]), int(judged.declarer[row]))
    assert found == (walked.contract or (-1, 0, -1))


@st.composite
def call_sequences(draw: st.DrawFn) -> list[str]:
    """Call sequences of every kind: mostly rising bids, doubles and redoubles anywhere, any call
    at all now and then (an insufficient bid, a bid after the end), passes in runs of every length."""
    calls: list[str] = []
    number = -1
    for _ in range(draw(st.integers(0, 10))):
        kind = draw(st.sampled_from(["rise", "rise", "passes", "passes", "X", "XX", "any"]))
        if kind == "rise" and number < len(BIDS) - 1:
            number = draw(st.integers(number + 1, min(number + 6, len(BIDS) - 1)))
            calls.append(BIDS[number])
        elif kind == "passes":
            calls += [PASS] * draw(st.integers(1, 4))
        elif kind == "any":
            calls.append(draw(st.sampled_from(CALL_NAMES)))
        else:
            calls.append(DOUBLE if kind == "X" else REDOUBLE)
    return calls + [PASS] * draw(st.integers(0, 4))


@settings(max_examples=examples(1500), deadline=None)
@given(call_sequences(), st.integers(0, 3))
def test_each_call_and_each_auction_as_the_laws_walked_one_call_at_a_time(calls: list[str], dealer: int) -> None:
    assert_judged(judge_auctions(table([calls]), np.array([dealer])), 0, calls, dealer)


@settings(max_examples=examples(150), deadline=None)
@given(st.lists(st.tuples(call_sequences(), st.integers(0, 3)), min_size=1, max_size=40))
def test_a_batch_judges_each_auction_as_if_it_were_alone(games: list[tuple[list[str], int]]) -> None:
    judged = judge_auctions(table([calls for calls, _ in games]), np.array([dealer for _, dealer in games]))
    for row, (calls, dealer) in enumerate(games):
        assert_judged(judged, row, calls, dealer)


def judge_one(calls: list[str], dealer: int = 0) -> Auctions:
    return judge_auctions(table([calls]), np.array([dealer]))


@pytest.mark.parametrize(("calls", "place", "problem"), [
    (["1H", "1D"], 1, INSUFFICIENT),
    (["1NT", PASS, "1NT"], 2, INSUFFICIENT),                           # the same bid again
    (["1C", PASS, DOUBLE], 2, BAD_DOUBLE),                             # partner's bid
    ([DOUBLE], 0, BAD_DOUBLE),                                          # no bid yet
    (["1C", DOUBLE, PASS, DOUBLE], 3, BAD_DOUBLE),                      # a bid already doubled
    (["1C", DOUBLE, REDOUBLE, DOUBLE], 3, BAD_DOUBLE),                  # a bid already redoubled
    (["1C", REDOUBLE], 1, BAD_REDOUBLE),                                # no double
    (["1C", DOUBLE, PASS, REDOUBLE], 3, BAD_REDOUBLE),                  # the doubler's partner
    (["1C", DOUBLE, REDOUBLE, PASS, PASS, REDOUBLE], 5, BAD_REDOUBLE),  # a redouble again
    (["1C", PASS, PASS, PASS, "1D"], 4, AFTER_END),
    ([PASS] * 5, 4, AFTER_END),
])
def test_the_first_broken_rule_is_named_at_its_call(calls: list[str], place: int, problem: int) -> None:
    judged = judge_one(calls)
    assert (int(judged.first_problem[0]), int(judged.problem[0, place])) == (place, problem)


def test_legal_doubles_and_redoubles() -> None:
    judged = judge_one(["1C", DOUBLE, REDOUBLE, "1S", PASS, PASS, DOUBLE, PASS, PASS, PASS])
    assert judged.problem[0].tolist() == [LEGAL] * 10
    assert (CALL_NAMES[judged.bid[0]], int(judged.doubling[0]), int(judged.declarer[0])) == ("1S", 1, 3)


def test_a_double_of_partners_bid_leaves_no_redouble_to_the_other_side() -> None:
    judged = judge_one(["1C", PASS, DOUBLE, REDOUBLE, PASS, PASS, PASS])
    assert judged.problem[0].tolist() == [LEGAL, LEGAL, BAD_DOUBLE, BAD_REDOUBLE, LEGAL, LEGAL, LEGAL]
    assert (CALL_NAMES[judged.bid[0]], int(judged.doubling[0])) == ("1C", 2)


def test_every_call_after_the_end_is_one_too_many_whatever_else_it_breaks() -> None:
    judged = judge_one(["1S", PASS, PASS, PASS, "1C", DOUBLE])  # 1C is insufficient too, X of nothing new
    assert judged.problem[0].tolist() == [LEGAL] * 4 + [AFTER_END] * 2
    assert (bool(judged.complete[0]), int(judged.end[0]), CALL_NAMES[judged.bid[0]]) == (True, 3, "1S")


def test_illegal_calls_still_count_for_the_rest_of_the_auction() -> None:
    # An insufficient 1C is the last bid that 1D must outrank; the auction still ends, in 1D.
    judged = judge_one(["1H", "1C", "1D", PASS, PASS, PASS], dealer=2)
    assert judged.problem[0].tolist() == [LEGAL, INSUFFICIENT, LEGAL, LEGAL, LEGAL, LEGAL]
    assert judged.last_bid[0].tolist() == [-1, CALL_NAMES.index("1H"), CALL_NAMES.index("1C"),
                                           CALL_NAMES.index("1D"), CALL_NAMES.index("1D"), CALL_NAMES.index("1D")]
    assert (bool(judged.complete[0]), int(judged.end[0]), CALL_NAMES[judged.bid[0]], int(judged.declarer[0])) == (
        True, 5, "1D", 0)  # South deals, so 1D (place 2) is North's


def test_passed_out_and_incomplete() -> None:
    passed = judge_one([PASS] * 4)
    assert (bool(passed.complete[0]), int(passed.end[0]), int(passed.bid[0]), int(passed.declarer[0])) == (
        True, 3, -1, -1)
    for calls in ([PASS] * 3, ["1C", PASS, PASS], ["1C", DOUBLE, PASS, PASS], [DOUBLE, PASS, PASS, PASS], []):
        judged = judge_one(calls)
        assert (bool(judged.complete[0]), int(judged.end[0]), int(judged.bid[0]), int(judged.declarer[0])) == (
            False, -1, -1, -1), calls


def test_four_passes_end_an_auction_without_a_bid_even_after_an_illegal_double() -> None:
    judged = judge_one([DOUBLE, PASS, PASS, PASS, PASS])
    assert (int(judged.end[0]), int(judged.bid[0]), judged.problem[0].tolist()) == (4, -1, [BAD_DOUBLE] + [LEGAL] * 4)


@pytest.mark.parametrize(("calls", "dealer", "declarer"), [
    ([PASS, PASS, "1H", PASS, "4H", PASS, PASS, PASS], 3, 1),          # West deals, East opens 1H, West raises
    (["1S", PASS, "2H", PASS, "3H", PASS, "4S", PASS, PASS, PASS], 0, 0),  # spades first named by North
    (["1H", "2C", "3H", PASS, PASS, PASS], 1, 1),                       # East opened hearts, West bid last
    (["1H", "2H", PASS, "3H", PASS, PASS, PASS], 0, 1),                # North's hearts are the other side's
])
def test_declarer_is_the_first_of_the_side_to_name_the_final_strain(calls: list[str], dealer: int,
                                                                     declarer: int) -> None:
    assert int(judge_one(calls, dealer).declarer[0]) == declarer


def test_long_auctions_need_wider_keys() -> None:
    calls = [PASS, PASS, PASS] + ["1C", DOUBLE, REDOUBLE] * 60 + [PASS, PASS, PASS]  # 186 calls: 1C over 1C ...
    judged = judge_one(calls)
    assert_judged(judged, 0, calls, 0)
    assert int(judged.first_problem[0]) == 6 and int(judged.end[0]) == len(calls) - 1


@pytest.mark.parametrize(("calls", "reason"), [
    (["1C", "1D", "1C", PASS, PASS, PASS], "insufficient"),
    (["1C", PASS, DOUBLE, PASS, PASS, PASS], "double"),
    (["1C", DOUBLE, REDOUBLE, PASS, PASS, REDOUBLE, PASS, PASS, PASS], "redouble"),
    (["1C", PASS, PASS], "not complete"),
    (["1C", PASS, PASS, PASS, PASS], "after the end"),
    ([PASS] * 5, "after the end"),
])
def test_the_fast_paths_decline_any_problem_naming_it(calls: list[str], reason: str) -> None:
    with pytest.raises(Declined, match=reason):
        read_auctions(table([["1C", PASS, PASS, PASS], calls]), np.array([0, 1]))


def test_the_fast_paths_take_legal_complete_auctions_and_no_auction() -> None:
    found = read_auctions(table([[PASS, PASS, "1H", PASS, "4H", PASS, PASS, PASS], []]), np.array([3, 0]))
    assert (found.bid.tolist(), found.declarer.tolist(), found.doubling.tolist(), found.calls.tolist()) == (
        [CALL_NAMES.index("4H"), -1], [1, -1], [0, 0], [8, 0])
