"""Cards as the bridge engine handles them: suit-first codes (`SA`, `HT`, `C2`, i.e. `str(Card)`),
their numbers in the engine (`CARD_NAMES`), their spellings in files, and suit masks.

Which card wins a trick is the engine's rule (`parsers.bridge.play_arrays`) for every reader.
`winning_card` (with its table `STRENGTH`) says it for one trick of card codes, for code that
writes plays of its own (the benchmarks' boards) and for tests; no reader uses it.
"""

from __future__ import annotations

from collections.abc import Sequence

from models.cards import RANKS, Seat
from models.contract import Strain

SUITS = "SHDC"
"""Suit letters in PBN's order (spades first)."""

SEATS: tuple[Seat, ...] = (Seat.N, Seat.E, Seat.S, Seat.W)
"""Seats clockwise from North; a seat's index is its place here."""

SEAT_INDEX: dict[Seat, int] = {seat: i for i, seat in enumerate(SEATS)}
"""Seat -> its index in `SEATS`."""

_RANKS_LOW_TO_HIGH = "23456789TJQKA"

CARD_CODES: tuple[str, ...] = tuple(suit + rank for suit in SUITS for rank in _RANKS_LOW_TO_HIGH)
"""The 52 card codes."""

CARD_SET = frozenset(CARD_CODES)
"""The 52 card codes, for membership tests."""

CARD_NAMES: tuple[str, ...] = tuple(suit + rank for suit in SUITS for rank in RANKS)
"""Card codes by card number, the bridge engine's: suit by suit in PBN's order and ace to two within a
suit (SA=0, S2=12, HA=13 ... C2=51)."""

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

STRENGTH: dict[str | None, dict[str, dict[str, int]]] = {
    trump: {led: {code: (200 if code[0] == trump else 100 if code[0] == led else 0)
                  + _RANKS_LOW_TO_HIGH.index(code[1]) for code in CARD_CODES} for led in SUITS}
    for trump in (*SUITS, None)}
"""trump (None at notrump) -> suit led -> card -> strength in the trick: trumps beat the suit led,
which beats discards; then rank."""


def trump_of(strain: Strain | None) -> str | None:
    """The trump suit letter for a strain (None at notrump)."""
    return None if strain is None or strain is Strain.NT else strain.value


def winning_card(trick: Sequence[str], trump: str | None) -> int:
    """Index (in played order) of the card that wins a complete trick of four card codes.

    `trump` is the trump suit letter (S, H, D, C) or None at notrump: the highest trump wins,
    otherwise the highest card of the suit led.
    """
    table = STRENGTH[trump][trick[0][0]]
    strengths = [table[card] for card in trick[:4]]
    return strengths.index(max(strengths))


def trick_winner(trick: Sequence[str], leader: Seat, trump: str | None) -> Seat:
    """Who wins a complete trick of four card codes played clockwise from `leader`."""
    return SEATS[(SEAT_INDEX[leader] + winning_card(trick, trump)) & 3]
