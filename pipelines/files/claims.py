"""Which table a result claims, and results that claim a table another file's result holds.

Replay keeps one result per (session, section, board, table): the later one stands, which is right
for a re-sent traveller and wrong when two files each call a different table "1" (BBO sends a
tournament as one file per board and table). Readers name a table that their file does not name by
its players or by the file (`parsers.lin.records.derived_table`); what is left is said here, before
the file is appended: every result of the file that will replace another file's result for the
same table, and every pair of results of the file itself that claim one table, as a warning naming
the files. Nothing is refused: a re-sent traveller is what replacing is for.

A file's artificial adjusted scores (Law 12C2, `ArtificialScoreAwarded` with the file as source)
claim their table too, and replace its result whichever came first (`pipelines.replay.frames`): they are
counted with the results. A director's ruling (no source file) is a deliberate replacement and is not.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import polars as pl

from models.diagnostics import Diagnostic, Severity
from parsers.records import ArtificialRecord
from pipelines.log.fields import PayloadField, payload_fields, repeated_rows
from pipelines.log.store import EventStore

if TYPE_CHECKING:
    import duckdb

_KEYS = ["section", "board", "table_id"]
_CLAIMING = ("ResultRecorded", "ArtificialScoreAwarded")
_CLAIM_FIELDS = (PayloadField("section", "section"), PayloadField("board", "board", pl.Int64()),
                 PayloadField("table_id", "table_id"), PayloadField("sha256", "source.sha256"))
_NAME_FIELDS = (PayloadField("sha256", "sha256"), PayloadField("name", "name"))
_SHOWN = 20
"""At most this many claims are listed one by one; the rest are counted in one more diagnostic."""


def claimed_tables(store: EventStore, stream: str) -> pl.DataFrame:
    """The tables the session stream's files already claim, in log order: section, board,
    table_id, sha256 and `artificial` (an artificial score rather than a result)."""
    schema = {"section": pl.String, "board": pl.Int64, "table_id": pl.String, "sha256": pl.String,
              "artificial": pl.Boolean}
    if not store.exists():
        return pl.DataFrame(schema=schema)
    with store.reader() as con:
        rows = _claims(con, "stream_id = ?", [stream])
    return rows.select("section", "board", "table_id", "sha256", artificial=pl.col("type") == "ArtificialScoreAwarded")


def _claims(con: duckdb.DuckDBPyConnection, where: str, params: Sequence[object]) -> pl.DataFrame:
    """The events that claim a table for a file: its results, and its artificial scores (a
    director's, with no source file, claims none; `_CLAIMS_SQL` says the same in SQL)."""
    rows = payload_fields(con, _CLAIMING, _CLAIM_FIELDS, where=where, params=params)
    return rows.filter((pl.col("type") == "ResultRecorded") | pl.col("sha256").is_not_null())


_CLAIMS_SQL = "type = 'ResultRecorded' OR sha256 IS NOT NULL"


def contested_tables(store: EventStore, stream: str, source: str, results: pl.DataFrame,
                     artificial: Sequence[ArtificialRecord] = ()) -> tuple[list[Diagnostic], int]:
    """Warnings for the results and artificial scores of `source` (a reader's result frame and
    artificial records) that claim a table which another file, or another row of this file,
    already claims; and how many do."""
    mine = _claims_of(results, artificial)
    inside = mine.with_columns(_arts=pl.col("artificial").sum().over(_KEYS), _n=pl.len().over(_KEYS)).filter(
        pl.struct(_KEYS).is_first_distinct().not_())
    # Of a table's claims the one that stands is named: an artificial score stands over a result.
    held = claimed_tables(store, stream).sort("artificial", maintain_order=True).unique(
        _KEYS, keep="last", maintain_order=True)
    # In the file's order: which claims are named, and in what order, is part of the logged event.
    across = mine.join(held, on=_KEYS, how="inner", suffix="_held", maintain_order="left")
    names = _file_names(store, across["sha256"].unique().to_list()) if across.height else {}
    found = [_warning(source, row["line"], f"board {row['board']}{_section(row['section'])} table "
                      f"{row['table_id']!r} already has {_kind(row['artificial_held'])} from "
                      f"{names.get(row['sha256'], row['sha256'][:12])}; {_outcome(row)} "
                      "(two different tables must be named apart)")
             for row in across.iter_rows(named=True)]
    found += [_warning(source, row["line"], f"board {row['board']}{_section(row['section'])} table "
                       f"{row['table_id']!r} has {_inside(row['_arts'], row['_n'])} in this file; "
                       f"{'the artificial score' if 0 < row['_arts'] < row['_n'] else 'only the later one'} "
                       "is scored")
              for row in inside.iter_rows(named=True)]
    count = len(found)
    if count > _SHOWN:
        found = [*found[:_SHOWN], _warning(source, 0, f"... and {count - _SHOWN} more results that claim a "
                                                       "table another result claims")]
    return found, count


def _claims_of(results: pl.DataFrame, artificial: Sequence[ArtificialRecord]) -> pl.DataFrame:
    """The tables a file claims, in file order: section, board, table_id, line, artificial."""
    schema = pl.Schema({"section": pl.String, "board": pl.Int64, "table_id": pl.String, "line": pl.Int64,
                        "artificial": pl.Boolean})
    claimed = results.select(*_KEYS, "line").with_columns(artificial=pl.lit(False)).cast(schema)
    awarded = pl.DataFrame([(a.section, a.board, a.table_id, a.at.line, True) for a in artificial],
                           schema=schema, orient="row")
    return pl.concat([claimed, awarded]).sort("line", maintain_order=True)


def _kind(artificial: bool) -> str:
    return "an artificial score" if artificial else "a result"


def _outcome(row: dict[str, object]) -> str:
    """What scoring makes of this file's claim against the one held: a ruling stands over a result."""
    if row["artificial_held"] and not row["artificial"]:
        return "that artificial score stands over this file's result"
    return f"this file's {'artificial score' if row['artificial'] else 'result'} replaces it"


def _inside(artificial: int, claims: int) -> str:
    if artificial == 0:
        return "two results"
    return "two artificial scores" if artificial == claims else "a result and an artificial score"


def _file_names(store: EventStore, shas: list[str]) -> dict[str, str]:
    with store.reader() as con:
        files = payload_fields(con, ["SourceFileIngested"], _NAME_FIELDS, where="stream_id IN (SELECT unnest(?))",
                               params=[[f"source:{sha}" for sha in shas]])
    return {sha: name for sha, name in files.select("sha256", "name").iter_rows() if sha in set(shas)}


def _section(section: str) -> str:
    return f" (section {section})" if section else ""


def _warning(source: str, line: int, message: str) -> Diagnostic:
    return Diagnostic(source=source, line=line, column=0, severity=Severity.WARNING,
                      code="ingest.result.table-claimed", message=message)


def replaced_results(store: EventStore, up_to: int, streams: Sequence[str] | None = None) -> int:
    """How many results (and files' artificial scores) recorded up to log position `up_to` are not
    scored because another claims the same (session, section, board, table): the difference between
    the records read and the tables `board_scores` has. Each was a warning when its file was ingested.

    `streams` limits the count to those session streams (the sessions a command scored): the whole
    log's count reads every result's payload, seconds on a store of millions of results.
    """
    if not store.exists() or (streams is not None and not streams):
        return 0
    where = "position <= ?" + ("" if streams is None else " AND stream_id IN (SELECT unnest(?))")
    params: list[object] = [up_to] if streams is None else [up_to, list(streams)]
    with store.reader() as con:
        return repeated_rows(con, _CLAIMING, _CLAIM_FIELDS, _KEYS, keep=_CLAIMS_SQL, where=where, params=params)
