"""The weekend's operations as an orchestrator runs them: an inbox, publication, notifications.

Airflow's DAGs (and anything else that schedules work) call these; they hold no Airflow code.
Every call is idempotent and takes its time from the caller (the run's time), never the wall clock:

- `pending_files`: what waits in the inbox, oldest name first.
- `ingest_inbox_file`: one file into the log (lenient: a bad record is quarantined), then moved to
  `processed/` or `rejected/` with its diagnostics written beside it and logged at WARNING.
- `publish_unpublished`: every session with results and no publication yet is published at the
  given time (opening its Law 79C period as its conditions say).
- `write_failure_notice`: a line a federation can route to mail when a task fails.

Inbox layout. A file dropped at `inbox/<event>/<session>/name` is ingested into that event and
session; a file at the inbox's top level names itself (CSV columns, PBN `Event`, USEBIO
`EVENT_IDENTIFIER`). Files whose names start with `.` or end in `.part`/`.tmp` are still being
written and are left alone. Only regular files inside the inbox are read: a symbolic link (to a
file or a folder), a FIFO or a device is refused unread and moved to `rejected/` with a notice. A
file for an event the log has not registered waits in `held/` with a notice saying how to register
it, unless the `auto_register_events` setting says to register such events with default rules.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import stat
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import polars as pl

from pipelines.log.fields import PayloadField, payload_fields
from pipelines.log.reads import last_positions_by_stream
from pipelines.log.store import EventStore, StoreMissing
from pipelines.ranking.rules import RULES_ENV, configured_rules

if TYPE_CHECKING:
    from pipelines.files.ingest import EventNotRegistered
    from pipelines.site.build import Scope

log = logging.getLogger(__name__)

STORE_ENV = "BRIDGELEDGER_STORE"
"""Environment variable naming the store when no setting does."""

AUTO_REGISTER_ENV = "BRIDGELEDGER_AUTO_REGISTER_EVENTS"
"""Environment variable for the `auto_register_events` setting when no setting gives it."""

_PARTIAL_SUFFIXES = (".part", ".tmp", ".crdownload")


class SettingsError(ValueError):
    """The operations' settings are missing or point nowhere."""


class InboxRejected(ValueError):
    """Files in the inbox were refused: they wait in `rejected/` with their diagnostics."""


@dataclass(frozen=True)
class Settings:
    """Where the federation's store and folders are; every path absolute."""

    store: str
    """The log: an absolute DuckDB file path, or a postgresql:// URL."""
    inbox: Path
    outdir: Path
    site: Path
    notifications: Path
    ranking_rules: str | None = None
    """The ranking rule set: a TOML file (absolute) or a preset name; None = not configured."""
    auto_register_events: bool = False
    """Whether an inbox file may register the event it names when the log has none of that id
    (with default rules); otherwise it waits in `held/` for the operator."""

    @property
    def processed(self) -> Path:
        """Where an ingested file goes."""
        return self.inbox.parent / "processed"

    @property
    def rejected(self) -> Path:
        """Where a refused file goes, with its diagnostics beside it."""
        return self.inbox.parent / "rejected"

    @property
    def held(self) -> Path:
        """Where a file for an event not registered waits, with a notice beside it."""
        return self.inbox.parent / "held"


