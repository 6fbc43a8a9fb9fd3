"""Law 12C2 artificial adjusted scores: the one vocabulary of awards.

Law 12C2(a) names three awards, given to each side separately: average-plus (a contestant not at
fault), average (partly at fault) and average-minus (directly at fault). Events store them as
`A+`, `A` and `A-` (`Average`); every other spelling a file, a command line or an older program
used is read through `parse_award` / `AWARD_SPELLINGS`, so the CLI, the readers and scoring cannot
disagree on what an award means. An award can also be an explicit number: a percentage in pairs,
IMPs in teams (Law 12C2(b), and a regulating authority's own values, 12C2(d)).
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Final, Literal

from pydantic import Field

MAX_AWARD: Final = 100.0
"""The largest explicit artificial award in size: a percentage (pairs) or IMPs (teams)."""


class Average(StrEnum):
    """An award by its name in Law 12C2(a); the value is what an event stores."""

    PLUS = "A+"
    """Average-plus: the contestant was not at fault."""
    EVEN = "A"
    """Average: the contestant was partly at fault."""
    MINUS = "A-"
    """Average-minus: the contestant was directly at fault."""

    @property
    def law_name(self) -> str:
        """The award as the Laws name it: average-plus, average or average-minus."""
        return _LAW_NAMES[self]


_LAW_NAMES: Final = {Average.PLUS: "average-plus", Average.EVEN: "average", Average.MINUS: "average-minus"}

StoredAverage = Literal["A+", "A", "A-"]
"""An award by name as events store it (`Average`'s values)."""

ArtificialAward = StoredAverage | Annotated[float, Field(ge=-MAX_AWARD, le=MAX_AWARD, allow_inf_nan=False)]
"""Average-plus / average / average-minus, or an explicit percentage (pairs) or IMPs (teams)."""

AWARD_SPELLINGS: Final[dict[str, StoredAverage]] = {
    **{spelling: "A+" for spelling in ("A+", "AVE+", "AV+", "AVG+", "AVERAGE+", "AVERAGE-PLUS", "AVERAGEPLUS")},
    # `A=` is PBN's (and the CSV traveller's) average; `A0` an old club program's.
    **{spelling: "A" for spelling in ("A", "A=", "A0", "AVE", "AV", "AVG", "AVE=", "AVERAGE")},
    **{spelling: "A-" for spelling in ("A-", "AVE-", "AV-", "AVG-", "AVERAGE-", "AVERAGE-MINUS", "AVERAGEMINUS")},
}
"""Every spelling of a named award we read (upper case, `_` and spaces as `-`), to its stored value.
Stored events keep whatever they were written with; scoring reads them through this map too."""


def award_key(text: str) -> str:
    """`text` as `AWARD_SPELLINGS` is keyed: trimmed, upper case, `_` and inner spaces as `-`."""
    return "-".join(text.strip().upper().replace("_", " ").split())


def named_award(text: str) -> StoredAverage | None:
    """The stored value of a named award (`average-plus`, `AVE+`, `A=` ...), or None if `text` names none."""
    return AWARD_SPELLINGS.get(award_key(text))


def parse_award(text: str) -> ArtificialAward:
    """One side's award from a cell or an option: a named award, or a number (`60`, `60%`, `-3`).

    Raises ValueError for anything else or a number outside +-`MAX_AWARD`.
    """
    named = named_award(text)
    if named is not None:
        return named
    token = text.strip().removesuffix("%").strip()
    try:
        number = float(token)
    except ValueError:
        raise ValueError(f"{text.strip()!r} is not an award: average-plus (A+), average (A), "
                         "average-minus (A-) or a number") from None
    if number != number or abs(number) > MAX_AWARD:  # NaN is not a number of points
        raise ValueError(f"an explicit award is at most {MAX_AWARD:g} in size, got {text.strip()!r}")
    return number
