"""Replay: the events up to a position become the frames that scoring reads.

The hot path is columnar: DuckDB extracts payload fields of current-version rows straight into
Arrow/polars. Rows written under an older schema version (rare) are read one by one, upcast in
Python and appended to the same frame, so replay sees one schema whatever the log holds.
Nothing here reads the wall clock: the output is a pure function of (events up to P).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from functools import cached_property, partial
from typing import Any

import duckdb
import orjson
import polars as pl

from models.events import CURRENT_VERSIONS, session_stream
from pipelines.corrections import (
    DEFAULT_PERIOD_MINUTES,
    apply_corrections,
    decide_corrections,
    decide_rulings,
    periods_frame,
    session_windows,
)
from pipelines.keyed import keep_last_per_key, matching_rows
from pipelines.scoring.frames import (
    PENALTIES_SCHEMA,
    RESULTS_SCHEMA,
    SESSIONS_SCHEMA,
    conform,
)
from pipelines.scoring.tables import scored_results, table_results
from pipelines.store import UPCASTERS, EventStore, UpcasterRegistry, to_epoch_us
from pipelines.vetting import unreadable_time_sql, vetted

SessionKey = tuple[str, str]
"""(event_id, session_id)."""

_RESULT_FIELDS: dict[str, str] = {
    "event_id": "VARCHAR", "session_id": "VARCHAR", "section": "VARCHAR", "board": "BIGINT",
    "table_id": "VARCHAR", "round": "BIGINT", "room": "VARCHAR", "ns_id": "VARCHAR", "ew_id": "VARCHAR",
    "contract": "VARCHAR", "declarer": "VARCHAR", "tricks": "BIGINT",
}
_ARTIFICIAL_FIELDS: dict[str, str] = {
    "event_id": "VARCHAR", "session_id": "VARCHAR", "section": "VARCHAR", "board": "BIGINT",
    "table_id": "VARCHAR", "ns_id": "VARCHAR", "ew_id": "VARCHAR", "ns_award": "VARCHAR",
    "ew_award": "VARCHAR", "requested_at": "TIME_US", "reason": "VARCHAR", "director": "VARCHAR",
}
_COMPONENTS = '[{"contract": "VARCHAR", "declarer": "VARCHAR", "tricks": "BIGINT", "weight": "DOUBLE"}]'
_WEIGHTED_FIELDS: dict[str, str] = {
    "event_id": "VARCHAR", "session_id": "VARCHAR", "section": "VARCHAR", "board": "BIGINT",
    "table_id": "VARCHAR", "ns_id": "VARCHAR", "ew_id": "VARCHAR", "ns_components": _COMPONENTS,
    "ew_components": _COMPONENTS,
    "requested_at": "TIME_US", "reason": "VARCHAR", "director": "VARCHAR",
}
_FOULED_FIELDS: dict[str, str] = {
    "event_id": "VARCHAR", "session_id": "VARCHAR", "section": "VARCHAR", "board": "BIGINT", "groups": "JSON",
}
_PUBLISHED_FIELDS: dict[str, str] = {
    "event_id": "VARCHAR", "session_id": "VARCHAR", "correction_period_minutes": "DOUBLE",
}
_CORRECTION_FIELDS: dict[str, str] = {
    "correction_id": "VARCHAR", "event_id": "VARCHAR", "session_id": "VARCHAR", "section": "VARCHAR",
    "board": "BIGINT", "table_id": "VARCHAR", "contract": "VARCHAR", "declarer": "VARCHAR",
    "tricks": "BIGINT", "requested_by": "VARCHAR", "reason": "VARCHAR",
}
_APPROVAL_FIELDS: dict[str, str] = {
    "correction_id": "VARCHAR", "event_id": "VARCHAR", "session_id": "VARCHAR", "organiser": "VARCHAR",
    "director": "VARCHAR", "statement": "VARCHAR",
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
    "direction": "VARCHAR", "amount": "DOUBLE", "unit": "VARCHAR",
}
_TOURNAMENT_FIELDS: dict[str, str] = {"event_id": "VARCHAR", "conditions": "JSON"}

_TABLE_KEYS = ["event_id", "session_id", "section", "board", "table_id"]
"""What identifies one table's play of one board."""

