"""Seats, suits, cards, hands and deals: the vocabulary of a hand record."""

from __future__ import annotations

from enum import StrEnum
from typing import Self

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

RANKS = "AKQJT98765432"
"""Card ranks from highest to lowest, as PBN writes them."""


class Seat(StrEnum):
    """A compass seat. Clockwise order is N, E, S, W."""

    N = "N"
    E = "E"
    S = "S"
    W = "W"

    @property
    def order(self) -> int:
        """Position in clockwise order starting from North (N=0 ... W=3)."""
        return "NESW".index(self.value)

    def next(self, steps: int = 1) -> Seat:
        """The seat `steps` places clockwise (the next player to act)."""
        return Seat("NESW"[(self.order + steps) % 4])

    @property
    def partner(self) -> Seat:
        """The seat opposite."""
        return self.next(2)

    @property
    def side(self) -> str:
        """'NS' or 'EW'."""
        return "NS" if self in (Seat.N, Seat.S) else "EW"


class Suit(StrEnum):
    """A suit, in PBN hand order (spades first)."""

    S = "S"
    H = "H"
    D = "D"
    C = "C"


SUITS: tuple[Suit, ...] = (Suit.S, Suit.H, Suit.D, Suit.C)


class Card(BaseModel):
    """One card, written suit first (`SA`, `HT`, `C2`) as PBN and LIN do."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    suit: Suit
    """The card's suit."""
    rank: str = Field(pattern=r"^[AKQJT98765432]$")
    """The card's rank; ten is `T`."""

    @classmethod
    def parse(cls, text: str) -> Card:
        """Read `SA`, `s10` or `AS` (rank first, as USEBIO writes leads)."""
        token = text.strip().upper().replace("10", "T")
        if len(token) != 2:
            raise ValueError(f"a card is a suit and a rank, like SA or H7; got {text!r}")
        if token[0] in "SHDC" and token[1] in RANKS:
            return cls(suit=Suit(token[0]), rank=token[1])
        if token[1] in "SHDC" and token[0] in RANKS:
            return cls(suit=Suit(token[1]), rank=token[0])
        raise ValueError(f"a card is a suit and a rank, like SA or H7; got {text!r}")

    def __str__(self) -> str:
        return self.suit + self.rank  # str + str: the enum's `.value` lookup costs more than the rest


def _sorted_ranks(ranks: str) -> str:
    return "".join(sorted(ranks, key=RANKS.index))


