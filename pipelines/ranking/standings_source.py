"""The one place the ranking reads standings from: the live projection tables wherever they hold
the edition's answer, a session-keyed replay wherever they do not.

An edition is as of a log position P and a time T: its standings are what a replay of the events
at positions <= P that happened by T gives (`replay_standings`, the reference). The projection
tables (`pipelines.replay.live`) hold what a replay to their own position Ps and clock Cs gave
(`projection_state`). The rule:

1. A tournament's rows depend only on the events of its own streams (`session:<event>/<session>`
   and `tournament:<event>`; its sessions are scored together, as carry-over spans them). When one
   of the two replays counts an event of those streams and the other does not, the tournament is
   rescored by a session-keyed replay to (P, T) (`changed_tournaments`): an event with a position
   between P and Ps that the later side counts (corrected or appended after the tables, or after
   the edition's position), or one at or before both that happened between T and Cs (an edition in
   the past, or one whose time is ahead of the tables' clock). Rescoring goes a batch of whole
   tournaments at a time, so that memory follows the batch, not the history.
2. Every other tournament's stored rows are the edition's except for one column: a replay reads
   the clock only to say whether each session's Law 79C period is over (`status`); the results it
   stands on, the corrections and rulings it applies (decided by when they were raised against the
   publication's deadline, never by the clock) and every score are the same. So a stored row is
   taken with its status recomputed at T from its session's stored deadline: final once T reaches
   the deadline, else provisional, as `pipelines.rulings.corrections.session_windows` decides. (Rescoring
   every session whose status differs would give the same bytes, at the cost of a full rescoring
   whenever an edition's time is after a batch of publications the tables were written beside.)

Missing projection tables (never built, or written by another version) are not built here: an
edition is a read, run by `rank show`, `rank diff` and `statement` too, on stores that another
process may be writing or that an analyst opened read-only, so it never writes. Then every
tournament is rescored the batched way of (1), with a warning that `bridgeledger score` would make
editions read the tables; stale tables cost only the tournaments touched since they were written.

Whichever way a row comes, the snapshot is the same bytes: the columns the ranking reads, in one
canonical order, with the windows and corrections of the whole log at (P, T).
"""

from __future__ import annotations

import logging
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Protocol

import duckdb
import polars as pl

from pipelines.base.query_frames import frame_of
from pipelines.log.store import EventStore
from pipelines.log.streams import LogRange, streams_in_ranges
from pipelines.replay.frames import SessionKey, correction_decisions
from pipelines.replay.live import projection_state, session_catalog
from pipelines.replay.projections import score_store
from pipelines.scoring.frames import STANDINGS_SCHEMA

log = logging.getLogger(__name__)

STANDINGS_COLUMNS = ["event_id", "session_id", "section", "direction", "contestant_id", "rank", "score", "boards",
                     "status"]
"""What the ranking reads of `pipelines.scoring.frames.STANDINGS_SCHEMA`, in this canonical order of rows."""

BATCH_EVENTS = 1_000_000
"""Tournaments are rescored together until their sessions hold about this many events."""


@dataclass(frozen=True)
class StandingsSnapshot:
    """Standings with their Law 79C status, as of one log position and time."""

    position: int
    as_of_us: int
    standings: pl.DataFrame
    """`STANDINGS_COLUMNS`: one row per contestant per session, with `status`, in canonical order."""
    windows: pl.DataFrame
    """Per published session: publication time, deadline and status (`pipelines.rulings.corrections`)."""
    corrections: pl.DataFrame
    """Every correction request with its decision (`applied`)."""


class StandingsReader(Protocol):
    """How an edition gets its standings: `read_standings`, or `replay_standings` (the reference)."""

    def __call__(self, store: EventStore, *, up_to: int, as_of_us: int) -> StandingsSnapshot: ...


