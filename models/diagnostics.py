"""Diagnostics: what a reader found wrong or normalised, and exactly where."""

from __future__ import annotations

import re
from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field, field_validator

CODE_SCHEME = re.compile(r"(pbn|lin|usebio|csv|ingest|diagnostics)(\.[a-z0-9_]+(-[a-z0-9_]+)*){1,2}")
"""The one scheme of diagnostic codes, for every reader: `<reader>.<subject>.<problem>`, lower case
words joined by hyphens (`pbn.deal.duplicate-card`, `lin.pc.revoke`, `csv.row.result`). A code of two
parts names a whole subject (`pbn.contract`: the Contract tag cannot be read). `ingest.*` and
`diagnostics.*` are the ingest's own. The bridge engine (`parsers.bridge`) reports a problem as a
suffix (`revoke`, `insufficient-bid`) and the reader puts its subject before it. Codes are stored in
the log with every ingested file, so a code once given is never renamed."""

MAX_MESSAGE = 300
"""Characters of a diagnostic's message kept; the rest is summarised by its length."""


class Severity(StrEnum):
    """How bad a finding is. Errors quarantine the record they belong to."""

    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


class Diagnostic(BaseModel):
    """One finding in an input file, positioned to the line and column (both 1-based)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    source: str
    """File name (or `<string>`)."""
    line: int = Field(ge=0)
    """1-based line; 0 when the finding concerns the whole file."""
    column: int = Field(ge=0)
    """1-based column; 0 when the whole line is meant."""
    severity: Severity
    """error, warning or info."""
    code: str
    """Stable machine-readable code, e.g. `pbn.deal.duplicate-card`."""
    message: str
    """What is wrong and what was expected, in words a club scorer understands."""
    record: int | None = None
    """0-based index of the record (game, board, row) the finding belongs to, if any."""

    @field_validator("message")
    @classmethod
    def _bounded(cls, message: str) -> str:
        # A message quotes what it found; a hostile file's 5,000-digit "number" must not become a
        # 5 kB diagnostic (kept in the log forever), so the quote is cut, saying by how much.
        if len(message) <= MAX_MESSAGE:
            return message
        return f"{message[:MAX_MESSAGE]}... ({len(message) - MAX_MESSAGE} more characters)"

    def __str__(self) -> str:
        return f"{self.source}:{self.line}:{self.column}: {self.severity.value}: {self.message} [{self.code}]"


class ParseError(ValueError):
    """A reader could not go on: carries the diagnostic that says where and why."""

    def __init__(self, diagnostic: Diagnostic) -> None:
        super().__init__(str(diagnostic))
        self.diagnostic = diagnostic


def errors_among(diagnostics: tuple[Diagnostic, ...]) -> tuple[Diagnostic, ...]:
    """The diagnostics of severity error, in order."""
    return tuple(d for d in diagnostics if d.severity is Severity.ERROR)


MAX_PER_CODE = 50
"""Diagnostics of one code listed per file; the rest are summarised (see `summarised`)."""
MAX_PER_FILE = 500
"""Diagnostics listed per file in all."""


def summarised(diagnostics: tuple[Diagnostic, ...], *, per_code: int = MAX_PER_CODE,
               per_file: int = MAX_PER_FILE) -> tuple[Diagnostic, ...]:
    """The first `per_code` diagnostics of each code (at most `per_file` in all), in order, then one
    `diagnostics.more` line per code that had more, at the first one left out, saying how many.

    A small hostile file (a board followed by a megabyte of `|`) would otherwise yield a diagnostic
    per byte, every one of them printed and kept in the log forever. Nothing is hidden: the summary
    says how many of what were left out and where they start, and it is as severe as the worst of them.
    """
    if len(diagnostics) <= per_code:
        return diagnostics
    kept: list[Diagnostic] = []
    shown: dict[str, int] = {}
    left_out: dict[str, list[Diagnostic]] = {}
    for diagnostic in diagnostics:
        count = shown.get(diagnostic.code, 0)
        if count < per_code and len(kept) < per_file:
            shown[diagnostic.code] = count + 1
            kept.append(diagnostic)
        else:
            left_out.setdefault(diagnostic.code, []).append(diagnostic)
    if not left_out:
        return diagnostics
    order = {Severity.ERROR: 0, Severity.WARNING: 1, Severity.INFO: 2}
    for code, dropped in left_out.items():
        first, last = dropped[0], dropped[-1]
        worst = min((d.severity for d in dropped), key=order.__getitem__)
        kept.append(Diagnostic(
            source=first.source, line=first.line, column=first.column, severity=worst, code="diagnostics.more",
            message=f"{len(dropped)} more [{code}] from here to line {last.line} are not listed",
            record=first.record))
    return tuple(kept)
