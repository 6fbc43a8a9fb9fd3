"""Cards as the bridge engine handles them: suit-first codes (`SA`, `HT`, `C2`, i.e. `str(Card)`),
their numbers in the engine (`CARD_NAMES`), their spellings in files, and suit masks.

Which card wins a trick is not here: it is the engine's rule (`parsers.bridge.play_arrays`), the only
place it is written.
"""

from __future__ import annotations

from models.cards import RANKS, Seat
from models.contract import Strain

SUITS = "SHDC"
"""Suit letters in PBN's order (spades first)."""

SEATS: tuple[Seat, ...] = (Seat.N, Seat.E, Seat.S, Seat.W)
"""Seats clockwise from North; a seat's index is its place here."""

SEAT_INDEX: dict[Seat, int] = {seat: i for i, seat in enumerate(SEATS)}
"""Seat -> its index in `SEATS`."""

CARD_NAMES: tuple[str, ...] = tuple(suit + rank for suit in SUITS for rank in RANKS)
"""Card codes by card number, the bridge engine's: suit by suit in PBN's order and ace to two within a
suit (SA=0, S2=12, HA=13 ... C2=51)."""

CARD_SET = frozenset(CARD_NAMES)
"""The 52 card codes, for membership tests."""

CARD_NUMBER: dict[str, int] = {code: number for number, code in enumerate(CARD_NAMES)}
"""Card code -> card number."""

RANK_BIT: dict[str, int] = {rank: 1 << i for i, rank in enumerate(RANKS)}
"""Rank -> bit in a suit mask (A is bit 0, 2 is bit 12)."""


def _spellings() -> tuple[dict[str, str], dict[str, str]]:
    cards: dict[str, str] = {}
    drift: dict[str, str] = {}
    for suit in SUITS:
        for rank in RANKS:
            for s in (suit, suit.lower()):
                for r in (rank, rank.lower()):
                    cards[s + r] = suit + rank
        for s in (suit, suit.lower()):
            drift[s + "10"] = suit + "T"
    return cards, drift


CARDS, CARD_DRIFT = _spellings()
"""Every spelling of a card PBN allows (upper or lower case) -> its code, and drift spellings
(`S10`) -> its code."""


def trump_of(strain: Strain | None) -> str | None:
    """The trump suit letter for a strain (None at notrump)."""
    return None if strain is None or strain is Strain.NT else strain.value
