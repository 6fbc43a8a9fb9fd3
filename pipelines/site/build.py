"""Write the static results site: index, events, sessions, travellers, score cards, plots, downloads.

A file is written only when its bytes differ from what the folder holds, so rebuilding after a
correction rewrites the pages of the session it touched (and the index and event pages only if
what they show changed). Nothing on a page depends on when it was built.

A session's files are a pure function of its `SessionData`, the analyses of its deals and its audit
rows (and of this package's code). `site-manifest.json` keeps a digest of those inputs per session
folder, so a rebuild renders again only the sessions whose inputs changed. The ranking edition the
pages link to and take points from (`pipelines.site.ranked`) is one of those inputs, though not in
the session's log: each session's and event's entry notes the edition it was built with and a
digest of what it shows of it, so a new edition renders again the pages whose part of it moved.
"""

from __future__ import annotations

import fcntl
import hashlib
import logging
import os
from collections.abc import Callable, Iterator, Mapping
from contextlib import AbstractContextManager, ExitStack, contextmanager, nullcontext
from dataclasses import dataclass, field
from functools import cache, partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import orjson
import polars as pl

from pipelines.log.fields import PayloadField, payload_fields
from pipelines.log.store import EventStore, table_columns, to_epoch_us
from pipelines.replay.projections import ScoredEdition
from pipelines.site.analysis import AnalysisReport, DoubleDummy, cached, canonical_deal, ensure_analysis, held_deals
from pipelines.site.event_pages import contestant_names, event_page, index_page, index_row
from pipelines.site.gather import EventInfo, SessionData, SessionInfo, last_position, session_data, with_ranking
from pipelines.site.pages import Pages
from pipelines.site.paths import RANKING_DIR, STYLESHEET, event_dir, session_dir
from pipelines.site.ranked import ShownRanking, event_part, session_part, shown_ranking
from pipelines.site.ranking_pages import ranking_digest, ranking_editions, ranking_files, ranking_source
from pipelines.site.render import stylesheet
from pipelines.site.session_pages import session_audit, session_files
from pipelines.site.sources import LiveSource, Source, open_source

if TYPE_CHECKING:
    from pipelines.ranking.publish import PublishedEdition

log = logging.getLogger(__name__)

MANIFEST = "site-manifest.json"
"""Per session folder: the digest of what its pages were built from, and the files they are."""


CHECKPOINT_BOARDS = 1000
"""Before the first event of more boards than this, a full build saves its manifest and front page
(`_checkpoint`)."""

BIG_EVENT_BOARDS = 2000
"""An event of more boards than this is "big": the DAGs render it in a task and pool of its own
(`scope="big"`), so that the site showing a weekend's closed periods and new publications
(`scope="small"`) never waits behind the first render of an event of 100,000 boards (issue #36)."""

Scope = Literal["all", "small", "big"]
"""Which events a build renders: every one, those of at most `BIG_EVENT_BOARDS` boards, or the others."""


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
    removed: list[str] = field(default_factory=list)
    """Ranking pages of players no longer ranked, removed (relative to `outdir`)."""

    @property
    def index(self) -> Path:
        """The site's front page."""
        return self.outdir / "index.html"


def build_site(store: EventStore, outdir: str | Path, *, event_id: str | None = None,
               as_of_us: int | None = None, edition: ScoredEdition | None = None,
               up_to: int | None = None, solve_limit: int | None = None, scope: Scope = "all") -> SiteReport:
    """Write the site of every event, or only `event_id`'s, or only the small or the big ones (`scope`).

    By default the site shows the log up to `up_to` (default: its head), read from the live
    projections, which are brought up to it first; only the events whose sessions were rescored
    since the folder's last build are read and rendered. With `as_of_us` (results as they stood
    then) the sessions shown are replayed and scored for the build; with `edition`, that edition is
    shown. See `pipelines.site.sources`.

    `solve_limit`: new deals each event's build may solve itself (None: all; the DAGs pass 0, the
    `analyse_deals` DAG solves them); a deal not analysed yet shows "analysis pending", and its
    session is looked at again by the next build.

    `scope`: "small" renders the events of at most `BIG_EVENT_BOARDS` boards and the ranking's
    pages, "big" the others; the two may run at once on one folder (each saves only its own
    events' part of the manifest, under a lock, and the front page lists every event the folder
    has pages for).
    """
    with ExitStack() as held:
        if event_id is not None:  # one event: its reads share the refresh's connection too (opening one costs ~30 ms)
            held.enter_context(_held(store))
        return _build(store, outdir, event_id, edition, as_of_us, up_to, release=held.close,
                      solve_limit=solve_limit, scope=scope)


