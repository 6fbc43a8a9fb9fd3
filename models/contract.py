"""Contracts and table results. "Passed out" is a contract too (level 0)."""

from __future__ import annotations

import re
from enum import StrEnum
from functools import lru_cache
from typing import Self

from pydantic import BaseModel, ConfigDict, Field, model_validator

from models.cards import Card, Seat


class Strain(StrEnum):
    """The denomination of a contract."""

    C = "C"
    D = "D"
    H = "H"
    S = "S"
    NT = "NT"


class Doubling(StrEnum):
    """Undoubled, doubled or redoubled."""

    NONE = ""
    X = "X"
    XX = "XX"


_CONTRACT = re.compile(r"^([1-7])\s*(NT|SA|N|S|H|D|C)\s*(XX|X|\*\*|\*|R|D)?$")
_PASS_SPELLINGS = frozenset({"PASS", "P", "AP", "PASSED", "PASSEDOUT", "PASSED OUT", "0"})


class Contract(BaseModel):
    """A final contract: level 1-7, strain, doubling and declarer; level 0 means passed out."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    level: int = Field(ge=0, le=7)
    """Tricks over six contracted for; 0 = all four passed."""
    strain: Strain | None = None
    """Denomination; None when passed out."""
    doubling: Doubling = Doubling.NONE
    """'', 'X' or 'XX'."""
    declarer: Seat | None = None
    """Declarer; None when passed out."""

    @model_validator(mode="after")
    def _consistent(self) -> Self:
        if self.level == 0 and (self.strain is not None or self.doubling or self.declarer is not None):
            raise ValueError("a passed-out board has no strain, doubling or declarer")
        if self.level > 0 and self.strain is None:
            raise ValueError("a contract needs a strain (C, D, H, S or NT)")
        return self

    @property
    def is_passed_out(self) -> bool:
        """True when all four players passed."""
        return self.level == 0

    @classmethod
    def passed_out(cls) -> Contract:
        """The passed-out 'contract'."""
        return cls(level=0)

    @classmethod
    def parse(cls, text: str, declarer: str | Seat | None = None) -> Contract:
        """Read `4S`, `4SX`, `3NTXX`, `3N`, `2Dx`, `PASS`; the declarer is given separately."""
        seat_text = "" if declarer is None else str(declarer).strip().upper()
        return _parsed(text, seat_text, repr(declarer))

    def __str__(self) -> str:
        if self.is_passed_out:
            return "PASS"
        assert self.strain is not None
        return f"{self.level}{self.strain.value}{self.doubling.value}"


@lru_cache(maxsize=4096)
def _parsed(text: str, seat_text: str, shown_declarer: str) -> Contract:
    """`Contract.parse`, once per spelling: a file (or a session read back for its pages) repeats a
    few dozen contracts thousands of times, and a contract is frozen, so one object serves them all."""
    token = text.strip().upper().replace(" ", "")
    if token in _PASS_SPELLINGS:
        return Contract.passed_out()
    match = _CONTRACT.match(token)
    if match is None:
        raise ValueError(f"not a contract: {text!r} (expected e.g. 4S, 3NTX, 6HXX or PASS)")
    level, strain_text, dbl_text = match.groups()
    strain = {"N": Strain.NT, "NT": Strain.NT, "SA": Strain.NT}.get(strain_text) or Strain(strain_text)
    doubling = {None: Doubling.NONE, "X": Doubling.X, "*": Doubling.X, "D": Doubling.X,
                "XX": Doubling.XX, "**": Doubling.XX, "R": Doubling.XX}[dbl_text]
    if seat_text and seat_text not in ("N", "E", "S", "W"):
        raise ValueError(f"declarer must be N, E, S or W, got {shown_declarer}")
    if not seat_text:
        raise ValueError(f"contract {text!r} needs a declarer (N, E, S or W)")
    return Contract(level=int(level), strain=strain, doubling=doubling, declarer=Seat(seat_text))


class TableResult(BaseModel):
    """What happened at one table on one board: the contract and the tricks declarer won."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    board: int = Field(ge=1)
    """Board number."""
    contract: Contract
    """Final contract (possibly passed out)."""
    tricks: int | None = Field(default=None, ge=0, le=13)
    """Total tricks won by declarer; None when passed out."""
    lead: Card | None = None
    """Opening lead, when recorded."""

    @model_validator(mode="after")
    def _tricks_match_contract(self) -> Self:
        if self.contract.is_passed_out and self.tricks not in (None, 0):
            raise ValueError("a passed-out board has no tricks")
        if not self.contract.is_passed_out and self.tricks is None:
            raise ValueError("a played contract needs the tricks declarer won")
        return self

    @classmethod
    def tricks_from_result(cls, level: int, result: str) -> int:
        """Turn a relative result (`=`, `+1`, `-2`) or an absolute trick count into declarer's tricks."""
        text = result.strip()
        if text in ("=", "+0", "-0", "MADE"):
            return level + 6
        if text[:1] in "+-" and text[1:].isdigit():
            return level + 6 + int(text)
        if text.isdigit():
            return int(text)
        raise ValueError(f"not a result: {result!r} (expected =, +1, -2 or a trick count 0-13)")
