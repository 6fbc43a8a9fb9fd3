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
written and are left alone.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from pipelines.ranking.rules import RULES_ENV, configured_rules
from pipelines.store import EventStore, StoreMissing

log = logging.getLogger(__name__)

STORE_ENV = "BRIDGELEDGER_STORE"
"""Environment variable naming the store when no setting does."""

_PARTIAL_SUFFIXES = (".part", ".tmp", ".crdownload")


class SettingsError(ValueError):
    """The operations' settings are missing or point nowhere."""


class InboxRejected(ValueError):
    """Files in the inbox were refused: they wait in `rejected/` with their diagnostics."""


@dataclass(frozen=True)
class Settings:
    """Where the federation's store and folders are; every path absolute."""

    store: Path
    inbox: Path
    outdir: Path
    site: Path
    notifications: Path
    ranking_rules: str | None = None
    """The ranking rule set: a TOML file (absolute) or a preset name; None = not configured."""

    @property
    def processed(self) -> Path:
        """Where an ingested file goes."""
        return self.inbox.parent / "processed"

    @property
    def rejected(self) -> Path:
        """Where a refused file goes, with its diagnostics beside it."""
        return self.inbox.parent / "rejected"


def resolve_settings(configured: Mapping[str, str] | None, env: Mapping[str, str] | None = None) -> Settings:
    """Settings from an orchestrator's configuration (e.g. an Airflow Variable), else the environment.

    `store` comes from the configuration, else `BRIDGELEDGER_STORE`; every folder defaults to one
    beside the store (`inbox/`, `outputs/`, `site/`, `notifications.jsonl`). Relative paths are
    refused: a scheduler's working directory is nobody's business.
    """
    given = dict(configured or {})
    environment = os.environ if env is None else env
    store_text = given.get("store") or environment.get(STORE_ENV)
    if not store_text:
        raise SettingsError(f"no store configured: set the 'store' setting or {STORE_ENV}")
    store = _absolute("store", store_text)
    home = store.parent
    return Settings(
        store=store,
        inbox=_absolute("inbox", given.get("inbox") or str(home / "inbox")),
        outdir=_absolute("outdir", given.get("outdir") or str(home / "outputs")),
        site=_absolute("site", given.get("site") or str(home / "site")),
        notifications=_absolute("notifications", given.get("notifications") or str(home / "notifications.jsonl")),
        ranking_rules=configured_rules(given, environment),
    )


def existing_store(settings: Settings) -> EventStore:
    """The configured store, which must exist: an operation on a store that is not there fails."""
    store = EventStore(settings.store)
    if not store.exists():
        raise StoreMissing(f"no event store at {settings.store}")
    return store


def pending_files(settings: Settings) -> list[str]:
    """Files waiting in the inbox (absolute paths, sorted), skipping ones still being written."""
    if not settings.inbox.is_dir():
        return []
    found = [p for p in settings.inbox.rglob("*") if p.is_file() and not _partial(p)]
    return sorted(str(p) for p in found)


@dataclass(frozen=True)
class InboxOutcome:
    """What became of one inbox file."""

    file: str
    status: str
    """`processed`, `duplicate` (the same bytes were ingested before) or `rejected`."""
    moved_to: str
    sessions: tuple[str, ...]
    """`event/session` the file added to."""
    diagnostics: int

    def as_dict(self) -> dict[str, object]:
        """A small JSON-able summary (what an orchestrator passes on)."""
        return {"file": self.file, "status": self.status, "moved_to": self.moved_to,
                "sessions": list(self.sessions), "diagnostics": self.diagnostics}


def ingest_inbox_file(settings: Settings, path: str, *, recorded_at: datetime) -> InboxOutcome:
    """Ingest one inbox file (lenient), then move it out of the inbox with its diagnostics beside it."""
    from pipelines.ingest import IngestOptions, IngestRejected, ingest_file

    source = Path(path)
    event_id, session_id = _named_by_folder(settings.inbox, source)
    store = existing_store(settings)
    try:
        report = ingest_file(store, source, recorded_at=recorded_at,
                             options=IngestOptions(event_id=event_id, session_id=session_id))
    except IngestRejected as exc:
        for diagnostic in exc.diagnostics:
            log.warning("%s", diagnostic)
        moved = _move(settings, source, settings.rejected, [str(d) for d in exc.diagnostics])
        log.warning("%s rejected: nothing was appended; moved to %s", source.name, moved)
        return InboxOutcome(str(source), "rejected", str(moved), (), len(exc.diagnostics))
    for diagnostic in report.diagnostics:
        log.warning("%s", diagnostic)
    status = "duplicate" if report.already_ingested else "processed"
    moved = _move(settings, source, settings.processed, [str(d) for d in report.diagnostics])
    sessions = () if report.already_ingested else (f"{report.event_id}/{report.session_id}",)
    log.info("%s %s: %d events, %d quarantined; moved to %s", source.name, status, report.events,
             report.quarantined, moved)
    return InboxOutcome(str(source), status, str(moved), sessions, len(report.diagnostics))


def touched_sessions(outcomes: Iterable[Mapping[str, Any]]) -> list[str]:
    """The sessions (`event/session`) that the files of `outcomes` (`InboxOutcome.as_dict`) added to."""
    return sorted({session for outcome in outcomes for session in outcome.get("sessions", ())})


def require_all_ingested(files: Sequence[str], outcomes: Iterable[Mapping[str, Any]]) -> int:
    """Raise naming every file that was rejected or whose task failed (so the run ends failed and the
    federation is told); return how many files went into the log."""
    handled = {str(o["file"]): str(o["status"]) for o in outcomes}
    rejected = sorted(f for f, status in handled.items() if status == "rejected")
    failed = sorted(set(files) - set(handled))
    if rejected or failed:
        raise InboxRejected(f"rejected (see rejected/ and its diagnostics): {', '.join(rejected) or 'none'}; "
                            f"failed (see the task logs): {', '.join(failed) or 'none'}")
    return len(handled)


def publish_unpublished(settings: Settings, *, at: datetime) -> list[str]:
    """Publish, at `at`, every session that has results and has not been published; return them."""
    from pipelines.director import publish_scores

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
    from pipelines.tasks import score_at

    return score_at(str(settings.store), existing_store(settings).head(), str(settings.outdir))


def write_site(settings: Settings) -> str:
    """Write the results site at the log's head; return the index page's path (pages whose bytes
    did not change are left alone). It solves no deal: the `analyse_deals` DAG does, and deals not
    solved yet show "analysis pending" (issue #36: publishing never waits behind the solver)."""
    from pipelines.tasks import publish_site

    return publish_site(str(settings.store), existing_store(settings).head(), str(settings.site))


def close_due(settings: Settings, *, at: datetime) -> list[str]:
    """Record the end of every correction period that ended by `at`; the store must exist."""
    from pipelines.tasks import close_due_periods

    existing_store(settings)
    return close_due_periods(str(settings.store), at.isoformat(), str(settings.outdir))


def publish_ranking_edition(settings: Settings, *, as_of: datetime, with_site: bool = True) -> int:
    """Publish the ranking edition as of `as_of` by the configured rule set (idempotent), then write
    the results site (its ranking pages, and the index's link to them) unless `with_site` is False
    (the DAG writes it in a task of its own, outside the store's pool); return the publication's
    log position."""
    from pipelines.ranking.tasks import publish_ranking
    from pipelines.tasks import publish_site

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
    shutil.move(str(source), target)
    if diagnostics:
        target.with_name(target.name + ".diagnostics.txt").write_text("\n".join(diagnostics) + "\n", encoding="utf-8")
    return target
