"""Play for the vectorised LIN reader: every board's cards put in the shared play engine's table
(`parsers.bridge.play_arrays`), replayed at once, and the tricks counted and claims checked.

LIN lists the cards in played order and the deal says who holds each: each trick's first card goes
to its holder's column and the others follow round the table, and that column is named as the
trick's leader. The engine then checks every card against the hand of its column's seat, and says
whose lead each trick was: "the winner of a trick leads the next one" becomes a comparison between
that and the holder of each trick's first card.
"""

from __future__ import annotations

import numpy as np

from parsers.bridge import play_arrays
from parsers.bridge.play import claim_fits
from parsers.bridge.play_arrays import Play, by_column, dealt_by_column, require_lawful
from parsers.lin.fast_bytes import Bools, Ints, require

_TRUMP_SUIT = np.array([3, 2, 1, 0, -1], dtype=np.int8)  # strain C, D, H, S, NT -> suit number (-1: none)


def trump_suits(bid: Ints) -> Ints:
    """Trump suit number of each final bid (-1 at notrump or without a contract)."""
    return np.where(bid >= 0, _TRUMP_SUIT[bid % 5], -1)


def replay(cards: Ints, holder: Ints, declarer: Ints, trump: Ints) -> Play:
    """Check the play of every board (rows of 52 card numbers in played order, -1 padded) against
    its deal (`holder`: the seat of each card), and count tricks (`parsers.bridge.play_arrays`).

    Declines on a card played twice, by a player who does not hold it or out of turn (each trick is
    led by the winner of the one before), and on a failure to follow suit (the careful reader
    reports a revoke as a warning).
    """
    opening = ((declarer + 1) & 3).astype(np.int64)
    table, first = by_column(cards, holder, opening)
    dealt = dealt_by_column(holder, opening)
    play = play_arrays.replay(table, dealt, trump, leads=first)
    require_lawful(play, table, dealt)
    require(bool(((first < 0) | (first == play.rightful)).all()),
            "a trick led by a player who did not win the trick before")
    return play


def declarer_tricks(contract: Bools, tricks: Play, claim: Ints) -> Ints:
    """Tricks taken by declarer (-1 where there is no contract), exactly as `parsers.lin.records` settles them.

    All 13 tricks played: the play counts, and a claim (`mc`) must agree with it. Otherwise a claim
    must be consistent with the tricks already won and still to play. Declines on cards or a claim
    without a contract, on a contract with neither complete play nor a claim, and on a bad claim.
    """
    claimed, full = claim >= 0, tricks.cards == 52
    require(bool((contract | ((tricks.cards == 0) & ~claimed)).all()), "cards or a claim without a contract")
    require(bool((~contract | full | claimed).all()), "the play stops without a claim")
    require(bool((~(full & claimed) | (claim == tricks.won)).all()), "a claim that differs from the play")
    # (This also refuses a claim of more than 13 tricks.)
    require(bool((~claimed | full | claim_fits(claim, tricks.won, tricks.complete)).all()), "an impossible claim")
    return np.where(contract, np.where(full, tricks.won, claim), -1)
