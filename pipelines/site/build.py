"""Write the static results site: index, events, sessions, travellers, score cards, plots, downloads.

A file is written only when its bytes differ from what the folder holds, so rebuilding after a
correction rewrites the pages of the session it touched (and the index and event pages only if
what they show changed). Nothing on a page depends on when it was built.

A session's files are a pure function of its `SessionData`, the analyses of its deals and its audit
rows (and of this package's code). `site-manifest.json` keeps a digest of those inputs per session
folder, so a rebuild renders again only the sessions whose inputs changed.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import orjson
import polars as pl

from pipelines.projections import ScoredEdition, score_store
from pipelines.site.analysis import AnalysisReport, DoubleDummy, canonical_deal, ensure_analysis
from pipelines.site.event_pages import event_page, index_page
from pipelines.site.gather import EventInfo, SessionData, events_of, session_data
from pipelines.site.paths import STYLESHEET, event_dir, session_dir
from pipelines.site.render import stylesheet
from pipelines.site.session_pages import session_audit, session_files
from pipelines.store import EventStore

log = logging.getLogger(__name__)

MANIFEST = "site-manifest.json"
"""Per session folder: the digest of what its pages were built from, and the files they are."""


@dataclass
class SiteReport:
    """What a build wrote."""

    outdir: Path
    written: list[str] = field(default_factory=list)
    """Files whose bytes changed (or were new), relative to `outdir`."""
    unchanged: int = 0
    sessions: int = 0
    rendered: int = 0
    """Sessions whose pages were rendered (the others' inputs had not changed since the last build)."""
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
    manifest = _read_manifest(report.outdir)
    for data in sessions:
        write_session(report, edition, data, report.analysis, manifest)
    _write(report, {MANIFEST: orjson.dumps(manifest, option=orjson.OPT_SORT_KEYS | orjson.OPT_INDENT_2)})
    for event in chosen:
        _write(report, {f"{event_dir(event.event_id)}/index.html": event_page(event, edition.standings)})
    # With --event, the index also lists the events the folder already has pages for, and no others.
    listed = [e for e in every_event if e in chosen or (report.outdir / event_dir(e.event_id) / "index.html").is_file()]
    _write(report, {"index.html": index_page(listed, _site_language(listed)), STYLESHEET: stylesheet()})
    log.info("site: %d file(s) written, %d unchanged, %d session(s), %d rendered", len(report.written),
             report.unchanged, report.sessions, report.rendered)
    return report


def write_session(report: SiteReport, edition: ScoredEdition, data: SessionData, analysis: AnalysisReport,
                  manifest: dict[str, dict[str, object]]) -> None:
    """Render one session's folder from its own data and write the files that changed; skip the
    rendering when the manifest says the folder was built from the same inputs."""
    folder = session_dir(data.info.event_id, data.info.session_id)
    audit = session_audit(edition, data)
    analyses = {d: a for d, a in analysis.analyses.items()
                if d in {canonical_deal(b.deal.to_pbn()) for b in data.records.boards if b.deal}}
    digest = session_digest(data, analyses, audit)
    known = manifest.get(folder, {})
    files = known.get("files")
    report.sessions += 1
    if known.get("digest") == digest and isinstance(files, list) \
            and all((report.outdir / folder / str(name)).is_file() for name in files):
        report.unchanged += len(files)
        return
    rendered = session_files(data, analyses, audit)
    _write(report, {f"{folder}/{name}": content for name, content in rendered.items()})
    manifest[folder] = {"digest": digest, "files": sorted(rendered)}
    report.rendered += 1


@cache
def _code_version() -> bytes:
    """A digest of this package's code and templates: new code renders every session again."""
    package = Path(__file__).parent
    digest = hashlib.sha256()
    for path in sorted([*package.glob("*.py"), *package.glob("templates/*")]):
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.digest()


def session_digest(data: SessionData, analyses: Mapping[str, DoubleDummy], audit: pl.DataFrame) -> str:
    """SHA-256 of everything a session's files are made from (not the event's other sessions)."""
    digest = hashlib.sha256(_code_version())
    parts = [repr(data.info), data.event.name, data.event.conditions.model_dump_json(),
             data.board_scores.write_json(), data.standings.write_json(), data.results.write_json(),
             repr(sorted(data.corrected_tables)), data.records.model_dump_json(), str(data.last_position),
             repr(sorted((d, sorted(a.tricks.items()), sorted(a.par.items())) for d, a in analyses.items())),
             audit.write_json()]
    for part in parts:
        digest.update(part.encode() + b"\0")
    return digest.hexdigest()


def _read_manifest(outdir: Path) -> dict[str, dict[str, object]]:
    path = outdir / MANIFEST
    if not path.is_file():
        return {}
    try:
        loaded = orjson.loads(path.read_bytes())
    except orjson.JSONDecodeError:
        return {}  # not ours, or cut short: every session is rendered again
    return loaded if isinstance(loaded, dict) else {}


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
