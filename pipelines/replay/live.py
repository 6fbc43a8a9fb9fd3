"""Live projections: per-session scores kept in the store and brought up to the log incrementally.

The projection tables are derived data (rebuildable at any time, never the truth):

- `projection_board_scores`, `projection_standings`: what the analyst views `board_scores` and
  `standings` show, one set of rows per session;
- `projection_sessions`: every session in the tables, the log position its rows were computed at,
  its Law 79C deadline and its status;
- `projection_state`: the log position and the clock (the latest `occurred_at` up to it) that the
  tables as a whole reflect.

`refresh` finds the events appended after `projection_state.position` and the sessions they touch
(a session stream names its session; a re-registration touches every session of its event), replays
every session of those tournaments, rescores the touched sessions (every session of a tournament
whose conditions carry scores over: its cumulative totals span them; a board's score never depends
on another session) and swaps their rows in one transaction. A session with no new event but whose
correction period ended between the old clock and the new one is relabelled in the same transaction
instead: a replay reads the clock only for each session's status, so its rows keep every score and
turn final (`_relabel`); rescoring it would give the same rows at the cost of its replay. A full
rebuild scores the tournaments in batches into staging tables and swaps those in, so that peak memory
follows the batch, not the history.
Either way every row equals what a replay of the whole log to the same position gives.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path

import duckdb
import polars as pl

from models.events import session_stream
from pipelines.base.neutralise import spreadsheet_safe
from pipelines.base.query_frames import ArrowStream, frame_of
from pipelines.log.reads import head_position, latest_occurred_us_after
from pipelines.log.store import EventStore, table_columns
from pipelines.log.streams import session_and_tournament_streams, session_streams, tournament_spans
from pipelines.replay.frames import Projection, SessionKey, log_clock, replay
from pipelines.replay.projections import (
    VIEWS_SQL,
    ScoredEdition,
    canonical_order,
    carry_over_events,
    score_projection,
)
from pipelines.scoring.frames import BOARD_SCORES_SCHEMA, STANDINGS_SCHEMA, conform

log = logging.getLogger(__name__)

BOARD_SCHEMA = BOARD_SCORES_SCHEMA
"""`projection_board_scores` (and the view `board_scores`): what `score_results` publishes."""
STANDING_SCHEMA = STANDINGS_SCHEMA
SESSION_SCHEMA: dict[str, pl.DataType] = {
    "event_id": pl.String(), "session_id": pl.String(), "position": pl.Int64(), "deadline_us": pl.Int64(),
    "status": pl.String(),
}
"""`projection_sessions`: a session, the log position its rows reflect, its deadline (null while
unpublished) and its status at the tables' clock."""

BATCH_EVENTS = 1_000_000
"""A full rebuild scores whole tournaments together until their sessions hold about this many events."""

_NO_SESSIONS = pl.DataFrame(schema={"event_id": pl.String, "session_id": pl.String})

_TABLES = {"board_scores": "projection_board_scores", "standings": "projection_standings",
           "sessions": "projection_sessions"}


@dataclass(frozen=True)
class Refreshed:
    """What a refresh did."""

    position: int
    clock_us: int
    full: bool
    sessions: pl.DataFrame
    """(event_id, session_id) of every session rescored."""
    board_rows: int
    """Board-score rows written."""
    relabelled: pl.DataFrame = field(default_factory=_NO_SESSIONS.clone)
    """(event_id, session_id) of every session of the tournaments relabelled, not rescored, because
    only a correction period ended (their rows' status, and their sessions' position, changed)."""
    replayed: Projection | None = None
    """An incremental refresh's replay of every session of the tournaments it rescored, for a caller
    that reads them next (the results site); None after a full rebuild or when nothing was rescored."""
    replayed_sessions: frozenset[SessionKey] = frozenset()
    """(event_id, session_id) of every session `replayed` holds."""
    written: tuple[pl.DataFrame, pl.DataFrame] | None = None
    """With `replayed`: the board-score and standings rows written for the sessions rescored
    (`sessions`), as the tables now hold them (a caller that reads them next need not read them back)."""


