"""The sample weekend, end to end, on a fresh embedded store (what `make demo` runs)."""

from __future__ import annotations

import logging
import shutil
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

import polars as pl

from pipelines.ingest import IngestOptions, IngestRejected, ingest_file
from pipelines.projections import export_csv, score_store, top_standings, write_views
from pipelines.store import EventStore

log = logging.getLogger(__name__)

SAMPLE_DATA = Path(__file__).resolve().parents[1] / "sample_data"
"""The sample weekend shipped with the repository."""

DEMO_FILES = ("club_championship_handrecord.pbn", "club_championship_traveller.csv")
"""Files the demo ingests, in order: the hand record, then the traveller."""

MALFORMED_FILE = "malformed_traveller.csv"
"""A traveller with bad rows: strict ingest refuses it whole and appends nothing."""


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
    for name in DEMO_FILES:
        _ingest(store, sample_data / name, now, summary)
    before = store.head()
    _ingest(store, sample_data / MALFORMED_FILE, now, summary, strict=True)
    summary.lines.append(f"log position before and after the refused file: {before} -> {store.head()}")
    again = ingest_file(store, sample_data / DEMO_FILES[1], recorded_at=now)
    summary.lines.append(f"re-ingest {again.source}: already ingested = {again.already_ingested}, "
                         f"{again.events} events added")
    edition = score_store(store)
    write_views(store, edition)
    paths = export_csv(edition, workdir / "outputs")
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
        "session_id", "direction", "rank", "contestant_id", "score", "percentage")
    return summary


def _ingest(store: EventStore, path: Path, now: datetime, summary: DemoSummary, *,
            strict: bool = False) -> None:
    try:
        report = ingest_file(store, path, recorded_at=now, options=IngestOptions(strict=strict))
    except IngestRejected as exc:
        summary.lines.append(f"rejected {path.name}: {exc}")
        return
    summary.lines.append(f"ingested {report.source}: {report.events} events, "
                         f"{report.quarantined} record(s) quarantined")
    summary.lines.extend(f"  {d}" for d in report.diagnostics)
