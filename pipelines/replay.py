"""Replay: the events up to a position become the frames that scoring reads.

The hot path is columnar: DuckDB extracts payload fields of current-version rows straight into
Arrow/polars. Rows written under an older schema version (rare) are read one by one, upcast in
Python and appended to the same frame, so replay sees one schema whatever the log holds.
Nothing here reads the wall clock: the output is a pure function of (events up to P).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import duckdb
import orjson
import polars as pl

from models.events import CURRENT_VERSIONS
from pipelines.scoring.contract import declarer_score_expr
from pipelines.scoring.frames import (
    PENALTIES_SCHEMA,
    RESULTS_SCHEMA,
    SESSIONS_SCHEMA,
    conform,
)
from pipelines.store import UPCASTERS, EventStore, UpcasterRegistry

_RESULT_FIELDS: dict[str, str] = {
    "event_id": "VARCHAR", "session_id": "VARCHAR", "section": "VARCHAR", "board": "BIGINT",
    "table_id": "VARCHAR", "round": "BIGINT", "room": "VARCHAR", "ns_id": "VARCHAR", "ew_id": "VARCHAR",
    "contract": "VARCHAR", "declarer": "VARCHAR", "tricks": "BIGINT",
}
_ARTIFICIAL_FIELDS: dict[str, str] = {
    "event_id": "VARCHAR", "session_id": "VARCHAR", "section": "VARCHAR", "board": "BIGINT",
    "table_id": "VARCHAR", "ns_id": "VARCHAR", "ew_id": "VARCHAR", "ns_award": "VARCHAR",
    "ew_award": "VARCHAR",
}
_BOARD_FIELDS: dict[str, str] = {
    "event_id": "VARCHAR", "session_id": "VARCHAR", "section": "VARCHAR", "board": "BIGINT",
    "dealer": "VARCHAR", "vulnerability": "VARCHAR",
}
_SESSION_FIELDS: dict[str, str] = {
    "event_id": "VARCHAR", "session_id": "VARCHAR", "scoring": "VARCHAR", "field_layout": "VARCHAR",
}
_PENALTY_FIELDS: dict[str, str] = {
    "event_id": "VARCHAR", "session_id": "VARCHAR", "section": "VARCHAR", "contestant_id": "VARCHAR",
    "amount": "DOUBLE", "unit": "VARCHAR",
}
_TOURNAMENT_FIELDS: dict[str, str] = {"event_id": "VARCHAR", "conditions": "JSON"}

# Law 2 vulnerability by (board - 1) % 16, written out so replay can join instead of computing per row.
_LAW2_VUL = pl.DataFrame({
    "cycle": list(range(16)),
    "law2_vul": ["None", "NS", "EW", "All", "NS", "EW", "All", "None",
                 "EW", "All", "None", "NS", "All", "None", "NS", "EW"],
}, schema={"cycle": pl.Int64, "law2_vul": pl.String})


@dataclass(frozen=True)
class Projection:
    """What scoring needs, as of log position `position`."""

    position: int
    results: pl.DataFrame
    sessions: pl.DataFrame
    penalties: pl.DataFrame
    conditions: Mapping[str, Mapping[str, Any]]


def replay(store: EventStore, *, up_to: int | None = None,
           upcasters: UpcasterRegistry = UPCASTERS) -> Projection:
    """Rebuild the scoring inputs from the events at positions <= `up_to` (default: all)."""
    position = store.head() if up_to is None else up_to
    if not store.exists():
        return _empty_projection(position)
    with store.reader() as con:
        read = _Reader(con, position, upcasters)
        results = _latest_per_table(read.frame("ResultRecorded", _RESULT_FIELDS))
        artificial = _latest_per_table(read.frame("ArtificialScoreAwarded", _ARTIFICIAL_FIELDS))
        boards = read.frame("BoardDealt", _BOARD_FIELDS)
        sessions = read.frame("SessionScheduled", _SESSION_FIELDS)
        penalties = read.frame("PenaltyAwarded", _PENALTY_FIELDS)
        tournaments = read.frame("TournamentRegistered", _TOURNAMENT_FIELDS)
    table_results = pl.concat(
        [_scored_results(results, boards), _artificial_rows(artificial, boards)], how="diagonal_relaxed"
    )
    return Projection(
        position=position,
        results=conform(table_results, RESULTS_SCHEMA).sort(
            ["event_id", "session_id", "section", "board", "table_id"]),
        sessions=conform(sessions.unique(["event_id", "session_id"], keep="first", maintain_order=True),
                         SESSIONS_SCHEMA).sort(["event_id", "session_id"]),
        penalties=conform(penalties, PENALTIES_SCHEMA),
        conditions=_conditions(tournaments),
    )


class _Reader:
    """Reads one event type's payload fields into a frame, upcasting legacy rows."""

    def __init__(self, con: duckdb.DuckDBPyConnection, position: int, upcasters: UpcasterRegistry):
        self.con = con
        self.position = position
        self.upcasters = upcasters

    def frame(self, event_type: str, fields: Mapping[str, str]) -> pl.DataFrame:
        current = CURRENT_VERSIONS[event_type]
        columns = ", ".join(
            f"CAST(payload->>'$.{name}' AS {sql}) AS {name}" if sql != "JSON"
            else f"payload->'$.{name}' AS {name}"
            for name, sql in fields.items()
        )
        frame = self.con.sql(
            f"SELECT position, {columns} FROM events"  # noqa: S608 - names are ours, values are params
            " WHERE type = ? AND schema_version = ? AND position <= ? ORDER BY position",
            params=[event_type, current, self.position],
        ).pl()
        legacy = self._legacy(event_type, current, fields, frame.schema)
        return frame if legacy is None else pl.concat([frame, legacy]).sort("position")

    def _legacy(self, event_type: str, current: int, fields: Mapping[str, str],
                schema: Mapping[str, pl.DataType]) -> pl.DataFrame | None:
        rows = self.con.execute(
            "SELECT position, schema_version, payload::VARCHAR FROM events"
            " WHERE type = ? AND schema_version < ? AND position <= ? ORDER BY position",
            [event_type, current, self.position],
        ).fetchall()
        if not rows:
            return None
        records = []
        for position, version, payload in rows:
            _, body = self.upcasters.upcast(event_type, version, orjson.loads(payload))
            records.append({"position": position, **{name: _json_field(body.get(name), sql)
                                                      for name, sql in fields.items()}})
        return pl.DataFrame(records, schema=dict(schema))


