"""The fast paths' use of the play rules over arrays (`parsers.bridge.play_arrays`), against a plain
walk of the Laws (`_laws_of_play`): the same plays are accepted, with the same tricks, and every
other play is declined. Plays are taken both as LIN gives them (cards in played order) and as PBN
writes them (each trick's cards by seat from the opening leader)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from parsers.bridge.cards import SUITS
from parsers.bridge.play_arrays import (
    CARD_NAMES,
    NO_TRUMP,
    by_column,
    dealt_by_column,
    played_order,
    replay,
    require_lawful,
)
from parsers.declined import Declined
from parsers.lin import fast_play
from tests.conftest import examples

from ._laws_of_play import lin_walk


def _suit(card: int) -> int:
    return card // 13


_FAULTS = ("revoke", "other hand", "again", "wrong leader")


@st.composite
def deals_and_plays(draw: st.DrawFn) -> tuple[list[int], int, int, list[int]]:
    """A deal (the seat holding each card), declarer, the trump suit number (4: notrump) and a play:
    mostly legal, trick by trick from declarer's left, with now and then a revoke, a card of
    another hand, a card played again or a trick led by the wrong player; stopping anywhere.
    (Drawn from one seeded generator: a play is some fifty choices, too many to draw one by one.)"""
    rng = draw(st.randoms(use_true_random=False))
    deal = list(range(52))
    rng.shuffle(deal)
    holder = [0] * 52
    for place, card in enumerate(deal):
        holder[card] = place // 13
    declarer, trump, length = rng.randrange(4), rng.randrange(5), rng.randrange(53)
    fault_rate = rng.choice([0.0, 0.0, 0.01, 0.03])
    hands = [sorted(c for c in range(52) if holder[c] == seat) for seat in range(4)]
    played: list[int] = []
    leader = (declarer + 1) & 3
    while len(played) < length:
        trick: list[int] = []
        for place in range(min(4, length - len(played))):
            seat = (leader + place) & 3
            hand, others = hands[seat], [c for s in range(4) if s != seat for c in hands[s]]
            fault = rng.choice(_FAULTS) if rng.random() < fault_rate * 4 else "none"
            led = [c for c in hand if trick and _suit(c) == _suit(trick[0])]
            if fault == "revoke" and led and len(led) < len(hand):
                card = rng.choice([c for c in hand if c not in led])
            elif fault == "other hand" and others:
                card = rng.choice(others)
            elif fault == "again" and played:
                card = rng.choice(played)
            elif fault == "wrong leader" and place == 0 and hands[(seat + 1) & 3]:
                card = rng.choice(hands[(seat + 1) & 3])
            elif led or hand:
                card = rng.choice(led or hand)
            else:
                return holder, declarer, trump, played + trick  # (a fault emptied this hand early)
            for other in hands:
                if card in other:
                    other.remove(card)
            trick.append(card)
        played += trick
        if len(trick) == 4:
            leader = (leader + _winner(trick, trump)) & 3
    return holder, declarer, trump, played


def _winner(trick: list[int], trump: int) -> int:
    """Place in the trick of its winning card (suit letters and ranks as numbers: ace is 0)."""
    def strength(card: int) -> tuple[int, int]:
        return (2 if _suit(card) == trump else 1 if _suit(card) == _suit(trick[0]) else 0, -card)
    return max(range(len(trick)), key=lambda place: strength(trick[place]))


def _engine(holder: list[int], declarer: int, trump: int, played: list[int]) -> tuple[int, int] | None:
    """The Laws' (won, complete) of the play, or None when a walk of them finds anything wrong."""
    hands = [{CARD_NAMES[card] for card in range(52) if holder[card] == seat} for seat in range(4)]
    won, complete, problems = lin_walk([CARD_NAMES[card] for card in played], declarer,
                                       SUITS[trump] if trump < 4 else None, hands)
    return None if problems else (won, complete)


def _row(played: list[int]) -> np.ndarray:
    row = np.full((1, 52), -1, dtype=np.int8)
    row[0, :len(played)] = played
    return row


@settings(max_examples=examples(800), deadline=None)
@given(deals_and_plays())
def test_a_play_in_played_order_is_taken_exactly_when_the_engine_finds_nothing_wrong(
        case: tuple[list[int], int, int, list[int]]) -> None:
    holder, declarer, trump, played = case
    expected = _engine(holder, declarer, trump, played)
    arguments = (_row(played), np.array([holder], dtype=np.int8), np.array([declarer]), np.array([trump]))
    if expected is None:
        with pytest.raises(Declined):
            fast_play.replay(*arguments)
        return
    play = fast_play.replay(*arguments)
    assert (int(play.won[0]), int(play.complete[0])) == expected
    assert int(play.cards[0]) == len(played)