def read_standings(store: EventStore, *, up_to: int, as_of_us: int,
                   events: Sequence[str] | None = None) -> StandingsSnapshot:
    """Session standings of every event (of `events` only, when given) from the events at positions
    <= `up_to` that happened by `as_of_us`, with each session's status (provisional or final) at
    `as_of_us`: equal, byte for byte, to `replay_standings` (of those events' rows), from the
    projection tables where the module's rule allows."""
    if not store.exists():
        return _only(replay_standings(store, up_to=up_to, as_of_us=as_of_us), events)
    if events is not None and not events:  # nothing to read: position 0 gives the frames, empty, with their columns
        return StandingsSnapshot(up_to, as_of_us, _empty_standings(), *correction_decisions(
            store, as_of_us=as_of_us, up_to=0))
    with store.reader() as con:
        state = projection_state(con)
        catalog = None if events is None else session_catalog(con, up_to, events)
        if state is None:
            log.warning("no projection tables in %s: every session is replayed for this edition (run "
                        "`bridgeledger score` once to keep them, and editions read them)", store.path)
            stored, rescore = _empty_standings(), session_catalog(con, up_to) if catalog is None else catalog
        else:
            changed = changed_tournaments(con, state, up_to=up_to, as_of_us=as_of_us)
            if catalog is not None:
                changed = sorted(set(changed) & set(catalog["event_id"]))
            stored = _stored_standings(con, changed, as_of_us, events)
            rescore = session_catalog(con, up_to, changed)
    log.info("standings at log position %d: %d stored row(s), %d session(s) of %d tournament(s) rescored",
             up_to, stored.height, rescore.height, rescore["event_id"].n_unique())
    rescored = [_scored(store, batch, up_to, as_of_us) for batch in _batches(rescore)]
    # Some tournaments' windows and corrections are read from their sessions' streams alone.
    keys: list[SessionKey] | None = None if catalog is None else list(
        catalog.select("event_id", "session_id").iter_rows())
    windows, corrections = correction_decisions(store, as_of_us=as_of_us, up_to=0 if keys == [] else up_to,
                                                sessions=keys or None)  # no session: the empty frames
    snapshot = StandingsSnapshot(up_to, as_of_us, _canonical(pl.concat([stored, *rescored])), windows, corrections)
    return _only(snapshot, events)


def _only(snapshot: StandingsSnapshot, events: Sequence[str] | None) -> StandingsSnapshot:
    """The snapshot's rows of `events` (all of them when None)."""
    if events is None:
        return snapshot
    wanted = pl.col("event_id").is_in(list(events))
    return StandingsSnapshot(snapshot.position, snapshot.as_of_us, snapshot.standings.filter(wanted),
                             snapshot.windows.filter(wanted) if "event_id" in snapshot.windows.columns
                             else snapshot.windows,
                             snapshot.corrections.filter(wanted) if "event_id" in snapshot.corrections.columns
                             else snapshot.corrections)


def replay_standings(store: EventStore, *, up_to: int, as_of_us: int) -> StandingsSnapshot:
    """The reference: the whole log up to `up_to` replayed and scored as of `as_of_us`."""
    scored = score_store(store, up_to=up_to, as_of_us=as_of_us)
    projection = scored.projection
    return StandingsSnapshot(scored.position, scored.as_of_us, _canonical(scored.standings), projection.windows,
                             projection.corrections)


def changed_tournaments(con: duckdb.DuckDBPyConnection, state: tuple[int, int], *, up_to: int,
                        as_of_us: int) -> list[str]:
    """Tournaments whose stored rows are not the edition's (position `up_to`, time `as_of_us`) while
    the tables reflect `state` (position, clock): see the module docstring."""
    streams = differing_streams(con, state, up_to=up_to, as_of_us=as_of_us, prefixes=("session:", "tournament:"))
    return sorted({event_id for _, event_id in streams if event_id is not None})


