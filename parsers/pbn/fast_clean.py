"""Fast path, stage zero: comments, escape lines and annotations blanked out of the text in place.

PBN 2.1 lets comments (`{...}`, over any number of lines, and `;` to the end of the line) sit
between tag pairs, after a tag pair on its line and among calls and cards; escape lines (`%` in
column 1) anywhere; and annotations on calls and cards (`!`, `?`, note references `=n=`) that the
careful reader keeps beside the calls and cards, never in them. None of these changes a frame, so
the fast path overwrites them with spaces (keeping the line feeds, so line numbers hold) and notes
which lines held one: such a line, blank once cleaned, is no semi-empty line (it does not end a
game, as the careful reader's `iter_chunks` does not end one inside a comment).

Where a comment is, is found as the careful reader's scanner finds it (`lexer._BRACE_SCAN`: a `{`
in a string, a `;` comment or an escape line opens nothing), with a regular expression run over
the lines that hold a `{` or `;` only (and on from a comment's line to its `}`): the lines of a
file without either are never looked at one by one.
"""

from __future__ import annotations

import re

import numpy as np

from parsers.pbn.fast_bytes import BoolArray, Declined, IntArray, Lines, Source, run_starts, segments

# The careful reader's `_BRACE_SCAN`, as bytes: strings, `;` comments, escape lines and `{` comments.
_SCAN = re.compile(rb'"[^"\\\n]*(?:\\.[^"\\\n]*)*"?|;[^\n]*|^%[^\n]*|\{[^}]*\}?', re.MULTILINE)
_SPACE = ord(" ")
_FEED = ord("\n")


def blank_comments(source: Source) -> BoolArray | None:
    """Overwrite every comment of the text with spaces (line feeds kept); return which lines held
    part of one, or None when the text has no comment."""
    data = source.data[:source.size]
    opening = np.flatnonzero((data == ord("{")) | (data == ord(";")))
    if not opening.size:
        return None
    quick = _plain_spans(source, opening)
    if quick is None:
        spans = _comment_spans(source, opening)
        start = np.array([span[0] for span in spans], dtype=np.int64)
        end = np.array([span[1] for span in spans], dtype=np.int64)
    else:
        start, end = quick
    at = segments(start, end - start)
    source.data[at] = np.where(source.data[at] == _FEED, _FEED, _SPACE).astype(np.uint8)
    first = np.searchsorted(source.start, start, side="right") - 1
    last = np.searchsorted(source.start, end - 1, side="right") - 1
    marks = np.zeros(source.start.size + 1, dtype=np.int64)  # +1 from each span's first line to its last
    np.add.at(marks, first, 1)
    np.add.at(marks, last + 1, -1)
    held: BoolArray = np.cumsum(marks[:-1]) > 0
    return held


def _plain_spans(source: Source, opening: IntArray) -> tuple[IntArray, IntArray] | None:
    """The comments' [start, end) when each opens its line's first comment (a `{` or `;` after an
    even number of quotes on its line, with no backslash or escape line to blur that) and every
    `{` or `;` after it lies inside one: found for all lines at once. None for any other layout
    (then `_comment_spans` reads the lines one by one)."""
    data = source.data
    line = np.searchsorted(source.start, opening, side="right") - 1
    line_start = source.start[line]
    quotes = np.flatnonzero(data[:source.size] == ord('"'))
    in_string = (np.searchsorted(quotes, opening) - np.searchsorted(quotes, line_start)) % 2 == 1
    slashes = np.flatnonzero(data[:source.size] == ord("\\"))
    if (np.searchsorted(slashes, opening) != np.searchsorted(slashes, line_start)).any():
        return None
    if (data[line_start] == ord("%")).any():
        return None
    candidates = np.flatnonzero(~in_string)
    if not candidates.size:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    firsts = candidates[run_starts(line[candidates])]  # the first of each line outside a string
    lines, start = line[firsts], opening[firsts]
    closing = np.flatnonzero(data[:source.size] == ord("}"))
    brace = data[start] == ord("{")
    after = np.searchsorted(closing, start)
    close = np.append(closing, source.size - 1)  # a `{` never closed runs to the end (said below)
    end = np.where(brace, close[after] + 1, source.end[lines])
    if (start[1:] < np.maximum.accumulate(end)[:-1]).any():
        return None  # a comment inside another's lines: read them in order
    last_line = np.searchsorted(source.start, end - 1, side="right") - 1
    if np.isin(line, last_line[last_line != lines]).any():
        return None  # a `{` or `;` on a line that a comment from an earlier line ends on: read in order
    # Each `{` or `;` that is not in a string before its line's first comment must be inside a comment.
    inside = np.searchsorted(start, opening, side="right") - 1
    later = opening >= np.where(inside >= 0, start[np.maximum(inside, 0)], np.iinfo(np.int64).max)
    owned = (inside >= 0) & (lines[np.maximum(inside, 0)] == line)
    before_first = in_string & ~(owned & later)
    if not ((opening < end[np.maximum(inside, 0)]) & (inside >= 0) | before_first).all():
        return None  # a second comment on a line
    if (brace & (after == closing.size)).any():
        raise Declined("a { comment that is never closed")
    return start, end


