"""Faults injected into the inbox's ingest (issue #36): what the log and the announcement show after.

Each case runs in a throwaway federation (a store with the club championship registered, its
traveller dropped in the inbox) and prints what happened and what the log says afterwards:

- `kill-before`, `kill-during`, `kill-after`: the ingest task's process is killed (SIGKILL) before
  its append, inside the append's transaction (rows inserted, not committed), and right after the
  commit (before the file is moved). Then the task is retried, as Airflow would: the file must be
  in the log exactly once and its session announced, whichever way the retry found it.
- `reader`: another process holds the store open for reading while the file is ingested: the
  ingest waits, fails with `StoreBusy` (the file stays in the inbox), and the retry goes in.
- `link`: a symbolic link in the inbox to a traveller outside it: refused unread with a notice.
- `unregistered`: a file for an event nobody registered: held with a notice; nothing public.

    .venv/bin/python scripts/inbox_faults.py [CASE ...]
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from models.conditions import ConditionsOfContest  # noqa: E402
from pipelines.commands.director import register_tournament  # noqa: E402
from pipelines.edges.operations import (  # noqa: E402
    Settings,
    ingest_inbox_file,
    publish_unpublished,
    resolve_settings,
    score_head,
    sessions_to_announce,
)
from pipelines.log.store import EventStore, StoreError  # noqa: E402

EVENT = "club-championship-2026"
TRAVELLER = ROOT / "sample_data" / "club_championship_traveller.csv"
AT = datetime(2026, 11, 21, 22, 0, tzinfo=UTC)
CASES = ("kill-before", "kill-during", "kill-after", "reader", "link", "unregistered")


def federation(folder: Path) -> Settings:
    """A store with the club championship registered, and an empty inbox."""
    settings = resolve_settings({"store": str(folder / "store.duckdb")}, env={})
    settings.inbox.mkdir(parents=True)
    register_tournament(EventStore(settings.store), EVENT, "Club championship", at=AT,
                        conditions=ConditionsOfContest.from_toml(ROOT / "sample_data" /
                                                                 "club_championship_conditions.toml"))
    return settings


def drop(settings: Settings, event: str = EVENT) -> Path:
    """The traveller dropped at inbox/<event>/1/."""
    path = settings.inbox / event / "1" / "club.csv"
    path.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(TRAVELLER, path)
    return path


def child(case: str, store: str, path: str) -> None:
    """The ingest task's process, set to die at the case's moment."""
    import pipelines.log.store as store_module

    def die() -> None:
        os.kill(os.getpid(), signal.SIGKILL)

    append, insert = store_module.EventStore.append_frame, store_module._insert
    if case == "kill-before":
        def killed(self: Any, *args: Any, **kwargs: Any) -> Any:
            die()
        store_module.EventStore.append_frame = killed  # type: ignore[method-assign]
    elif case == "kill-during":
        def inserted_then_killed(con: Any, rows: Any) -> None:
            insert(con, rows)
            die()
        store_module._insert = inserted_then_killed
    elif case == "kill-after":
        def committed_then_killed(self: Any, *args: Any, **kwargs: Any) -> Any:
            append(self, *args, **kwargs)
            die()
        store_module.EventStore.append_frame = committed_then_killed  # type: ignore[method-assign]
    elif case == "reader":
        with EventStore(store).reader():
            time.sleep(float(path))
        return
    settings = resolve_settings({"store": store}, env={})
    ingest_inbox_file(settings, path, recorded_at=AT)


def log_state(settings: Settings) -> str:
    """What the log says: events, files recorded, chain, and the sessions awaiting scores."""
    store = EventStore(settings.store)
    events = store.read()
    files = sum(e.type == "SourceFileIngested" for e in events)
    results = sum(e.type == "ResultRecorded" for e in events)
    verified = "intact" if store.verify().ok else "BROKEN"
    return (f"log: {len(events)} events, {files} file(s) recorded, {results} results, chain {verified}; "
            f"announced now: {sessions_to_announce(settings, []) or 'nothing'}")


def where(settings: Settings, name: str = "club.csv") -> str:
    """Where the file is now."""
    found = [p for folder in (settings.inbox, settings.processed, settings.rejected, settings.held)
             if folder.exists() for p in folder.rglob(name)]
    return ", ".join(str(p.relative_to(settings.inbox.parent)) for p in found) or "nowhere"


def run_child(case: str, settings: Settings, argument: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, __file__, "--child", case, str(settings.store), argument], cwd=ROOT)


def kill_case(case: str, settings: Settings) -> None:
    path = drop(settings)
    code = run_child(case, settings, str(path)).wait()
    say(case, f"task process ended with {code} ({'SIGKILL' if code == -signal.SIGKILL else 'not killed'}); "
              f"file in {where(settings)}")
    say(case, log_state(settings))
    retry = ingest_inbox_file(settings, str(path), recorded_at=AT)
    say(case, f"retry: {retry.status}, sessions it touched {list(retry.sessions)}; file in {where(settings)}")
    say(case, f"announce (the retry's outcome and the log): {sessions_to_announce(settings, [retry.as_dict()])}")
    publish_unpublished(settings, at=AT)
    score_head(settings)
    standings = (settings.outdir / "standings.csv").read_text().count("\n") - 1
    say(case, f"after score_and_publish: {standings} standings rows; {log_state(settings)}")


def reader_case(settings: Settings) -> None:
    path = drop(settings)
    holder = run_child("reader", settings, "14")
    time.sleep(2)
    try:
        outcome: object = ingest_inbox_file(settings, str(path), recorded_at=AT).status
    except StoreError as exc:
        outcome = f"{type(exc).__name__}: {exc}"
    say("reader", f"ingest while a reader holds the store: {outcome}; file in {where(settings)}")
    holder.wait()
    retry = ingest_inbox_file(settings, str(path), recorded_at=AT)
    say("reader", f"retry after the reader let go: {retry.status}; {log_state(settings)}")


def link_case(settings: Settings, folder: Path) -> None:
    outside = folder / "outside.csv"
    shutil.copy(TRAVELLER, outside)
    (settings.inbox / "club.csv").symlink_to(outside)
    outcome = ingest_inbox_file(settings, str(settings.inbox / "club.csv"), recorded_at=AT)
    notice = (settings.rejected / "club.csv.diagnostics.txt").read_text().strip()
    say("link", f"{outcome.status}; link now in {where(settings)}; notice: {notice}")
    say("link", log_state(settings))


def unregistered_case(settings: Settings) -> None:
    path = drop(settings, "club-champoinship-2026")
    outcome = ingest_inbox_file(settings, str(path), recorded_at=AT)
    notice = Path(outcome.moved_to + ".notice.txt").read_text().strip()
    say("unregistered", f"{outcome.status}; file in {where(settings)}; notice: {notice}")
    say("unregistered", log_state(settings))


def say(case: str, text: str) -> None:
    print(f"[{case}] {text}", flush=True)


def main() -> None:
    """Run the cases asked for (every case by default)."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("cases", nargs="*", help=f"any of {', '.join(CASES)} (default: all)")
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    arguments = parser.parse_args()
    if arguments.child:
        child(*arguments.child)
        return
    unknown = set(arguments.cases) - set(CASES)
    if unknown:
        parser.error(f"unknown case(s) {sorted(unknown)}; choose from {', '.join(CASES)}")
    import logging

    logging.basicConfig(level=logging.ERROR)
    for case in arguments.cases or CASES:
        with tempfile.TemporaryDirectory(prefix=f"faults-{case}-") as scratch:
            folder = Path(scratch)
            settings = federation(folder / "federation")
            if case.startswith("kill-"):
                kill_case(case, settings)
            elif case == "reader":
                reader_case(settings)
            elif case == "link":
                link_case(settings, folder)
            else:
                unregistered_case(settings)


if __name__ == "__main__":
    main()
