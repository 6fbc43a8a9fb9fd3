"""Text we did not write, made safe for where it is shown: a terminal, or a spreadsheet.

File names, diagnostics and cells come from files and from people. On a terminal, `rich` would
read `[/x]` as markup (and raise on it) and raw escape bytes would drive the terminal itself. In a
spreadsheet, a CSV cell starting with `=`, `+`, `-` or `@` is read as a formula.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # polars is imported where a frame is made safe: the CLI's start-up does not pay for it
    import polars as pl

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
_FORMULA_START = r"^[=+\-@\t\r]"
_PLAIN_NUMBER = r"^[+-]?[0-9]+(\.[0-9]+)?$"


def for_terminal(text: str) -> str:
    """`text` as plain characters for a rich console: markup escaped, control and bidi characters
    (and lone surrogates from undecodable file names) shown as `\\xNN`/`\\uNNNN` escapes."""
    from rich.markup import escape  # rich's markup module: paid when something is printed, not at start-up

    text = text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    return escape(_CONTROL.sub(lambda m: m.group(0).encode("unicode_escape").decode("ascii"), text))


def spreadsheet_safe(frame: pl.DataFrame) -> pl.DataFrame:
    """`frame` with every text cell that a spreadsheet would run as a formula prefixed with `'`.

    A text cell starting with `=`, `+`, `-`, `@`, a tab or a carriage return is a formula to Excel,
    LibreOffice and Google Sheets, except a plain number: `-100` or `+3` is read as the number
    itself, so it is left as it is and still sorts and sums as a number. Anything else, such as
    `-1+2` or `=HYPERLINK(...)`, gets a leading `'`, which spreadsheets show as text and do not
    display. Numeric columns are written as numbers and never touched.
    """
    import polars as pl

    text_columns = [name for name, dtype in frame.schema.items() if dtype == pl.String]
    if not text_columns:
        return frame
    risky = pl.col(text_columns)
    return frame.with_columns(
        pl.when(risky.str.contains(_FORMULA_START) & ~risky.str.contains(_PLAIN_NUMBER))
        .then(pl.lit("'") + risky).otherwise(risky).name.keep()
    )


def safe_file_name(text: str) -> str:
    """`text` usable as one part of a file name: path separators, control characters and leading
    dots replaced with `_` (an id such as `a/b` or `..` names no other directory)."""
    cleaned = re.sub(r"[/\\\x00-\x1f\x7f:*?\"<>|]", "_", text).lstrip(".")
    return cleaned or "_"
