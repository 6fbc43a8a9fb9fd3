"""Shared fixtures for the LIN and USEBIO reader tests: where the corpus is, and record helpers."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import strategies as st
from pydantic import BaseModel

from models.cards import RANKS, SUITS, Card, Deal, Hand, Seat
from models.contract import Strain
from parsers.bridge.calls import BIDS

CORPUS = Path(__file__).resolve().parents[3] / "shared" / "corpus"
"""The shared corpus (read in place, never copied into the repository)."""


@pytest.fixture(scope="session")
def corpus() -> Path:
    """Path of the shared corpus; the tests fail (not skip) when it is missing."""
    assert CORPUS.is_dir(), f"corpus not found at {CORPUS}"
    return CORPUS


def without_position(record: BaseModel) -> dict[str, Any]:
    """A record's fields minus where it was found (round trips move records around)."""
    data = record.model_dump()
    data.pop("at", None)
    return data


# -- random deals and play, and an independent trick count -----------------------------------------

_ORDER = "23456789TJQKA"
_CLOCKWISE = (Seat.N, Seat.E, Seat.S, Seat.W)


def deal_from_permutation(order: list[int]) -> Deal:
    """Deal 52 cards (a permutation of 0..51) thirteen to each of N, E, S, W."""
    cards = [Card(suit=SUITS[i // 13], rank=RANKS[i % 13]) for i in order]
    return Deal.from_hands({seat: Hand.from_cards(cards[13 * k:13 * k + 13]) for k, seat in enumerate(_CLOCKWISE)})


def holder_of(deal: Deal) -> dict[str, Seat]:
    """Card code -> seat holding it."""
    return {str(card): seat for seat in _CLOCKWISE if (hand := deal.hand(seat)) for card in hand.cards()}


def independent_tricks(deal: Deal, play: list[Card], declarer: Seat, strain: Strain | None) -> int:
    """Declarer's tricks among the complete tricks, counted from scratch.

    Unlike the readers this does not rotate seats: each trick's winner is whoever holds the winning
    card in the deal (highest trump, else highest card of the suit of the trick's first card).
    """
    holder = holder_of(deal)
    trump = None if strain in (None, Strain.NT) else strain.value
    won = 0
    for t in range(len(play) // 4):
        trick = play[4 * t:4 * t + 4]
        trumps = [c for c in trick if c.suit.value == trump]
        candidates = trumps or [c for c in trick if c.suit == trick[0].suit]
        best = max(candidates, key=lambda c: _ORDER.index(c.rank))
        won += holder[str(best)].side == declarer.side
    return won


def legal_play(deal: Deal, declarer: Seat, strain: Strain | None, rng: random.Random, cards: int = 52) -> list[Card]:
    """A random play that follows suit, from declarer's left-hand opponent's lead."""
    hands = {seat: list(hand.cards()) for seat in _CLOCKWISE if (hand := deal.hand(seat))}
    trump = None if strain in (None, Strain.NT) else strain.value
    leader, play = declarer.next(), list[Card]()
    while len(play) < cards:
        trick: list[tuple[Seat, Card]] = []
        for i in range(4):
            seat = leader.next(i)
            follow = [c for c in hands[seat] if trick and c.suit == trick[0][1].suit]
            card = rng.choice(follow or hands[seat])
            hands[seat].remove(card)
            trick.append((seat, card))
            play.append(card)
            if len(play) == cards:
                return play
        led = trick[0][1].suit
        leader = max(trick, key=lambda sc: (sc[1].suit.value == trump, sc[1].suit == led,
                                            _ORDER.index(sc[1].rank)))[0]
    return play


def expected_declarer(calls: list[str], dealer: Seat) -> Seat | None:
    """Declarer by the book: of the side that made the last bid, who first named its strain."""
    bids = [(i, call) for i, call in enumerate(calls) if call not in ("Pass", "X", "XX")]
    if not bids:
        return None
    last_index, last_bid = bids[-1]
    for i, call in bids:
        if (i - last_index) % 2 == 0 and call[1:] == last_bid[1:]:
            return dealer.next(i)
    raise AssertionError("unreachable")


@st.composite
def auctions(draw: st.DrawFn) -> list[str]:
    """A legal auction: passes, rising bids, doubles and redoubles where allowed, three passes to end."""
    calls = ["Pass"] * draw(st.integers(0, 3))
    if draw(st.integers(0, 9)) == 0:
        return ["Pass"] * 4
    rank = -1
    for n in range(draw(st.integers(1, 4))):
        if rank == 34:
            break
        if n:
            calls += ["Pass"] * draw(st.integers(0, 2))
        rank = draw(st.integers(rank + 1, min(rank + 8, 34)))
        calls.append(BIDS[rank])
        style = draw(st.integers(0, 5))
        if style == 0:
            calls += ["X"] + (["XX"] if draw(st.booleans()) else [])
        elif style == 1:
            calls += ["Pass", "Pass", "X"] + (["XX"] if draw(st.booleans()) else [])
    return calls + ["Pass"] * 3
