"""Every play of a file replayed at once, for the vectorised fast paths (PBN and LIN).

The rules are `parsers.bridge.play`'s, over arrays. A card is a number, suit by suit in PBN's order
and ace to two within a suit (SA=0, S2=12, HA=13 ... C2=51: `CARD_NAMES`), -1 where there is none.
A board's play is a (trick, column) table: column 0 is the opening leader, declarer's left-hand
opponent, and the columns go on clockwise, so declarer's side holds columns 1 and 3. That is how
PBN writes a play; LIN's cards, in played order, are put in it by `by_column`.

Who leads a trick is known only once the trick before it is won, so `replay` advances every board
by one trick at a time (13 steps in all), on whole rows of boards; what each column still holds is a
52-bit mask, less each trick's cards.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from models.cards import RANKS
from parsers.bridge.cards import SUITS
from parsers.declined import Declined, require

Cards = npt.NDArray[np.int8]
"""Card numbers; -1 where there is no card."""
Ints = npt.NDArray[np.integer[Any]]
Counts = npt.NDArray[np.int64]
Masks = npt.NDArray[np.uint64]
"""Sets of cards: bit `card number` set for each card in the set."""

CARD_NAMES: tuple[str, ...] = tuple(suit + rank for suit in SUITS for rank in RANKS)
"""Card codes (`SA`, `HT`) by card number."""
NO_TRUMP = 4
"""The trump suit number of a notrump contract (no card's suit)."""

_SUIT_CARDS = np.array([((1 << 13) - 1) << (13 * suit) for suit in range(4)] + [0], dtype=np.uint64)
"""Suit number -> the mask of its 13 cards; none for suit -1 (no card, so no suit led)."""
_COLUMNS = np.arange(4, dtype=np.uint8)[:, None]


@dataclass(frozen=True)
class Play:
    """What the play of every board established."""

    leaders: Counts
    """(boards, 13): the column that leads each trick (0 for the first)."""
    won: Counts
    """Tricks won by declarer's side among the complete tricks."""
    complete: Counts
    """Complete tricks (four cards)."""
    cards: Counts
    """Cards played."""


def replay(table: Cards, dealt: Masks, trump: Ints) -> Play:
    """Check the play of every board and count its tricks.

    `table` is (boards, 13, 4): each trick's cards by column, complete tricks first, then at most
    one trick with the cards played so far (the leader's among them), then none. `dealt` is
    (boards, 4), the cards of each column's seat; `trump` the trump suit number of each board
    (0-3, anything else for none).

    Declines on a card played that its column's seat does not hold then (never dealt it, or played
    it before), and on a failure to follow suit while the suit led is still held (the careful
    readers report a revoke as a warning, so the file is theirs).

    A card's strength depends on the suit led, not on the order of play: trumps beat the suit led,
    which beats the rest, and within a suit the rank decides. Each card's key is 4 * strength + its
    column, so the largest key of a trick names the winner's column.
    """
    boards = table.shape[0]
    cards: Counts = np.count_nonzero(table.reshape(boards, 52) >= 0, axis=1).astype(np.int64)
    complete = cards // 4
    by_trick = np.ascontiguousarray(table.transpose(1, 2, 0))  # (trick, column, board)
    present = by_trick >= 0
    suits = by_trick // np.int8(13)  # -1 where there is no card
    rank = by_trick - np.int8(13) * suits  # 0 = ace
    trumps = np.where((trump >= 0) & (trump < 4), trump, NO_TRUMP).astype(np.int8)
    # Strength 13 - rank, +32 for a trump (+16 for the suit led, added per trick), times 4: one byte.
    # (A place without a card reads as a two of no suit: it never beats the card led.)
    key = ((13 - rank).astype(np.uint8) << 2) + _COLUMNS + ((suits == trumps).astype(np.uint8) << 7)
    # Each card's bit; no card (-1, as uint64 a shift far beyond 63) shifts the bit out: 0.
    bits = np.left_shift(np.uint64(1), by_trick.astype(np.uint64))
    at = np.arange(boards)
    held = dealt.T.copy()  # (column, board); a copy even where the transpose is contiguous (one board)
    leaders = np.zeros((13, boards), dtype=np.int64)
    column, won = np.zeros(boards, dtype=np.int64), np.zeros(boards, dtype=np.int64)
    every_trick_counts = bool((cards == 52).all())
    not_held = np.zeros((4, boards), dtype=np.uint64)
    revoked = np.zeros((4, boards), dtype=bool)
    # (In the loop: no `np.where`, several times slower than arithmetic on these rows.)
    for trick in range(int((cards + 3).max(initial=0)) // 4):
        leaders[trick] = column
        led = suits[trick].ravel()[column * boards + at]  # the suit of the card in the leader's column
        following = suits[trick] == led
        # The largest key's last two bits are the winner's column (`& 3` is `% 4`, and much faster).
        column = ((key[trick] + (following.view(np.uint8) << 6)).max(axis=0) & 3).astype(np.int64)
        taken = (column & 1) == 1
        won += taken if every_trick_counts else taken & (trick < complete)
        # Toggling a trick's cards out of the holdings puts back in any card that was not held.
        np.bitwise_xor(held, bits[trick], out=held)
        not_held |= bits[trick] & held
        # A card of another suit while holding the suit led (this trick's card, of another suit,
        # does not change that). Where the board has no card at this trick no suit was led (-1),
        # whose mask is empty.
        revoked |= ((held & np.take(_SUIT_CARDS, led)) != 0) & ~following & present[trick]
    if not_held.any():
        _explain_not_held(bits, dealt)
    require(not revoked.any(), "a revoke: a card of another suit while the suit led was still held")
    return Play(leaders=np.ascontiguousarray(leaders.T), won=won, complete=complete, cards=cards)


def _explain_not_held(bits: Masks, dealt: Masks) -> None:
    """Say why a card was played that its seat did not hold: not dealt it, or played before."""
    require(not (np.bitwise_or.reduce(bits, axis=0).T & ~dealt).any(), "a card played by a seat that was not dealt it")
    raise Declined("a card played twice")


def played_order(table: Cards, leaders: Ints) -> Cards:
    """Each trick's cards from its leader's column round the table, shape (boards, 52).

    A trick's four one-byte numbers are one 32-bit word, so this is a rotation of each word by
    8 * leader bits (the word written twice side by side, then shifted)."""
    words = np.ascontiguousarray(table).view("<u4").reshape(leaders.shape).astype(np.uint64)  # column 0 lowest
    doubled = words | (words << np.uint64(32))
    rotated = (doubled >> (np.uint64(8) * leaders.astype(np.uint64))).astype("<u4")
    played: Cards = rotated.view(np.int8).reshape(-1, 52)
    return played


def by_column(played: Ints, holder: Ints, opening_leader: Ints) -> tuple[Cards, Ints]:
    """Cards in played order (rows of 52, -1 padded) as `replay`'s table, and the column of each
    trick's first card (-1 for a trick without cards).

    `holder` (boards, 52) is the seat number of each card's holder, `opening_leader` each board's
    opening leader's. A trick's first card goes to its holder's column and the others to the
    columns after it, in turn round the table: `replay` then declines a card that the seat of its
    column does not hold (played out of turn, or not held at all). Whether each trick was led by
    the winner of the one before is for the caller to compare with `Play.leaders`.
    """
    rows = np.ascontiguousarray(played, dtype=np.int8)
    lead = rows[:, ::4]
    seat = np.take_along_axis(holder, np.maximum(lead, 0).astype(np.intp), axis=1)
    first = np.where(lead >= 0, (seat - opening_leader[:, None]) & 3, -1)
    # A trick's four one-byte numbers are one 32-bit word (place 0 lowest); rotating it by 8 * first
    # bits puts place k in column first + k (the word written twice side by side, then shifted).
    words = rows.view("<u4").astype(np.uint64)
    doubled = words | (words << np.uint64(32))
    turned = (doubled >> (np.uint64(8) * (4 - np.maximum(first, 0)).astype(np.uint64))).astype("<u4")
    table: Cards = turned.view(np.int8).reshape(-1, 13, 4)
    return table, first


def dealt_by_column(holder: Ints, opening_leader: Ints) -> Masks:
    """(boards, 4): the cards of each column's seat, from each card's holder (`by_column`'s terms)."""
    column = (holder - opening_leader[:, None]) & 3
    masks = np.zeros((holder.shape[0], 4, 8), dtype=np.uint8)
    for which in range(4):
        masks[:, which, :7] = np.packbits(column == which, axis=1, bitorder="little")
    dealt: Masks = masks.view("<u8")[:, :, 0]
    return dealt