def _json_field(value: Any, sql_type: str) -> Any:
    return orjson.dumps(value).decode() if sql_type == "JSON" and value is not None else value


def _latest_per_table(frame: pl.DataFrame) -> pl.DataFrame:
    """A table's result sent twice (a re-sent traveller): the later event stands."""
    return frame.unique(["event_id", "session_id", "section", "board", "table_id"], keep="last",
                        maintain_order=True)


def _with_vulnerability(frame: pl.DataFrame, boards: pl.DataFrame) -> pl.DataFrame:
    """Vulnerability as marked on the board (BoardDealt), else by Law 2 from the number."""
    marked = (
        boards.sort("position")
        .unique(["event_id", "session_id", "section", "board"], keep="last")
        .select("event_id", "session_id", "section", "board", pl.col("vulnerability").alias("marked_vul"))
    )
    for_all_sections = marked.filter(pl.col("section") == "").drop("section").rename(
        {"marked_vul": "marked_vul_all"})
    return (
        frame.with_columns(cycle=(pl.col("board") - 1) % 16)
        .join(_LAW2_VUL, on="cycle", how="left")
        .join(marked, on=["event_id", "session_id", "section", "board"], how="left")
        .join(for_all_sections, on=["event_id", "session_id", "board"], how="left")
        .with_columns(vul=pl.coalesce("marked_vul", "marked_vul_all", "law2_vul"))
        .with_columns(
            vulnerable_ns=pl.col("vul").is_in(["NS", "All"]),
            vulnerable_ew=pl.col("vul").is_in(["EW", "All"]),
        )
        .drop("cycle", "law2_vul", "marked_vul", "marked_vul_all", "vul")
    )


def _scored_results(results: pl.DataFrame, boards: pl.DataFrame) -> pl.DataFrame:
    """Table results with their Law 77 score from NS's point of view."""
    parts = pl.col("contract").str.extract_groups(r"^([1-7])(NT|C|D|H|S)(X{0,2})$")
    frame = _with_vulnerability(results, boards).with_columns(
        level=parts.struct.field("1").cast(pl.Int64).fill_null(0),
        strain=parts.struct.field("2"),
        doubling=parts.struct.field("3").fill_null(""),
        declarer_ns=pl.col("declarer").is_in(["N", "S"]),
    )
    declarer_vul = pl.when(pl.col("declarer_ns")).then(pl.col("vulnerable_ns")).otherwise(
        pl.col("vulnerable_ew"))
    declarer_score = declarer_score_expr(pl.col("level"), pl.col("strain"), pl.col("doubling"),
                                         pl.col("tricks").fill_null(0), declarer_vul)
    return frame.with_columns(
        score_ns=pl.when(pl.col("declarer_ns") | (pl.col("level") == 0)).then(declarer_score)
        .otherwise(-declarer_score),
        kind=pl.lit("result"),
    )


def _artificial_rows(artificial: pl.DataFrame, boards: pl.DataFrame) -> pl.DataFrame:
    return _with_vulnerability(artificial, boards).with_columns(kind=pl.lit("artificial"))


def _conditions(tournaments: pl.DataFrame) -> dict[str, dict[str, Any]]:
    latest = tournaments.unique("event_id", keep="first", maintain_order=True)
    return {
        str(event_id): orjson.loads(conditions) if conditions else {}
        for event_id, conditions in zip(latest["event_id"], latest["conditions"], strict=True)
    }


def _empty_projection(position: int) -> Projection:
    return Projection(position, pl.DataFrame(schema=RESULTS_SCHEMA), pl.DataFrame(schema=SESSIONS_SCHEMA),
                      pl.DataFrame(schema=PENALTIES_SCHEMA), {})
