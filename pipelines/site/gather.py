"""What the site shows, gathered from a scored edition and the log: one event, one session at a time.

A session's pages are built from `SessionData` alone, and that is read from the session's own
stream and the session's rows of the edition, so a correction to one session changes the input of
that session's pages and of no other session's.
"""

from __future__ import annotations

import logging
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import date
from typing import Any

import polars as pl

from models.conditions import ConditionsOfContest, UnsupportedScoringError, conditions_from_file
from models.events import session_stream
from parsers.records import ParsedFile
from pipelines.files.exports import session_records
from pipelines.log.reads import last_stream_position
from pipelines.log.store import EventStore, StoredEvent
from pipelines.replay.projections import ScoredEdition
from pipelines.site.ranked import no_rows, session_rows

log = logging.getLogger(__name__)

_SESSION = ["event_id", "session_id"]


@dataclass(frozen=True)
class SessionInfo:
    """A session as the index and the event page list it."""

    event_id: str
    session_id: str
    number: int
    title: str | None
    played_on: date | None
    method: str
    layout: str
    published_us: int | None
    deadline_us: int | None
    status: str
    """`final`, `provisional` (published, period open) or `unpublished`."""


@dataclass(frozen=True)
class EventInfo:
    """An event: its name, conditions and sessions."""

    event_id: str
    name: str
    start_date: date | None
    organiser: str | None
    conditions: ConditionsOfContest
    sessions: tuple[SessionInfo, ...]

    @property
    def played_on(self) -> date | None:
        """The event's date: its registered start, else its first session's date."""
        dates = [s.played_on for s in self.sessions if s.played_on is not None]
        return self.start_date or (min(dates) if dates else None)

    @property
    def status(self) -> str:
        """final when every session is final; provisional when any is open; else unpublished."""
        statuses = {s.status for s in self.sessions}
        if statuses == {"final"}:
            return "final"
        return "provisional" if "provisional" in statuses or "final" in statuses else "unpublished"

    @property
    def open_until_us(self) -> int | None:
        """The latest deadline among the sessions still provisional."""
        open_ = [s.deadline_us for s in self.sessions if s.status == "provisional" and s.deadline_us is not None]
        return max(open_) if open_ else None


@dataclass(frozen=True)
class SessionData:
    """Everything a session's pages show, and nothing of any other session."""

    info: SessionInfo
    event: EventInfo
    board_scores: pl.DataFrame
    standings: pl.DataFrame
    results: pl.DataFrame
    """The standing results (projection rows): kind, awards and weighted outcomes per table."""
    corrected_tables: frozenset[tuple[str, int, str]]
    """(section, board, table) whose result an applied correction changed."""
    records: ParsedFile
    """The session's own events as records: deals, leads, contestants and their players."""
    last_position: int
    """The position of the session's latest event in the log."""
    fouled_deals: Mapping[tuple[str, int], Mapping[str, str]] = field(default_factory=dict)
    """(section, board) -> group label -> the deal that group played, as the director's latest Law 87
    ruling on the board recorded it (`BoardFouled.deals`): the boards whose fouled form is known."""
    ranking: pl.DataFrame = field(default_factory=no_rows)
    """The award rows of the ranking edition the site shows (`pipelines.site.ranked`) that the
    session's pages read: the session's own, and its event's overall ones (`session_id` '')."""