@dataclass(frozen=True)
class Projection:
    """What scoring needs, as of log position `position` and time `as_of_us`."""

    position: int
    as_of_us: int
    results: pl.DataFrame
    """Every table's standing result (corrections and rulings applied), in log order: results as
    recorded, then artificial, then weighted scores. Scoring puts its output in published order."""
    sessions: pl.DataFrame
    penalties: pl.DataFrame
    conditions: Mapping[str, Mapping[str, Any]]
    windows: pl.DataFrame
    """Per published session: publication time, deadlines, status (pipelines.corrections)."""
    corrections: pl.DataFrame
    """Every correction request with its window and decision."""
    rulings: pl.DataFrame
    """Every director's ruling with its Law 92B window and decision."""
    reread_original: Callable[[], pl.DataFrame] = field(repr=False, compare=False)
    """Reads the table results as recorded (before corrections and rulings) again from the log."""

    @cached_property
    def original_results(self) -> pl.DataFrame:
        """Table results before any correction (for before/after reports), scored by Law 77.

        Read again from the log on first use rather than kept: a replay that only scores (the
        scheduled job, over millions of results) should not hold a second copy of them.
        """
        return self.reread_original()


def replay(store: EventStore, *, up_to: int | None = None, as_of_us: int | None = None,
           upcasters: UpcasterRegistry = UPCASTERS,
           sessions: Collection[SessionKey] | None = None) -> Projection:
    """Rebuild the scoring inputs from the events at positions <= `up_to` (default: all) that had
    happened by `as_of_us` (default: the latest event's time, the log's own clock).

    `sessions` (default: every session) limits the replay to those sessions: their session streams
    and their tournaments' registrations are read, and no other event's payload is extracted. A
    session's facts (results, boards, rulings, publications, corrections, approvals, penalties,
    fouled boards) all live on its stream (`models.events.session_stream`); its conditions of
    contest on `tournament:<event_id>`. The clock stays the whole log's, so that a session's status
    is the one a replay of everything gives it.
    """
    position = store.head() if up_to is None else up_to
    if not store.exists():
        return _empty_projection(position)
    scope = None if sessions is None else _Scope.of(sessions)
    with store.reader() as con:
        clock = as_of_us if as_of_us is not None else log_clock(con, position)
        read = _Reader(con, position, upcasters, clock, scope)
        # Every ruling is kept: which one stands for a table is decided with the others (a late,
        # rejected ruling must not erase the one before it), in `decide_rulings`.
        artificial = read.frame("ArtificialScoreAwarded", _ARTIFICIAL_FIELDS)
        weighted = read.frame("WeightedScoreAwarded", _WEIGHTED_FIELDS)
        fouled = read.frame("BoardFouled", _FOULED_FIELDS)
        boards = read.frame("BoardDealt", _BOARD_FIELDS)
        scheduled = read.frame("SessionScheduled", _SESSION_FIELDS)
        penalties = read.frame("PenaltyAwarded", _PENALTY_FIELDS)
        tournaments = read.frame("TournamentRegistered", _TOURNAMENT_FIELDS)
        published = read.frame("ScoresPublished", _PUBLISHED_FIELDS)
        requests = read.frame("ScoreCorrectionRequested", _CORRECTION_FIELDS)
        approvals = read.frame("LateCorrectionApproved", _APPROVAL_FIELDS)
        conditions = _conditions(tournaments)
        windows = session_windows(published, periods_frame(_periods(conditions)), clock)
        corrections = decide_corrections(requests, windows, approvals)
        rulings = decide_rulings(_rulings(artificial, weighted), windows)
        # The recorded results are passed on without a name here, so that the one copy of them
        # can be let go while the standing results are built (see `_standing_results`).
        table_results = _standing_results(
            _latest_per_table(read.frame("ResultRecorded", _RESULT_FIELDS)), rulings.filter(pl.col("applied")),
            corrections, boards, fouled)
    return Projection(
        position=position,
        as_of_us=clock,
        results=table_results,
        sessions=conform(scheduled.unique(["event_id", "session_id"], keep="first", maintain_order=True),
                         SESSIONS_SCHEMA).sort(["event_id", "session_id"]),
        penalties=conform(penalties, PENALTIES_SCHEMA),
        conditions=conditions,
        windows=windows,
        corrections=corrections,
        rulings=rulings,
        reread_original=partial(_original_results, store, position, clock, upcasters, scope),
    )


def recorded_results(store: EventStore, sessions: Collection[SessionKey], *, up_to: int | None = None,
                     upcasters: UpcasterRegistry = UPCASTERS) -> pl.DataFrame:
    """The sessions' table results as recorded (no correction or ruling), scored by Law 77:
    `Projection.original_results` of a replay of those sessions, reading only results and boards."""
    with store.reader() as con:
        position = up_to if up_to is not None else int(
            con.execute("SELECT coalesce(max(position), 0) FROM events").fetchall()[0][0])
        clock = log_clock(con, position)
    return _original_results(store, position, clock, upcasters, _Scope.of(sessions))


