"""Scoring a replay and publishing it: analyst views in the store, CSV files on disk.

Projection tables are derived data, rebuilt whole from the log at a fixed position; the event log
itself is never touched here. Outputs are sorted and written with fixed formatting so that two
replays of the same events give byte-identical files.
"""

from __future__ import annotations

import logging
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl

from pipelines.base.keyed import join_small
from pipelines.base.neutralise import spreadsheet_safe
from pipelines.log.store import EventStore
from pipelines.replay.frames import Projection, SessionKey, replay
from pipelines.scoring.frames import BOARD_SCORES_SCHEMA, STANDINGS_SCHEMA, conform

log = logging.getLogger(__name__)

VIEWS_SQL = """
CREATE OR REPLACE VIEW board_scores AS SELECT * FROM projection_board_scores;
CREATE OR REPLACE VIEW standings AS SELECT * FROM projection_standings;
"""


@dataclass(frozen=True)
class ScoredEdition:
    """Scores as of one log position and one time."""

    position: int
    as_of_us: int
    board_scores: pl.DataFrame
    standings: pl.DataFrame
    projection: Projection


def score_projection(projection: Projection) -> ScoredEdition:
    """Score every session in a projection (pure: no I/O, no clock)."""
    board_scores, standings = score_results(projection, projection.results)
    status = projection.windows.select("event_id", "session_id", "status") if projection.windows.height \
        else pl.DataFrame(schema={"event_id": pl.String, "session_id": pl.String, "status": pl.String})
    return ScoredEdition(projection.position, projection.as_of_us, _with_status(board_scores, status),
                         _with_status(standings, status), projection)


def score_results(projection: Projection, results: pl.DataFrame) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Score `results` under the projection's sessions, conditions and penalties."""
    from pipelines.scoring.engine import score  # heavy module; keep CLI start-up light

    conditions = _conditions_by_event(projection.conditions)
    board_scores, standings = score(results, projection.sessions, conditions, projection.penalties)
    return conform(board_scores, BOARD_SCORES_SCHEMA), conform(standings, STANDINGS_SCHEMA)


def _with_status(frame: pl.DataFrame, status: pl.DataFrame) -> pl.DataFrame:
    """Law 79C status: final once the session's correction period is over, else provisional.

    Board scores run to millions of rows and sessions to thousands: the status is looked up
    (`join_small`), not joined in by copying every column.
    """
    if status.is_empty():  # nothing published yet: everything is provisional
        return frame.with_columns(status=pl.lit("provisional", dtype=pl.String))
    looked_up = join_small(frame.drop("status"), status.unique(["event_id", "session_id"], keep="last"),
                           ["event_id", "session_id"])
    return looked_up.with_columns(status=pl.col("status").fill_null("provisional")).select(frame.columns)


def carry_over_events(raw: Mapping[str, Mapping[str, Any]]) -> frozenset[str]:
    """The events (of a projection's `conditions`) whose sessions' totals carry over into later
    sessions: scoring one of their sessions changes the standings of the others."""
    return frozenset(event_id for event_id, rules in _conditions_by_event(raw, warn=False).items()
                     if rules.carry_over.mode != "none")


def event_conditions(projection: Projection) -> dict[str, Any]:
    """Each event's `ConditionsOfContest`, as scoring reads them (registered, else the file's own)."""
    return _conditions_by_event(projection.conditions, warn=False)


def _conditions_by_event(raw: Mapping[str, Mapping[str, Any]], *, warn: bool = True) -> dict[str, Any]:
    """Registered conditions of contest, or else what the event's first file said of itself."""
    from models.conditions import ConditionsOfContest, UnsupportedScoringError, conditions_from_file

    conditions: dict[str, Any] = {}
    for event_id, payload in raw.items():
        settings = dict(payload)
        tag, program = settings.pop("scoring_tag", None), settings.pop("program", None)
        tie_breaks = settings.pop("tie_breaks", ()) if tag is not None or program is not None else ()
        if settings:
            conditions[event_id] = ConditionsOfContest.model_validate(settings)
            continue
        try:
            conditions[event_id] = conditions_from_file(tag, program, tie_breaks)
        except UnsupportedScoringError as exc:
            if warn:
                log.warning("%s: %s; scored under the Laws' defaults until conditions are registered",
                            event_id, exc)
            conditions[event_id] = ConditionsOfContest()
    return conditions


def score_store(store: EventStore, *, up_to: int | None = None, as_of_us: int | None = None,
                sessions: Collection[SessionKey] | None = None) -> ScoredEdition:
    """Replay the log up to `up_to` (default: everything) as of `as_of_us` and score it; with
    `sessions`, replay and score those sessions only (an edition of them, exact)."""
    return score_projection(replay(store, up_to=up_to, as_of_us=as_of_us, sessions=sessions))


def export_csv(edition: ScoredEdition, outdir: str | Path) -> dict[str, Path]:
    """Write board_scores.csv and standings.csv; same edition, same bytes."""
    out = Path(outdir)
    out.mkdir(parents=True, exist_ok=True)
    paths = {"board_scores": out / "board_scores.csv", "standings": out / "standings.csv"}
    spreadsheet_safe(canonical_order(edition.board_scores)).write_csv(paths["board_scores"], float_precision=4)
    spreadsheet_safe(canonical_order(edition.standings)).write_csv(paths["standings"], float_precision=4)
    return paths


def canonical_order(frame: pl.DataFrame) -> pl.DataFrame:
    """Rows in the published order (stable: rows equal on the keys keep the order scoring gave them)."""
    keys = [c for c in ("event_id", "session_id", "section", "direction", "board", "rank",
                        "contestant_id", "table_id") if c in frame.columns]
    return frame.sort(keys, nulls_last=True, maintain_order=True)


def top_standings(edition: ScoredEdition, limit: int = 5) -> pl.DataFrame:
    """The leaders of every session, direction by direction."""
    return leaders(edition.standings, limit)


def leaders(standings: pl.DataFrame, limit: int = 5) -> pl.DataFrame:
    """The first `limit` of every session in `standings`, direction by direction."""
    return (
        standings.sort(["event_id", "session_id", "section", "direction", "rank", "contestant_id"])
        .group_by(["event_id", "session_id", "section", "direction"], maintain_order=True)
        .head(limit)
    )


def session_method(projection: Projection, event_id: str, session_id: str) -> str:
    """The method a session is scored by: its conditions of contest, else its schedule."""
    from models.conditions import ConditionsOfContest

    scheduled = projection.sessions.filter(
        (pl.col("event_id") == event_id) & (pl.col("session_id") == session_id)).get_column("scoring")
    rules = _conditions_by_event(projection.conditions).get(event_id) or ConditionsOfContest()
    return str(rules.session_method(session_id, scheduled[0] if scheduled.len() else None))


__all__ = ["ScoredEdition", "canonical_order", "export_csv", "leaders", "score_projection",
           "score_store", "session_method", "top_standings"]