def resolve_settings(configured: Mapping[str, str] | None, env: Mapping[str, str] | None = None) -> Settings:
    """Settings from an orchestrator's configuration (e.g. an Airflow Variable), else the environment.

    `store` comes from the configuration, else `BRIDGELEDGER_STORE`; every folder defaults to one
    beside the store (`inbox/`, `outputs/`, `site/`, `notifications.jsonl`), or, when the store is
    a postgresql:// URL, beside its analytics file (`BRIDGELEDGER_ANALYTICS`, which every worker
    of one machine shares). Relative paths are refused: a scheduler's working directory is
    nobody's business.
    """
    from pipelines.log.postgres import is_postgres_url
    from pipelines.log.store import ANALYTICS_ENV

    given = dict(configured or {})
    environment = os.environ if env is None else env
    store_text = given.get("store") or environment.get(STORE_ENV)
    if not store_text:
        raise SettingsError(f"no store configured: set the 'store' setting or {STORE_ENV}")
    if is_postgres_url(store_text):
        store = store_text
        analytics = environment.get(ANALYTICS_ENV)
        if not analytics:
            raise SettingsError(f"a postgresql:// store needs {ANALYTICS_ENV}: the analytics file this "
                                "machine's workers share (an absolute path)")
        home = _absolute(ANALYTICS_ENV, analytics).parent
    else:
        home = _absolute("store", store_text).parent
        store = str(_absolute("store", store_text))
    return Settings(
        store=store,
        inbox=_absolute("inbox", given.get("inbox") or str(home / "inbox")),
        outdir=_absolute("outdir", given.get("outdir") or str(home / "outputs")),
        site=_absolute("site", given.get("site") or str(home / "site")),
        notifications=_absolute("notifications", given.get("notifications") or str(home / "notifications.jsonl")),
        ranking_rules=configured_rules(given, environment),
        auto_register_events=_flag("auto_register_events",
                                   given.get("auto_register_events", environment.get(AUTO_REGISTER_ENV))),
    )


def _flag(name: str, value: object) -> bool:
    """A yes/no setting: JSON true/false, or the words an environment variable carries."""
    if value is None or isinstance(value, bool):
        return bool(value)
    text = str(value).strip().lower()
    if text in ("1", "true", "yes", "on"):
        return True
    if text in ("", "0", "false", "no", "off"):
        return False
    raise SettingsError(f"the {name} setting must be true or false, got {value!r}")


def existing_store(settings: Settings) -> EventStore:
    """The configured store, which must exist: an operation on a store that is not there fails."""
    store = EventStore(settings.store)
    if not store.exists():
        raise StoreMissing(f"no event store at {store.shown_location}")
    return store


def pending_files(settings: Settings) -> list[str]:
    """Entries waiting in the inbox (absolute paths, sorted), skipping files still being written.

    Links are not followed: a symbolic link (to a file or a folder) is listed itself, as is anything
    else that is not a regular file (a FIFO, a socket), so that `ingest_inbox_file` refuses it with
    a notice instead of reading what it points to, or passing over it in silence."""
    if not settings.inbox.is_dir():
        return []
    found: list[Path] = []
    for folder, folders, files in os.walk(settings.inbox):  # followlinks=False: a linked folder is not entered
        here = Path(folder)
        found += [here / name for name in folders if (here / name).is_symlink()]
        found += [here / name for name in files]
    return sorted(str(p) for p in found if not _partial(p))


@dataclass(frozen=True)
class InboxOutcome:
    """What became of one inbox file."""

    file: str
    status: str
    """`processed`, `duplicate` (the same bytes were ingested before), `rejected`, or `held` (its
    event is not registered)."""
    moved_to: str
    sessions: tuple[str, ...]
    """`event/session` the file added to."""
    diagnostics: int

    def as_dict(self) -> dict[str, object]:
        """A small JSON-able summary (what an orchestrator passes on)."""
        return {"file": self.file, "status": self.status, "moved_to": self.moved_to,
                "sessions": list(self.sessions), "diagnostics": self.diagnostics}