class Hand(BaseModel):
    """The cards one player holds, per suit, ranks highest first."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    spades: str = ""
    """Spade ranks, e.g. `AKT2`."""
    hearts: str = ""
    """Heart ranks."""
    diamonds: str = ""
    """Diamond ranks."""
    clubs: str = ""
    """Club ranks."""

    @field_validator("spades", "hearts", "diamonds", "clubs")
    @classmethod
    def _ranks_are_valid(cls, value: str) -> str:
        ranks = value.upper().replace("10", "T")
        bad = [r for r in ranks if r not in RANKS]
        if bad:
            raise ValueError(f"not a card rank: {''.join(bad)!r} (ranks are AKQJT98765432)")
        if len(set(ranks)) != len(ranks):
            raise ValueError(f"a rank appears twice in one suit: {value!r}")
        return _sorted_ranks(ranks)

    @classmethod
    def from_pbn(cls, text: str) -> Hand:
        """Read a PBN hand `S.H.D.C`, e.g. `AKQ.JT9.876.5432` (a void is empty)."""
        parts = text.strip().split(".")
        if len(parts) != 4:
            raise ValueError(f"a PBN hand has four suits separated by dots; got {text!r}")
        return cls(spades=parts[0], hearts=parts[1], diamonds=parts[2], clubs=parts[3])

    def to_pbn(self) -> str:
        """Write the hand as PBN `S.H.D.C`."""
        return f"{self.spades}.{self.hearts}.{self.diamonds}.{self.clubs}"

    def ranks(self, suit: Suit) -> str:
        """Ranks held in `suit`."""
        return {Suit.S: self.spades, Suit.H: self.hearts, Suit.D: self.diamonds, Suit.C: self.clubs}[suit]

    def cards(self) -> tuple[Card, ...]:
        """Every card in the hand, spades first, highest first."""
        return tuple(Card(suit=suit, rank=rank) for suit in SUITS for rank in self.ranks(suit))

    def __len__(self) -> int:
        return len(self.spades) + len(self.hearts) + len(self.diamonds) + len(self.clubs)

    @classmethod
    def from_cards(cls, cards: list[Card] | tuple[Card, ...]) -> Hand:
        """Build a hand from loose cards."""
        by_suit = {suit: "".join(c.rank for c in cards if c.suit == suit) for suit in SUITS}
        return cls(spades=by_suit[Suit.S], hearts=by_suit[Suit.H], diamonds=by_suit[Suit.D],
                   clubs=by_suit[Suit.C])


FULL_DECK: frozenset[tuple[Suit, str]] = frozenset((s, r) for s in SUITS for r in RANKS)


class Deal(BaseModel):
    """The four hands of a board. A hand may be unknown (None), e.g. a PBN `-` hand."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    north: Hand | None = None
    """North's hand."""
    east: Hand | None = None
    """East's hand."""
    south: Hand | None = None
    """South's hand."""
    west: Hand | None = None
    """West's hand."""

    @model_validator(mode="after")
    def _no_card_twice(self) -> Self:
        seen: set[tuple[Suit, str]] = set()
        for seat in Seat:
            hand = self.hand(seat)
            if hand is None:
                continue
            if len(hand) > 13:
                raise ValueError(f"{seat.value} holds {len(hand)} cards; a hand has at most 13")
            for card in hand.cards():
                key = (card.suit, card.rank)
                if key in seen:
                    raise ValueError(f"card {card} is dealt twice")
                seen.add(key)
        return self

    def hand(self, seat: Seat) -> Hand | None:
        """The hand at `seat`."""
        return {Seat.N: self.north, Seat.E: self.east, Seat.S: self.south, Seat.W: self.west}[seat]

    @classmethod
    def from_hands(cls, hands: dict[Seat, Hand | None]) -> Deal:
        """Build a deal from a seat -> hand mapping."""
        return cls(north=hands.get(Seat.N), east=hands.get(Seat.E), south=hands.get(Seat.S),
                   west=hands.get(Seat.W))

    @property
    def is_complete(self) -> bool:
        """True when all four hands hold 13 cards."""
        return all((h := self.hand(s)) is not None and len(h) == 13 for s in Seat)

    def with_fourth_hand(self) -> Deal:
        """Fill in the one unknown hand from the cards the other three do not hold (LIN md)."""
        missing = [s for s in Seat if self.hand(s) is None]
        if len(missing) != 1:
            return self
        held = {(c.suit, c.rank) for s in Seat if (h := self.hand(s)) for c in h.cards()}
        if len(held) != 39:
            return self
        rest = [Card(suit=suit, rank=rank) for suit, rank in sorted(FULL_DECK - held)]
        hands = {s: self.hand(s) for s in Seat}
        hands[missing[0]] = Hand.from_cards(rest)
        return Deal.from_hands(hands)

    @classmethod
    def from_pbn(cls, text: str) -> Deal:
        """Read a PBN deal `N:hand hand hand hand` (clockwise from the first seat; `-` = unknown)."""
        first, sep, rest = text.strip().partition(":")
        if not sep or first.strip().upper() not in "NESW" or not first.strip():
            raise ValueError(f"a PBN deal starts with a seat and a colon, like N:...; got {text!r}")
        seat = Seat(first.strip().upper())
        parts = rest.split()
        if len(parts) != 4:
            raise ValueError(f"a PBN deal lists four hands; got {len(parts)} in {text!r}")
        hands: dict[Seat, Hand | None] = {}
        for offset, part in enumerate(parts):
            hands[seat.next(offset)] = None if part == "-" else Hand.from_pbn(part)
        return cls.from_hands(hands)

    def to_pbn(self, first: Seat | str = Seat.N) -> str:
        """Write the deal as PBN, clockwise from `first`."""
        first = Seat(first)
        parts = []
        for offset in range(4):
            hand = self.hand(first.next(offset))
            parts.append("-" if hand is None else hand.to_pbn())
        return f"{first.value}:" + " ".join(parts)