def _comment_spans(source: Source, opening: IntArray) -> list[tuple[int, int]]:
    """The [start, end) byte ranges of the comments, read line by line from each line with a `{` or `;`."""
    buffer = memoryview(source.data.data)  # (numpy's own buffer: `re` reads it in place)
    closing = np.flatnonzero(source.data[:source.size] == ord("}"))
    lines = np.unique(np.searchsorted(source.start, opening, side="right") - 1)
    spans: list[tuple[int, int]] = []
    covered = 0  # the text before this is read
    for line in lines.tolist():
        begin, end = max(int(source.start[line]), covered), int(source.end[line])
        while begin < end:
            begin, end = _scan_line(buffer, begin, end, closing, source, spans)
        covered = max(covered, begin)
    return spans


def _scan_line(buffer: memoryview, begin: int, end: int, closing: IntArray, source: Source,
               spans: list[tuple[int, int]]) -> tuple[int, int]:
    """Read [begin, end) (to a line's end); a comment that goes on past the line is followed to its
    `}`. Return where reading goes on: (end, end) when the line is done, or the rest of the line a
    comment ended on."""
    for match in _SCAN.finditer(buffer, begin, end):
        first = buffer[match.start()]
        if first == ord(";"):
            spans.append((match.start(), match.end()))
        elif first == ord("{"):
            if buffer[match.end() - 1] == ord("}"):
                spans.append((match.start(), match.end()))
                continue
            after = np.searchsorted(closing, match.start())
            if after == closing.size:
                raise Declined("a { comment that is never closed")
            close = int(closing[after]) + 1
            spans.append((match.start(), close))
            line = int(np.searchsorted(source.start, close - 1, side="right")) - 1
            return close, int(source.end[line])
    return end, end


def blank_annotations(source: Source, *sections: Lines) -> None:
    """Overwrite the suffixes (`!`, `?`) and note references (`=n=`) of auction or play lines with
    spaces: the careful reader keeps them beside the calls and cards (lenient mode says nothing of
    them). NAGs and irregularity marks are left for the careful reader."""
    data = source.data[:source.size]
    marks = (data == ord("!")) | (data == ord("?")) | (data == ord("=")) | (data == ord("$")) | (data == ord("^"))
    found = np.flatnonzero(marks)  # (over the whole text at once: few are found)
    starts = np.concatenate([lines.start for lines in sections])
    if not found.size or not starts.size:
        return
    order = np.argsort(starts, kind="stable")
    starts, ends = starts[order], np.concatenate([lines.end for lines in sections])[order]
    line = np.searchsorted(starts, found, side="right") - 1  # the last section line starting before
    at = found[(line >= 0) & (found < ends[np.maximum(line, 0)])]
    written = source.data[at]
    if ((written == ord("$")) | (written == ord("^"))).any():
        raise Declined("a NAG or an irregularity mark in a section")
    source.data[at[(written == ord("!")) | (written == ord("?"))]] = _SPACE
    equals = at[written == ord("=")]
    if not equals.size:
        return
    if equals.size % 2:
        raise Declined("a note reference that is not =n=")
    opening, closing = equals[0::2], equals[1::2]
    inside = segments(opening, closing - opening + 1)
    if not (source.data[inside[source.data[inside] != ord("=")]] - ord("0") < 10).all():
        raise Declined("a note reference that is not =n=")
    source.data[inside] = _SPACE
