"""One number grammar for every reader.

A number in a bridge file is a run of ASCII digits `0-9` (never `²`, `١` or other characters that
`str.isdigit` accepts), at most `MAX_DIGITS` long, at most `MAX_WHOLE`. Anything else is not a
number: the reader says so with a positioned diagnostic instead of letting `int()` raise (on
superscripts, on strings over Python's 4,300-digit limit) or a value over 2^63 break the frames.
"""

from __future__ import annotations

import re

MAX_DIGITS = 9
"""Digits a number may have: every count, board, table, round or score in a file fits in far fewer."""
MAX_WHOLE = 10**MAX_DIGITS - 1
"""The largest number any reader accepts (fits every integer column, also Int32)."""

_WHOLE = re.compile(f"[0-9]{{1,{MAX_DIGITS}}}", re.ASCII)


def whole_number(text: str, *, low: int = 0, high: int = MAX_WHOLE) -> int | None:
    """`text` (surrounding blanks allowed) as a whole number in [low, high], else None."""
    token = text.strip()
    if _WHOLE.fullmatch(token) is None:
        return None
    value = int(token)
    return value if low <= value <= high else None


def is_whole_number(text: str, *, low: int = 0, high: int = MAX_WHOLE) -> bool:
    """Whether `text` reads as a whole number in [low, high] (see `whole_number`)."""
    return whole_number(text, low=low, high=high) is not None
