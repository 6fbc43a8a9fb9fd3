"""Where a site build reads its scores: the live projections, or an edition replayed for it.

A build walks the site event by event and asks its source two things: a cheap *stamp* per session,
which changes whenever anything the session's pages show may have changed, and, only for events
whose stamps moved, the event's info and a `ScoredEdition` holding (at least) that event's rows.

- `LiveSource` (the site of the log as it stands, what the CLI and the DAGs build): brings the
  session-keyed projections of `pipelines.replay.live` up to the log (incrementally), takes the stamps
  from `projection_sessions` (the log position a session's rows were computed at, its status and
  deadline: a refresh rescores a session whenever its stream or its tournament's gets an event, and
  relabels it when its correction period ends) and, for the events to render, reads their
  projection rows and replays their sessions alone for what the projections do not keep (results
  as they stand, corrections, rulings, windows), a batch of events at a time. Nothing of any event not rendered is read.
- `FixedSource` (an `--as-of` edition, a DAG's log position the projections have passed, or an
  edition a caller scored): the edition's own rows, replayed for the sessions it shows (one event's,
  with `--event`). It gives no stamps, so every session it holds is gathered and digested again.

Either way a page is a pure function of the log: the projections equal a whole replay's rows.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property

import polars as pl

from pipelines.base.query_frames import frame_of
from pipelines.log.reads import head_position
from pipelines.log.store import EventStore
from pipelines.replay.frames import Projection, SessionKey, replay
from pipelines.replay.projections import ScoredEdition, canonical_order, score_store
from pipelines.site.gather import EventInfo, events_of, of_event

log = logging.getLogger(__name__)

BATCH_SESSIONS = 64
"""Sessions a live build reads (projection rows and a replay) at once. A replay's fixed cost is a
dozen queries: replaying the sample weekend's four events one by one took 0.6 s of CPU, together
0.16 s. A first build of a whole history still holds only 64 sessions' results at a time."""


@dataclass
class FixedSource:
    """Every event of one scored edition (which holds every row the site shows)."""

    store: EventStore
    edition: ScoredEdition

    @property
    def position(self) -> int:
        """The log position the pages show."""
        return self.edition.position

    @property
    def clock(self) -> int:
        """The time the pages show (epoch microseconds)."""
        return self.edition.as_of_us

    @cached_property
    def _events(self) -> dict[str, EventInfo]:
        return {e.event_id: e for e in events_of(self.store, self.edition)}

    def event_ids(self) -> list[str]:
        """The events the edition shows."""
        return sorted(self._events)

    def stamps(self, event_id: str) -> dict[str, str | None]:
        """No stamps: every session is gathered again (its digest still spares the rendering)."""
        return {s.session_id: None for s in self._events[event_id].sessions}

    def plan(self, event_ids: Sequence[str]) -> None:
        """Nothing to plan: the edition holds every event."""

    def load(self, event_id: str) -> tuple[EventInfo, ScoredEdition] | None:
        """The event and the edition (all of it: the site's code filters by session)."""
        event = self._events.get(event_id)
        return None if event is None else (event, self.edition)