def ingest_inbox_file(settings: Settings, path: str, *, recorded_at: datetime) -> InboxOutcome:
    """Ingest one inbox file (lenient), then move it out of the inbox with its diagnostics beside it.

    Anything that is not a regular file inside the inbox is refused unread (`not_a_regular_file`);
    a file for an event the log has not registered is moved to `held/` with a notice, unless the
    settings say to register such events."""
    from pipelines.files.ingest import EventNotRegistered, IngestOptions, IngestRejected, display_name, ingest_file

    source = Path(path)
    if not source.is_relative_to(settings.inbox):
        raise InboxRejected(f"{path} is not inside the inbox {settings.inbox}; it was not read")
    if not os.path.lexists(source):  # gone since it was listed (moved by an earlier attempt?)
        raise FileNotFoundError(f"{path} is no longer in the inbox")
    refusal = not_a_regular_file(settings.inbox, source)
    if refusal is not None:
        notice = f"{display_name(source)}: {refusal}; it was not read"
        log.warning("%s", notice)
        moved = _move(settings, source, settings.rejected, [notice])
        return InboxOutcome(str(source), "rejected", str(moved), (), 1)
    event_id, session_id = _named_by_folder(settings.inbox, source)
    store = existing_store(settings)
    options = IngestOptions(event_id=event_id, session_id=session_id,
                            register_events=settings.auto_register_events)
    try:
        report = ingest_file(store, source, recorded_at=recorded_at, options=options)
    except IngestRejected as exc:
        for diagnostic in exc.diagnostics:
            log.warning("%s", diagnostic)
        moved = _move(settings, source, settings.rejected, [str(d) for d in exc.diagnostics])
        log.warning("%s rejected: nothing was appended; moved to %s", source.name, moved)
        return InboxOutcome(str(source), "rejected", str(moved), (), len(exc.diagnostics))
    except EventNotRegistered as exc:
        moved = _move(settings, source, settings.held, [])
        notice = _unregistered_notice(settings, exc, moved)
        moved.with_name(moved.name + ".notice.txt").write_text(notice + "\n", encoding="utf-8")
        log.warning("%s", notice)
        return InboxOutcome(str(source), "held", str(moved), (), 1)
    for diagnostic in report.diagnostics:
        log.warning("%s", diagnostic)
    status = "duplicate" if report.already_ingested else "processed"
    moved = _move(settings, source, settings.processed, [str(d) for d in report.diagnostics])
    sessions = () if report.already_ingested else (f"{report.event_id}/{report.session_id}",)
    log.info("%s %s: %d events, %d quarantined; moved to %s", source.name, status, report.events,
             report.quarantined, moved)
    return InboxOutcome(str(source), status, str(moved), sessions, len(report.diagnostics))


def not_a_regular_file(inbox: Path, path: Path) -> str | None:
    """Why `path` may not be read as an inbox file, or None when it is a regular file inside `inbox`
    reached through no symbolic link. Nothing is followed and nothing is read: a link's target is
    never named, so that a notice cannot show what lies outside the inbox."""
    try:
        parts = path.relative_to(inbox).parts
    except ValueError:
        return f"it is not inside the inbox {inbox}"
    here = inbox
    for depth, part in enumerate(parts):
        here = here / part
        try:
            mode = here.lstat().st_mode
        except OSError as exc:
            return f"it cannot be examined ({exc.strerror})"
        last = depth == len(parts) - 1
        if stat.S_ISLNK(mode):
            what = "a symbolic link" if last else f"inside {here.name}/, a symbolic link to a folder"
            return f"{what}: links are refused (put the file itself in the inbox)"
        if last and not stat.S_ISREG(mode):
            return f"not a regular file ({_kind_of(mode)}): only files are read"
    return None


