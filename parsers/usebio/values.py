"""USEBIO's values read alone, without the element around them: dates and contracts."""

from __future__ import annotations

import re
from datetime import date

from models.contract import Contract
from parsers.usebio.hands import SEATS

_DATE = re.compile(r"^(\d{1,2})[/.-](\d{1,2})[/.-](\d{2}|\d{4})$")
_ISO_DATE = re.compile(r"^(\d{4})-(\d{2})-(\d{2})")


def event_date(text: str) -> date | None:
    """An EVENT's DATE: day first (`11/07/2022`, `11.7.22`) or ISO (`2022-07-11`); None when it is
    not a date."""
    match = _DATE.match(text)
    iso = _ISO_DATE.match(text)
    try:
        if match is not None:
            day, month, year = (int(g) for g in match.groups())
            return date(year + 2000 if year < 100 else year, month, day)
        if iso is not None:
            return date(*(int(g) for g in iso.groups()))
    except ValueError:
        pass
    return None


def line_contract(text: str, played_by: str) -> Contract:
    """A traveller line's CONTRACT with its declarer from PLAYED_BY; raises ValueError when it is not one.

    A contract that names its declarer (`4SN`) or is passed out needs no PLAYED_BY (on a passed-out
    board it is often N, and meaningless).
    """
    try:
        return Contract.parse(text)
    except ValueError:
        return Contract.parse(text, SEATS.get(played_by.upper()[:1]))