def publication_windows(store: EventStore, *, as_of_us: int, up_to: int | None = None,
                        upcasters: UpcasterRegistry = UPCASTERS) -> pl.DataFrame:
    """`Projection.windows` of a whole replay at `as_of_us`, from the publications and the
    tournaments' registrations alone (no result is read)."""
    position = store.head() if up_to is None else up_to
    with store.reader() as con:
        read = _Reader(con, position, upcasters, as_of_us)
        published = read.frame("ScoresPublished", _PUBLISHED_FIELDS)
        conditions = _conditions(read.frame("TournamentRegistered", _TOURNAMENT_FIELDS))
    return session_windows(published, periods_frame(_periods(conditions)), as_of_us)


def correction_decisions(store: EventStore, *, as_of_us: int, up_to: int | None = None,
                         upcasters: UpcasterRegistry = UPCASTERS) -> tuple[pl.DataFrame, pl.DataFrame]:
    """`Projection.windows` and `Projection.corrections` of a whole replay at `as_of_us`, from the
    publications, registrations, correction requests and approvals alone (no result is read)."""
    position = store.head() if up_to is None else up_to
    with store.reader() as con:
        read = _Reader(con, position, upcasters, as_of_us)
        published = read.frame("ScoresPublished", _PUBLISHED_FIELDS)
        conditions = _conditions(read.frame("TournamentRegistered", _TOURNAMENT_FIELDS))
        requests = read.frame("ScoreCorrectionRequested", _CORRECTION_FIELDS)
        approvals = read.frame("LateCorrectionApproved", _APPROVAL_FIELDS)
    windows = session_windows(published, periods_frame(_periods(conditions)), as_of_us)
    return windows, decide_corrections(requests, windows, approvals)


def _standing_results(recorded: pl.DataFrame, standing_rulings: pl.DataFrame, corrections: pl.DataFrame,
                      boards: pl.DataFrame, fouled: pl.DataFrame) -> pl.DataFrame:
    """Every table's standing result, scored, as one `RESULTS_SCHEMA` frame of one chunk."""
    replaced = matching_rows(recorded, standing_rulings, _TABLE_KEYS)
    if replaced.any():  # a director's ruling for a table replaces whatever result the table recorded
        standing_rulings = _with_table_seats(standing_rulings, recorded.filter(replaced))
        recorded = recorded.filter(~replaced)  # filtering would copy every column: only when needed
    corrected = apply_corrections(recorded, corrections)
    del recorded
    # The Laws' values (vulnerability, Law 77 and 12C1 scores, Law 87 groups) are scoring's to give.
    stacked = table_results(corrected, standing_rulings.filter(pl.col("kind") == "artificial"),
                            standing_rulings.filter(pl.col("kind") == "weighted"), boards, fouled)
    del corrected
    return _one_chunk(stacked)


_SEATS = ["ns_id", "ew_id", "round", "room"]
"""What a ruling keeps from the table it replaces: who sat there, in which round and room."""


def _with_table_seats(rulings: pl.DataFrame, replaced: pl.DataFrame) -> pl.DataFrame:
    """A ruling stands for the table's own contestants: whatever the ruling does not name (a
    weighted score recorded before it named the pairs; the round and room, which no ruling names)
    is taken from the result the table recorded (`replaced`), so the board stays credited to both
    sides and a team board stays in its match."""
    if rulings.is_empty() or replaced.is_empty():
        return rulings
    seats = replaced.select(*_TABLE_KEYS, *(pl.col(c).alias(f"_table_{c}") for c in _SEATS))
    joined = rulings.join(seats, on=_TABLE_KEYS, how="left", maintain_order="left")
    return joined.with_columns(
        pl.coalesce(c, f"_table_{c}").alias(c) if c in rulings.columns else pl.col(f"_table_{c}").alias(c)
        for c in _SEATS
    ).drop(f"_table_{c}" for c in _SEATS)


def _one_chunk(frame: pl.DataFrame) -> pl.DataFrame:
    """`frame` with every column in one chunk, rebuilt a column at a time.

    Scoring gathers and filters millions of rows, at half the speed on chunked columns (and any
    operation on misaligned chunks copies the whole frame). `DataFrame.rechunk` would hold the old
    and the new copy of every column at once; column by column, each old one is freed as it goes.
    """
    for name in frame.columns:
        if frame.get_column(name).n_chunks() > 1:
            frame = frame.with_columns(frame.get_column(name).rechunk())
    return frame


