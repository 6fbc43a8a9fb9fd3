"""Boards and Law 2: dealer and vulnerability follow from the board number unless marked."""

from __future__ import annotations

from enum import StrEnum
from typing import Self

from pydantic import BaseModel, ConfigDict, Field, model_validator

from models.cards import Deal, Seat


class Vulnerability(StrEnum):
    """Which sides are vulnerable."""

    NONE = "None"
    NS = "NS"
    EW = "EW"
    BOTH = "All"

    def is_vulnerable(self, side: str) -> bool:
        """Whether `side` ('NS' or 'EW', or a seat letter) is vulnerable."""
        side = {"N": "NS", "S": "NS", "E": "EW", "W": "EW"}.get(side, side)
        return self is Vulnerability.BOTH or self.value == side

    @classmethod
    def parse(cls, text: str) -> Vulnerability:
        """Read the spellings seen in real files: None/Love/-/o/0, NS/N-S/n, EW/E-W/e, All/Both/b."""
        token = text.strip().upper().replace("-", "").replace("_", "").replace(" ", "")
        for vul, spellings in _VUL_SPELLINGS.items():
            if token in spellings:
                return vul
        raise ValueError(f"not a vulnerability: {text!r} (expected None, NS, EW or All)")


_VUL_SPELLINGS: dict[Vulnerability, frozenset[str]] = {
    Vulnerability.NONE: frozenset({"NONE", "LOVE", "", "O", "0"}),
    Vulnerability.NS: frozenset({"NS", "N"}),
    Vulnerability.EW: frozenset({"EW", "E"}),
    Vulnerability.BOTH: frozenset({"ALL", "BOTH", "B"}),
}

_DEALERS = (Seat.W, Seat.N, Seat.E, Seat.S)  # board number mod 4: 0 -> W, 1 -> N, ...
_VULS = (
    Vulnerability.NONE, Vulnerability.NS, Vulnerability.EW, Vulnerability.BOTH,
    Vulnerability.NS, Vulnerability.EW, Vulnerability.BOTH, Vulnerability.NONE,
    Vulnerability.EW, Vulnerability.BOTH, Vulnerability.NONE, Vulnerability.NS,
    Vulnerability.BOTH, Vulnerability.NONE, Vulnerability.NS, Vulnerability.EW,
)


def law2_dealer(board: int) -> Seat:
    """Dealer by Law 2: N for boards 1, 5, 9, 13; E for 2, 6, ...; the cycle repeats every 16."""
    return _DEALERS[board % 4]


def law2_vulnerability(board: int) -> Vulnerability:
    """Vulnerability by Law 2 (cycle of 16 boards)."""
    return _VULS[(board - 1) % 16]


class Board(BaseModel):
    """A board as played: its number, dealer, vulnerability and (if known) the deal.

    Law 2 derives dealer and vulnerability from the number; a board's own marking wins when given.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    number: int = Field(ge=1)
    """Board number as printed on the board."""
    dealer: Seat | None = None
    """Dealer; None means "as Law 2 says" and is filled in on validation."""
    vulnerability: Vulnerability | None = None
    """Vulnerability; None means "as Law 2 says"."""
    deal: Deal | None = None
    """The hands, when the hand record is known."""

    @model_validator(mode="after")
    def _fill_from_law2(self) -> Self:
        if self.dealer is None:
            object.__setattr__(self, "dealer", law2_dealer(self.number))
        if self.vulnerability is None:
            object.__setattr__(self, "vulnerability", law2_vulnerability(self.number))
        return self

    @property
    def marked_differently(self) -> bool:
        """True when the board's marking differs from Law 2 (it still stands, Law 2)."""
        return (self.dealer, self.vulnerability) != (law2_dealer(self.number),
                                                     law2_vulnerability(self.number))
