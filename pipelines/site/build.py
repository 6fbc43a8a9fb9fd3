"""Write the static results site: index, events, sessions, travellers, score cards, plots, downloads.

A file is written only when its bytes differ from what the folder holds, so rebuilding after a
correction rewrites the pages of the session it touched (and the index and event pages only if
what they show changed). Nothing on a page depends on when it was built.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from pipelines.projections import ScoredEdition, score_store
from pipelines.site.analysis import AnalysisReport, ensure_analysis
from pipelines.site.event_pages import event_page, index_page
from pipelines.site.gather import EventInfo, SessionData, events_of, session_data
from pipelines.site.paths import STYLESHEET, event_dir, session_dir
from pipelines.site.render import stylesheet
from pipelines.site.session_pages import session_audit, session_files
from pipelines.store import EventStore

log = logging.getLogger(__name__)


@dataclass
class SiteReport:
    """What a build wrote."""

    outdir: Path
    written: list[str] = field(default_factory=list)
    """Files whose bytes changed (or were new), relative to `outdir`."""
    unchanged: int = 0
    sessions: int = 0
    analysis: AnalysisReport | None = None

    @property
    def index(self) -> Path:
        """The site's front page."""
        return self.outdir / "index.html"


def build_site(store: EventStore, outdir: str | Path, *, event_id: str | None = None,
               as_of_us: int | None = None, edition: ScoredEdition | None = None) -> SiteReport:
    """Score the log (or take `edition`) and write the site of every event, or only `event_id`'s."""
    edition = edition or score_store(store, as_of_us=as_of_us)
    report = SiteReport(Path(outdir))
    every_event = events_of(store, edition)
    chosen = [e for e in every_event if event_id is None or e.event_id == event_id]
    if event_id is not None and not chosen:
        raise ValueError(f"there is no scored event {event_id!r} in the log")
    sessions = [session_data(store, edition, event, info) for event in chosen for info in event.sessions]
    report.analysis = ensure_analysis(store, [b.deal.to_pbn() for s in sessions for b in s.records.boards if b.deal])
    for data in sessions:
        write_session(report, edition, data, report.analysis)
    for event in chosen:
        _write(report, {f"{event_dir(event.event_id)}/index.html": event_page(event, edition.standings)})
    # With --event, the index also lists the events the folder already has pages for, and no others.
    listed = [e for e in every_event if e in chosen or (report.outdir / event_dir(e.event_id) / "index.html").is_file()]
    _write(report, {"index.html": index_page(listed, _site_language(listed)), STYLESHEET: stylesheet()})
    log.info("site: %d file(s) written, %d unchanged, %d session(s)", len(report.written), report.unchanged,
             report.sessions)
    return report


def write_session(report: SiteReport, edition: ScoredEdition, data: SessionData, analysis: AnalysisReport) -> None:
    """Render one session's folder from its own data and write the files that changed."""
    folder = session_dir(data.info.event_id, data.info.session_id)
    files = session_files(data, analysis.analyses, session_audit(edition, data))
    _write(report, {f"{folder}/{name}": content for name, content in files.items()})
    report.sessions += 1


def _site_language(events: list[EventInfo]) -> str:
    languages = {e.conditions.language for e in events}
    return languages.pop() if len(languages) == 1 else "en"


def _write(report: SiteReport, files: Mapping[str, bytes]) -> None:
    for name, content in sorted(files.items()):
        path = report.outdir / name
        if path.is_file() and path.read_bytes() == content:
            report.unchanged += 1
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content)
        report.written.append(name)
