"""The rows of a page's tables as a reader sees them: each cell's classes, its text, and the text of
its first `<bdi>` (a contestant's id, without the names beside it)."""

from __future__ import annotations

from dataclasses import dataclass, field
from html.parser import HTMLParser


@dataclass
class Cell:
    """One `<td>` or `<th>`."""

    classes: frozenset[str]
    text: str = ""
    key: str | None = None


@dataclass
class Row:
    """One `<tr>` of a table body, with its table's and its own attributes."""

    table: dict[str, str]
    attrs: dict[str, str]
    cells: list[Cell] = field(default_factory=list)

    def first(self, css: str) -> Cell:
        """The first cell with that class."""
        return next(c for c in self.cells if css in c.classes)

    def has(self, css: str) -> bool:
        """Whether a cell has that class."""
        return any(css in c.classes for c in self.cells)


class _Tables(HTMLParser):
    def __init__(self, css: str) -> None:
        super().__init__()
        self.css, self.rows = css, []  # type: ignore[var-annotated]
        self.table: dict[str, str] | None = None
        self.in_body = False
        self.cell: Cell | None = None
        self.bdi: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = {k: v or "" for k, v in attrs}
        if tag == "table" and self.css in found.get("class", "").split():
            self.table = found
        elif self.table is not None and tag == "tbody":
            self.in_body = True
        elif self.table is not None and self.in_body and tag == "tr":
            self.rows.append(Row(self.table, found))
        elif self.in_body and self.rows and tag in ("td", "th"):
            self.cell = Cell(frozenset(found.get("class", "").split()))
            self.rows[-1].cells.append(self.cell)
        elif self.cell is not None and tag == "bdi" and self.cell.key is None and self.bdi is None:
            self.bdi = []

    def handle_endtag(self, tag: str) -> None:
        if tag == "table":
            self.table, self.in_body = None, False
        elif tag in ("td", "th") and self.cell is not None:
            self.cell.text = " ".join(self.cell.text.split())
            self.cell = None
        elif tag == "bdi" and self.bdi is not None and self.cell is not None:
            self.cell.key = "".join(self.bdi)
            self.bdi = None

    def handle_data(self, data: str) -> None:
        if self.cell is not None:
            self.cell.text += data
        if self.bdi is not None:
            self.bdi.append(data)


def table_rows(html: str, css: str) -> list[Row]:
    """Every body row of every table of class `css`."""
    parser = _Tables(css)
    parser.feed(html)
    return parser.rows
