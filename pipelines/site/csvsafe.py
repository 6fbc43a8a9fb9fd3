"""CSV cells a spreadsheet would run as a formula are written as text (CSV injection)."""

from __future__ import annotations

import polars as pl

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
"""A text cell starting with one of these is a formula to Excel, LibreOffice and Google Sheets."""


def neutralise(value: str) -> str:
    """`=cmd` -> `'=cmd`: a leading apostrophe makes a spreadsheet show the cell as text."""
    return f"'{value}" if value.startswith(FORMULA_STARTS) else value


def neutralised(frame: pl.DataFrame) -> pl.DataFrame:
    """Every text column with its formula-like cells neutralised; numbers stay numbers."""
    pattern = "^[=+\\-@\t\r]"
    return frame.with_columns(
        pl.when(pl.col(name).str.contains(pattern)).then(pl.lit("'") + pl.col(name)).otherwise(pl.col(name))
        .alias(name)
        for name, dtype in frame.schema.items() if dtype == pl.String
    )