def events_of(store: EventStore, edition: ScoredEdition, event_id: str | None = None) -> list[EventInfo]:
    """Every event the edition scored (or just `event_id`: then only its own streams are read), with
    its sessions, by date then id."""
    registered = {e.payload["event_id"]: e.payload for e in _read(store, "TournamentRegistered", edition.position,
                                                                   [f"tournament:{event_id}"] if event_id else None)}
    streams = None if event_id is None else [
        session_stream(event_id, s) for s in edition.projection.sessions.filter(
            pl.col("event_id") == event_id).get_column("session_id")]
    scheduled = {(e.payload["event_id"], e.payload["session_id"]): e.payload
                 for e in _read(store, "SessionScheduled", edition.position, streams)}
    windows = {(r["event_id"], r["session_id"]): r for r in edition.projection.windows.iter_rows(named=True)} \
        if edition.projection.windows.height else {}
    conditions = _conditions(edition.projection.conditions)
    sessions: dict[str, list[SessionInfo]] = {}
    for row in edition.projection.sessions.iter_rows(named=True):  # one row per session: tens at most
        if event_id is not None and row["event_id"] != event_id:
            continue
        rules = conditions.get(row["event_id"], ConditionsOfContest())
        sessions.setdefault(row["event_id"], []).append(_session_info(
            row, scheduled.get((row["event_id"], row["session_id"]), {}),
            windows.get((row["event_id"], row["session_id"])), rules))
    events = []
    for eid, infos in sessions.items():
        payload = registered.get(eid, {})
        events.append(EventInfo(
            event_id=eid, name=payload.get("name") or _title(infos) or eid,
            start_date=_date(payload.get("start_date")), organiser=payload.get("organiser"),
            conditions=conditions.get(eid, ConditionsOfContest()),
            sessions=tuple(sorted(infos, key=lambda s: (s.number, natural_key(s.session_id))))))
    return sorted(events, key=lambda e: (e.played_on or date.min, e.event_id), reverse=True)


def of_event(edition: ScoredEdition, event_id: str) -> ScoredEdition:
    """The edition's rows of one event: what a replay and the projection rows of that event alone hold.

    The results as recorded (`Projection.original_results`) are read once for the whole edition,
    on first use, and filtered.
    """
    return _narrowed(edition, event_id, pl.col("event_id") == event_id)


def of_session(edition: ScoredEdition, event_id: str, session_id: str) -> ScoredEdition:
    """The edition's rows of one session: what the audit rescores (the results as recorded) is then
    one session's, not its event's. A board's score never depends on another session (carry-over
    moves standings, not board scores), so the audit's before-and-after rows are the same."""
    return _narrowed(edition, event_id, (pl.col("event_id") == event_id) & (pl.col("session_id") == session_id))


def _narrowed(edition: ScoredEdition, event_id: str, mine: pl.Expr) -> ScoredEdition:
    projection = edition.projection

    def original() -> pl.DataFrame:
        return projection.original_results.filter(mine)

    frames = {name: frame.filter(mine) if "event_id" in frame.columns else frame  # an empty frame may have no columns
              for name in ("results", "sessions", "penalties", "windows", "corrections", "rulings")
              for frame in [getattr(projection, name)]}
    own = replace(projection, **frames, conditions={k: v for k, v in projection.conditions.items() if k == event_id},
                  reread_original=original)
    return ScoredEdition(edition.position, edition.as_of_us, edition.board_scores.filter(mine),
                         edition.standings.filter(mine), own)


def _read(store: EventStore, event_type: str, position: int, streams: list[str] | None) -> list[StoredEvent]:
    """The events of one type up to `position`, of `streams` only when given (each read by its stream)."""
    if streams is None:
        return store.read(types=[event_type], up_to=position)
    return [e for stream in streams for e in store.read(types=[event_type], up_to=position, stream_id=stream)]


def _title(infos: list[SessionInfo]) -> str | None:
    return next((s.title for s in infos if s.title), None)


def _session_info(row: Mapping[str, Any], scheduled: Mapping[str, Any], window: Mapping[str, Any] | None,
                  rules: ConditionsOfContest) -> SessionInfo:
    method: str
    try:
        method = rules.session_method(row["session_id"], row["scoring"])
    except UnsupportedScoringError:
        method = str(row["scoring"])
    return SessionInfo(
        event_id=row["event_id"], session_id=row["session_id"], number=int(scheduled.get("number") or 1),
        title=scheduled.get("title"), played_on=_date(scheduled.get("session_date")), method=method,
        layout=rules.session_layout(row["session_id"], row["field_layout"]),
        published_us=window["published_us"] if window else None,
        deadline_us=window["deadline_us"] if window else None,
        status=window["status"] if window else "unpublished")


