"""Editions: results as they stood at a log position or a time, and what changed between two."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from datetime import datetime

import polars as pl

from models.events import check_moment, session_stream
from pipelines.log.reads import events_between
from pipelines.log.store import EventStore, from_epoch_us, to_epoch_us
from pipelines.replay.frames import SessionKey
from pipelines.replay.projections import ScoredEdition, score_store

_BOARD_KEYS = ["event_id", "session_id", "section", "board", "table_id"]
_BOARD_VALUES = ["contract", "declarer", "tricks", "score_ns", "mp_ns", "mp_ew", "imp_ns", "imp_ew", "status"]
_STANDING_KEYS = ["event_id", "session_id", "section", "direction", "contestant_id"]
_STANDING_VALUES = ["rank", "score", "percentage", "status"]


@dataclass(frozen=True)
class EditionRef:
    """An edition named by a log position or by a time (timezone required)."""

    position: int | None = None
    as_of: datetime | None = None

    @classmethod
    def parse(cls, text: str) -> EditionRef:
        """`1234` is a log position; anything else must be an ISO time with its zone."""
        if re.fullmatch(r"[0-9]{1,18}", text.strip()):  # ASCII digits, within a BIGINT
            return cls(position=int(text))
        if re.fullmatch(r"\s*[0-9]+\s*", text):
            raise ValueError(f"log position {text.strip()[:30]!r} is beyond any log")
        moment = datetime.fromisoformat(text.strip())
        check_moment(moment)  # refuses a time without a zone, or out of range
        return cls(as_of=moment)

    def score(self, store: EventStore, *, event_id: str | None = None,
              session_id: str | None = None) -> ScoredEdition:
        """The scores of this edition: of every session, or of one event's (one session's) alone.

        An event's edition replays that event's sessions only; one session's replays its event's
        sessions too (carry-over totals span them) and keeps that session's rows.
        """
        as_of_us = to_epoch_us(self.as_of) if self.as_of else None
        if event_id is None:
            return score_store(store, up_to=self.position, as_of_us=as_of_us)
        sessions = event_sessions(store, event_id, self.position)
        edition = score_store(store, up_to=self.position, as_of_us=as_of_us, sessions=sessions)
        if session_id is None:
            return edition
        mine = pl.col("session_id") == session_id
        return replace(edition, board_scores=edition.board_scores.filter(mine),
                       standings=edition.standings.filter(mine))


def event_sessions(store: EventStore, event_id: str, position: int | None = None) -> list[SessionKey]:
    """The sessions of `event_id` in the log up to `position` (default: all of it)."""
    from pipelines.replay.live import session_catalog

    if not store.exists():
        return []
    with store.reader() as con:
        catalog = session_catalog(con, store.head() if position is None else position, [event_id])
    return [(e, s) for e, s in catalog.select("event_id", "session_id").iter_rows()]


@dataclass(frozen=True)
class EditionDiff:
    """Board scores and standings that changed, and the events that changed them."""

    board_changes: pl.DataFrame
    standing_changes: pl.DataFrame
    events: pl.DataFrame


def diff_editions(store: EventStore, old: EditionRef, new: EditionRef, *, event_id: str | None = None,
                  session_id: str | None = None) -> EditionDiff:
    """Everything that differs between two editions (of one event or session, when named), with
    the events between them."""
    before = old.score(store, event_id=event_id, session_id=session_id)
    after = new.score(store, event_id=event_id, session_id=session_id)
    streams = None
    if event_id is not None:
        keys = [k for k in event_sessions(store, event_id) if session_id is None or k[1] == session_id]
        streams = [session_stream(e, s) for e, s in keys] + [f"tournament:{event_id}"]
    return EditionDiff(
        board_changes=_changes(before.board_scores, after.board_scores, _BOARD_KEYS, _BOARD_VALUES),
        standing_changes=_changes(before.standings, after.standings, _STANDING_KEYS, _STANDING_VALUES),
        events=_events_between(store, before, after, streams),
    )


def _changes(old: pl.DataFrame, new: pl.DataFrame, keys: list[str], values: list[str]) -> pl.DataFrame:
    joined = old.select(*keys, *values).join(new.select(*keys, *values), on=keys, how="full",
                                             suffix="_new", coalesce=True, nulls_equal=True)
    differs = pl.any_horizontal([pl.col(v).ne_missing(pl.col(f"{v}_new")) for v in values])
    return (
        joined.filter(differs)
        .rename({v: f"{v}_old" for v in values})
        .select(*keys, *[c for v in values for c in (f"{v}_old", f"{v}_new")])
        .sort(keys, nulls_last=True)
    )


def _events_between(store: EventStore, before: ScoredEdition, after: ScoredEdition,
                    streams: list[str] | None) -> pl.DataFrame:
    """Events in the later edition but not the earlier (of `streams` only, when given); the log
    filters them, so a diff of two editions a few events apart reads a few events."""
    low, high = sorted([before, after], key=lambda e: (e.position, e.as_of_us))
    with store.reader() as con:
        rows = events_between(con, (low.position, low.as_of_us), (high.position, high.as_of_us), streams)
    return pl.DataFrame([(p, t, s, from_epoch_us(o).isoformat()) for p, t, s, o in rows], orient="row",
                        schema={"position": pl.Int64, "type": pl.String, "stream_id": pl.String,
                                "occurred_at": pl.String})


def describe_changes(changes: EditionDiff) -> list[str]:
    """The changes as lines a scorer reads: the events first, then boards, then standings."""
    lines = [f"{changes.events.height} event(s) between the editions:"]
    lines += [f"  #{r['position']} {r['occurred_at']} {r['type']} ({r['stream_id']})"
              for r in changes.events.iter_rows(named=True)]
    scored = changes.board_changes.filter(
        pl.any_horizontal([pl.col(f"{v}_old").ne_missing(pl.col(f"{v}_new")) for v in _BOARD_VALUES if v != "status"])
    )
    lines.append(f"{scored.height} table result(s) scored differently "
                 f"({changes.board_changes.height - scored.height} changed status only):")
    lines += [f"  {r['session_id']} board {r['board']} table {r['table_id']}: "
              f"{_result(r, 'old')} -> {_result(r, 'new')}" for r in scored.iter_rows(named=True)]
    moved = changes.standing_changes.filter(
        pl.col("rank_old").ne_missing(pl.col("rank_new")) | pl.col("score_old").ne_missing(pl.col("score_new")))
    lines.append(f"{moved.height} standing(s) changed:")
    lines += [f"  {r['session_id']} {r['direction']} {r['contestant_id']}: rank {r['rank_old']} -> {r['rank_new']}, "
              f"score {_number(r['score_old'])} -> {_number(r['score_new'])}" for r in moved.iter_rows(named=True)]
    return lines


def _result(row: dict[str, object], side: str) -> str:
    contract = row[f"contract_{side}"] or "adjusted"
    declarer = row[f"declarer_{side}"] or ""
    tricks = row[f"tricks_{side}"]
    shown = f"{contract} {declarer} {tricks if tricks is not None else ''}".strip()
    values = [f"{name} {_number(row[f'{name}_{side}'])}" for name in ("score_ns", "mp_ns", "imp_ns")
              if row[f"{name}_{side}"] is not None]
    return f"{shown} ({', '.join(values)})"


def _number(value: object) -> str:
    return f"{value:.2f}".rstrip("0").rstrip(".") if isinstance(value, float) else str(value)