def _kind_of(mode: int) -> str:
    kinds = ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket"),
             (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"))
    return next((name for test, name in kinds if test(mode)), "not a file")


def _unregistered_notice(settings: Settings, exc: EventNotRegistered, moved: Path) -> str:
    """What the operator is told of a file whose event is not registered."""
    return (f"{exc.source}: event {exc.event_id!r} is not registered, so nothing was appended; the file "
            f"waits in {moved}. If the id is right, register the event (bridgeledger register --event "
            f"{exc.event_id} --name NAME --conditions CONDITIONS.toml) and move the file back into the "
            f"inbox; if it is a typo, move the file to {settings.inbox}/<event>/<session>/ under the right "
            f"id. To register unknown events with default rules instead, set auto_register_events.")


def touched_sessions(outcomes: Iterable[Mapping[str, Any]]) -> list[str]:
    """The sessions (`event/session`) that the files of `outcomes` (`InboxOutcome.as_dict`) added to."""
    return sorted({session for outcome in outcomes for session in outcome.get("sessions", ())})


def sessions_to_announce(settings: Settings, outcomes: Iterable[Mapping[str, Any]]) -> list[str]:
    """The sessions to hand to `score_and_publish`: those the files of `outcomes` added to, and every
    one the log says is still waiting (`sessions_awaiting_scores`). So a file whose task crashed
    after its commit (the retry sees a duplicate and touches nothing) is still announced."""
    store = EventStore(settings.store)
    waiting = sessions_awaiting_scores(store) if store.exists() else []  # no store yet: nothing waits
    return sorted(set(touched_sessions(outcomes)) | set(waiting))


def sessions_awaiting_scores(store: EventStore) -> list[str]:
    """Sessions (`event/session`) with results or adjusted scores that are not published, or that
    were appended after the position the projection tables were last scored at: what the log
    itself says `score_and_publish` has still to do, whoever appended them."""
    from pipelines.replay.live import projection_state

    with store.reader() as con:
        state = projection_state(con)
        scored = state[0] if state is not None else 0
        named = payload_fields(con, ["SessionScheduled", "ScoresPublished"], _SESSION_FIELDS)
        last = last_positions_by_stream(con, ["ResultRecorded", "ArtificialScoreAwarded"])
    sessions = named.filter(pl.col("type") == "SessionScheduled").select("stream_id", "event_id", "session_id")
    published = named.filter(pl.col("type") == "ScoresPublished").select("event_id", "session_id").unique()
    with_results = sessions.join(last, on="stream_id")
    rescored = with_results.filter(pl.col("last") > scored).select("event_id", "session_id")
    unpublished = with_results.select("event_id", "session_id").join(published, on=["event_id", "session_id"],
                                                                     how="anti")
    due = pl.concat([rescored, unpublished]).unique()
    return sorted(f"{event_id}/{session_id}" for event_id, session_id in due.iter_rows())


_SESSION_FIELDS = (PayloadField("event_id", "event_id"), PayloadField("session_id", "session_id"))


def require_all_ingested(files: Sequence[str], outcomes: Iterable[Mapping[str, Any]]) -> int:
    """Raise naming every file that was rejected, held (its event is not registered) or whose task
    failed (so the run ends failed and the federation is told); return how many files went into the log."""
    handled = {str(o["file"]): str(o["status"]) for o in outcomes}
    rejected = sorted(f for f, status in handled.items() if status == "rejected")
    held = sorted(f for f, status in handled.items() if status == "held")
    failed = sorted(set(files) - set(handled))
    if rejected or held or failed:
        waiting = f"; held, their event not registered (see held/ and its notices): {', '.join(held)}" if held else ""
        raise InboxRejected(f"rejected (see rejected/ and its diagnostics): {', '.join(rejected) or 'none'}; "
                            f"failed (see the task logs): {', '.join(failed) or 'none'}{waiting}")
    return len(handled) - len(held)


def publish_unpublished(settings: Settings, *, at: datetime) -> list[str]:
    """Publish, at `at`, every session that has results and has not been published; return them."""
    from pipelines.commands.director import publish_scores

    store = existing_store(settings)
    published = {(e.payload["event_id"], e.payload["session_id"]) for e in store.read(types=["ScoresPublished"])}
    scheduled = {(e.payload["event_id"], e.payload["session_id"]) for e in store.read(types=["SessionScheduled"])}
    done = []
    for event_id, session_id in sorted(scheduled - published):
        publish_scores(store, event_id, session_id, at=at)
        done.append(f"{event_id}/{session_id}")
        log.info("published %s/%s at %s", event_id, session_id, at.isoformat())
    return done


def score_head(settings: Settings) -> dict[str, str]:
    """Score the log at its head, refresh the analyst views, write the standings CSVs; return their paths."""
    from pipelines.edges.tasks import score_at

    return score_at(str(settings.store), existing_store(settings).head(), str(settings.outdir))


def write_site(settings: Settings, scope: Scope = "all", *, position: int | None = None) -> str:
    """Write the results site at the log's head (or at `position`, a task's own append); return the
    index page's path (pages whose bytes did not change are left alone). It solves no deal: the
    `analyse_deals` DAG does, and deals not solved yet show "analysis pending" (issue #36:
    publishing never waits behind the solver). `scope`: every event, or only the small or the big
    ones (`pipelines.site.build.Scope`)."""
    from pipelines.edges.tasks import publish_site

    store = existing_store(settings)
    return publish_site(str(settings.store), store.head() if position is None else position, str(settings.site),
                        scope)


def close_due(settings: Settings, *, at: datetime) -> list[str]:
    """Record the end of every correction period that ended by `at`; the store must exist."""
    from pipelines.edges.tasks import close_due_periods

    existing_store(settings)
    return close_due_periods(str(settings.store), at.isoformat(), str(settings.outdir))


def publish_ranking_edition(settings: Settings, *, as_of: datetime, with_site: bool = True) -> int:
    """Publish the ranking edition as of `as_of` by the configured rule set (idempotent), then write
    the results site (its ranking pages, and the index's link to them) unless `with_site` is False
    (the DAG writes it in a task of its own, outside the store's pool); return the publication's
    log position."""
    from pipelines.edges.tasks import publish_site
    from pipelines.ranking.tasks import publish_ranking

    if not settings.ranking_rules:
        raise SettingsError(f"no ranking rule set configured: set 'ranking_rules' or {RULES_ENV}")
    store = existing_store(settings)
    position = publish_ranking(str(settings.store), settings.ranking_rules, as_of.isoformat())
    # Sessions whose inputs did not change are not rendered again; the ranking pages are.
    if with_site:
        publish_site(str(settings.store), store.head(), str(settings.site))
    return position


def write_failure_notice(settings: Settings, *, dag_id: str, task_id: str, run_id: str, at: datetime,
                         error: str) -> Path:
    """Append one JSON line describing a failed task to the notifications file; return its path."""
    settings.notifications.parent.mkdir(parents=True, exist_ok=True)
    line = json.dumps({"at": at.isoformat(), "dag_id": dag_id, "task_id": task_id, "run_id": run_id,
                       "error": error}, sort_keys=True)
    with settings.notifications.open("a", encoding="utf-8") as handle:
        handle.write(line + "\n")
    log.error("bridgeledger task failed: %s", line)
    return settings.notifications


def _absolute(name: str, text: str) -> Path:
    path = Path(text).expanduser()
    if not path.is_absolute():
        raise SettingsError(f"the {name} setting must be an absolute path, got {text!r}")
    return path


def _partial(path: Path) -> bool:
    return path.name.startswith(".") or path.suffix.lower() in _PARTIAL_SUFFIXES


def _named_by_folder(inbox: Path, source: Path) -> tuple[str | None, str | None]:
    """`inbox/<event>/<session>/file` names the event and session; a top-level file names itself."""
    parts = source.relative_to(inbox).parts
    if len(parts) >= 3:
        return parts[0], parts[1]
    if len(parts) == 2:
        return parts[0], None
    return None, None


def _move(settings: Settings, source: Path, folder: Path, diagnostics: list[str]) -> Path:
    """Move `source` under `folder` keeping its inbox sub-path; its diagnostics go beside it."""
    target = folder / source.relative_to(settings.inbox)
    target.parent.mkdir(parents=True, exist_ok=True)
    if target.exists():  # the same name arrived again: keep both, never overwrite what was there
        stem = target.name
        index = 1
        while target.exists():
            target = target.with_name(f"{stem}.{index}")
            index += 1
    if source.is_symlink() or not source.is_file():
        os.rename(source, target)  # the link or the FIFO itself; shutil.move could copy what it points to
    else:
        shutil.move(str(source), target)
    if diagnostics:
        target.with_name(target.name + ".diagnostics.txt").write_text("\n".join(diagnostics) + "\n", encoding="utf-8")
    return target
