"""The club session the site tests read: the sample Mitchell, published, corrected, scored, written.

`sample_data/club_championship_*` (13 tables, 26 boards, a hand record), registered with its
conditions, published at 21:00; a correction inside the Law 79C period and one after it; then the
outputs and the results site, as a scorer's evening would leave them.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path

from models.conditions import ConditionsOfContest
from pipelines.commands.director import TableRef, publish_scores, register_tournament, request_correction
from pipelines.files.ingest import IngestOptions, ingest_file
from pipelines.log.store import EventStore
from pipelines.replay.audit import write_audit
from pipelines.replay.live import write_views
from pipelines.replay.projections import export_csv, score_store
from pipelines.site import build_site
from tests.conftest import SAMPLE_DATA

EVENT, SESSION = "club-championship-2026", "1"
_CET = timezone(timedelta(hours=1))
PLAYED = datetime(2026, 11, 21, 19, 0, tzinfo=_CET)
PUBLISHED = datetime(2026, 11, 21, 21, 0, tzinfo=_CET)
FILES = ("club_championship_handrecord.pbn", "club_championship_traveller.csv")


def build_club_session(workdir: Path, *, now: datetime) -> EventStore:
    """Make the club session's store under `workdir` and write its outputs and site there."""
    workdir.mkdir(parents=True, exist_ok=True)
    store = EventStore(workdir / "bridgeledger.duckdb")
    conditions = ConditionsOfContest.from_toml(SAMPLE_DATA / "club_championship_conditions.toml")
    register_tournament(store, EVENT, "Club Championship 2026", at=PLAYED, conditions=conditions,
                        organiser="Bridge Club")
    for name in FILES:
        ingest_file(store, SAMPLE_DATA / name, recorded_at=now, options=IngestOptions(occurred_at=PLAYED))
    publish_scores(store, EVENT, SESSION, at=PUBLISHED)
    request_correction(store, TableRef(EVENT, SESSION, 1, "4", "A"), at=PUBLISHED + timedelta(minutes=10),
                       correction_id="demo-1", requested_by="NS pair 4", reason="nine tricks, not seven", tricks=9)
    request_correction(store, TableRef(EVENT, SESSION, 2, "3", "A"), at=PUBLISHED + timedelta(minutes=40),
                       correction_id="demo-2", requested_by="EW pair 5", reason="the contract was 2NT",
                       contract="2NT", declarer="S")
    edition = score_store(store)
    write_views(store, edition)
    outputs = workdir / "outputs"
    export_csv(edition, outputs)
    write_audit(edition, EVENT, SESSION, outputs)
    build_site(store, outputs / "site", edition=edition)
    return store
