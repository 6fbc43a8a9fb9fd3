"""The fast paths' auction rules over arrays (`parsers.bridge.auction_arrays`) against the bridge
engine's own walk of an auction (`parsers.bridge.auction.summarise_auction`): the same auctions are
accepted, with the same contract and declarer, and every other auction is declined."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from models.cards import Seat
from models.contract import Doubling
from parsers.bridge.auction import summarise_auction
from parsers.bridge.auction_arrays import CALL_NAMES, PASS_CALL, read_auctions
from parsers.bridge.calls import BIDS, PASS
from parsers.bridge.cards import SEATS
from parsers.declined import Declined

_DOUBLING = {Doubling.NONE: 0, Doubling.X: 1, Doubling.XX: 2}


def table(auctions: list[list[str]]) -> np.ndarray:
    """Call numbers, one auction a row, padded with -1 (as both fast paths build them)."""
    width = max([len(calls) for calls in auctions] + [1])
    rows = np.full((len(auctions), width), -1, dtype=np.int8)
    for row, calls in enumerate(auctions):
        rows[row, :len(calls)] = [CALL_NAMES.index(call) for call in calls]
    return rows


@st.composite
def auctions(draw: st.DrawFn) -> list[str]:
    """Mostly plausible auctions: rising bids, doubles and redoubles anywhere, then the passes that
    end them (or one too few, or one too many)."""
    calls: list[str] = []
    rank = -1
    for _ in range(draw(st.integers(0, 8))):
        kind = draw(st.sampled_from(["bid", "bid", "pass", "X", "XX", "low"]))
        if kind == "bid" and rank < len(BIDS) - 1:
            rank = draw(st.integers(rank + 1, min(rank + 6, len(BIDS) - 1)))
            calls.append(BIDS[rank])
        elif kind == "low":
            calls.append(BIDS[draw(st.integers(0, max(rank, 0)))])
        else:
            calls.append({"pass": PASS, "X": "X", "XX": "XX"}.get(kind, PASS))
    ending = 3 if any(call in BIDS for call in calls) else 4
    calls += [PASS] * (ending + draw(st.sampled_from([0, 0, 0, -1, 1])))
    return calls


@settings(max_examples=600, deadline=None)
@given(auctions(), st.sampled_from(SEATS))
def test_an_auction_is_taken_exactly_when_the_engine_finds_it_complete_and_legal(calls: list[str],
                                                                                  dealer: Seat) -> None:
    summary = summarise_auction(calls, dealer)
    rows = table([calls])
    if summary.contract is None:
        with pytest.raises(Declined):
            read_auctions(rows, np.array([SEATS.index(dealer)]))
        return
    found = read_auctions(rows, np.array([SEATS.index(dealer)]))
    contract = summary.contract
    if contract.level == 0:
        assert (found.bid[0], found.declarer[0]) == (-1, -1)
    else:
        assert CALL_NAMES[found.bid[0]] == f"{contract.level}{contract.strain}"
        assert SEATS[found.declarer[0]] == contract.declarer
        assert found.doubling[0] == _DOUBLING[contract.doubling]
    assert found.calls[0] == len(calls)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(auctions(), st.sampled_from(SEATS)), min_size=1, max_size=30))
def test_a_file_of_auctions_gives_each_its_own_contract(games: list[tuple[list[str], Seat]]) -> None:
    legal = [(calls, dealer) for calls, dealer in games if summarise_auction(calls, dealer).contract is not None]
    if not legal:
        return
    together = read_auctions(table([calls for calls, _ in legal]), np.array([SEATS.index(d) for _, d in legal]))
    for row, (calls, dealer) in enumerate(legal):
        alone = read_auctions(table([calls]), np.array([SEATS.index(dealer)]))
        assert (together.bid[row], together.doubling[row], together.declarer[row], together.calls[row]) == (
            alone.bid[0], alone.doubling[0], alone.declarer[0], alone.calls[0])


@pytest.mark.parametrize(("calls", "reason"), [
    (["1C", "1D", "1C", PASS, PASS, PASS], "insufficient"),
    (["1C", PASS, "X", PASS, PASS, PASS], "double"),  # of partner's bid
    (["1C", "X", PASS, "X", PASS, PASS, PASS], "double"),  # of a bid already doubled
    ([PASS, "X", PASS, PASS, PASS], "double"),  # of no bid
    (["1C", "X", "XX", PASS, PASS, "XX", PASS, PASS, PASS], "redouble"),  # of a redouble
    (["1C", "X", "XX", "XX", PASS, PASS, PASS], "redouble"),
    (["1C", PASS, PASS], "not complete"),
    (["1C", PASS, PASS, PASS, PASS], "after the end"),
    ([PASS] * 5, "after the end"),
])
def test_each_broken_rule_is_named(calls: list[str], reason: str) -> None:
    with pytest.raises(Declined, match=reason):
        read_auctions(table([calls]), np.array([0]))


def test_declarer_is_the_first_of_the_side_to_name_the_strain() -> None:
    # West deals; East opens 1H, West raises to 4H: East (first to name hearts) declares.
    found = read_auctions(table([[PASS, PASS, "1H", PASS, "4H", PASS, PASS, PASS]]), np.array([3]))
    assert (CALL_NAMES[found.bid[0]], SEATS[found.declarer[0]], found.doubling[0]) == ("4H", Seat.E, 0)
    assert CALL_NAMES.index(PASS) == PASS_CALL


def test_no_calls_is_no_auction_and_no_contract() -> None:
    found = read_auctions(np.full((2, 1), -1, dtype=np.int8), np.array([0, 1]))
    assert found.calls.tolist() == [0, 0] and found.bid.tolist() == [-1, -1] and found.declarer.tolist() == [-1, -1]
