"""Play for the vectorised LIN reader: every card of every board checked at once, and the tricks counted.

The careful reader replays each board trick by trick (`parsers.auction.replay_masks`). Here the
sequence is unnecessary: the deal says who holds each card, so every trick's winner is known from
its four cards alone, and "the winner of a trick leads the next one" becomes a comparison between
each trick's leader and the previous trick's winner. A card is then legal when the player due to
play it (leader + place in the trick) holds it, it has not been played before, and the player
follows suit unless they have no card of the suit led left at that moment.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from parsers.lin_fast_lex import Bools, Ints, require

_TRUMP_SUIT = np.array([3, 2, 1, 0, -1], dtype=np.int8)  # strain C, D, H, S, NT -> suit number (-1: none)
_TURN = np.tile(np.arange(4, dtype=np.int8), 13)  # place of each card in its trick
# Per card number, with one more entry at index -1 so that padding (-1) reads something harmless.
_SUIT_OF_CARD = np.append(np.arange(52) // 13, -1).astype(np.int8)
_RANK_STRENGTH = np.append(12 - np.arange(52) % 13, 0).astype(np.int8)  # A=12 ... 2=0
_WHEN = np.arange(52, dtype=np.int8)


def trump_suits(bid: Ints) -> Ints:
    """Trump suit number of each final bid (-1 at notrump or without a contract)."""
    return np.where(bid >= 0, _TRUMP_SUIT[bid % 5], -1)


@dataclass(frozen=True)
class Tricks:
    """What the play of every board established."""

    won: Ints
    """Tricks won by declarer's side among the complete tricks."""
    complete: Ints
    """Complete tricks (four cards)."""
    cards: Ints
    """Cards played."""


def replay(cards: Ints, holder: Ints, declarer: Ints, trump: Ints) -> Tricks:
    """Check the play of every board (rows of 52 card numbers, -1 padded) against its deal, and count tricks.

    Declines on a card played twice, by a player who does not hold it or out of turn, and on a
    failure to follow suit (the careful reader reports a revoke as a warning).
    """
    boards = cards.shape[0]
    played = cards >= 0
    everything = bool(played.all())  # the common case: no claim, so no padding to mask out
    # Flat index of each played card in (board, card) tables such as `holder`, and its place in the play.
    at = np.arange(boards)[:, None] * 52 + np.where(played, cards, 0)
    if everything:
        at, places = at.ravel(), np.tile(_WHEN, boards)
    else:
        at, places = at[played], np.broadcast_to(_WHEN, cards.shape)[played]
    when = np.full(boards * 52, 52, dtype=np.int8)  # when each card is played; 52: never (still held)
    when[at] = places
    require(bool((when[at] == places).all()), "a card played twice")  # such a card keeps only one place
    seat = np.full(cards.shape, -1, dtype=np.int8)
    seat[played] = holder.ravel()[at]
    suit = _SUIT_OF_CARD[cards]
    led = np.repeat(suit[:, ::4], 4, axis=1)  # the suit of each trick's first card, at each of its places
    winner = _winners(cards, played, seat, suit == trump[:, None], suit == led)
    leader = np.concatenate([((declarer + 1) & 3).astype(np.int8)[:, None], winner[:, :-1]], axis=1)
    due = (np.repeat(leader, 4, axis=1) + _TURN) & 3
    require(bool((~played | (seat == due)).all()), "a card played by a player who does not hold it, or out of turn")
    off_suit = np.flatnonzero(played & (suit != led))
    require(not _revoked(when, holder, off_suit, seat.ravel()[off_suit], led.ravel()[off_suit]), "a revoke")
    count = played.sum(axis=1)
    complete = count // 4
    ours = ((winner & 1) == (declarer & 1)[:, None]) & (np.arange(13) < complete[:, None])
    return Tricks(won=ours.sum(axis=1), complete=complete, cards=count)


def _winners(cards: Ints, played: Bools, seat: Ints, trumps: Bools, follows: Bools) -> Ints:
    """(boards, 13): the seat of each trick's winning card.

    Trumps beat the suit led, which beats discards, then rank: the order of `parsers.auction`'s
    weights. The seat rides in the two low bits of the strength, so the strongest of the four
    places also names its player; an unplayed place (seat -1) has key -1 and never wins.
    """
    strength = (trumps.astype(np.int16) << 5) + (follows.astype(np.int16) << 4) + _RANK_STRENGTH[cards] + 1
    key = (strength * played << 2 | seat).reshape(-1, 13, 4)
    best = np.maximum(np.maximum(key[:, :, 0], key[:, :, 1]), np.maximum(key[:, :, 2], key[:, :, 3]))
    winner: Ints = (best & 3).astype(np.int8)
    return winner


def _revoked(when: Ints, holder: Ints, off_suit: Ints, seat: Ints, led: Ints) -> bool:
    """Whether a player who did not follow suit still held a card of the suit led at that moment.

    `when` is (board, card) flat; `off_suit` are the flat (board, place) positions of cards not of
    the suit led, with the `seat` that played each and the `led` suit.
    """
    boards = holder.shape[0]
    # The last moment each seat holds a card of each suit, at 16 * board + 4 * seat + suit.
    latest = np.full(boards * 16, -1, dtype=np.int8)
    np.maximum.at(latest, (np.arange(boards)[:, None] * 16 + (holder << 2 | _SUIT_OF_CARD[:52])).ravel(), when)
    board, place = np.divmod(off_suit, 52)
    return bool((latest[board * 16 + (seat << 2 | led)] > place).any())


def declarer_tricks(contract: Bools, tricks: Tricks, claim: Ints) -> Ints:
    """Tricks taken by declarer (-1 where there is no contract), exactly as `parsers.lin_board` settles them.

    All 13 tricks played: the play counts, and a claim (`mc`) must agree with it. Otherwise a claim
    must be consistent with the tricks already won and still to play. Declines on cards or a claim
    without a contract, on a contract with neither complete play nor a claim, and on a bad claim.
    """
    claimed, full = claim >= 0, tricks.cards == 52
    require(bool((contract | ((tricks.cards == 0) & ~claimed)).all()), "cards or a claim without a contract")
    require(bool((~contract | full | claimed).all()), "the play stops without a claim")
    require(bool((~(full & claimed) | (claim == tricks.won)).all()), "a claim that differs from the play")
    # (This also refuses a claim of more than 13 tricks.)
    possible = (tricks.won <= claim) & (claim <= tricks.won + 13 - tricks.complete)
    require(bool((~claimed | full | possible).all()), "an impossible claim")
    return np.where(contract, np.where(full, tricks.won, claim), -1)
