"""The sample weekend, end to end, on a fresh embedded store (what `make demo` runs)."""

from __future__ import annotations

import logging
import shutil
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path

import polars as pl

from models.conditions import ConditionsOfContest
from pipelines.audit import recorded_times, write_audit
from pipelines.director import TableRef, publish_scores, register_tournament, request_correction
from pipelines.ingest import IngestOptions, IngestRejected, ingest_file
from pipelines.projections import export_csv, score_store, top_standings, write_views
from pipelines.site import build_site
from pipelines.store import EventStore

log = logging.getLogger(__name__)

SAMPLE_DATA = Path(__file__).resolve().parents[1] / "sample_data"
"""The sample weekend shipped with the repository."""

DEMO_FILES = ("club_championship_handrecord.pbn", "club_championship_traveller.csv")
"""Files the demo ingests, in order: the hand record, then the traveller."""

MALFORMED_FILE = "malformed_traveller.csv"
"""A traveller with bad rows: strict ingest refuses it whole and appends nothing."""

CONDITIONS_FILE = "club_championship_conditions.toml"
"""The event's conditions of contest."""

EVENT, SESSION = "club-championship-2026", "1"
_CET = timezone(timedelta(hours=1))
PLAYED = datetime(2026, 11, 21, 19, 0, tzinfo=_CET)
PUBLISHED = datetime(2026, 11, 21, 21, 0, tzinfo=_CET)


@dataclass
class DemoSummary:
    """What the demo did, for a person to read."""

    lines: list[str] = field(default_factory=list)
    leaders: pl.DataFrame = field(default_factory=pl.DataFrame)
    ok: bool = True


def run_demo(workdir: Path, *, now: datetime, sample_data: Path = SAMPLE_DATA) -> DemoSummary:
    """Ingest the sample files into a new store under `workdir`, score, verify, export."""
    summary = DemoSummary()
    workdir.mkdir(parents=True, exist_ok=True)
    store_file = workdir / "bridgeledger.duckdb"
    for stale in (store_file, workdir / "bridgeledger.duckdb.wal", workdir / "outputs"):
        if stale.is_dir():
            shutil.rmtree(stale)
        elif stale.exists():
            stale.unlink()  # the demo's own scratch store, rebuilt from the sample files every run
    store = EventStore(store_file)
    conditions = ConditionsOfContest.from_toml(sample_data / CONDITIONS_FILE)
    register_tournament(store, EVENT, "Club Championship 2026", at=PLAYED, conditions=conditions,
                        organiser="Bridge Club")
    summary.lines.append(f"registered {EVENT} with its conditions of contest ({CONDITIONS_FILE})")
    for name in DEMO_FILES:
        _ingest(store, sample_data / name, now, summary)
    before = store.head()
    _ingest(store, sample_data / MALFORMED_FILE, now, summary, strict=True)
    summary.lines.append(f"log position before and after the refused file: {before} -> {store.head()}")
    again = ingest_file(store, sample_data / DEMO_FILES[1], recorded_at=now)
    summary.lines.append(f"re-ingest {again.source}: already ingested = {again.already_ingested}, "
                         f"{again.events} events added")
    _publish_and_correct(store, summary)
    edition = score_store(store)
    write_views(store, edition)
    paths = export_csv(edition, workdir / "outputs")
    audit = write_audit(edition, EVENT, SESSION, workdir / "outputs", recorded=recorded_times(store))
    for row in audit.rows.iter_rows(named=True):  # a handful of rows, printed for a person
        summary.lines.append(f"audit: {row['id']} board {row['board']} table {row['table_id']} raised "
                             f"{row['raised_at']}: {row['decision']} ({row['rule']})")
    paths = {**paths, "audit_csv": workdir / "outputs" / audit.csv_name,
             "audit_html": workdir / "outputs" / audit.html_name}
    site = build_site(store, workdir / "outputs" / "site", edition=edition)
    summary.lines.append(f"results site: {len(site.written)} file(s) written for {site.sessions} session(s); "
                         f"open {site.index.resolve()}")
    report = store.verify()
    summary.ok = summary.ok and report.ok
    summary.lines.append(f"verify: {report.events} events, hash chain "
                         f"{'intact' if report.ok else f'BROKEN at {report.first_bad_position}'}")
    summary.lines.append(f"scored {edition.board_scores.height} table results at log position "
                         f"{edition.position}")
    summary.lines.append(f"store: {store_file}  (try: bridgeledger sql --store {store_file} "
                         "\"SELECT * FROM standings LIMIT 5\")")
    summary.lines.extend(f"{name}: {path}" for name, path in paths.items())
    summary.leaders = top_standings(edition, limit=3).select(
        "session_id", "direction", "rank", "contestant_id", "score", "percentage", "status")
    return summary


def _publish_and_correct(store: EventStore, summary: DemoSummary) -> None:
    """Scores go up at 21:00; a correction at 21:10 applies, one at 21:40 is too late (Law 79C1)."""
    publish_scores(store, EVENT, SESSION, at=PUBLISHED)
    summary.lines.append(f"published {EVENT}/{SESSION} at {PUBLISHED.isoformat()}: correction period "
                         "open for 30 minutes (Law 79C1)")
    request_correction(store, TableRef(EVENT, SESSION, 1, "4", "A"), at=PUBLISHED + timedelta(minutes=10),
                       correction_id="demo-1", requested_by="NS pair 4", reason="nine tricks, not seven",
                       tricks=9)
    request_correction(store, TableRef(EVENT, SESSION, 2, "3", "A"), at=PUBLISHED + timedelta(minutes=40),
                       correction_id="demo-2", requested_by="EW pair 5", reason="the contract was 2NT",
                       contract="2NT", declarer="S")


def _ingest(store: EventStore, path: Path, now: datetime, summary: DemoSummary, *,
            strict: bool = False) -> None:
    try:
        report = ingest_file(store, path, recorded_at=now,
                             options=IngestOptions(strict=strict, occurred_at=PLAYED))
    except IngestRejected as exc:
        summary.lines.append(f"rejected {path.name}: {exc}")
        return
    summary.lines.append(f"ingested {report.source}: {report.events} events, "
                         f"{report.quarantined} record(s) quarantined")
    summary.lines.extend(f"  {d}" for d in report.diagnostics)