@dataclass
class LiveSource:
    """The projections brought up to `position` (the head, or a DAG's position), read for the events
    a build renders (`plan`), a batch at a time, each event given its own rows (`load`)."""

    store: EventStore
    position: int
    clock: int
    sessions: pl.DataFrame
    """`projection_sessions`: event_id, session_id, position, deadline_us, status."""
    code: str
    """The site's code version: new code renders every session again."""
    replayed: Projection | None = None
    """The refresh's own replay of the tournaments it rescored sessions of (same position and clock)."""
    replayed_sessions: frozenset[SessionKey] = frozenset()
    written: tuple[pl.DataFrame, pl.DataFrame] | None = None
    """The refresh's rows of `rescored` (board scores, standings), as the tables hold them."""
    rescored: frozenset[SessionKey] = frozenset()
    """The sessions the refresh rescored (the others of `replayed_sessions` kept their rows)."""
    _by_event: dict[str, list[tuple[str, str]]] = field(default_factory=dict)
    _batch_of: dict[str, list[str]] = field(default_factory=dict)
    _loaded: dict[str, tuple[EventInfo, ScoredEdition] | None] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for event_id, session_id, stamp in self.sessions.select(
                "event_id", "session_id", _stamp_expr(self.code)).iter_rows():
            self._by_event.setdefault(event_id, []).append((session_id, stamp))

    def event_ids(self) -> list[str]:
        """Every event the projections hold a session of."""
        return sorted(self._by_event)

    def stamps(self, event_id: str) -> dict[str, str | None]:
        """session_id -> stamp (code, the log position its rows were scored at, status, deadline)."""
        return dict(self._by_event.get(event_id, []))

    def plan(self, event_ids: Sequence[str]) -> None:
        """The events a build will `load`, in that order: they are read in batches of about
        `BATCH_SESSIONS` sessions, each when its first event is loaded."""
        batch: list[str] = []
        sessions = 0
        for event_id in event_ids:
            batch.append(event_id)
            self._batch_of[event_id] = batch
            sessions += len(self._by_event.get(event_id, []))
            if sessions >= BATCH_SESSIONS:
                batch, sessions = [], 0

    def load(self, event_id: str) -> tuple[EventInfo, ScoredEdition] | None:
        """The event's info and an edition of its own rows: projection rows, and a replay of its
        sessions (read with the rest of its batch, see `plan`)."""
        if event_id not in self._loaded:
            self._read(self._batch_of.get(event_id, [event_id]))
        return self._loaded.get(event_id)

    def _read(self, event_ids: Sequence[str]) -> None:
        """Read these events' projection rows and replay their sessions together; what the batch
        before held is let go. One replay of many events' sessions costs about what one event's does
        (a dozen queries, each reading only the streams in scope)."""
        keys: list[SessionKey] = [(e, s) for e in event_ids for s, _ in self._by_event.get(e, [])]
        self._loaded = {}
        if not keys:
            return
        from pipelines.replay.live import read_tables

        wanted = pl.DataFrame(keys, schema={"event_id": pl.String, "session_id": pl.String}, orient="row")
        # The refresh that just rescored these events replayed them already; its replay holds the same
        # rows, and the rows it wrote are the tables' own.
        refreshed = self.replayed is not None and set(keys) <= self.replayed_sessions
        if refreshed and self.written is not None and set(keys) <= self.rescored:
            # in the order `read_tables` gives: the digests see it
            board_scores, standings = (canonical_order(rows.join(wanted, on=["event_id", "session_id"], how="semi"))
                                       for rows in self.written)
        else:
            board_scores, standings = read_tables(self.store, wanted)
        projection = self.replayed if refreshed and self.replayed is not None \
            else replay(self.store, up_to=self.position, as_of_us=self.clock, sessions=keys)
        edition = ScoredEdition(self.position, self.clock, board_scores, standings, projection)
        for event_id in event_ids:
            # Each event gets its own rows only, as when it was read alone: what the audit rescores
            # (the results as recorded) stays one event's, however many the batch holds.
            own = of_event(edition, event_id)
            found = events_of(self.store, own, event_id) if self._by_event.get(event_id) else []
            self._loaded[event_id] = (found[0], own) if found else None


def _stamp_expr(code: str) -> pl.Expr:
    return pl.concat_str([pl.lit(code), pl.col("position").cast(pl.String), pl.col("status").fill_null(""),
                          pl.col("deadline_us").cast(pl.String).fill_null("")], separator="/").alias("stamp")


Source = FixedSource | LiveSource


def open_source(store: EventStore, *, code: str, edition: ScoredEdition | None = None,
                as_of_us: int | None = None, up_to: int | None = None,
                event_id: str | None = None) -> Source:
    """The source a build reads: `edition` when given; a replay for `as_of_us` (of `event_id`'s
    sessions only, when given); else the live projections at `up_to` (default: the head)."""
    if edition is not None:
        return FixedSource(store, edition)
    if not store.exists():
        return FixedSource(store, score_store(store))
    if as_of_us is not None:
        return FixedSource(store, score_store(store, up_to=up_to, as_of_us=as_of_us,
                                              sessions=_sessions_of(store, event_id, up_to)))
    from pipelines.replay.live import refresh

    refreshed = refresh(store, up_to=up_to)
    if up_to is not None and refreshed.position != up_to:
        # The projections already show a later log position: the edition asked for is replayed.
        log.info("site: projections at %d, past %d: replaying the edition", refreshed.position, up_to)
        return FixedSource(store, score_store(store, up_to=up_to, sessions=_sessions_of(store, event_id, up_to)))
    with store.reader() as con:
        sessions = frame_of(con.sql(
            "SELECT event_id, session_id, position, deadline_us, status FROM projection_sessions"
            + (" WHERE event_id = ?" if event_id is not None else ""),
            params=[event_id] if event_id is not None else None))
    return LiveSource(store, refreshed.position, refreshed.clock_us, sessions, code, refreshed.replayed,
                      refreshed.replayed_sessions, refreshed.written,
                      frozenset(refreshed.sessions.select("event_id", "session_id").iter_rows()))


def _sessions_of(store: EventStore, event_id: str | None, up_to: int | None) -> list[SessionKey] | None:
    """Every session of `event_id` in the log up to `up_to` (None: every session of every event)."""
    if event_id is None:
        return None
    from pipelines.replay.live import session_catalog

    with store.reader() as con:
        position = up_to if up_to is not None else head_position(con)
        catalog = session_catalog(con, position, [event_id])
    return list(catalog.select("event_id", "session_id").iter_rows())
