"""The calls an orchestrator makes: each takes and returns small values (paths, positions).

Airflow tasks and the CLI call these; they hold no Airflow code. Every call is idempotent:
ingesting a file twice is a no-op, and scoring reads a fixed log position, never "latest".
"""

from __future__ import annotations

import logging
from contextlib import closing
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from pipelines.files.ingest import IngestOptions, ingest_files
from pipelines.log.store import EventStore, StoreError
from pipelines.replay.live import export_tables, refresh

if TYPE_CHECKING:
    from pipelines.site.build import Scope

log = logging.getLogger(__name__)

STORE_POOL = "bridgeledger_store"
"""Airflow pool with one slot: DuckDB has one writer at a time."""


def ingest_paths(store_path: str, paths: list[str], *, strict: bool = False) -> int:
    """Ingest each file (one transaction each); return the log position after the last append.
    A file refused or unreadable fails the task, after the files before it are in."""
    store = EventStore(store_path)
    recorded_at = datetime.now(UTC)  # the edge: when the files reached us
    # Closed before a failure propagates: the connection the files share is let go of at once.
    with closing(ingest_files(store, sorted(paths), recorded_at=recorded_at,
                              options=IngestOptions(strict=strict))) as outcomes:
        for path, outcome in outcomes:
            if isinstance(outcome, Exception):
                raise outcome
            log.info("%s: %d events (already ingested: %s)", path, outcome.events, outcome.already_ingested)
    return store.head()


def score_at(store_path: str, position: int, outdir: str) -> dict[str, str]:
    """Bring the projection tables (the analyst views) to log position `position`, rescoring only
    the sessions touched since they were last brought up, and write their CSVs; return the paths.

    Projections never go back: when another run has already brought them past `position` (a
    period closed in between), they stay where they are and the CSVs show that later position.
    """
    store = EventStore(store_path)
    refresh(store, up_to=position)
    return {name: str(path) for name, path in export_tables(store, outdir).items()}


def analyse_new_deals(store_path: str, position: int, *, max_deals: int | None = None,
                      max_seconds: float | None = None) -> int:
    """Double-dummy analysis of the deals the cache does not hold yet, within a budget (the solver
    is slow: it runs once per deal, here, not in page builds; each deal is saved as it is solved, so
    the next run resumes); return `position` for the next task."""
    analyse_pending_deals(store_path, max_deals=max_deals, max_seconds=max_seconds)
    return position


def analyse_pending_deals(store_path: str, *, max_deals: int | None = None, max_seconds: float | None = None) -> int:
    """Solve the deals not analysed yet within a budget (holding the store's write lock only for
    each deal's save, never the store pool); return how many were solved (0: no page to rewrite)."""
    from pipelines.site import analyse_deals

    report = analyse_deals(EventStore(store_path), max_deals=max_deals, max_seconds=max_seconds)
    log.info("double-dummy: %d deal(s) solved in this run, %d still pending", report.solved, report.pending)
    return report.solved


def publish_site(store_path: str, position: int, outdir: str, scope: Scope = "all") -> str:
    """Write the results site as the log stood at `position` (from the live projections, brought up
    to it; only the sessions rescored since the last build are rendered); return its index page's path.

    It solves no deal: a deal not analysed yet shows "analysis pending" until the analysis task has
    solved it, so that publishing never waits behind the solver. `scope`: the events written (the
    DAGs write the small and the big ones in separate tasks and pools: `pipelines.site.build.Scope`)."""
    from pipelines.site import build_site

    report = build_site(EventStore(store_path), outdir, up_to=position, solve_limit=0, scope=scope)
    log.info("site: %d file(s) written, %d unchanged", len(report.written), report.unchanged)
    if report.analysis is not None and report.analysis.pending:
        log.info("site: %d deal(s) show 'analysis pending' (the analyse_deals DAG solves them)",
                 report.analysis.pending)
    return str(report.index)


def verify_store(store_path: str) -> int:
    """Check the hash chain; return the number of events, or raise naming the first bad position."""
    report = EventStore(store_path).verify()
    if not report.ok:
        raise StoreError(f"event log broken at position {report.first_bad_position}: {report.reason}")
    return report.events


def close_due_periods(store_path: str, now: str, outdir: str) -> list[str]:
    """Close every published session whose correction period ended by `now`; publish final CSVs.

    `now` is the orchestrator's fixed time for this run (e.g. Airflow's data interval end), so a
    rerun of the same run closes the same sessions and appends nothing new.
    """
    from pipelines.commands.director import close_correction_period
    from pipelines.log.store import from_epoch_us, to_epoch_us
    from pipelines.replay.frames import publication_windows

    store = EventStore(store_path)
    if not store.exists():
        return []
    cutoff = to_epoch_us(datetime.fromisoformat(now))
    closed_already = {(e.payload["event_id"], e.payload["session_id"])
                      for e in store.read(types=["CorrectionPeriodClosed"])}
    windows = publication_windows(store, as_of_us=cutoff)
    closed: list[str] = []
    for event_id, session_id, deadline in windows.select("event_id", "session_id", "deadline_us").rows():
        if deadline <= cutoff and (event_id, session_id) not in closed_already:
            close_correction_period(store, event_id, session_id, deadline=from_epoch_us(deadline))
            closed.append(f"{event_id}/{session_id}")
    if closed:
        score_at(store_path, store.head(), outdir)
    return closed
