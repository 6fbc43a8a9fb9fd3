"""Fast path: every Deal tag of a file checked at once (52 distinct cards, 13 to a hand).

Only full deals written the export way are taken: `N:AKQ.JT9.876.5432 ...` with any first seat,
upper-case ranks from highest to lowest and single spaces. Such a deal is exactly 69 characters
(four hands of 13 ranks and 3 dots), so all deals together are one byte matrix; each suit holding
becomes a 13-bit mask, and "every card once" is one sum and one OR per suit.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import polars as pl

from models.cards import RANKS
from parsers.pbn.fast_lines import Declined

SEATS = "NESW"
SUITS = "SHDC"
CARD_NAMES = tuple(suit + rank for suit in SUITS for rank in RANKS)
"""The 52 cards; a card's code is its index here: 13 * suit + rank (suits SHDC, ranks A down to 2)."""
FULL_SUIT = (1 << 13) - 1
_WIDTH = 2 + 4 * 16 + 3
_HAND_STARTS = (2, 19, 36, 53)
_DOT = 13
_RANK_OF = np.full(256, 99, dtype=np.int8)
"""Byte -> rank index (A = 0 ... 2 = 12), 13 for the dot between suits, 99 for anything else."""
for _index, _rank in enumerate(RANKS):
    _RANK_OF[ord(_rank)] = _index
_RANK_OF[ord(".")] = _DOT
_VALUE = np.array([1 << rank for rank in range(13)] + [0], dtype=np.float64)
"""Rank index -> its bit in a suit mask (0 for the dot)."""
_SEAT_OF = np.full(256, -1, dtype=np.int64)
for _index, _seat in enumerate(SEATS):
    _SEAT_OF[ord(_seat)] = _index
_POPCOUNT = np.array([bin(mask).count("1") for mask in range(1 << 13)], dtype=np.int64)
_BITS = ((np.arange(1 << 13)[:, None] >> np.arange(13)) & 1).astype(np.int8)
"""Mask -> its 13 bits (rank index order)."""

IntArray = npt.NDArray[np.int64]


@dataclass(frozen=True)
class Deals:
    """The known deals of a file, one row per game that has one."""

    frame: pl.DataFrame
    """`record` (game index) and `deal`: the deal as `Deal.to_pbn()` writes it, clockwise from North."""
    holder: IntArray
    """Seat (0 = N ... 3 = W) holding each card, shape (deals, 52), rows in the order of `frame`."""
    lengths: IntArray
    """Cards of each suit in each seat's hand, shape (deals, seat, suit)."""


def seat_codes(column: pl.Series) -> IntArray:
    """Seat letters N, E, S, W as 0..3 (anything else must have been declined before)."""
    return column.cast(pl.Enum(list(SEATS))).to_physical().to_numpy().astype(np.int64)


def read_deals(tags: pl.DataFrame) -> Deals:
    """Check every known Deal tag (null, '' and '?' are unknown); raise `Declined` at the first bad one."""
    deals = tags.filter(pl.col("Deal").is_not_null() & ~pl.col("Deal").is_in(["", "?"])).select("record", "Deal")
    text = deals["Deal"]
    if not ((text.str.len_bytes() == _WIDTH) & (text.str.len_chars() == _WIDTH)).all():
        raise Declined("a Deal that is not four hands of 13 cards written the export way")
    joined = text.str.join("").item() if deals.height else ""
    matrix = np.frombuffer(joined.encode("ascii"), dtype=np.uint8).reshape(-1, _WIDTH)
    if (_SEAT_OF[matrix[:, 0]] < 0).any() or not (
            (matrix[:, 1] == ord(":")).all() and (matrix[:, [18, 35, 52]] == ord(" ")).all()):
        raise Declined("a Deal that does not start with a seat, or whose hands are not one space apart")
    hands = np.stack([matrix[:, start:start + 16] for start in _HAND_STARTS], axis=1)  # (deal, hand, 16)
    masks = _masks(_RANK_OF[hands])
    if ((masks.sum(axis=1) != FULL_SUIT) | (np.bitwise_or.reduce(masks, axis=1) != FULL_SUIT)).any():
        raise Declined("a card dealt twice or not at all")
    first = _SEAT_OF[matrix[:, 0]]
    by_seat = np.take_along_axis(masks, ((np.arange(4)[None, :] + 4 - first[:, None]) % 4)[:, :, None], axis=1)
    frame = deals.select("record", deal=_north_first(text, first))
    return Deals(frame, _holders(by_seat), _POPCOUNT[by_seat])


def _masks(ranks: npt.NDArray[np.int8]) -> IntArray:
    """Suit masks (deal, hand, suit) of hands given as rank indices per character (dots as `_DOT`)."""
    if (ranks > _DOT).any():
        raise Declined("a Deal with a character that is not a rank")
    dots = ranks == _DOT
    suit = (np.cumsum(dots, axis=2, dtype=np.int8) - dots).reshape(-1, 16)  # the dots before a character
    if not (suit[:, -1] + dots.reshape(-1, 16)[:, -1] == 3).all():
        raise Declined("a hand without four suits")
    # Ranks from highest to lowest: within a suit each rank index is above the one before it.
    if (~dots[:, :, 1:] & ~dots[:, :, :-1] & (ranks[:, :, 1:] <= ranks[:, :, :-1])).any():
        raise Declined("a suit holding not written highest rank first, or with a rank twice")
    hand = 4 * np.arange(suit.shape[0])[:, None]
    bits = np.bincount((hand + suit).ravel(), weights=_VALUE[ranks].ravel(), minlength=ranks.size // 4)
    return bits.astype(np.int64).reshape(-1, 4, 4)


def _north_first(text: pl.Series, first: IntArray) -> pl.Expr:
    """The deal written again from North: hand k as written sits at seat first + k."""
    hands = [pl.col("Deal").str.slice(start, 16) for start in _HAND_STARTS]
    seat = pl.lit(pl.Series(first))
    rotations = [pl.concat_str([hands[(s + 4 - shift) % 4] for s in range(4)], separator=" ") for shift in range(4)]
    rotated = pl.when(seat == 0).then(rotations[0]).when(seat == 1).then(rotations[1]).when(seat == 2).then(
        rotations[2]).otherwise(rotations[3])
    return pl.when(seat == 0).then(pl.col("Deal")).otherwise(pl.lit("N:") + rotated)


def _holders(by_seat: IntArray) -> IntArray:
    """Seat holding each card code, from the suit masks of each seat's hand (deal, seat, suit)."""
    bits = _BITS[by_seat]  # (deal, seat, suit, rank)
    seat = np.arange(4, dtype=np.int8)[None, :, None, None]
    return np.asarray((bits * seat).sum(axis=1, dtype=np.int64).reshape(-1, 52))