def _build(store: EventStore, outdir: str | Path, event_id: str | None, edition: ScoredEdition | None,
           as_of_us: int | None, up_to: int | None, release: Callable[[], None],
           solve_limit: int | None = None, scope: Scope = "all") -> SiteReport:
    with _held(store):  # one connection for the refresh, the catalog and the ranking's editions: each costs one
        source = open_source(store, code=_code_version().hex(), edition=edition, as_of_us=as_of_us, up_to=up_to,
                             event_id=event_id)
        editions = [e for e in ranking_editions(store)
                    if e.event_position <= source.position and to_epoch_us(e.published_at) <= source.clock]
        boards = _board_counts(store)
    shown = shown_ranking(store, editions)
    report = SiteReport(Path(outdir))
    manifest = _read_manifest(report.outdir)
    every_event = source.event_ids()
    chosen = [e for e in every_event if (event_id is None or e == event_id) and _in_scope(scope, boards.get(e, 0))]
    source.plan([eid for eid in chosen if not _unchanged(report, source.stamps(eid), manifest.get(event_dir(eid), {}),
                                                         eid, manifest, store, shown)])
    written: dict[str, dict[str, Any]] = {}
    # Fewest boards first: a weekend's pages do not wait behind the first render of an event of
    # 100,000 boards in the same build (the index lists them in their own order all the same).
    saved = False
    for eid in sorted(chosen, key=lambda e: (boards.get(e, 0), chosen.index(e))):
        if boards.get(eid, 0) > CHECKPOINT_BOARDS and not saved and event_id is None:
            _checkpoint(report, manifest, _Part(chosen, ranking=False, whole=scope == "all"), written)
            saved = True
        row = write_event(report, store, source, eid, manifest, release, solve_limit=solve_limit, shown=shown)
        if row is not None:
            written[eid] = row
    release()  # the ranking's pages are rendered holding no connection either
    if event_id is not None and not written:
        raise ValueError(f"there is no scored event {event_id!r} in the log")
    part = _Part(chosen, ranking=scope != "big", whole=scope == "all" and event_id is None)
    ranked = write_ranking(report, store, editions, _language(_front_rows(report, manifest, part, written)),
                           manifest) if part.ranking else None
    _save(report, manifest, part, written, ranked)
    log.info("site: %d file(s) written, %d unchanged, %d session(s), %d rendered", len(report.written),
             report.unchanged, report.sessions, report.rendered)
    return report


def _language(rows: list[dict[str, Any]]) -> str:
    """The front page's language: the events' own when they share one, else English."""
    languages = {str(r["language"]) for r in rows}
    return languages.pop() if len(languages) == 1 else "en"


def _in_scope(scope: Scope, boards: int) -> bool:
    return scope == "all" or (scope == "big") == (boards > BIG_EVENT_BOARDS)


@dataclass(frozen=True)
class _Part:
    """What of the folder's manifest a build owns: its events' folders, and the ranking's when it
    writes the ranking pages. `whole`: the build shows every event there is (the front page lists
    only the events it wrote, not those the folder kept from an earlier build)."""

    events: list[str]
    ranking: bool
    whole: bool

    def owns(self, key: str) -> bool:
        """Whether the manifest's entry `key` (a folder) is this build's to write."""
        if self.ranking and key == RANKING_DIR:
            return True
        folders = {event_dir(e) for e in self.events}
        return key in folders or key.split("/", 1)[0] in folders


@contextmanager
def _locked(outdir: Path) -> Iterator[None]:
    """Hold the site folder's lock: the manifest and the front page are read and written by one build
    at a time (a small events' build and a big one's may run at once). The folder itself is locked,
    so that no lock file lands among the published pages."""
    outdir.mkdir(parents=True, exist_ok=True)
    handle = os.open(outdir, os.O_RDONLY)
    try:
        fcntl.flock(handle, fcntl.LOCK_EX)
        yield
    finally:
        os.close(handle)  # closing lets go of the lock


