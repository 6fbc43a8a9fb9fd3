"""Deals for the vectorised LIN reader: the `md` values of every board to card holders, checked at once.

Numbering shared by the `lin_fast_*` modules: seats clockwise from North (N=0, E=1, S=2, W=3, as in
`parsers.auction`); cards suit by suit in PBN order (spades, hearts, diamonds, clubs), ace to two
within a suit (SA=0, S2=12, HA=13 ... C2=51), so that sorting card numbers gives PBN's order.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import polars as pl

from models.cards import RANKS
from parsers.lin_fast_lex import Bytes, Ints, byte_table, require

SEATS: tuple[str, ...] = ("N", "E", "S", "W")
"""Seat letters by seat number."""
CARD_NAMES: tuple[str, ...] = tuple(suit + rank for suit in "SHDC" for rank in RANKS)
"""Card codes (`SA`, `HT`) by card number."""


# "10" is a ten: its '1' counts as the T and its '0' as nothing (the grammar lets '1' and '0' stand
# only there).
_RANK_OF = byte_table({rank: i for i, rank in enumerate(RANKS)} | {"1": RANKS.index("T")})


def _card_table() -> Ints:
    """Rank byte * 256 + suit byte (a packed `pc` value) -> card number (-1 for anything else)."""
    out = np.full(1 << 16, -1, dtype=np.int8)
    for number, name in enumerate(CARD_NAMES):
        out[ord(name[1]) << 8 | ord(name[0])] = number
    return out


_CARD_OF = _card_table()
# `md` lists the hands South, West, North, East.
_HAND_SEAT = np.array([2, 3, 0, 1], dtype=np.int8)
_EAST = 1
# `N:<N> <E> <S> <W>`, each hand `S.H.D.C` in 16 characters: 69 characters in all.
_PBN_WIDTH = 69
_J = np.arange(52)
# Where the j-th card of the deal in seat order goes, before the dots of the suits ahead of it:
# seat k's hand starts at 2 + 17k.
_PBN_PLACE = 2 + 17 * (_J // 13) + _J % 13
_SUIT_OF_CARD = (_J // 13).astype(np.int8)
_RANK_BYTE_OF_CARD = np.frombuffer(RANKS.encode() * 4, dtype=np.uint8)


@dataclass(frozen=True)
class Deals:
    """Dealer and card holders of every board."""

    dealer: Ints
    """Seat number of the dealer, per board."""
    holder: Ints
    """(boards, 52): seat number holding each card."""


def read_deals(md: Bytes) -> Deals:
    """Read the `md` values (one zero-padded row of bytes per board, grammar-checked).

    Declines unless every hand given holds 13 cards and no card is dealt twice (what
    `parsers.lin_values.parse_md` checks); the hand left out (East, in BBO's three-hand form) is
    the rest of the pack.
    """
    boards = md.shape[0]
    dealer = ((md[:, 0] - ord("0") + 1) % 4).astype(np.int8)  # 1=S, 2=W, 3=N, 4=E
    # One row per character position, one column per board: each step below is a whole row at once.
    text = np.ascontiguousarray(md[:, 1:].T)
    rank = _RANK_OF[text]
    # Every hand is written `S..H..D..C..`, so the suit letters seen so far say both the hand (four
    # letters per hand) and the suit of the ranks that follow.
    letters = np.empty_like(rank)
    seen = np.full(boards, -1, dtype=np.int8)
    for position, char in enumerate(text):
        seen += (char == ord("S")) | (char == ord("H")) | (char == ord("D")) | (char == ord("C"))
        letters[position] = seen
    hand, is_rank = letters >> 2, rank >= 0
    per_hand = np.stack([((hand == h) & is_rank).sum(axis=0) for h in range(4)])
    fourth = np.where(seen == 15, 13, 0)  # 16 suit letters: the fourth hand is written out
    require(bool((per_hand[:3] == 13).all() and (per_hand[3] == fourth).all()), "a hand without 13 cards")
    card = np.where(is_rank, (letters & 3) * 13 + rank, 52)  # 52: not a card (a spare column)
    holder = np.full((boards, 53), -1, dtype=np.int8)
    holder.ravel()[(np.arange(boards) * 53 + card).ravel()] = (hand + 2 & 3).ravel()  # hands S, W, N, E
    holder = holder[:, :52]
    # A card dealt twice is written once: fewer cards are held than the hands list.
    require(bool(((holder >= 0).sum(axis=1) == 39 + fourth).all()), "a card dealt twice")
    holder = np.where(holder < 0, np.int8(_EAST), holder)  # the rest of the pack (when three hands are given)
    return Deals(dealer=dealer, holder=holder)


def card_numbers(packed: Ints) -> Ints:
    """Card numbers of `pc` values packed by `Tokens.pairs` (canonical `SA` spelling per the grammar)."""
    numbers = _CARD_OF[packed]
    require(bool((numbers >= 0).all()), "a card that is not a card")
    return numbers


def pbn_deals(holder: Ints) -> pl.Series:
    """Every deal as `Deal.to_pbn()` writes it: `N:` then the hands N, E, S, W as `S.H.D.C`, highest first."""
    boards = holder.shape[0]
    # Card numbers grouped by seat (N, E, S, W), in card order within a seat: 13 per seat. (A stable
    # sort of int8 is a radix sort.)
    order = np.argsort(holder, axis=1, kind="stable")
    at = (np.arange(boards) * (_PBN_WIDTH + 1))[:, None] + _PBN_PLACE
    at += _SUIT_OF_CARD[order]
    text = np.full((boards, _PBN_WIDTH + 1), ord("."), dtype=np.uint8)
    text[:, 0], text[:, 1] = ord("N"), ord(":")
    text[:, [18, 35, 52]] = ord(" ")
    text[:, _PBN_WIDTH] = ord("\n")  # one deal per line, so that one `split` makes the strings
    text.ravel()[at] = _RANK_BYTE_OF_CARD[order]
    return pl.Series("deal", text.tobytes().decode("ascii").split("\n")[:-1])