def _original_results(store: EventStore, position: int, as_of_us: int, upcasters: UpcasterRegistry,
                      scope: _Scope | None = None) -> pl.DataFrame:
    """The results as recorded up to `position` and `as_of_us`, scored, without corrections or rulings."""
    with store.reader() as con:
        read = _Reader(con, position, upcasters, as_of_us, scope)
        results = _latest_per_table(read.frame("ResultRecorded", _RESULT_FIELDS))
        boards = read.frame("BoardDealt", _BOARD_FIELDS)
    return conform(scored_results(results, boards), RESULTS_SCHEMA)


def log_clock(con: duckdb.DuckDBPyConnection, position: int) -> int:
    """The log's own clock at `position`: the latest `occurred_at` of the events up to it (0 if none)."""
    rows = con.execute("SELECT coalesce(max(epoch_us(occurred_at)), 0) FROM events WHERE position <= ?",
                       [position]).fetchall()
    return int(rows[0][0])


def _periods(conditions: Mapping[str, Mapping[str, Any]]) -> dict[str, tuple[float, float]]:
    return {
        event_id: (float(c.get("correction_period_minutes", DEFAULT_PERIOD_MINUTES)),
                   float(c.get("appeal_period_minutes", DEFAULT_PERIOD_MINUTES)))
        for event_id, c in conditions.items()
    }


@dataclass(frozen=True)
class _Scope:
    """The part of the log a session-keyed replay reads: streams, then the sessions they must name."""

    streams: list[str]
    keys: list[str]
    """`event_id \x1f session_id` of each session in scope."""
    events: list[str]

    @classmethod
    def of(cls, sessions: Collection[SessionKey]) -> _Scope:
        ordered = sorted(set(sessions))
        events = sorted({event_id for event_id, _ in ordered})
        return cls(streams=[session_stream(e, s) for e, s in ordered] + [f"tournament:{e}" for e in events],
                   keys=[f"{e}\x1f{s}" for e, s in ordered], events=events)

    def narrow(self, frame: pl.DataFrame) -> pl.DataFrame:
        """Only the rows that name a session (or, for tournaments, an event) in scope.

        The streams already hold only these; this keeps a stray payload that names another
        session out, so that a session-keyed replay never scores a row twice.
        """
        if "session_id" not in frame.columns:
            inside = pl.col("event_id").is_in(self.events)
        else:
            inside = pl.concat_str([pl.col("event_id"), pl.col("session_id")], separator="\x1f").is_in(self.keys)
        narrowed = frame.filter(inside)
        return frame if narrowed.height == frame.height else narrowed


class _Reader:
    """Reads one event type's payload fields into a frame, upcasting legacy rows.

    `frame` is the one point where stored payloads become replay's rows.
    """

    def __init__(self, con: duckdb.DuckDBPyConnection, position: int, upcasters: UpcasterRegistry,
                 as_of_us: int, scope: _Scope | None = None) -> None:
        self.con = con
        self.position = position
        self.upcasters = upcasters
        self.as_of_us = as_of_us
        self.scope = scope

    def _where(self, event_type: str) -> tuple[str, list[Any]]:
        """The filter (after `type` and `schema_version`) and its parameters."""
        params: list[Any] = [self.position, self.as_of_us]
        where = "position <= ? AND epoch_us(occurred_at) <= ?"
        if self.scope is not None:
            # DuckDB prunes row groups on stream_id's min/max: a session's events are read, not the log's.
            where += " AND stream_id IN (SELECT unnest(?))"
            params.append(self.scope.streams)
        return where, params

    def frame(self, event_type: str, fields: Mapping[str, str]) -> pl.DataFrame:
        # Events replay cannot use are reported and left out, never a crash (pipelines.vetting).
        return vetted(event_type, self._read_frame(event_type, fields))

    def _read_frame(self, event_type: str, fields: Mapping[str, str]) -> pl.DataFrame:
        current = CURRENT_VERSIONS[event_type]
        where, params = self._where(event_type)
        frame = _fetch(self.con.sql(_frame_sql(fields, where), params=[event_type, current, *params]))
        # DuckDB scans in insertion order, which is log order; sorting millions of wide rows in SQL
        # would cost far more than this check (and the sort it guards, should the order ever differ).
        if not frame["position"].is_sorted():
            frame = frame.sort("position")
        legacy = self._legacy(event_type, current, fields, frame.schema)
        if legacy is not None:
            frame = pl.concat([frame, legacy]).sort("position")
        return frame if self.scope is None else self.scope.narrow(frame)

    def _legacy(self, event_type: str, current: int, fields: Mapping[str, str],
                schema: Mapping[str, pl.DataType]) -> pl.DataFrame | None:
        where, params = self._where(event_type)
        rows = self.con.execute(
            "SELECT position, epoch_us(occurred_at), schema_version, payload::VARCHAR FROM events"
            f" WHERE type = ? AND schema_version < ? AND {where} ORDER BY position",
            [event_type, current, *params],
        ).fetchall()
        if not rows:
            return None
        records = []
        for position, occurred_us, version, payload in rows:
            _, body = self.upcasters.upcast(event_type, version, orjson.loads(payload))
            records.append({"position": position, "occurred_us": occurred_us,
                            **{name: _json_field(body.get(name), sql) for name, sql in fields.items()}})
        return pl.DataFrame(records, schema=dict(schema))


