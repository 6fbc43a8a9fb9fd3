"""Play for the vectorised LIN reader: every card of every board checked at once, and the tricks counted.

The careful reader replays each board trick by trick (`parsers.bridge.play.replay_masks`). Here the
sequence is unnecessary: the deal says who holds each card, so every trick's winner is known from
its four cards alone, and "the winner of a trick leads the next one" becomes a comparison between
each trick's leader and the previous trick's winner. A card is then legal when the player due to
play it (leader + place in the trick) holds it, it has not been played before, and the player
follows suit unless they have no card of the suit led left at that moment.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from parsers.lin.fast_bytes import Bools, Ints, require

_TRUMP_SUIT = np.array([3, 2, 1, 0, -1], dtype=np.int8)  # strain C, D, H, S, NT -> suit number (-1: none)
_TURN = np.tile(np.arange(4, dtype=np.int8), 13)  # place of each card in its trick
# Per card number, with one more entry at index -1 so that padding (-1) reads something harmless.
_SUIT_OF_CARD = np.append(np.arange(52) // 13, -1).astype(np.int8)
_WHEN = np.arange(52, dtype=np.int8)  # each place in the play


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
    count = np.count_nonzero(played, axis=1)
    # Flat index of each played card in (board, card) tables of 53 columns: an unplayed place
    # points at the 53rd, a spare.
    at = (cards + ~played * np.int8(53)) + np.arange(0, boards * 53, 53)[:, None]
    when = np.full(boards * 53, 52, dtype=np.int8)  # when each card is played; 52: never (still held)
    when[at] = _WHEN
    require(bool((~played | (when[at] == _WHEN)).all()), "a card played twice")  # such a card keeps only one place
    table = np.full((boards, 53), -1, dtype=np.int8)
    table[:, :52] = holder
    seat = table.ravel()[at]
    suit = cards // np.int8(13)  # (-1 stays -1: unplayed)
    led = np.repeat(suit[:, ::4], 4, axis=1)  # the suit of each trick's first card, at each of its places
    winner = _winners(cards, table, suit == trump[:, None], suit == led)
    leader = np.concatenate([((declarer + 1) & 3).astype(np.int8)[:, None], winner[:, :-1]], axis=1)
    due = np.repeat(leader, 4, axis=1)
    due += _TURN
    due &= 3
    require(bool((~played | (seat == due)).all()), "a card played by a player who does not hold it, or out of turn")
    off_suit = np.flatnonzero(played & (suit != led))
    require(not _revoked(when.reshape(boards, 53)[:, :52], holder, off_suit, seat.ravel()[off_suit],
                         led.ravel()[off_suit]), "a revoke")
    complete = count // 4
    ours = ((winner & 1) == (declarer & 1)[:, None]) & (np.arange(13) < complete[:, None])
    return Tricks(won=np.count_nonzero(ours, axis=1), complete=complete, cards=count)


def _winners(cards: Ints, table: Ints, trumps: Bools, follows: Bools) -> Ints:
    """(boards, 13): the seat of each trick's winning card (`table`: the holders, as in `replay`).

    Trumps beat the suit led, which beats discards, then rank: the order of `parsers.bridge.cards`'s
    weights. Card numbers go from the ace down within a suit, so the winner has the smallest key
    card + 64 * (not a trump) + 64 * (neither a trump nor of the suit led), and the key names the
    card, whose holder wins. An unplayed place (card -1, 255 as a byte) keeps key 255 and never
    wins; a trick without a card reads the spare column (its winner leads nothing).
    """
    lower = ~trumps
    key = (lower.view(np.uint8) + (lower & ~follows).view(np.uint8)) << 6
    key |= cards.view(np.uint8)
    places = key.reshape(-1, 13, 4)
    best = np.minimum(np.minimum(places[:, :, 0], places[:, :, 1]), np.minimum(places[:, :, 2], places[:, :, 3]))
    card = np.minimum(best & 63, 52)
    winner: Ints = table.ravel()[card + np.arange(0, table.size, table.shape[1])[:, None]]
    return winner


def _revoked(when: Ints, holder: Ints, off_suit: Ints, seat: Ints, led: Ints) -> bool:
    """Whether a player who did not follow suit still held a card of the suit led at that moment.

    `when` is (board, card); `off_suit` are the flat (board, place) positions of cards not of
    the suit led, with the `seat` that played each and the `led` suit.
    """
    boards = holder.shape[0]
    # Cards by (rank, board, suit): the reductions below run over the 13 ranks, each a whole row.
    later = np.ascontiguousarray((when + np.int8(1)).reshape(boards * 4, 13).T)  # 0: never held
    held_by = np.ascontiguousarray(holder.reshape(boards * 4, 13).T)
    # The last moment each seat holds a card of each suit (-1: none), at 16 * board + 4 * seat + suit.
    latest = np.stack([np.max(later * (held_by == s), axis=0).reshape(boards, 4) for s in range(4)], axis=1)
    latest -= 1
    board, place = np.divmod(off_suit, 52)
    return bool((latest.ravel()[board * 16 + (seat << 2 | led)] > place).any())


def declarer_tricks(contract: Bools, tricks: Tricks, claim: Ints) -> Ints:
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
    possible = (tricks.won <= claim) & (claim <= tricks.won + 13 - tricks.complete)
    require(bool((~claimed | full | possible).all()), "an impossible claim")
    return np.where(contract, np.where(full, tricks.won, claim), -1)
