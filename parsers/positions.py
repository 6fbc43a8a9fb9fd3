"""Where a character is: offsets in a text turned into 1-based (line, column), for every reader.

CRLF, CR and LF each end a line; a column counts characters from 1. Readers that locate many
offsets in one text keep a `LineIndex`; one that locates a few in a small text calls `locate`.
"""

from __future__ import annotations

import bisect
import re

_LINE_BREAK = re.compile(r"\r\n|\r|\n")


class LineIndex:
    """Turns character offsets of one text into 1-based (line, column)."""

    def __init__(self, text: str, first_line: int = 1) -> None:
        self._starts = [0] + [m.end() for m in _LINE_BREAK.finditer(text)]
        self._before = first_line - 1

    def line(self, offset: int) -> int:
        """Line of `offset` (the text's first line is `first_line`)."""
        return self._before + bisect.bisect_right(self._starts, offset)

    def position(self, offset: int) -> tuple[int, int]:
        """Line and column of `offset`."""
        line = bisect.bisect_right(self._starts, offset)
        return self._before + line, offset - self._starts[line - 1] + 1


def locate(text: str, offset: int, first_line: int = 1) -> tuple[int, int]:
    """Line and column of `offset` (kept within the text) in `text`, whose first line is `first_line`."""
    return LineIndex(text, first_line).position(max(0, min(offset, len(text))))
