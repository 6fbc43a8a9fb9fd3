"""Fast path: every Deal tag of a file checked at once (52 distinct cards, 13 to a hand).

Only full deals written the export way are taken: `N:AKQ.JT9.876.5432 ...` with any first seat,
upper-case ranks from highest to lowest and single spaces. Such a deal is exactly 69 characters
(four hands of 13 ranks and 3 dots), so all deals together are one byte matrix; each hand becomes
a 52-bit mask of its cards (bit = card code), and "every card once" is one sum and one OR.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import polars as pl

from models.cards import RANKS
from parsers.pbn.fast_bytes import Declined, IntArray, WordArray, row_strings

SEATS = "NESW"
ALL_CARDS = np.uint64((1 << 52) - 1)
_WIDTH = 2 + 4 * 16 + 3
_HAND_STARTS = (2, 19, 36, 53)
_DOT = 13
_RANK_OF = np.full(256, 99, dtype=np.int8)
"""Byte -> rank index (A = 0 ... 2 = 12), 13 for the dot between suits, 99 for anything else."""
for _index, _rank in enumerate(RANKS):
    _RANK_OF[ord(_rank)] = _index
_RANK_OF[ord(".")] = _DOT
_BIT = np.array([1 << code if code < 52 else 0 for code in range(128)], dtype=np.uint64)
"""Card code -> its bit in a mask; 0 for the codes given to dots (64 and up)."""
_SEAT_OF = np.full(256, -1, dtype=np.int64)
for _index, _seat in enumerate(SEATS):
    _SEAT_OF[ord(_seat)] = _index


@dataclass(frozen=True)
class Deals:
    """The known deals of a file, one row per game that has one."""

    frame: pl.DataFrame
    """`record` (game index) and `deal`: the deal as `Deal.to_pbn()` writes it, clockwise from North."""
    hands: WordArray
    """The cards each seat (0 = N ... 3 = W) was dealt, as 52-bit masks (bit = card code), shape
    (deals, 4), rows in the order of `frame`."""


def seat_codes(column: pl.Series) -> IntArray:
    """Seat letters N, E, S, W as 0..3; `Declined` for anything else."""
    codes = column.cast(pl.Enum(list(SEATS)), strict=False).to_physical()
    if codes.null_count():
        raise Declined(f"a {column.name} tag that is not N, E, S or W")
    return codes.to_numpy().astype(np.int64)


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
    masks = _masks(hands.reshape(-1, 16)).reshape(-1, 4)
    if ((masks.sum(axis=1) != ALL_CARDS) | (np.bitwise_or.reduce(masks, axis=1) != ALL_CARDS)).any():
        raise Declined("a card dealt twice or not at all")
    first = _SEAT_OF[matrix[:, 0]]
    # Hand k as written sits at seat first + k: seat s holds hand s - first. (A hand's 16 bytes are
    # taken as one item: much faster than 16 numbers.)
    written = (np.arange(4)[None, :] - first[:, None]) % 4
    by_seat = np.take_along_axis(hands.view("V16")[:, :, 0], written, axis=1).view(np.uint8).reshape(-1, 4, 16)
    frame = deals.select("record").with_columns(deal=_north_first(by_seat))
    return Deals(frame, np.take_along_axis(masks, written, axis=1))


def _masks(hands: npt.NDArray[np.uint8]) -> WordArray:
    """The cards of each hand (rows of 16 bytes: ranks and three dots) as a 52-bit mask.

    Worked on the hands turned to (character, hand), so that each step (a running count of the
    dots, a comparison with the character before) is a whole-row operation."""
    ranks = np.take(_RANK_OF, np.ascontiguousarray(hands.T))  # (`take`: twice as fast as indexing)
    if (ranks > _DOT).any():
        raise Declined("a Deal with a character that is not a rank")
    dots = ranks == _DOT
    suit = np.zeros_like(ranks)  # the dots before a character (a loop over rows beats np.cumsum here)
    for character in range(1, 16):
        np.add(suit[character - 1], dots[character - 1], out=suit[character])
    if not (suit[-1] + dots[-1] == 3).all():
        raise Declined("a hand without four suits")
    # Ranks from highest to lowest: within a suit each rank index is above the one before it.
    if (~dots[1:] & ~dots[:-1] & (ranks[1:] <= ranks[:-1])).any():
        raise Declined("a suit holding not written highest rank first, or with a rank twice")
    code = 13 * suit + ranks + (dots.astype(np.int8) << 6)  # a card's code; a dot's is beyond the cards
    return np.asarray(np.take(_BIT, code).sum(axis=0, dtype=np.uint64))


def _north_first(hands: npt.NDArray[np.uint8]) -> pl.Series:
    """Deals written from North (`N:` and the hands of N, E, S, W one space apart), from the hands'
    bytes in seat order (deal, seat, 16)."""
    written = np.full((hands.shape[0], _WIDTH), ord(" "), dtype=np.uint8)
    written[:, 0], written[:, 1] = ord("N"), ord(":")
    for seat, start in enumerate(_HAND_STARTS):
        written[:, start:start + 16] = hands[:, seat]
    return row_strings(written)