@settings(max_examples=examples(400), deadline=None)
@given(deals_and_plays())
def test_a_play_written_by_seat_is_replayed_into_the_order_it_was_played(
        case: tuple[list[int], int, int, list[int]]) -> None:
    holder, declarer, trump, played = case
    whole = played[:len(played) // 4 * 4]
    expected = _engine(holder, declarer, trump, whole)
    if expected is None:
        return  # (the seat table of a play out of turn is not what PBN can write)
    opening = np.array([(declarer + 1) & 3])
    holders = np.array([holder], dtype=np.int8)
    table, _ = by_column(_row(whole), holders, opening)
    dealt = dealt_by_column(holders, opening)
    play = replay(table, dealt, np.array([trump]))
    require_lawful(play, table, dealt)
    assert (int(play.won[0]), int(play.complete[0])) == expected
    assert played_order(table, play.leaders)[0, :len(whole)].tolist() == whole


def test_many_boards_at_once_give_each_board_its_own_tricks() -> None:
    """Rows are independent: a file of plays gives each the tricks it gets alone."""
    rng = np.random.default_rng(7)
    boards = []
    for _ in range(40):
        holder = rng.permutation(np.repeat(np.arange(4), 13)).tolist()
        declarer, trump = int(rng.integers(4)), int(rng.integers(5))
        boards.append((holder, declarer, trump, _legal_play(holder, declarer, trump, int(rng.integers(53)), rng)))
    alone = [fast_play.replay(_row(p), np.array([h], dtype=np.int8), np.array([d]), np.array([t]))
             for h, d, t, p in boards]
    together = fast_play.replay(np.concatenate([_row(p) for *_, p in boards]),
                                np.array([h for h, *_ in boards], dtype=np.int8),
                                np.array([d for _, d, _, _ in boards]), np.array([t for _, _, t, _ in boards]))
    assert together.won.tolist() == [int(p.won[0]) for p in alone]
    assert together.complete.tolist() == [int(p.complete[0]) for p in alone]
    assert [_engine(*board) for board in boards] == list(zip(together.won.tolist(), together.complete.tolist(),
                                                            strict=True))


def _legal_play(holder: list[int], declarer: int, trump: int, length: int, rng: np.random.Generator) -> list[int]:
    hands = [[c for c in range(52) if holder[c] == seat] for seat in range(4)]
    played: list[int] = []
    leader = (declarer + 1) & 3
    while len(played) < length:
        trick: list[int] = []
        for place in range(min(4, length - len(played))):
            hand = hands[(leader + place) & 3]
            options = [c for c in hand if trick and _suit(c) == _suit(trick[0])] or hand
            card = int(options[rng.integers(len(options))])
            hand.remove(card)
            trick.append(card)
        played += trick
        if len(trick) == 4:
            leader = (leader + _winner(trick, trump)) & 3
    return played


_SUITED = np.repeat(np.arange(4), 13)[None, :].astype(np.int8)
"""North holds the spades, East the hearts, South the diamonds, West the clubs."""
_SWAPPED = _SUITED.copy()
_SWAPPED[0, 12], _SWAPPED[0, 51] = 3, 0
"""The same, but North holds the club two and West the spade two."""


@pytest.mark.parametrize(("holder", "trick", "reason"), [
    (_SWAPPED, [12, 51, 13, 26], "a revoke"),  # West leads the spade two; North, with spades, plays the club two
    (_SUITED, [39, 0, 13, 26, 39, 1, 14, 27], "a card played twice"),  # West wins the club ace and leads it again
    (_SUITED, [39, 0, 13, 51], "a card played by a seat that was not dealt it"),  # South plays the club two
])
def test_each_broken_rule_is_named(holder: np.ndarray, trick: list[int], reason: str) -> None:
    # Declarer South, so West leads: a PBN trick row from West round the table.
    table = np.full((1, 13, 4), -1, dtype=np.int8)
    table[0, :len(trick) // 4] = np.reshape(trick, (-1, 4))
    opening = np.array([3])
    dealt = dealt_by_column(holder, opening)
    with pytest.raises(Declined, match=reason):
        require_lawful(replay(table, dealt, np.array([NO_TRUMP])), table, dealt)


def test_discarding_without_the_suit_led_is_no_revoke() -> None:
    table = np.full((1, 13, 4), -1, dtype=np.int8)
    table[0, 0] = [39, 0, 13, 26]  # West leads the club ace; nobody else has a club
    play = replay(table, dealt_by_column(_SUITED, np.array([3])), np.array([NO_TRUMP]))
    assert (play.won.tolist(), play.complete.tolist(), play.leaders[0, :2].tolist()) == ([0], [1], [0, 0])


def test_a_trick_led_by_the_wrong_player_is_declined() -> None:
    # West leads the club ace and wins; North then leads a spade, which was West's lead to make.
    played = _row([39, 0, 13, 26, 1, 14, 27, 40])
    with pytest.raises(Declined, match="did not win the trick before"):
        fast_play.replay(played, _SUITED, np.array([2]), np.array([-1]))