def differing_streams(con: duckdb.DuckDBPyConnection, state: tuple[int, int], *, up_to: int, as_of_us: int,
                      prefixes: Sequence[str]) -> list[tuple[str, str | None]]:
    """(stream, the event_id its payload names) of every stream starting with one of `prefixes` that
    has an event one of two replays counts and the other does not: one to (`up_to`, `as_of_us`),
    one to `state` (position, clock).

    An event is in the tables when position <= Ps and it happened by Cs, in the edition when
    position <= P and it happened by T. Each of the four ranges below is a plain conjunction of
    bounds, so DuckDB skips the row groups outside it (the usual edition scans almost nothing).
    """
    stored_position, clock = state
    low = min(up_to, stored_position)
    ranges = [
        LogRange(until=stored_position, by=clock, after=up_to),     # after P, by Ps: only the tables count it
        LogRange(until=up_to, by=as_of_us, after=stored_position),  # after Ps, by P: only the edition counts it
        LogRange(until=low, by=clock, since=as_of_us),              # happened after T, by Cs: only the tables
        LogRange(until=low, by=as_of_us, since=clock),              # happened after Cs, by T: only the edition
    ]
    counted = [log_range for log_range in ranges if not log_range.empty]
    if not counted:
        return []
    # A stream names its tournament in its events' payloads (as `live.refresh` finds it).
    named = streams_in_ranges(con, counted, prefixes)
    return named.select("stream_id", "event_id").unique(maintain_order=True).rows()


def _stored_standings(con: duckdb.DuckDBPyConnection, changed: list[str], as_of_us: int,
                      events: Sequence[str] | None = None) -> pl.DataFrame:
    """The stored rows of every tournament (of `events`, when given) but the `changed` ones, only the
    columns the ranking reads, each with its session's status at `as_of_us` (final once the time
    reaches the stored deadline)."""
    columns = ", ".join(f"s.{name}" for name in STANDINGS_COLUMNS if name != "status")
    only = "" if events is None else " AND s.event_id IN (SELECT unnest(?::VARCHAR[]))"
    frame: pl.DataFrame = frame_of(con.sql(
        f"SELECT {columns}, CASE WHEN p.deadline_us IS NOT NULL AND ? >= p.deadline_us THEN 'final'"
        " ELSE 'provisional' END AS status"
        " FROM projection_standings s LEFT JOIN projection_sessions p USING (event_id, session_id)"
        f" WHERE s.event_id NOT IN (SELECT unnest(?::VARCHAR[])){only}",
        params=[as_of_us, changed, *([] if events is None else [list(events)])]))
    return frame.cast(_SCHEMA)


def _scored(store: EventStore, catalog: pl.DataFrame, up_to: int, as_of_us: int) -> pl.DataFrame:
    """The standings of the sessions in `catalog` (whole tournaments), replayed alone to (P, T)."""
    keys: list[SessionKey] = list(catalog.select("event_id", "session_id").iter_rows())
    standings = score_store(store, up_to=up_to, as_of_us=as_of_us, sessions=keys).standings
    return standings.select(STANDINGS_COLUMNS).cast(_SCHEMA)


def _batches(catalog: pl.DataFrame) -> Iterator[pl.DataFrame]:
    """The catalog cut into runs of whole tournaments of about `BATCH_EVENTS` events each."""
    if catalog.is_empty():
        return
    per_event = catalog.group_by("event_id", maintain_order=True).agg(pl.col("events").sum())
    batch = per_event.select("event_id", _batch=(pl.col("events").cum_sum() - 1) // BATCH_EVENTS)
    numbered = catalog.join(batch, on="event_id", how="left", maintain_order="left")
    for _, part in numbered.group_by("_batch", maintain_order=True):
        yield part.drop("_batch")


_SCHEMA = pl.Schema({name: STANDINGS_SCHEMA[name] for name in STANDINGS_COLUMNS})


def _empty_standings() -> pl.DataFrame:
    return pl.DataFrame(schema=_SCHEMA)


def _canonical(standings: pl.DataFrame) -> pl.DataFrame:
    """The ranking's columns, rows sorted by every one of them: the order is a function of the rows."""
    return standings.select(STANDINGS_COLUMNS).cast(_SCHEMA).sort(STANDINGS_COLUMNS, nulls_last=True)
