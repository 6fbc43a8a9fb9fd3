"""Table sections (§5): column definitions `[+|-]Name[\\width[L|R]]` and rows of elements.

Rows are whitespace-separated elements, quoted strings may hold spaces and `;`. Declared widths are
cosmetic (real files overflow them), so rows are never cut by column positions. Import format lets
a row wrap over several lines; when the element count does not fit the columns we fall back to the
line structure so one broken line does not shift every row after it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import NamedTuple

from parsers.numbers import whole_number
from parsers.pbn.issues import Issue, at_cell, at_value, error, strict
from parsers.pbn.lexer import SectionToken, escape, section_tokens, unescape

_COLUMN = re.compile(r"([+-]?)([^\\;]*)(?:\\([0-9]+)([LR]?))?")
_FORBIDDEN = re.compile(r"[\[\]{}%;]")
_SPECIAL = re.compile(r'[\[\]{}%;"]')
_CELL = re.compile(r'"[^"\\\n]*(?:\\.[^"\\\n]*)*"|[^\s"]+')


class Column(NamedTuple):
    """One column of a table."""

    name: str
    """Column name, e.g. PairId_NS."""
    order: str = ""
    """'+' (descending), '-' (ascending) or ''."""
    width: int | None = None
    """Minimum width for export alignment."""
    align: str = ""
    """'L', 'R' or ''."""

    def to_pbn(self) -> str:
        """The column definition as written in the tag value."""
        width = "" if self.width is None else f"\\{self.width}{self.align}"
        return f"{self.order}{self.name}{width}"


@dataclass(frozen=True, slots=True)
class Table:
    """A table section: its columns and its elements, line by line as in the file."""

    name: str
    """Tag name (ScoreTable, TotalScoreTable, ...)."""
    columns: tuple[Column, ...]
    """Column definitions from the tag value."""
    lines: tuple[tuple[str, ...], ...]
    """Elements per source line, as written (quoted strings keep their quotes)."""
    comments: tuple[str, ...] = ()
    """Comments between the tag and the first element."""
    issues: tuple[Issue, ...] = ()
    """Problems found in the definition or the elements."""

    @property
    def column_names(self) -> tuple[str, ...]:
        """Names of the columns."""
        return tuple(c.name for c in self.columns)

    def rows(self) -> tuple[tuple[tuple[str, ...], int], ...]:
        """Logical rows with the index of their first element; broken lines are left out."""
        width = len(self.columns)
        if not width:
            return ()
        if all(len(line) == width for line in self.lines):
            rows, start = [], 0
            for line in self.lines:
                rows.append((line, start))
                start += width
            return tuple(rows)
        flat = [e for line in self.lines for e in line]
        if len(flat) % width == 0:
            return tuple((tuple(flat[i:i + width]), i) for i in range(0, len(flat), width))
        rows, start = [], 0
        for line in self.lines:
            if len(line) == width:
                rows.append((line, start))
            start += len(line)
        return tuple(rows)

    @property
    def is_regular(self) -> bool:
        """True when the elements divide evenly into rows (wrapped rows allowed)."""
        width = len(self.columns)
        return bool(width) and sum(len(line) for line in self.lines) % width == 0


def cell_text(element: str) -> str:
    """An element's text: quotes removed and escapes undone for string elements."""
    if len(element) >= 2 and element[0] == '"' and element[-1] == '"':
        return unescape(element[1:-1])
    return element


def quote_cell(text: str) -> str:
    """An element for `text`: a bare token when possible, else a quoted string."""
    if text and _CELL.fullmatch(text) and text[0] != '"' and not _FORBIDDEN.search(text):
        return text
    return f'"{escape(text)}"'


def parse_columns(value: str, tag_index: int = 0) -> tuple[tuple[Column, ...], tuple[Issue, ...]]:
    """Column definitions of a table tag value, with syntax problems (`Call\\`, `Call\\L`)."""
    columns: list[Column] = []
    issues: list[Issue] = []
    if not value.strip():
        return (), (error("pbn.table.columns", "A table needs at least one column definition.",
                          at_value(tag_index)),)
    for raw in value.split(";"):
        match = _COLUMN.fullmatch(raw)
        if match is None or not match.group(2).strip():
            issues.append(error("pbn.table.column", f"Column definition {raw!r} is not "
                                "[+|-]Name[\\width[L|R]].", at_value(tag_index)))
            name = raw.split("\\")[0].lstrip("+-").strip()
            columns.append(Column(name or raw))
            continue
        order, name, width, align = match.groups()
        columns.append(Column(name.strip(), order, None if width is None else whole_number(width), align or ""))
    return tuple(columns), tuple(issues)


def parse_table(name: str, value: str, section: str, tag_index: int = 0) -> Table:
    """Parse a table tag and its section data."""
    columns, column_issues = parse_columns(value, tag_index)
    issues = list(column_issues)
    if _SPECIAL.search(section) is None:
        lines = tuple(tuple(line.split()) for line in section.split("\n") if line.strip())
        return Table(name, columns, lines, (), tuple(issues) + _count_issues(name, columns, lines, tag_index))
    lines_out: list[list[str]] = []
    comments: list[str] = []
    current_line, count = -1, 0
    for token in section_tokens(section):
        if not is_element(token):
            if count:
                issues.append(strict("pbn.table.comment", "Commentary after a table element is not "
                                     "allowed (only after the table's tag).", at_cell(tag_index, count - 1)))
            else:
                comments.append(token.text)
            continue
        if token.kind == "bad" or _FORBIDDEN.search(token.text if token.kind == "word" else ""):
            issues.append(error("pbn.table.element", f"Table element {token.text[:30]!r} holds a "
                                "forbidden character or is not closed.", at_cell(tag_index, count)))
        line = section.count("\n", 0, token.offset)
        if line != current_line:
            lines_out.append([])
            current_line = line
        lines_out[-1].append(token.text)
        count += 1
    lines = tuple(tuple(line) for line in lines_out)
    issues.extend(_count_issues(name, columns, lines, tag_index))
    return Table(name, columns, lines, tuple(comments), tuple(issues))


def is_element(token: SectionToken) -> bool:
    """Whether `parse_table` counts `token` as a table element: everything but comments, an unclosed
    string included (it is an element with an error), so element positions agree everywhere."""
    return not (token.kind in ("comment", "bad") and token.text[:1] in "{;")


def _count_issues(name: str, columns: tuple[Column, ...], lines: tuple[tuple[str, ...], ...],
                  tag_index: int) -> tuple[Issue, ...]:
    width = len(columns)
    total = sum(len(line) for line in lines)
    if not width or total % width == 0:
        return ()
    issues: list[Issue] = []
    start = 0
    for line in lines:
        if len(line) != width:
            issues.append(error("pbn.table.row", f"A {name} line has {len(line)} element(s) for {width} "
                                "columns; it was left out.", at_cell(tag_index, start)))
        start += len(line)
    return tuple(issues)