def refresh(store: EventStore, *, up_to: int | None = None, full: bool = False,
            batch_events: int = BATCH_EVENTS) -> Refreshed:
    """Bring the projection tables to log position `up_to` (default: the head).

    Rescores only the tournaments touched since the tables' position, unless `full` is asked or
    the tables are missing, have other columns than this version writes, or were written for
    another clock (an `--as-of` edition): then every tournament is rescored from zero, in batches.
    Tables already at or past `up_to` stay as they are.
    """
    with store.session(), store.writer() as con:
        ensure_tables(con)
        position = head_position(con) if up_to is None else up_to
        state = _state(con)
        clock = _clock_at(con, position, state)
        if full or state is None or not _live(con, state) or not _tables_current(con):
            return _rebuild(store, con, position, clock, batch_events)
        if position <= state.position:  # already there (or past it: projections never go back)
            return Refreshed(state.position, state.clock_us, False, _NO_SESSIONS, 0)
        touched = _touched(con, state.position, position)
        catalog = session_catalog(con, position, touched.events)
        if int(catalog["events"].sum()) > batch_events:  # most of the log: rebuild, batch by batch
            return _rebuild(store, con, position, clock, batch_events)
        scored = _score(store, catalog, position, clock, touched)
        with _transaction(con):
            _replace_sessions(con, scored)
            relabelled = _relabel(con, _due_events(con, state.clock_us, clock), position, clock,
                                  skip=scored.sessions.select("event_id", "session_id"))
            _write_state(con, position, clock, clock)
    log.info("projections at log position %d: %d session(s) rescored, %d relabelled", position, scored.sessions.height,
             relabelled.height)
    return Refreshed(position, clock, False, scored.sessions.select("event_id", "session_id"),
                     scored.board_scores.height, relabelled, scored.projection,
                     frozenset(catalog.select("event_id", "session_id").iter_rows()),
                     (scored.board_scores, scored.standings))


def ensure_tables(con: duckdb.DuckDBPyConnection) -> None:
    """Create the projection tables and views when missing (a store written before them gets them).

    When they are all there nothing is written: a refresh with nothing new, or one after a single
    correction, then changes no catalog entry (replacing the views each time cost a catalog write).
    """
    if len(table_columns(con, [*_TABLES.values(), "board_scores", "standings"])) == len(_TABLES) + 2:
        return
    for name, schema in (("board_scores", BOARD_SCHEMA), ("standings", STANDING_SCHEMA),
                         ("sessions", SESSION_SCHEMA)):
        con.register("empty_frame", ArrowStream(pl.DataFrame(schema=schema)))
        con.execute(f"CREATE TABLE IF NOT EXISTS {_TABLES[name]} AS SELECT * FROM empty_frame")
        con.unregister("empty_frame")
    con.execute(VIEWS_SQL)


def write_edition(store: EventStore, edition: ScoredEdition) -> None:
    """Replace the projection tables with `edition` (scored from a whole-log replay)."""
    sessions = _session_rows(edition, edition.projection.sessions.select("event_id", "session_id"))
    with store.writer() as con, _transaction(con):
        for name, frame in (("board_scores", conform(edition.board_scores, BOARD_SCHEMA)),
                            ("standings", conform(edition.standings, STANDING_SCHEMA)), ("sessions", sessions)):
            con.register("new_rows", ArrowStream(frame))
            con.execute(f"CREATE OR REPLACE TABLE {_TABLES[name]} AS SELECT * FROM new_rows")
            con.unregister("new_rows")
        con.execute(VIEWS_SQL)
        _write_state(con, edition.position, edition.as_of_us, log_clock(con, edition.position))


def write_views(store: EventStore, edition: ScoredEdition) -> None:
    """Replace the projection tables with `edition` (a whole-log edition) and (re)create the views;
    `refresh` keeps the same tables up to date incrementally."""
    write_edition(store, edition)
    log.info("views board_scores and standings now show log position %d", edition.position)


def session_catalog(con: duckdb.DuckDBPyConnection, position: int,
                    events: Sequence[str] | None = None) -> pl.DataFrame:
    """Every session up to `position` (of `events` only, when given): event_id, session_id and the
    number of its events, sorted. A session is known by its stream; its first event names it."""
    if events is not None and not events:
        return pl.DataFrame(schema={"event_id": pl.String, "session_id": pl.String, "events": pl.Int64})
    frame = session_streams(con, position, events)
    if events is not None:  # a stream id can hold another event's id ("a/b" under "a"): its payload decides
        frame = frame.filter(pl.col("event_id").is_in(list(events)))
    return frame.sort("event_id", "session_id")


