"""Findings collected while reading, before they become positioned `Diagnostic`s.

A finding carries two severities, one per reading mode: spelling drift is an info note in lenient
mode but an error in strict mode, and layout rules of the standard that do not affect the data are
only reported in strict mode. Positions are kept as cheap anchors relative to the game's text and
are turned into line and column only for findings that are actually reported.
"""

from __future__ import annotations

from typing import NamedTuple

from models.diagnostics import Severity

ERROR = Severity.ERROR
WARNING = Severity.WARNING
INFO = Severity.INFO

Anchor = tuple[str, int, int]
"""Where a finding is, relative to its game: ("offset", chunk offset, 0), ("tag", tag index, 0),
("value", tag index, 0), ("token", tag index, token index) for auction/play tokens,
("cell", tag index, element index) for table elements, ("pos", line, column) when already resolved."""


class Issue(NamedTuple):
    """One finding: a stable code, a message for a club scorer, and its severities per mode."""

    code: str
    """Stable machine-readable code, e.g. `pbn.deal.duplicate-card`."""
    message: str
    """What is wrong, in plain words."""
    anchor: Anchor
    """Where it is, relative to the game."""
    lenient: Severity | None
    """Severity in lenient mode; None = not reported."""
    strict: Severity | None
    """Severity in strict mode; None = not reported."""
    contained: bool = False
    """True when the damage is limited to what was already left out (a table row), so the error
    does not quarantine the rest of the game."""


def at_offset(offset: int) -> Anchor:
    """Anchor at a character offset in the game's text."""
    return ("offset", offset, 0)


def at_position(line: int, column: int) -> Anchor:
    """Anchor already resolved to a 1-based line and column of the file."""
    return ("pos", line, column)


def at_tag(tag_index: int) -> Anchor:
    """Anchor at the opening bracket of a tag pair."""
    return ("tag", tag_index, 0)


def at_value(tag_index: int) -> Anchor:
    """Anchor at the first character of a tag value."""
    return ("value", tag_index, 0)


def at_token(tag_index: int, token_index: int) -> Anchor:
    """Anchor at a call or card (with its annotations counted) of an auction or play section."""
    return ("token", tag_index, token_index)


def at_cell(tag_index: int, element_index: int) -> Anchor:
    """Anchor at an element of a table section."""
    return ("cell", tag_index, element_index)


def error(code: str, message: str, anchor: Anchor) -> Issue:
    """A problem that makes the data untrustworthy, in both modes."""
    return Issue(code, message, anchor, ERROR, ERROR)


def warning(code: str, message: str, anchor: Anchor) -> Issue:
    """A problem worth a look; the data was kept (an error in strict mode)."""
    return Issue(code, message, anchor, WARNING, ERROR)


def drift(code: str, message: str, anchor: Anchor) -> Issue:
    """Spelling drift that was normalised: info in lenient mode, an error in strict mode."""
    return Issue(code, message, anchor, INFO, ERROR)


def note(code: str, message: str, anchor: Anchor) -> Issue:
    """Information only, in both modes (never an error)."""
    return Issue(code, message, anchor, INFO, INFO)


def strict(code: str, message: str, anchor: Anchor) -> Issue:
    """A violation of the standard that does not affect the data: reported in strict mode only."""
    return Issue(code, message, anchor, None, ERROR)


def lenient(severity: Severity, code: str, message: str, anchor: Anchor) -> Issue:
    """Reported in lenient mode only, because strict validation checks the same thing itself."""
    return Issue(code, message, anchor, severity, None)

