"""Which table a result claims, and results that claim a table another file's result holds.

Replay keeps one result per (session, section, board, table): the later one stands, which is right
for a re-sent traveller and wrong when two files each call a different table "1" (BBO sends a
tournament as one file per board and table). Readers name a table that their file does not name by
its players or by the file (`parsers.lin.records.derived_table`); what is left is said here, before
the file is appended: every result of the file that will replace another file's result for the
same table, and every pair of results of the file itself that claim one table, as a warning naming
the files. Nothing is refused: a re-sent traveller is what replacing is for.
"""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from models.diagnostics import Diagnostic, Severity
from pipelines.store import EventStore

_KEYS = ["section", "board", "table_id"]
_CLAIMED = """
SELECT payload->>'$.section' AS section, CAST(payload->>'$.board' AS BIGINT) AS board,
       payload->>'$.table_id' AS table_id, payload->>'$.source.sha256' AS sha256
FROM events WHERE stream_id = ? AND type = 'ResultRecorded'
"""
_NAMES = ("SELECT payload->>'$.sha256', payload->>'$.name' FROM events "
          "WHERE type = 'SourceFileIngested' AND stream_id = ?")
_SHOWN = 20
"""At most this many claims are listed one by one; the rest are counted in one more diagnostic."""


def claimed_tables(store: EventStore, stream: str) -> pl.DataFrame:
    """The tables the session stream's results already hold: section, board, table_id, sha256."""
    schema = {"section": pl.String, "board": pl.Int64, "table_id": pl.String, "sha256": pl.String}
    if not store.exists():
        return pl.DataFrame(schema=schema)
    with store.reader() as con:
        rows = con.execute(_CLAIMED, [stream]).fetchall()
    return pl.DataFrame(rows, schema=schema, orient="row")


def contested_tables(store: EventStore, stream: str, source: str,
                     results: pl.DataFrame) -> tuple[list[Diagnostic], int]:
    """Warnings for the results of `source` (a reader's result frame) that claim a table which a
    result of another file, or another result of this file, already claims; and how many do."""
    mine = results.select(*_KEYS, "line").with_columns(board=pl.col("board").cast(pl.Int64))
    inside = mine.filter(pl.struct(_KEYS).is_duplicated()).filter(pl.struct(_KEYS).is_first_distinct().not_())
    held = claimed_tables(store, stream).unique(_KEYS, keep="last")
    across = mine.join(held, on=_KEYS, how="inner") if held.height else held.clear().with_columns(line=pl.lit(0))
    names = _file_names(store, across["sha256"].unique().to_list()) if across.height else {}
    found = [_warning(source, row["line"], f"board {row['board']}{_section(row['section'])} table "
                      f"{row['table_id']!r} already has a result from {names.get(row['sha256'], row['sha256'][:12])}; "
                      "this file's result replaces it (two different tables must be named apart)")
             for row in across.iter_rows(named=True)]
    found += [_warning(source, row["line"], f"board {row['board']}{_section(row['section'])} table "
                       f"{row['table_id']!r} has two results in this file; only the later one is scored")
              for row in inside.iter_rows(named=True)]
    count = len(found)
    if count > _SHOWN:
        found = [*found[:_SHOWN], _warning(source, 0, f"... and {count - _SHOWN} more results that claim a "
                                                       "table another result claims")]
    return found, count


def _file_names(store: EventStore, shas: list[str]) -> dict[str, str]:
    with store.reader() as con:
        return {sha: name for sha in shas
                for sha_found, name in con.execute(_NAMES, [f"source:{sha}"]).fetchall() if sha_found == sha}


def _section(section: str) -> str:
    return f" (section {section})" if section else ""


def _warning(source: str, line: int, message: str) -> Diagnostic:
    return Diagnostic(source=source, line=line, column=0, severity=Severity.WARNING,
                      code="ingest.result.table-claimed", message=message)


_REPLACED = """
SELECT count(*) - count(DISTINCT (stream_id, payload->>'$.section', payload->>'$.board', payload->>'$.table_id'))
FROM events WHERE type = 'ResultRecorded' AND position <= ? {streams}
"""


def replaced_results(store: EventStore, up_to: int, streams: Sequence[str] | None = None) -> int:
    """How many results recorded up to log position `up_to` are not scored because a later result
    claims the same (session, section, board, table): the difference between the result records
    read and the tables `board_scores` has. Each was a warning when its file was ingested.

    `streams` limits the count to those session streams (the sessions a command scored): the whole
    log's count reads every result's payload, seconds on a store of millions of results.
    """
    if not store.exists() or (streams is not None and not streams):
        return 0
    query = _REPLACED.format(streams="" if streams is None else "AND stream_id IN (SELECT unnest(?))")
    params: list[object] = [up_to] if streams is None else [up_to, list(streams)]
    with store.reader() as con:
        row = con.execute(query, params).fetchone()
    return int(row[0]) if row and row[0] is not None else 0