# -- what changed --------------------------------------------------------------------------------

@dataclass(frozen=True)
class _Touched:
    """What the events in a range of the log touch."""

    events: list[str]
    """Tournaments with an event in the range, sorted."""
    registered: frozenset[str]
    """Those whose own stream (`tournament:<event_id>`) has one: their conditions may have changed."""
    streams: frozenset[str]
    """Session streams with an event in the range."""

    def rescores(self, event_id: str, session_id: str) -> bool:
        """Whether the session's rows may have changed: an event of its own, or a new registration."""
        return event_id in self.registered or session_stream(event_id, session_id) in self.streams


def _touched(con: duckdb.DuckDBPyConnection, since: int, position: int) -> _Touched:
    """The tournaments and session streams with an event in (since, position]."""
    named = session_and_tournament_streams(con, since, position).select("stream_id", "event_id").rows()
    return _Touched(events=sorted({event_id for _, event_id in named if event_id is not None}),
                    registered=frozenset(event_id for stream, event_id in named
                                         if event_id is not None and stream.startswith("tournament:")),
                    streams=frozenset(stream for stream, _ in named if stream.startswith("session:")))


def _due_events(con: duckdb.DuckDBPyConnection, old_clock: int, clock: int) -> list[str]:
    """Tournaments with a session whose correction period ended between the old clock and the new
    (its status turns final with no event of its own)."""
    due = con.execute(
        f"SELECT DISTINCT event_id FROM {_TABLES['sessions']} WHERE status = 'provisional'"
        " AND deadline_us IS NOT NULL AND deadline_us > ? AND deadline_us <= ?", [old_clock, clock]).fetchall()
    return sorted(row[0] for row in due if row[0] is not None)


def _relabel(con: duckdb.DuckDBPyConnection, events: Sequence[str], position: int, clock: int,
             skip: pl.DataFrame = _NO_SESSIONS) -> pl.DataFrame:
    """Within the caller's transaction: the tournaments' rows as a rescore at (position, clock) would
    write them, when no event of theirs came in since: each session's status at the new clock (final
    once it reaches the stored deadline, as `pipelines.rulings.corrections.session_windows` decides), and
    every session's position the new one. Scores, ranks and deadlines stay: the events are the same.
    The sessions in `skip` (event_id, session_id: just rescored) are left as written.
    Derived rows, so an UPDATE: the event log itself is never updated."""
    if not events:
        return _NO_SESSIONS
    sessions = _TABLES["sessions"]
    kept = ("NOT EXISTS (SELECT 1 FROM (SELECT unnest(?) AS e, unnest(?) AS s) AS k"
            " WHERE k.e = {0}.event_id AND k.s = {0}.session_id)")
    skipped = [skip["event_id"].to_list(), skip["session_id"].to_list()]
    con.execute(f"UPDATE {sessions} SET position = ?, status = CASE WHEN deadline_us IS NOT NULL"
                " AND ? >= deadline_us THEN 'final' ELSE 'provisional' END"
                f" WHERE event_id IN (SELECT unnest(?)) AND {kept.format(sessions)}",
                [position, clock, list(events), *skipped])
    for name in ("board_scores", "standings"):
        con.execute(f"UPDATE {_TABLES[name]} AS t SET status = s.status FROM {sessions} AS s"
                    " WHERE t.event_id = s.event_id AND t.session_id = s.session_id"
                    f" AND t.event_id IN (SELECT unnest(?)) AND t.status IS DISTINCT FROM s.status"
                    f" AND {kept.format('t')}", [list(events), *skipped])
    return frame_of(con.sql(f"SELECT event_id, session_id FROM {sessions}"
                            f" WHERE event_id IN (SELECT unnest(?)) AND {kept.format(sessions)}"
                            " ORDER BY event_id, session_id", params=[list(events), *skipped]))


# -- scoring -------------------------------------------------------------------------------------

@dataclass(frozen=True)
class _Scored:
    board_scores: pl.DataFrame
    standings: pl.DataFrame
    sessions: pl.DataFrame
    projection: Projection | None = None