def _date(value: object) -> date | None:
    if isinstance(value, date):
        return value
    return date.fromisoformat(value) if isinstance(value, str) and value else None


def _conditions(raw: Mapping[str, Mapping[str, Any]]) -> dict[str, ConditionsOfContest]:
    """Registered conditions, else what the event's first file said of itself (as scoring reads them)."""
    parsed: dict[str, ConditionsOfContest] = {}
    for event_id, payload in raw.items():
        settings = dict(payload)
        tag, program = settings.pop("scoring_tag", None), settings.pop("program", None)
        try:
            parsed[event_id] = ConditionsOfContest.model_validate(settings) if settings \
                else conditions_from_file(tag, program)
        except (UnsupportedScoringError, ValueError):
            parsed[event_id] = ConditionsOfContest()
    return parsed


def session_data(store: EventStore, edition: ScoredEdition, event: EventInfo, info: SessionInfo) -> SessionData:
    """The session's rows of the edition and its own events."""
    key = (pl.col("event_id") == info.event_id) & (pl.col("session_id") == info.session_id)
    projection = edition.projection
    corrected: frozenset[tuple[str, int, str]] = frozenset()
    if projection.corrections.height:
        applied = projection.corrections.filter(key & pl.col("applied"))
        corrected = frozenset(applied.select("section", "board", "table_id").iter_rows())
    return SessionData(
        info=info, event=event,
        board_scores=edition.board_scores.filter(key),
        standings=edition.standings.filter(key),
        results=projection.results.filter(key),
        corrected_tables=corrected,
        records=session_records(store, info.event_id, info.session_id, edition),
        last_position=last_position(store, info.event_id, info.session_id, edition.position),
        fouled_deals=fouled_deals(store, info.event_id, info.session_id, edition.position),
    )


def with_ranking(data: SessionData, ranking: pl.DataFrame) -> SessionData:
    """`data` with the award rows its pages read of its event's in the ranking edition the site shows."""
    return replace(data, ranking=session_rows(ranking, data.info.session_id))


def fouled_deals(store: EventStore, event_id: str, session_id: str,
                 up_to: int) -> dict[tuple[str, int], dict[str, str]]:
    """The deals the session's fouled boards were played in, by (section, board): the latest ruling
    on a board stands, as scoring reads it (`pipelines.scoring.fouled`); a board whose ruling
    recorded no deal is left out."""
    latest: dict[tuple[str, int], dict[str, str]] = {}
    for event in store.read(types=["BoardFouled"], up_to=up_to, stream_id=session_stream(event_id, session_id)):
        latest[(event.payload.get("section") or "", int(event.payload["board"]))] = event.payload.get("deals") or {}
    return {key: deals for key, deals in latest.items() if deals}


def last_position(store: EventStore, event_id: str, session_id: str, up_to: int) -> int:
    """The position of the session's latest event up to `up_to` (0: none)."""
    with store.reader() as con:
        return last_stream_position(con, session_stream(event_id, session_id), up_to)


def natural_key(text: str | None) -> tuple[tuple[tuple[int, int, str], ...], str]:
    """Sort key that puts table 2 before table 10 and keeps any text in order; names that read as
    the same numbers (`7` and `07`) then go by their text, so no two names ever tie."""
    parts: list[tuple[int, int, str]] = []
    digits = ""
    for char in (text or "") + "\0":  # (a last character that is no digit closes a number at the end)
        if char.isdecimal():  # (`isdigit` also takes `²`, which is no number to sort by)
            digits += char
            continue
        if digits:  # a number by its size, then its digits: no limit on its length, as `int` has
            if not digits.isascii():  # another script's digits read as the same number
                digits = "".join(str(unicodedata.decimal(d)) for d in digits)
            significant = digits.lstrip("0")
            parts.append((0, len(significant), significant))
            digits = ""
        parts.append((1, 0, char))
    return tuple(parts[:-1]), text or ""
