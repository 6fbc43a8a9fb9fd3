"""Deals for the vectorised LIN reader: the `md` values of every board to card holders, checked at once.

Numbering shared by the `fast_*` modules: seats clockwise from North (N=0, E=1, S=2, W=3, as in
`parsers.bridge.cards`); cards suit by suit in PBN order (spades, hearts, diamonds, clubs), ace to two
within a suit (SA=0, S2=12, HA=13 ... C2=51), so that sorting card numbers gives PBN's order.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import pairwise

import numpy as np
import polars as pl
import pyarrow as pa

from models.cards import RANKS
from parsers.arrow import series
from parsers.lin.fast_bytes import Bytes, Ints, lookup, require, translation

SEATS: tuple[str, ...] = ("N", "E", "S", "W")
"""Seat letters by seat number."""


# "10" is a ten: its '1' counts as the T and its '0' as nothing (the grammar lets '1' and '0' stand
# only there). Any byte that is no rank reads as `_NO_RANK`, far enough past the 52 cards that it
# lands in a spare column of `read_deals`'s table, whatever suit it follows.
_NO_RANK = 64
_ROW = 128  # columns of that table: 52 cards, then spare ones (at most 3 * 13 + _NO_RANK)
_RANK_OF = bytes(RANKS.index(chr(byte)) if chr(byte) in RANKS else RANKS.index("T") if byte == ord("1") else _NO_RANK
                 for byte in range(256))
_IS_SUIT = bytes(int(chr(byte) in "SHDC") for byte in range(256))
# A card `pc` value: its suit letter and its rank letter to numbers (255: not a suit, not a rank).
_SUIT_NUMBER_OF = translation({suit: i for i, suit in enumerate("SHDC")})
_RANK_NUMBER_OF = translation({rank: i for i, rank in enumerate(RANKS)})
_EAST = 1
MD_WIDTH = 1 + 16 + 52 + 4 + 3
"""The longest `md` value of a deal: the dealer, 16 suit letters, 52 ranks (four of them `10`), 3 commas."""
_THIRTEEN_EACH = int.from_bytes(bytes([13] * 4), "little")  # four 13s, one per byte
# `N:<N> <E> <S> <W>`, each hand `S.H.D.C` in 16 characters: 69 characters in all.
_PBN_WIDTH = 69
_J = np.arange(52)
_SUIT_OF_CARD = (_J // 13).astype(np.int8)
_RANK_BYTE_OF_CARD = np.frombuffer(RANKS.encode() * 4, dtype=np.uint8)


@dataclass(frozen=True)
class Deals:
    """Dealer and card holders of every board."""

    dealer: Ints
    """Seat number of the dealer, per board."""
    holder: Ints
    """(boards, 52): seat number holding each card."""
    place: Ints
    """(boards, 52): how many cards of a lower number (a higher card, or a higher suit) the card's
    holder has: its place in the hand as PBN writes it."""


def read_deals(md: Bytes) -> Deals:
    """Read the `md` values (one zero-padded row of bytes per board, grammar-checked).

    Declines unless every hand given holds 13 cards and no card is dealt twice (what
    `parsers.lin.values.parse_md` checks); the hand left out (East, in BBO's three-hand form) is
    the rest of the pack.
    """
    boards = md.shape[0]
    dealer = ((md[:, 0] - ord("0") + 1) % 4).astype(np.int8)  # 1=S, 2=W, 3=N, 4=E
    # One row per character position, one column per board: each step below is a whole row at once.
    text = np.ascontiguousarray(md[:, 1:].T)
    # Every hand is written `S..H..D..C..`, so the suit letters seen so far say both the hand (four
    # letters per hand) and the suit of the ranks that follow. (Counted row by row: numpy's
    # running sums of bytes are slow, a row's sum with the one before is not.)
    letters = lookup(text, _IS_SUIT)
    for before, row in pairwise(letters):
        row += before
    letters -= 1  # (each row starts with its 'S': 0)
    at = (letters & 3).astype(np.intp)
    at *= 13
    rank = lookup(text, _RANK_OF)
    at += rank
    at += np.arange(0, boards * _ROW, _ROW)
    seat = letters >> 2
    seat += 2
    seat &= 3
    table = np.full((boards, _ROW), -1, dtype=np.int8)
    table.ravel()[at] = seat  # hands S, W, N, E
    holder = table[:, :52]
    listed = np.count_nonzero(rank < _NO_RANK, axis=0)
    # A card dealt twice is written once: fewer cards are held than the hands list. (Sixteen suit
    # letters: the fourth hand is written out.)
    require(bool((listed == np.where(letters[-1] == 15, 52, 39)).all()
                 and (np.count_nonzero(holder >= 0, axis=1) == listed).all()), "a card dealt twice, or too many")
    holder = holder + (holder < 0) * np.int8(_EAST + 1)  # the rest of the pack (-1) to East
    place = _places(holder)
    return Deals(dealer=dealer, holder=holder, place=place)


def _places(holder: Ints) -> Ints:
    """Each card's place in its holder's hand (`Deals.place`); declines unless every hand has 13 cards.

    One running count per row with each seat's count in its own byte: 1 << 8 * seat per card.
    """
    shift = holder.view(np.uint8) << 3
    counts = np.left_shift(np.uint32(1), shift)
    np.cumsum(counts, axis=1, out=counts)
    require(bool((counts[:, -1] == _THIRTEEN_EACH).all()), "a hand without 13 cards")
    counts >>= shift
    counts &= 0xFF
    counts -= 1
    place: Ints = counts.astype(np.int8)
    return place


def card_numbers(suit: Bytes, rank: Bytes) -> Ints:
    """Card numbers of `pc` values, given their two letters (canonical `SA` spelling per the grammar)."""
    suit, rank = lookup(suit, _SUIT_NUMBER_OF), lookup(rank, _RANK_NUMBER_OF)
    require(bool((suit < 4).all() and (rank < 13).all()), "a card that is not a card")
    suit *= 13
    suit += rank
    return suit.view(np.int8)


def pbn_deals(deals: Deals) -> pl.Series:
    """Every deal as `Deal.to_pbn()` writes it: `N:` then the hands N, E, S, W as `S.H.D.C`, highest first."""
    boards = deals.holder.shape[0]
    text = np.full((boards, _PBN_WIDTH), ord("."), dtype=np.uint8)
    text[:, 0], text[:, 1] = ord("N"), ord(":")
    text[:, [18, 35, 52]] = ord(" ")
    # Seat k's hand starts at 2 + 17k; a card goes after the cards before it in that hand, and after
    # the dots of the suits ahead of it.
    at = (deals.holder * np.int8(17) + deals.place + _SUIT_OF_CARD).astype(np.intp)  # (at most 66: int8 will do)
    at += np.arange(2, boards * _PBN_WIDTH, _PBN_WIDTH)[:, None]
    text.ravel()[at] = _RANK_BYTE_OF_CARD
    offsets = np.arange(0, (boards + 1) * _PBN_WIDTH, _PBN_WIDTH, dtype=np.int64)
    return series(pa.LargeStringArray.from_buffers(boards, pa.py_buffer(offsets), pa.py_buffer(text))).alias("deal")