def _score(store: EventStore, catalog: pl.DataFrame, position: int, clock: int,
           touched: _Touched | None = None, span: tuple[int, int] | None = None) -> _Scored:
    """Board scores, standings and session rows of the sessions in `catalog`, replayed alone; with
    `touched`, of those it says may have changed only (see `_rescored`), the others replayed too;
    `span` holds every event of their streams, when known (see `replay`)."""
    keys: list[SessionKey] = list(catalog.select("event_id", "session_id").iter_rows())
    if not keys:
        return _Scored(pl.DataFrame(schema=BOARD_SCHEMA), pl.DataFrame(schema=STANDING_SCHEMA),
                       pl.DataFrame(schema=SESSION_SCHEMA))
    projection = replay(store, up_to=position, as_of_us=clock, sessions=keys, span=span)
    rescored = catalog.select("event_id", "session_id")
    if touched is not None:
        rescored = _rescored(rescored, touched, projection)
        projection_scored = _of_sessions(projection, rescored)
    else:
        projection_scored = projection
    edition = score_projection(projection_scored)
    return _Scored(conform(edition.board_scores, BOARD_SCHEMA), conform(edition.standings, STANDING_SCHEMA),
                   _session_rows(edition, rescored), projection)


def _rescored(sessions: pl.DataFrame, touched: _Touched, projection: Projection) -> pl.DataFrame:
    """The sessions whose rows may have changed: those `touched` names, and every session of a
    tournament that has one and whose conditions carry scores over (its later sessions' totals)."""
    carrying = carry_over_events(projection.conditions)
    return sessions.filter(pl.Series([
        touched.rescores(event_id, session_id) or (event_id in carrying and event_id in touched.events)
        for event_id, session_id in sessions.iter_rows()], dtype=pl.Boolean))


def _of_sessions(projection: Projection, sessions: pl.DataFrame) -> Projection:
    """The replay's rows of `sessions` (event_id, session_id) alone: what scoring them reads."""
    keys = ["event_id", "session_id"]
    frames = {name: frame.join(sessions, on=keys, how="semi", maintain_order="left")
              for name in ("results", "sessions", "penalties", "windows")
              for frame in [getattr(projection, name)] if set(keys) <= set(frame.columns)}
    return replace(projection, **frames)


def _session_rows(edition: ScoredEdition, sessions: pl.DataFrame) -> pl.DataFrame:
    windows = edition.projection.windows
    if windows.height:
        sessions = sessions.join(windows.select("event_id", "session_id", "deadline_us", "status"),
                                 on=["event_id", "session_id"], how="left")
    return conform(sessions.with_columns(position=pl.lit(edition.position, pl.Int64)), SESSION_SCHEMA).with_columns(
        status=pl.col("status").fill_null("provisional"))


def _rebuild(store: EventStore, con: duckdb.DuckDBPyConnection, position: int, clock: int,
             batch_events: int) -> Refreshed:
    """Every tournament rescored from zero into staging tables, a batch at a time, then swapped in."""
    catalog = session_catalog(con, position)
    staging = {name: f"rebuild_{table}" for name, table in _TABLES.items()}
    for name, schema in (("board_scores", BOARD_SCHEMA), ("standings", STANDING_SCHEMA),
                         ("sessions", SESSION_SCHEMA)):
        con.register("empty_frame", ArrowStream(pl.DataFrame(schema=schema)))
        con.execute(f"CREATE OR REPLACE TABLE {staging[name]} AS SELECT * FROM empty_frame")
        con.unregister("empty_frame")
    rows = 0
    registrations = tournament_spans(con, position)
    for batch in _batches(catalog, batch_events):
        rows += _stage(con, staging, _score(store, batch, position, clock, span=_span(batch, registrations)))
    with _transaction(con):
        con.execute("DROP VIEW IF EXISTS board_scores")
        con.execute("DROP VIEW IF EXISTS standings")
        for name, table in _TABLES.items():
            con.execute(f"DROP TABLE IF EXISTS {table}")
            con.execute(f"ALTER TABLE {staging[name]} RENAME TO {table}")
        con.execute(VIEWS_SQL)
        _write_state(con, position, clock, clock)
    log.info("projections rebuilt at log position %d: %d session(s)", position, catalog.height)
    return Refreshed(position, clock, True, catalog.select("event_id", "session_id"), rows)


def _span(batch: pl.DataFrame, registrations: pl.DataFrame) -> tuple[int, int]:
    """The first and last positions of a batch's streams: its sessions' (the catalog's) and its
    tournaments' own (`registrations`, from `tournament_spans`)."""
    own = registrations.join(batch.select("event_id").unique(), on="event_id", how="semi")
    spans = pl.concat([batch.select("first", "last"), own.select("first", "last")])
    return int(spans["first"].min()), int(spans["last"].max())  # type: ignore[arg-type]