_BATCH_ROWS = 1_000_000


def _fetch(relation: duckdb.DuckDBPyRelation) -> pl.DataFrame:
    """A query's rows as a frame, converted batch by batch so that Arrow's copy of all of them
    never sits beside polars' (at ten million results that is gigabytes)."""
    reader = relation.to_arrow_reader(_BATCH_ROWS)
    parts = [_as_frame(batch) for batch in reader]
    if not parts:
        return _as_frame(reader.schema.empty_table())
    stacked = pl.concat(parts, rechunk=False)
    del parts
    return _one_chunk(stacked)


def _as_frame(arrow: Any) -> pl.DataFrame:
    frame = pl.from_arrow(arrow)
    assert isinstance(frame, pl.DataFrame)
    return frame


def _frame_sql(fields: Mapping[str, str], where: str) -> str:
    """One pass of DuckDB's JSON parser per row: `json_transform` into a struct, then columns.

    Field names and types are ours (never user input); the filter values are parameters.
    """
    struct = ", ".join(f'"{name}": {_struct_type(sql)}' for name, sql in fields.items())
    columns = ", ".join(
        f"{unreadable_time_sql(f'p.{name}')} AS {name}" if sql == "TIME_US" else f"p.{name} AS {name}"
        for name, sql in fields.items()
    )
    return (
        f"SELECT position, occurred_us, {columns} FROM ("
        f" SELECT position, epoch_us(occurred_at) AS occurred_us, json_transform(payload, '{{{struct}}}') AS p"
        f" FROM events WHERE type = ? AND schema_version = ? AND {where}"
        ")"
    )


def _struct_type(sql_type: str) -> str:
    if sql_type.startswith("["):
        return sql_type  # a nested structure, written as json_transform expects it
    return '"VARCHAR"' if sql_type == "TIME_US" else f'"{sql_type}"'


def _json_field(value: Any, sql_type: str) -> Any:
    if value is None:
        return None
    if sql_type == "JSON":
        return orjson.dumps(value).decode()
    if sql_type == "TIME_US":
        return to_epoch_us(datetime.fromisoformat(value))
    return value


def _latest_per_table(frame: pl.DataFrame) -> pl.DataFrame:
    """A table's result sent twice (a re-sent traveller): the later event stands."""
    return keep_last_per_key(frame, _TABLE_KEYS)


def _rulings(artificial: pl.DataFrame, weighted: pl.DataFrame) -> pl.DataFrame:
    """Artificial and weighted rulings together: both replace a table's result, both obey Law 92B."""
    return pl.concat(
        [artificial.with_columns(kind=pl.lit("artificial")), weighted.with_columns(kind=pl.lit("weighted"))],
        how="diagonal_relaxed",
    ).rename({"requested_at": "requested_us"})


def _conditions(tournaments: pl.DataFrame) -> dict[str, dict[str, Any]]:
    """The conditions of the latest registration of each event."""
    latest = tournaments.unique("event_id", keep="last", maintain_order=True)
    return {
        str(event_id): orjson.loads(conditions) if conditions else {}
        for event_id, conditions in zip(latest["event_id"], latest["conditions"], strict=True)
    }


def _empty_projection(position: int) -> Projection:
    nothing = pl.DataFrame()
    return Projection(position, 0, pl.DataFrame(schema=RESULTS_SCHEMA), pl.DataFrame(schema=SESSIONS_SCHEMA),
                      pl.DataFrame(schema=PENALTIES_SCHEMA), {}, nothing, nothing, nothing,
                      lambda: pl.DataFrame(schema=RESULTS_SCHEMA))
