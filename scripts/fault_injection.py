"""Faults injected into a running Airflow, and what the event log and the results site show after each.

    .venv/bin/python scripts/fault_injection.py      (after `make venv`; ~20 minutes; a free port, or AIRFLOW_PORT)

In a throwaway folder it registers the sample weekend's events, starts Airflow's components on
127.0.0.1 (scripts/airflow_local.sh), and then, one case at a time (issue #36):

1. kill -9 of an `ingest` task BEFORE the commit: while it reads the dropped file, before it has
   the store open for writing (told apart by the task process's open files and their flags);
2. kill -9 DURING the commit: while the task holds the store open for writing;
3. kill -9 AFTER the commit: once the file has been moved to processed/, before the task ends;
4. a reader holding the store (a read-only connection kept open for 40 s) while a file is ingested;
5. links in the inbox: one to a file outside the inbox, one to a folder outside it;
6. a running task marked failed through the REST API.

After each it prints what the log holds (the file's `SourceFileIngested` events, the sessions
scheduled and published), the inbox, processed/ and rejected/, new failure notices, the task's
tries, and what the site shows. It judges nothing itself: it reports. It stops everything it
started (and says whether any process was left).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
VENV_BIN = Path(sys.executable).parent
WEEKEND = REPO / "sample_data" / "weekend"


def _free_port() -> int:
    """A port nobody listens on now (another engineer's Airflow may hold the usual ones)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


PORT = int(os.environ.get("AIRFLOW_PORT") or _free_port())
BIG_BOARDS = int(os.environ.get("BIG_BOARDS", "20000"))

WORK = Path(tempfile.mkdtemp(prefix="bridgeledger-faults-"))
HOME = WORK / "airflow_home"
FED = WORK / "federation"
STORE = FED / "bridgeledger.duckdb"
ENV = {
    **os.environ,
    "PATH": f"{VENV_BIN}:{os.environ['PATH']}",
    "AIRFLOW_HOME": str(HOME),
    "AIRFLOW__CORE__DAGS_FOLDER": str(REPO / "dags"),
    "AIRFLOW__CORE__LOAD_EXAMPLES": "False",
    "AIRFLOW__API__PORT": str(PORT),
    "AIRFLOW__DAG_PROCESSOR__REFRESH_INTERVAL": "5",
    "BRIDGELEDGER_ANALYSIS_SLICE_SECONDS": "120",
    "PYTHONPATH": str(REPO),
    "AIRFLOW_VAR_BRIDGELEDGER": json.dumps({
        "store": str(STORE), "inbox": str(FED / "inbox"), "outdir": str(FED / "outputs"),
        "site": str(FED / "site"), "notifications": str(FED / "notifications.jsonl")}),
}


def say(text: str) -> None:
    """One line of the report."""
    print(f"[faults {time.strftime('%H:%M:%S', time.gmtime())}] {text}", flush=True)


def run(*args: str, check: bool = True) -> str:
    """Run a command in the run's environment; its stdout."""
    done = subprocess.run(list(args), env=ENV, capture_output=True, text=True, check=False)
    if check and done.returncode != 0:
        raise RuntimeError(f"{' '.join(args)} failed: {done.stderr[-2000:]}")
    return done.stdout


def wait_for(what: str, test: Callable[[], object], timeout: float, every: float = 2.0) -> bool:
    """Poll `test` until it is truthy or `timeout` seconds pass; say so when it never was."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if test():
            return True
        time.sleep(every)
    say(f"   (gave up waiting for {what} after {timeout:.0f}s)")
    return False


# --- the REST API (the simple auth manager's admin, its password from the generated file) ---------

_TOKEN: list[str] = []


def api(method: str, path: str, body: object | None = None) -> object:
    """Call Airflow's REST API on 127.0.0.1 as admin; the decoded JSON answer. An answer of 500
    (SQLite's metadata database locked by the scheduler, on a loaded machine) is asked again."""
    for attempt in range(8):
        try:
            return _api(method, path, body)
        except urllib.error.HTTPError as exc:
            if exc.code < 500 or attempt == 7:
                raise
            time.sleep(3)
    raise AssertionError("unreachable")


def _api(method: str, path: str, body: object | None) -> object:
    if not _TOKEN:
        passwords = json.loads((HOME / "simple_auth_manager_passwords.json.generated").read_text())
        request = urllib.request.Request(
            f"http://127.0.0.1:{PORT}/auth/token", method="POST", headers={"Content-Type": "application/json"},
            data=json.dumps({"username": "admin", "password": passwords["admin"]}).encode())
        with urllib.request.urlopen(request, timeout=30) as answer:
            _TOKEN.append(json.load(answer)["access_token"])
    request = urllib.request.Request(
        f"http://127.0.0.1:{PORT}/api/v2{path}", method=method,
        headers={"Authorization": f"Bearer {_TOKEN[0]}", "Content-Type": "application/json"},
        data=None if body is None else json.dumps(body).encode())
    with urllib.request.urlopen(request, timeout=30) as answer:
        return json.load(answer)


def trigger(dag_id: str) -> str:
    """Start a run of `dag_id` now; its run id."""
    answer = api("POST", f"/dags/{dag_id}/dagRuns", {"logical_date": None})
    assert isinstance(answer, dict)
    return str(answer["dag_run_id"])


def run_state(dag_id: str, run_id: str) -> str:
    """The state of a DAG run."""
    answer = api("GET", f"/dags/{dag_id}/dagRuns/{run_id}")
    assert isinstance(answer, dict)
    return str(answer["state"])


def tries(dag_id: str, run_id: str) -> str:
    """Each task instance of the run: task, map index, state and try number."""
    answer = api("GET", f"/dags/{dag_id}/dagRuns/{run_id}/taskInstances")
    assert isinstance(answer, dict)
    return ", ".join(f"{t['task_id']}{'' if t['map_index'] < 0 else '[' + str(t['map_index']) + ']'}="
                     f"{t['state']} (try {t['try_number']})" for t in answer["task_instances"])


def settled(dag_id: str, timeout: float = 900) -> str:
    """Wait until no run of the DAG is queued or running; the tries of its latest two runs."""
    def idle() -> bool:
        answer = api("GET", f"/dags/{dag_id}/dagRuns?state=running&state=queued")
        return isinstance(answer, dict) and not answer.get("total_entries")

    wait_for(f"{dag_id} to settle", idle, timeout, 3)
    answer = api("GET", f"/dags/{dag_id}/dagRuns?order_by=-run_after&limit=2")
    assert isinstance(answer, dict)
    return "; ".join(f"{r['dag_run_id']}: {r['state']}: {tries(dag_id, r['dag_run_id'])}" for r in answer["dag_runs"])


def finished(dag_id: str, run_id: str, timeout: float = 600) -> str:
    """Wait for the run to end; its state."""
    wait_for(f"{dag_id} {run_id}", lambda: run_state(dag_id, run_id) in ("success", "failed"), timeout, 3)
    return run_state(dag_id, run_id)


# --- the processes of the run -------------------------------------------------------------------

def session_pids() -> list[int]:
    """Every process of the session scripts/airflow_local.sh started."""
    sid_file = HOME / "bridgeledger-airflow.sid"
    if not sid_file.is_file():
        return []
    sid = int(sid_file.read_text())
    pids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if os.getsid(int(entry.name)) == sid:
                    pids.append(int(entry.name))
            except (ProcessLookupError, PermissionError):
                continue
    return pids


def task_runner(ti_id: str) -> int | None:
    """The process running task instance `ti_id` (titled `airflow worker -- <id>`, leading its own
    process group), or None."""
    for pid in session_pids():
        try:
            title = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
            if title.startswith(f"airflow worker -- {ti_id}") and os.getpgid(pid) == pid:
                return pid
        except (FileNotFoundError, ProcessLookupError):
            continue
    return None


def running_ti(dag_id: str, task_id: str) -> tuple[str, str] | None:
    """(run id, task instance id) of `task_id` running now in any run of the DAG (a scheduled run
    may pick the dropped file before the triggered one), or None."""
    answer = api("GET", f"/dags/{dag_id}/dagRuns/~/taskInstances?state=running")
    assert isinstance(answer, dict)
    return next(((str(t["dag_run_id"]), str(t["id"])) for t in answer["task_instances"]
                 if t["task_id"] == task_id), None)


def open_files(pid: int) -> dict[str, int]:
    """The files a process has open, with their open flags (from /proc/<pid>/fdinfo)."""
    files: dict[str, int] = {}
    try:
        for fd in Path(f"/proc/{pid}/fd").iterdir():
            try:
                target = os.readlink(fd)
                flags = next(line for line in Path(f"/proc/{pid}/fdinfo/{fd.name}").read_text().splitlines()
                             if line.startswith("flags:"))
                files[target] = int(flags.split()[1], 8)
            except (FileNotFoundError, StopIteration, OSError):
                continue
    except FileNotFoundError:
        pass
    return files


def kill_when(moment: str, test: Callable[[int], bool], timeout: float = 300) -> str | None:
    """kill -9 the process of an `ingest_inbox` `ingest` task once `test(pid)` holds; the run id
    of the task watched (None when no ingest task ran within `timeout`)."""
    end = time.monotonic() + timeout
    found = pid = None
    while pid is None and time.monotonic() < end:
        found = running_ti("ingest_inbox", "ingest")
        pid = task_runner(found[1]) if found else None
        time.sleep(0.05)
    while pid is not None and Path(f"/proc/{pid}").exists():
        if test(pid):
            os.kill(pid, signal.SIGKILL)
            say(f"   kill -9 {pid} ({moment})")
            return found[0] if found else None
        time.sleep(0.002)
    say(f"   the ingest task ended before the moment '{moment}': nothing killed")
    return found[0] if found else None


# --- what the log and the site show ---------------------------------------------------------------

def log_rows(sql: str) -> list[tuple[object, ...]]:
    """Rows from the event log (a reader; waits while a writer holds the store)."""
    sys.path.insert(0, str(REPO))
    from pipelines.log.store import EventStore

    with EventStore(STORE, busy_timeout=120).reader() as con:
        return con.execute(sql).fetchall()


def show(file_name: str | None = None, event_id: str | None = None) -> None:
    """Print what the log, the folders, the notices and the site show now."""
    if file_name:
        rows = log_rows("SELECT count(*) FROM events WHERE type = 'SourceFileIngested' "
                        f"AND payload->>'$.name' LIKE '%{file_name}'")
        boards = log_rows("SELECT count(*) FROM events WHERE type = 'BoardDealt'"
                          + (f" AND payload->>'$.event_id' = '{event_id}'" if event_id else ""))
        say(f"   log: {file_name} ingested {rows[0][0]} time(s); {boards[0][0]} BoardDealt event(s)"
            + (f" of {event_id}" if event_id else ""))
    published = log_rows("SELECT payload->>'$.event_id' || '/' || (payload->>'$.session_id') FROM events "
                         "WHERE type = 'ScoresPublished' ORDER BY position")
    scheduled = log_rows("SELECT count(*) FROM events WHERE type = 'SessionScheduled'")
    shown = ", ".join(str(r[0]) for r in published) or "none"
    say(f"   log: {scheduled[0][0]} session(s) scheduled, published: {shown}")
    say(f"   log: hash chain: {run('bridgeledger', 'verify', '--store', str(STORE), check=False).strip()[:160]}")
    for folder in ("inbox", "processed", "rejected"):
        names = sorted(str(p.relative_to(FED / folder)) for p in (FED / folder).rglob("*")
                       if p.is_file() or p.is_symlink()) if (FED / folder).is_dir() else []
        say(f"   {folder}/: {', '.join(names) or 'empty'}")
    notices = FED / "notifications.jsonl"
    lines = notices.read_text().splitlines() if notices.is_file() else []
    seen = int((WORK / "notices.seen").read_text()) if (WORK / "notices.seen").is_file() else 0
    for line in lines[seen:]:
        notice = json.loads(line)
        say(f"   notice: {notice['dag_id']}/{notice['task_id']}: {notice['error'][:200]}")
    (WORK / "notices.seen").write_text(str(len(lines)))
    pages = sorted((FED / "site").glob("e-*/s-*/index.html"))
    for page in pages:
        text = page.read_text()
        status = "provisional" if "provisional" in text else "final" if "final" in text else "?"
        folder = page.parent
        pending = sum("analysis pending" in p.read_text() for p in list(folder.glob("board-*.html"))[:200])
        say(f"   site: {folder.relative_to(FED / 'site')}: {status}, {len(list(folder.glob('board-*.html')))} "
            f"board page(s) ({pending} of the first 200 say 'analysis pending')")
    if not pages:
        say("   site: no session page yet")


# --- the cases ----------------------------------------------------------------------------------

def drop(source: Path, event: str, session: str, name: str | None = None) -> Path:
    """Copy a file into inbox/<event>/<session>/ (written aside, then renamed: never half-read)."""
    folder = FED / "inbox" / event / session
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / (name or source.name)
    shutil.copy(source, folder / f".{target.name}.part")
    (folder / f".{target.name}.part").rename(target)
    return target


def ingest_case(title: str, source: Path, event: str, moment: str, test: Callable[[Path, int], bool]) -> None:
    """Drop a file, trigger ingest_inbox, kill -9 its ingest task at `moment`, let the retries run."""
    say(f"CASE {title}")
    dropped = drop(source, event, "1")
    trigger("ingest_inbox")
    run_id = kill_when(moment, lambda pid: test(dropped, pid))
    if run_id:
        say(f"   ingest_inbox {run_id}: {finished('ingest_inbox', run_id)}; {tries('ingest_inbox', run_id)}")
    settled("ingest_inbox")
    settled("score_and_publish")
    show(dropped.name, event)


def not_writing(_: Path, pid: int) -> bool:
    """The task runs (reading the file) and does not have the store open for writing yet."""
    return not any(f.startswith(str(STORE)) and flags & os.O_RDWR for f, flags in open_files(pid).items())


def writing(_: Path, pid: int) -> bool:
    """The task has the store open for writing (the append's transaction)."""
    return any(f == str(STORE) and flags & os.O_RDWR for f, flags in open_files(pid).items())


def moved(dropped: Path, _: int) -> bool:
    """The file is in processed/ (its events committed, then it was moved) and the task still runs."""
    return (FED / "processed" / dropped.relative_to(FED / "inbox")).exists()


def reader_case() -> None:
    """A read-only connection held for 40 s while a file is ingested."""
    say("CASE a reader holds the store for 40 s while a file is ingested")
    holder = subprocess.Popen([sys.executable, "-c", "import duckdb, sys, time\n"
                               "con = duckdb.connect(sys.argv[1], read_only=True)\n"
                               "print('holding', flush=True)\ntime.sleep(40)", str(STORE)],
                              env=ENV, stdout=subprocess.PIPE, text=True)
    assert holder.stdout is not None
    holder.stdout.readline()
    started = time.monotonic()
    dropped = drop(WEEKEND / "friday" / "riverside_pairs.csv", "riverside-pairs-2026-11-20", "1")
    trigger("ingest_inbox")
    wait_for("the file to leave the inbox", lambda: not dropped.exists(), 600, 1)
    say(f"   the file left the inbox {time.monotonic() - started:.0f}s after the reader took the store")
    holder.wait()
    say(f"   ingest_inbox: {settled('ingest_inbox')}")
    settled("score_and_publish")
    show(dropped.name, "riverside-pairs-2026-11-20")


def link_case() -> None:
    """A link to a file outside the inbox and a link to a folder outside it."""
    say("CASE links in the inbox")
    outside = WORK / "outside"
    (outside / "folder").mkdir(parents=True)
    secret = outside / "secret.csv"
    secret.write_text("THIS-LINE-IS-PRIVATE,do not copy me\n")
    shutil.copy(WEEKEND / "friday" / "riverside_pairs.csv", outside / "folder" / "riverside_copy.csv")
    (FED / "inbox").mkdir(parents=True, exist_ok=True)
    (FED / "inbox" / "linked.csv").symlink_to(secret)
    (FED / "inbox" / "linked-folder").symlink_to(outside / "folder", target_is_directory=True)
    trigger("ingest_inbox")
    time.sleep(10)
    say(f"   ingest_inbox: {settled('ingest_inbox')}")
    leaked = [str(p.relative_to(WORK)) for p in [*FED.rglob("*.txt"), *HOME.joinpath("logs").rglob("*")]
              if p.is_file() and "THIS-LINE-IS-PRIVATE" in p.read_text(errors="replace")]
    say(f"   the linked file's content appears in: {', '.join(leaked) or 'nothing written'}")
    show("linked.csv")


def mark_failed_case() -> None:
    """A running analysis task marked failed through the REST API."""
    say("CASE a running task marked failed through the API")
    trigger("analyse_deals")
    found: list[tuple[str, str]] = []
    wait_for("an analyse task to run", lambda: found.append(ti) or True  # type: ignore[func-returns-value]
             if (ti := running_ti("analyse_deals", "analyse")) else False, 600, 1)
    if not found:
        return
    run_id = found[0][0]
    api("PATCH", f"/dags/analyse_deals/dagRuns/{run_id}/taskInstances/analyse", {"new_state": "failed"})
    say(f"   PATCH .../taskInstances/analyse new_state=failed; run: {finished('analyse_deals', run_id)}; "
        f"{tries('analyse_deals', run_id)}")
    wait_for("a notice", lambda: "analyse" in (FED / "notifications.jsonl").read_text()
             if (FED / "notifications.jsonl").is_file() else False, 120, 3)
    show()


def main() -> int:
    """Set up, run the cases, stop; 0 unless the set-up or the stop failed."""
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))  # the stop below runs on a kill too
    say(f"work folder: {WORK}")
    FED.mkdir(parents=True)
    run("airflow", "db", "migrate")
    run("airflow", "pools", "set", "bridgeledger_store", "1", "DuckDB has one writer")
    run("airflow", "pools", "set", "bridgeledger_site", "1", "one site build at a time")
    run("airflow", "pools", "set", "bridgeledger_site_big", "1", "one big events' site build at a time")
    for conditions in sorted((WEEKEND / "conditions").glob("*.toml")):
        run("bridgeledger", "register", "--store", str(STORE), "--event", conditions.stem, "--name", conditions.stem,
            "--conditions", str(conditions), "--at", "2026-11-20T18:00+01:00")
    for event in ("marathon-a", "marathon-b", "marathon-c"):
        run("bridgeledger", "register", "--store", str(STORE), "--event", event, "--name", event,
            "--conditions", str(WEEKEND / "conditions" / "national-pairs-2026.toml"), "--at", "2026-11-20T18:00+01:00")
    for event in ("marathon-a", "marathon-b", "marathon-c"):
        run(sys.executable, str(REPO / "scripts" / "big_handrecord.py"), str(BIG_BOARDS), str(WORK / f"{event}.pbn"),
            event)
    run(str(REPO / "scripts" / "airflow_local.sh"), "start")
    try:
        wait_for("the API", lambda: subprocess.run(["curl", "-fsS", f"http://127.0.0.1:{PORT}/api/v2/monitor/health"],
                                                   capture_output=True, check=False).returncode == 0, 360)
        listeners = subprocess.run(["ss", "-ltnpH", f"sport = :{PORT}"], capture_output=True, text=True,
                                   check=False).stdout
        if not any(f"pid={pid}," in listeners for pid in session_pids()):
            raise RuntimeError(f"the server on 127.0.0.1:{PORT} is not this run's: stopping ({listeners.strip()})")
        wait_for("the DAGs", lambda: "ingest_inbox" in run("airflow", "dags", "list", "-o", "plain", check=False),
                 240)
        wait_for("the password file", lambda: (HOME / "simple_auth_manager_passwords.json.generated").is_file(), 60)
        ingest_case("kill -9 before the commit (reading the file)", WORK / "marathon-a.pbn", "marathon-a",
                    "running, the store not open for writing yet", not_writing)
        ingest_case("kill -9 during the commit (the store open for writing)", WORK / "marathon-b.pbn", "marathon-b",
                    "the store open for writing", writing)
        ingest_case("kill -9 after the commit (the file moved to processed/)", WORK / "marathon-c.pbn", "marathon-c",
                    "the file moved, the task not ended", moved)
        reader_case()
        link_case()
        mark_failed_case()
    finally:
        stopped = subprocess.run([str(REPO / "scripts" / "airflow_local.sh"), "stop"], env=ENV, capture_output=True,
                                 text=True, check=False)
        say(stopped.stdout.strip().splitlines()[-1] if stopped.stdout.strip() else stopped.stderr[-500:])
        left = session_pids()
        say(f"processes of the run left after the stop: {left or 'none'}")
    return 0 if stopped.returncode == 0 and not left else 1


if __name__ == "__main__":
    sys.exit(main())