def _stage(con: duckdb.DuckDBPyConnection, staging: dict[str, str], scored: _Scored) -> int:
    """A batch's rows into the staging tables; the board-score rows staged. Nothing of the batch
    outlives the call (a loop's own names kept its last frame while the next batch was replayed)."""
    for name, frame in (("board_scores", scored.board_scores), ("standings", scored.standings),
                        ("sessions", scored.sessions)):
        _insert(con, staging[name], frame)
    return scored.board_scores.height


def _batches(catalog: pl.DataFrame, batch_events: int) -> Iterator[pl.DataFrame]:
    """The catalog cut into runs of whole tournaments of about `batch_events` events each."""
    per_event = catalog.group_by("event_id", maintain_order=True).agg(pl.col("events").sum())
    batch = per_event.with_columns(_batch=(pl.col("events").cum_sum() - 1) // max(batch_events, 1))
    catalog = catalog.join(batch.select("event_id", "_batch"), on="event_id", how="left", maintain_order="left")
    for _, part in catalog.group_by("_batch", maintain_order=True):
        yield part.drop("_batch")


# -- the tables ----------------------------------------------------------------------------------

def _replace_sessions(con: duckdb.DuckDBPyConnection, scored: _Scored) -> None:
    """Within the caller's transaction: the scored sessions' old rows out, their new rows in."""
    keys = [scored.sessions["event_id"].to_list(), scored.sessions["session_id"].to_list()]
    for name, frame in (("board_scores", scored.board_scores), ("standings", scored.standings),
                        ("sessions", scored.sessions)):
        con.execute(f"DELETE FROM {_TABLES[name]} AS t USING (SELECT unnest(?) AS e, unnest(?) AS s) AS k"
                    " WHERE t.event_id = k.e AND t.session_id = k.s", keys)
        _insert(con, _TABLES[name], frame)


def _insert(con: duckdb.DuckDBPyConnection, table: str, frame: pl.DataFrame) -> None:
    if frame.is_empty():
        return
    con.register("incoming_rows", ArrowStream(frame))
    try:
        con.execute(f"INSERT INTO {table} SELECT * FROM incoming_rows")
    finally:
        con.unregister("incoming_rows")


def projection_state(con: duckdb.DuckDBPyConnection) -> tuple[int, int] | None:
    """(position, clock) that the projection tables as a whole reflect: their rows are what a
    replay of the events at positions <= position that happened by clock gives. None when a reader
    cannot use them: never built, or written by a version with other columns."""
    state = _state(con)
    return (state.position, state.clock_us) if state is not None and _tables_current(con) else None


def _tables_current(con: duckdb.DuckDBPyConnection) -> bool:
    """Whether the projection tables have exactly the columns this version writes (a version that
    adds a column to the views rebuilds them rather than inserting rows that do not fit)."""
    columns = table_columns(con, list(_TABLES.values()))
    return all(columns.get(_TABLES[name]) == list(schema) for name, schema in (
        ("board_scores", BOARD_SCHEMA), ("standings", STANDING_SCHEMA), ("sessions", SESSION_SCHEMA)))


@dataclass(frozen=True)
class _State:
    """What `projection_state` says of the tables."""

    position: int
    clock_us: int
    """The clock the rows were scored at."""
    log_clock_us: int | None
    """The log's own clock at `position` (None: written by a version that did not keep it)."""


def _state(con: duckdb.DuckDBPyConnection) -> _State | None:
    """The position and clocks the tables reflect; None when unknown (never refreshed, or written
    by a version that kept no clock)."""
    columns = set(table_columns(con, ["projection_state"]).get("projection_state", []))
    if not {"position", "clock_us"} <= columns:
        return None
    kept = "log_clock_us" if "log_clock_us" in columns else "NULL"
    rows = con.execute(f"SELECT position, clock_us, {kept} FROM projection_state").fetchall()
    if not rows or rows[0][1] is None:
        return None
    position, clock, log_clock_us = rows[0]
    return _State(int(position), int(clock), None if log_clock_us is None else int(log_clock_us))


def _live(con: duckdb.DuckDBPyConnection, state: _State) -> bool:
    """Whether the tables were scored at the log's own clock (not an `--as-of` edition's)."""
    own = state.log_clock_us if state.log_clock_us is not None else log_clock(con, state.position)
    return own == state.clock_us


def _clock_at(con: duckdb.DuckDBPyConnection, position: int, state: _State | None) -> int:
    """The log's clock at `position`. From the tables' position on, the log only grew: the clock is
    the kept one or a later event's, and only the events after the tables' position are read (the
    whole log's times took tens of milliseconds to scan at ten million events)."""
    if state is None or state.log_clock_us is None or position < state.position:
        return log_clock(con, position)
    later = latest_occurred_us_after(con, state.position, position)
    return state.log_clock_us if later is None else max(state.log_clock_us, later)


def _write_state(con: duckdb.DuckDBPyConnection, position: int, clock: int, log_clock_us: int) -> None:
    con.execute("CREATE OR REPLACE TABLE projection_state AS SELECT ?::BIGINT AS position, ?::BIGINT AS clock_us,"
                " ?::BIGINT AS log_clock_us", [position, clock, log_clock_us])


@contextmanager
def _transaction(con: duckdb.DuckDBPyConnection) -> Iterator[None]:
    con.execute("BEGIN TRANSACTION")
    try:
        yield
    except BaseException:
        con.execute("ROLLBACK")
        raise
    con.execute("COMMIT")


# -- reading the tables ----------------------------------------------------------------------------

def read_tables(store: EventStore, sessions: pl.DataFrame | None = None) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Board scores and standings from the projection tables (of `sessions` only, when given)."""
    return read_table(store, "board_scores", sessions), read_table(store, "standings", sessions)


def read_table(store: EventStore, name: str, sessions: pl.DataFrame | None = None) -> pl.DataFrame:
    """`board_scores` or `standings` from the projection tables (of `sessions` only, when given), in
    the published order (`canonical_order`)."""
    schema = BOARD_SCHEMA if name == "board_scores" else STANDING_SCHEMA
    with store.reader() as con:
        if sessions is None:
            rows = frame_of(con.sql(f"SELECT * FROM {_TABLES[name]}"))
        else:  # rows are stored a tournament at a time: DuckDB skips the others' row groups
            rows = frame_of(con.sql(f"SELECT * FROM {_TABLES[name]} WHERE event_id IN (SELECT unnest(?))",
                                    params=[sessions["event_id"].unique().to_list()]))
            rows = rows.join(sessions.select("event_id", "session_id"), on=["event_id", "session_id"], how="semi")
    # DuckDB returns the rows of a table spanning several row groups in any order (a refresh
    # deletes and inserts a tournament's rows): sorted, the same rows are the same frame.
    return canonical_order(conform(rows, schema))


def export_tables(store: EventStore, outdir: str | Path, *, batch_events: int = BATCH_EVENTS) -> dict[str, Path]:
    """board_scores.csv and standings.csv from the projection tables, the bytes `export_csv` writes
    for the same edition; written a batch of tournaments at a time (they sort first by event)."""
    out = Path(outdir)
    out.mkdir(parents=True, exist_ok=True)
    paths = {"board_scores": out / "board_scores.csv", "standings": out / "standings.csv"}
    with store.reader() as con:
        events = frame_of(con.sql(f"SELECT event_id, count(*) AS events FROM {_TABLES['board_scores']}"
                                  " GROUP BY event_id"))
        events = pl.concat([events, frame_of(con.sql(f"SELECT DISTINCT event_id, 0::BIGINT AS events FROM "
                                                     f"{_TABLES['standings']}"))]).group_by("event_id").agg(
            pl.col("events").sum()).sort("event_id")
        batches = list(_batches(events.with_columns(session_id=pl.lit("")), batch_events)) or [
            pl.DataFrame(schema={"event_id": pl.String})]
        for name, schema in (("board_scores", BOARD_SCHEMA), ("standings", STANDING_SCHEMA)):
            with paths[name].open("wb") as sink:
                for index, batch in enumerate(batches):
                    rows = frame_of(con.sql(f"SELECT * FROM {_TABLES[name]} WHERE event_id IN (SELECT unnest(?))",
                                            params=[batch["event_id"].to_list()]))
                    spreadsheet_safe(canonical_order(conform(rows, schema))).write_csv(
                        sink, float_precision=4, include_header=index == 0)
    return paths
