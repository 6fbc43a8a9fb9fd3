"""Fast path: what a file says about its event (name, site, date, scoring, program, field layout).

These come from a handful of distinct values, so they are worked out in plain Python with the
careful reader's own helpers (`parse_date`, `Builder.field_layout`, `_program`), which keeps the
two readers in agreement by construction.
"""

from __future__ import annotations

from datetime import date

import polars as pl

from parsers.pbn.fast_bytes import Declined
from parsers.pbn.fast_lines import Games
from parsers.pbn.reader import program_name
from parsers.pbn.records import Builder
from parsers.pbn.values import parse_date
from parsers.records import FileMetadata


def metadata(games: Games) -> FileMetadata:
    """The file's metadata as the careful reader builds it from the same games."""
    tags = games.tags
    # The careful reader looks for these in the first three games and takes '?' as a name too.
    first_tags = {name: given[0] for name in ("Application", "Generator")
                  if (given := tags[name].head(3).filter(tags[name].head(3) != "")).len()}
    program = program_name(list(games.escapes), first_tags)
    return FileMetadata(event_name=_first_value(tags, "Event"), site=_first_value(tags, "Site"),
                        event_date=_event_date(tags), scoring=_first_value(tags, "Scoring"),
                        field_layout=Builder().field_layout(list(games.escapes)), program=program)


def _first_value(tags: pl.DataFrame, name: str) -> str | None:
    """The first value of a tag that is neither '', '?' nor absent."""
    first = tags[name][0] if tags.height else None
    if first not in (None, "", "?"):
        return str(first)  # the first game gives it (the usual case): no need to look further
    given = tags[name].filter(tags[name].is_not_null() & ~tags[name].is_in(["", "?"]))
    return given[0] if given.len() else None


def _event_date(tags: pl.DataFrame) -> date | None:
    """The first date given (Date, else EventDate); any date the careful reader would remark on declines."""
    date_given = pl.col("Date").is_not_null() & ~pl.col("Date").is_in(["", "?"])
    event_date = pl.when(pl.col("EventDate") != "?").then(pl.col("EventDate"))
    raw = tags.select(pl.when(date_given).then(pl.col("Date")).otherwise(event_date)).to_series()
    first = None
    for value in raw.drop_nulls().unique(maintain_order=True):
        found, how = parse_date(value)
        if how not in ("ok", "empty"):
            raise Declined(f"a date the careful reader remarks on ({how})")
        first = first or found
    return first