def _front_rows(report: SiteReport, manifest: Mapping[str, Mapping[str, object]], part: _Part,
                written: Mapping[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """The front page's rows: every event this build wrote, and (unless the build shows every event)
    every other event whose pages the folder holds, as `manifest` keeps its row."""
    rows = [written[e] for e in part.events if e in written]
    if not part.whole:
        ours = {event_dir(e) for e in part.events}
        rows += [kept for folder, entry in sorted(manifest.items()) if folder not in ours
                 for kept in [entry.get("row")]
                 if isinstance(kept, dict) and (report.outdir / folder / "index.html").is_file()]
    return rows


def _save(report: SiteReport, manifest: dict[str, dict[str, object]], part: _Part,
          written: Mapping[str, dict[str, Any]], ranked: bool | None = None) -> None:
    """Save this build's part of the manifest into the folder's (re-read under the lock: another
    build's part is kept as it saved it), then write the front page (`_front_rows`) from the merged
    manifest. `ranked`: whether the front page links to the ranking (None: when the folder has its
    pages, as the manifest says)."""
    with _locked(report.outdir):
        merged = {k: v for k, v in _read_manifest(report.outdir).items() if not part.owns(k)}
        merged.update({k: v for k, v in manifest.items() if part.owns(k)})
        rows = _front_rows(report, merged, part, written)
        if ranked is None:
            ranked = isinstance(merged.get(RANKING_DIR, {}).get("files"), list) \
                and (report.outdir / RANKING_DIR / "index.html").is_file()
        _write(report, {MANIFEST: orjson.dumps(merged, option=orjson.OPT_SORT_KEYS | orjson.OPT_INDENT_2)})
        _write(report, {"index.html": index_page(rows, _language(rows), f"{RANKING_DIR}/index.html" if ranked else ""),
                        STYLESHEET: stylesheet()})


def _checkpoint(report: SiteReport, manifest: dict[str, dict[str, object]], part: _Part,
                written: Mapping[str, dict[str, Any]]) -> None:
    """Save the manifest and the front page as they stand, before an event of many boards is
    rendered: the front page shows the smaller events' new state meanwhile, and a build stopped
    during the long render (a task's timeout, a kill) keeps their work for the next one. The end of
    the build saves both again; the ranking's part stays as the folder has it until then."""
    done = [e for e in part.events if e in written]
    kept = [e for e in part.events if e not in written and _kept_row(manifest, e) is not None]
    rows = {**{e: _kept_row(manifest, e) or {} for e in kept}, **written}
    _save(report, manifest, _Part(done + kept, ranking=False, whole=part.whole), rows)
    log.info("site: manifest and front page saved before the events of over %d boards", CHECKPOINT_BOARDS)


def _kept_row(manifest: Mapping[str, Mapping[str, object]], event_id: str) -> dict[str, Any] | None:
    """An event's index row as the folder's last build wrote it (None: none yet)."""
    kept = manifest.get(event_dir(event_id), {}).get("row")
    return kept if isinstance(kept, dict) else None


def _board_counts(store: EventStore) -> dict[str, int]:
    """Boards dealt per event (empty when there is no store yet)."""
    if not store.exists():
        return {}
    with store.reader() as con:
        if not table_columns(con, ["events"]):
            return {}
        dealt = payload_fields(con, ["BoardDealt"], [PayloadField("event_id", "event_id")])
    return {str(event_id): int(count) for event_id, count in dealt.group_by("event_id").len().iter_rows()}


def write_event(report: SiteReport, store: EventStore, source: Source, event_id: str,
                manifest: dict[str, dict[str, object]],
                release: Callable[[], None] = lambda: None, *,
                solve_limit: int | None = None, shown: ShownRanking | None = None) -> dict[str, Any] | None:
    """Write one event's pages and return its index row (None: the edition shows no session of it).

    When every session's stamp is the one its pages were built at (and the pages are there), the
    event is not even read: its index row comes from the manifest. `release` lets go of a connection
    the caller held for these reads, before the solving and rendering, which hold none. At most
    `solve_limit` new deals are solved (None: all); the others show "analysis pending". `shown`: the
    ranking edition the pages link to and take points from (None: none).
    """
    folder = event_dir(event_id)
    stamps = source.stamps(event_id)
    known = manifest.get(folder, {})
    shown = shown if shown is not None else ShownRanking()
    if _unchanged(report, stamps, known, event_id, manifest, store, shown):
        report.sessions += len(stamps)
        report.unchanged += 1 + sum(_file_count(manifest, session_dir(event_id, s)) for s in stamps)
        row = known["row"]
        assert isinstance(row, dict)
        return row
    with _held(store):  # the event's reads share one connection; rendering holds none
        loaded = source.load(event_id)
        if loaded is None:
            return None
        event, edition = loaded
        ranking = shown.of_event(event_id)
        parts = {info.session_id: session_part(ranking, info.session_id) for info in event.sessions}
        quick = {info.session_id: _quick_digest(store, edition, event, info) for info in event.sessions} \
            if isinstance(source, LiveSource) else {}
        changed = [info for info in event.sessions
                   if not _still(report, manifest, info, quick.get(info.session_id), stamps.get(info.session_id),
                                 store, (shown.key, parts[info.session_id]))]
        sessions = [with_ranking(session_data(store, edition, event, info), ranking) for info in changed]
        audits = [session_audit(edition, data, store) for data in sessions]
        sessions_deals = [board_deals(data) for data in sessions]  # once a board: read again by every step below
        deals = [d for deals_of in sessions_deals for d in deals_of if d is not None]
        found = cached(store, deals)
    release()
    # Solving new deals (slow) holds no connection, and only as many as allowed: the rest wait for
    # the analysis task, so that publishing never waits behind the solver.
    analysis = ensure_analysis(store, deals, found=found, limit=solve_limit)
    report.analysis = _merged(report.analysis, analysis)
    for data, audit, deals_of in zip(sessions, audits, sessions_deals, strict=True):
        # Without the solver, a session is looked at again by every build; one whose deals wait for
        # the analysis task keeps them in the manifest and is looked at again once they are all
        # solved (`_pending_solved`): a session of 100,000 deals is not re-read at every build.
        solver = not analysis.unavailable
        write_session(report, data, audit, analysis, manifest, stamps.get(data.info.session_id) if solver else None,
                      quick.get(data.info.session_id) if solver else None, deals_of)
        manifest[session_dir(event_id, data.info.session_id)].update(
            edition=shown.key, ranking=parts[data.info.session_id])
    names: dict[str, str] = {}
    for info in event.sessions:  # each session's names as its last build kept them (`write_session`)
        kept = manifest.get(session_dir(event_id, info.session_id), {}).get("names")
        names.update(kept if isinstance(kept, dict) else {})
    _write(report, {f"{folder}/index.html": event_page(event, edition.standings, names, ranking)})
    row = index_row(event)
    manifest[folder] = {"row": row, "edition": shown.key, "ranking": event_part(ranking)}
    return row


def _unchanged(report: SiteReport, stamps: Mapping[str, str | None], known: Mapping[str, object], event_id: str,
               manifest: Mapping[str, Mapping[str, object]], store: EventStore, shown: ShownRanking) -> bool:
    if not stamps or not isinstance(known.get("row"), dict) \
            or not (report.outdir / event_dir(event_id) / "index.html").is_file():
        return False
    for session_id, stamp in stamps.items():
        folder = session_dir(event_id, session_id)
        entry = manifest.get(folder, {})
        if stamp is None or entry.get("stamp") != stamp or not isinstance(entry.get("files"), list) \
                or not (report.outdir / folder / "index.html").is_file() or _pending_solved(store, entry) \
                or not _same_ranking(entry, shown.key, partial(shown.session_part, event_id, session_id)):
            return False
    return _same_ranking(known, shown.key, lambda: shown.event_part(event_id))


def _same_ranking(entry: Mapping[str, object], key: str, part: Callable[[], str]) -> bool:
    """Whether pages built as `entry` says show what the ranking edition `key` gives them: built with
    that very edition, or with one whose rows for them were the same (`part`, their digest, asked
    only then: once per new edition). The entry then notes the edition, for the next build."""
    if entry.get("edition") == key:
        return True
    if entry.get("ranking") != part():
        return False
    if isinstance(entry, dict):
        entry["edition"] = key
    return True


def _pending_solved(store: EventStore, entry: Mapping[str, object]) -> bool:
    """Whether a session whose pages say "analysis pending" for some deals (the manifest's
    `pending`) now has every one of them analysed, so that its pages are due again."""
    pending = entry.get("pending")
    if not isinstance(pending, list) or not pending:
        return False
    return len(held_deals(store, [str(d) for d in pending])) == len(pending)


def _quick_digest(store: EventStore, edition: ScoredEdition, event: EventInfo, info: SessionInfo) -> str:
    """SHA-256 of what a session's pages are made from, taken before reading its records: its rows
    of the projections, what the event and session pages say of it, and its stream's latest
    position (a stream is append-only: the same position, the same events). Exact only where the
    edition's clock is the log's own at its position (events after it are then beyond it too)."""
    key = (pl.col("event_id") == info.event_id) & (pl.col("session_id") == info.session_id)
    digest = hashlib.sha256(_code_version())
    for part in (repr(info), event.name, event.conditions.model_dump_json(),
                 edition.board_scores.filter(key).write_json(), edition.standings.filter(key).write_json(),
                 str(last_position(store, info.event_id, info.session_id, edition.position))):
        digest.update(part.encode() + b"\0")
    return digest.hexdigest()


def _still(report: SiteReport, manifest: dict[str, dict[str, object]], info: SessionInfo, quick: str | None,
           stamp: str | None, store: EventStore, ranked: tuple[str, str] = ("", "")) -> bool:
    """Whether the session's pages were built from the same inputs (`_quick_digest`, and `ranked`:
    the ranking edition shown and the digest of the session's part of it) and are all there; if so
    it is counted, its new stamp kept, and it is not read or rendered."""
    folder = session_dir(info.event_id, info.session_id)
    known = manifest.get(folder, {})
    files = known.get("files")
    if quick is None or known.get("quick") != quick or not isinstance(files, list) \
            or not all((report.outdir / folder / str(name)).is_file() for name in files) \
            or _pending_solved(store, known) or not _same_ranking(known, ranked[0], lambda: ranked[1]):
        return False
    report.sessions += 1
    report.unchanged += len(files)
    manifest[folder] = {**known, "stamp": stamp}
    return True


def _held(store: EventStore) -> AbstractContextManager[object]:
    """`store.session()` when the store exists (a build of an empty folder creates no store)."""
    return store.session() if store.exists() else nullcontext()


def _file_count(manifest: Mapping[str, Mapping[str, object]], folder: str) -> int:
    files = manifest.get(folder, {}).get("files")
    return len(files) if isinstance(files, list) else 0


def _merged(before: AnalysisReport | None, new: AnalysisReport) -> AnalysisReport:
    if before is None:
        return new
    return AnalysisReport({**before.analyses, **new.analyses}, before.from_cache + new.from_cache,
                          before.solved + new.solved, before.unavailable + new.unavailable,
                          before.pending + new.pending)


def write_session(report: SiteReport, data: SessionData, audit: pl.DataFrame, analysis: AnalysisReport,
                  manifest: dict[str, dict[str, object]], stamp: str | None = None, quick: str | None = None,
                  deals: list[str | None] | None = None) -> None:
    """Render one session's folder from its own data and write the files that changed; skip the
    rendering when the manifest says the folder was built from the same inputs. `stamp` (the
    source's) and `quick` (`_quick_digest`; None for none) are kept for the next build's look;
    `deals`: `board_deals(data)` when the caller has it."""
    folder = session_dir(data.info.event_id, data.info.session_id)
    deals = board_deals(data) if deals is None else deals
    shown = set(deals)  # once: not per analysis
    analyses = {d: a for d, a in analysis.analyses.items() if d in shown}
    pending = {"pending": sorted(d for d in shown if d is not None and d not in analyses)} \
        if analysis.pending else {}
    digest = session_digest(data, analyses, audit)
    known = manifest.get(folder, {})
    files = known.get("files")
    report.sessions += 1
    if known.get("digest") == digest and isinstance(files, list) \
            and all((report.outdir / folder / str(name)).is_file() for name in files):
        report.unchanged += len(files)
        manifest[folder] = {**{k: v for k, v in known.items() if k != "pending"}, "digest": digest, "files": files,
                            "stamp": stamp, "quick": quick, "names": contestant_names(data), **pending}
        return
    # Pages made from the same inputs as at the last build are not rendered again (`Pages`).
    last = known.get("pages") if isinstance(files, list) else None
    pages = Pages(_code_version(), last if isinstance(last, dict) else {},
                  lambda name: (report.outdir / folder / name).is_file())
    rendered = session_files(data, analyses, audit, pages, deals)
    _write(report, {f"{folder}/{name}": content for name, content in rendered.items()})
    report.unchanged += len(pages.kept)
    manifest[folder] = {"digest": digest, "files": pages.names, "pages": pages.digests, "stamp": stamp,
                        "quick": quick, "names": contestant_names(data), **pending}
    report.rendered += 1


def write_ranking(report: SiteReport, store: EventStore, editions: list[PublishedEdition], language: str,
                  manifest: dict[str, dict[str, object]]) -> bool:
    """Write the ranking's pages for `editions` (the rule set's editions published by the log position
    and time the site shows); False when there are none. Skips the rendering when the manifest says
    they were built from the same editions, and removes the pages of players no longer ranked."""
    if not editions:
        return False
    digest = ranking_digest(editions, _code_version() + language.encode())
    known = manifest.get(RANKING_DIR, {})
    files = known.get("files")
    if known.get("digest") == digest and isinstance(files, list) \
            and all((report.outdir / str(name)).is_file() for name in files):
        report.unchanged += len(files)
        return True
    from pipelines.ranking.publish import EditionError

    try:
        with _held(store):
            source = ranking_source(store, editions)
    except EditionError as exc:
        # The results stay published; the ranking pages keep the edition they showed, if any.
        log.error("site: ranking pages not written: %s", exc)
        return isinstance(files, list) and (report.outdir / RANKING_DIR / "index.html").is_file()
    rendered = ranking_files(source, language)
    _write(report, rendered)
    # Only files this build wrote before (the manifest lists them), never anything else in the folder.
    for name in sorted(set(map(str, files if isinstance(files, list) else [])) - set(rendered)):
        if name.startswith(f"{RANKING_DIR}/") and (report.outdir / name).is_file():
            (report.outdir / name).unlink()
            report.removed.append(name)
    manifest[RANKING_DIR] = {"digest": digest, "files": sorted(rendered)}
    log.info("site: ranking edition %s, %d file(s)", editions[-1].label, len(rendered))
    return True


@cache
def _code_version() -> bytes:
    """A digest of this package's code and templates: new code renders every session again."""
    package = Path(__file__).parent
    digest = hashlib.sha256()
    for path in sorted([*package.glob("*.py"), *package.glob("templates/*")]):
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.digest()


def board_deals(data: SessionData) -> list[str | None]:
    """Each of the session's boards' deal as the analyses key it (None: no complete deal), in the
    records' order: written out once a board (a session may hold 100,000)."""
    return [canonical_deal(b.deal.to_pbn()) if b.deal else None for b in data.records.boards]


def session_digest(data: SessionData, analyses: Mapping[str, DoubleDummy], audit: pl.DataFrame) -> str:
    """SHA-256 of everything a session's files are made from (not the event's other sessions)."""
    digest = hashlib.sha256(_code_version())
    parts = [repr(data.info), data.event.name, data.event.conditions.model_dump_json(),
             data.board_scores.write_json(), data.standings.write_json(), data.results.write_json(),
             repr(sorted(data.corrected_tables)), data.records.model_dump_json(), str(data.last_position),
             repr(sorted((d, sorted(a.tricks.items()), sorted(a.par.items())) for d, a in analyses.items())),
             audit.write_json(), repr(sorted((k, sorted(v.items())) for k, v in data.fouled_deals.items())),
             data.ranking.write_json()]
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


def _write(report: SiteReport, files: Mapping[str, bytes]) -> None:
    made: set[Path] = set()  # a session's 100,000 board pages share one folder: made once, not once a file
    for name, content in sorted(files.items()):
        path = report.outdir / name
        if path.is_file() and path.read_bytes() == content:
            report.unchanged += 1
            continue
        if path.parent not in made:
            path.parent.mkdir(parents=True, exist_ok=True)
            made.add(path.parent)
        path.write_bytes(content)
        report.written.append(name)
