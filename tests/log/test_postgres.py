"""What PostgreSQL itself guarantees for the log, and many writers at once."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import psycopg
import pytest

from pipelines.log.errors import MirrorMismatch
from pipelines.log.postgres import PostgresLog, redacted
from pipelines.log.store import EventStore
from pipelines.log.transfer import compare_logs, copy_log
from tests.conftest import RECORDED_AT
from tests.log.test_contract import penalties

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def pg_store(pg_url: str, tmp_path: Path) -> EventStore:
    return EventStore(pg_url, analytics=tmp_path / "analytics.duckdb", busy_timeout=2.0)


@pytest.mark.parametrize("statement", [
    "UPDATE events SET payload = '{}' WHERE position = 1",
    "DELETE FROM events WHERE position = 2",
    "TRUNCATE events",
    "UPDATE commands SET count = 9",
    "DELETE FROM commands",
])
def test_the_database_refuses_to_change_the_log(pg_store: EventStore, pg_url: str, statement: str) -> None:
    pg_store.append(penalties(2), recorded_at=RECORDED_AT, idempotency_key="k")
    with psycopg.connect(pg_url, autocommit=True) as con, pytest.raises(
            psycopg.errors.InsufficientPrivilege, match="append-only"):
        con.execute(statement)
    assert pg_store.head() == 2 and pg_store.verify().ok


def test_a_forked_stream_is_refused_by_the_unique_key(pg_store: EventStore, pg_url: str) -> None:
    pg_store.append(penalties(1), recorded_at=RECORDED_AT)
    with psycopg.connect(pg_url, autocommit=True) as con, pytest.raises(psycopg.errors.UniqueViolation):
        con.execute("INSERT INTO events SELECT 2, stream_id, stream_version, type, schema_version, payload, "
                    "occurred_at, recorded_at, source_sha256, hash, hash FROM events WHERE position = 1")


def test_verify_finds_a_row_edited_behind_the_guards(pg_store: EventStore, pg_url: str) -> None:
    pg_store.append(penalties(4), recorded_at=RECORDED_AT)
    with psycopg.connect(pg_url, autocommit=True) as con:  # a superuser can switch the guard off
        con.execute("ALTER TABLE events DISABLE TRIGGER events_append_only")
        con.execute("UPDATE events SET payload = replace(payload, 'slow play', 'fast play') WHERE position = 3")
    report = pg_store.verify()
    assert (report.ok, report.first_bad_position, report.reason) == (
        False, 3, "this row was edited after it was written")


def test_verify_finds_events_cut_from_the_end(pg_store: EventStore, pg_url: str) -> None:
    pg_store.append(penalties(4), recorded_at=RECORDED_AT)
    with psycopg.connect(pg_url, autocommit=True) as con:
        con.execute("ALTER TABLE events DISABLE TRIGGER events_append_only")
        con.execute("DELETE FROM events WHERE position = 4")
    report = pg_store.verify()
    assert (report.ok, report.first_bad_position) == (False, 4)
    assert "shorter than a head it has seen" in str(report.reason)


def test_an_analytics_file_of_another_log_is_refused(pg_url: str, tmp_path: Path, postgres_server: str) -> None:
    analytics = tmp_path / "analytics.duckdb"
    first = EventStore(pg_url, analytics=analytics)
    first.append(penalties(2), recorded_at=RECORDED_AT)
    assert first.refresh_mirror() == 2
    with psycopg.connect(postgres_server, autocommit=True) as con:
        con.execute(f'CREATE DATABASE "{Path(pg_url).name}_b"')
    other = EventStore(f"{pg_url}_b", analytics=analytics)
    other.append(penalties(3, "another"), recorded_at=RECORDED_AT)  # appending never reads the file ...
    with pytest.raises(MirrorMismatch, match="mirrors another log"), other.reader():
        pass  # ... but nobody reads another log's events as this one's
    with psycopg.connect(postgres_server, autocommit=True) as con:
        con.execute(f'DROP DATABASE "{Path(pg_url).name}_b" WITH (FORCE)')


def test_readers_never_wait_for_a_writer_and_never_skip_a_late_commit(pg_store: EventStore, pg_url: str) -> None:
    pg_store.append(penalties(2), recorded_at=RECORDED_AT)
    pg_store.refresh_mirror()
    # Another writer is inside its append: it holds the lock that orders appends (as a writer that
    # has drawn its positions and not yet committed does).
    holder = psycopg.connect(pg_url)
    holder.execute("SELECT pg_advisory_xact_lock(%s)", [0x6272_6964_6765])
    appended = threading.Event()
    writer = threading.Thread(target=lambda: (pg_store.append(penalties(3, "late"), recorded_at=RECORDED_AT),
                                              appended.set()))
    writer.start()
    time.sleep(0.5)
    assert not appended.is_set()  # this append queues behind the one in progress
    assert pg_store.refresh_mirror() == 0  # and a reader neither waits nor sees half of anything
    holder.rollback()
    holder.close()
    writer.join(10)
    assert appended.is_set()
    with pg_store.reader() as con:
        assert con.execute("SELECT list(position ORDER BY position) FROM events").fetchone() == ([1, 2, 3, 4, 5],)


_WRITER = textwrap.dedent("""
    import sys
    from datetime import UTC, datetime, timedelta
    from pipelines.log.store import ConcurrencyError, EventStore, NewEvent
    url, stream, rounds, guarded = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4] == "1"
    store = EventStore(url, analytics=sys.argv[5])
    at = datetime(2026, 11, 21, 20, 0, tzinfo=UTC)
    won = lost = 0
    for i in range(rounds):
        events = [NewEvent(stream, "PenaltyAwarded", {"event_id": "e", "session_id": "1",
                  "contestant_id": f"{sys.argv[6]}-{i}-{k}", "amount": 1.0, "unit": "MP", "reason": "r"},
                  at + timedelta(seconds=i)) for k in range(25)]
        while True:
            expected = {stream: store.stream_version(stream)} if guarded else None
            try:
                store.append(events, recorded_at=at, expected_versions=expected)
                won += 1
                break
            except ConcurrencyError:
                lost += 1  # a director's command rebuilds and decides again
    print(won, lost)
""")


def _writers(pg_url: str, tmp_path: Path, specs: list[tuple[str, bool]], rounds: int) -> list[tuple[int, int]]:
    processes = [subprocess.Popen([sys.executable, "-c", _WRITER, pg_url, stream, str(rounds), "1" if guarded else "0",
                                   str(tmp_path / f"a{n}.duckdb"), f"w{n}"],
                                  cwd=REPO, stdout=subprocess.PIPE, text=True)
                 for n, (stream, guarded) in enumerate(specs)]
    outputs = [process.communicate(timeout=240)[0].split() for process in processes]
    assert all(process.returncode == 0 for process in processes)
    return [(int(won), int(lost)) for won, lost in outputs]


def test_four_writers_on_four_streams_lose_and_duplicate_nothing(pg_store: EventStore, pg_url: str,
                                                                 tmp_path: Path) -> None:
    results = _writers(pg_url, tmp_path, [(f"session:e/{n}", False) for n in range(4)], rounds=20)
    assert [won for won, _ in results] == [20, 20, 20, 20]
    with psycopg.connect(pg_url) as con:
        count, distinct, streams = con.execute(
            "SELECT count(*), count(DISTINCT payload::json->>'contestant_id'), count(DISTINCT stream_id) "
            "FROM events").fetchone() or (0, 0, 0)
        gaps = con.execute("SELECT count(*) FROM (SELECT stream_id, max(stream_version) - count(*) AS gap "
                           "FROM events GROUP BY stream_id) s WHERE gap <> 0").fetchone()
    assert (count, distinct, streams) == (4 * 20 * 25, 4 * 20 * 25, 4)
    assert gaps == (0,)
    assert pg_store.verify().ok and pg_store.head() == 2000


def test_two_directors_on_one_stream_never_both_win(pg_store: EventStore, pg_url: str, tmp_path: Path) -> None:
    results = _writers(pg_url, tmp_path, [("session:e/1", True), ("session:e/1", True)], rounds=15)
    assert [won for won, _ in results] == [15, 15]  # each retried after losing, none was lost
    with psycopg.connect(pg_url) as con:
        versions = con.execute("SELECT list FROM (SELECT array_agg(stream_version ORDER BY position) AS list "
                               "FROM events) s").fetchone()
        distinct = con.execute("SELECT count(DISTINCT payload::json->>'contestant_id') FROM events").fetchone()
    assert versions is not None and versions[0] == list(range(1, 751))
    assert distinct == (750,)
    assert pg_store.verify().ok


_KILLED = textwrap.dedent("""
    import sys
    from datetime import UTC, datetime, timedelta
    from pipelines.log.store import EventStore, NewEvent
    store = EventStore(sys.argv[1], analytics=sys.argv[2])
    at = datetime(2026, 11, 21, 20, 0, tzinfo=UTC)
    events = [NewEvent("big", "PenaltyAwarded", {"event_id": "e", "session_id": "1", "contestant_id": str(k),
              "amount": 1.0, "unit": "MP", "reason": "r" * 200}, at) for k in range(int(sys.argv[3]))]
    print("appending", flush=True)
    store.append(events, recorded_at=at, idempotency_key="task:ingest:big")
    print("appended", flush=True)
    sys.stdin.readline()  # the task is killed after its commit, before it reports
""")


def _start_killed_task(pg_url: str, tmp_path: Path, events: int) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-c", _KILLED, pg_url, str(tmp_path / "task.duckdb"), str(events)],
                            cwd=REPO, stdout=subprocess.PIPE, stdin=subprocess.PIPE, text=True,
                            start_new_session=True)


def test_a_task_killed_during_its_append_and_retried_leaves_one_copy(pg_store: EventStore, pg_url: str,
                                                                       tmp_path: Path) -> None:
    task = _start_killed_task(pg_url, tmp_path, 60_000)
    assert task.stdout is not None and task.stdout.readline().strip() == "appending"
    with psycopg.connect(pg_url, autocommit=True) as con:  # kill it while its COPY is under way
        for _ in range(400):
            row = con.execute("SELECT count(*) FROM pg_stat_activity WHERE query LIKE 'COPY events%%'").fetchone()
            if row and row[0]:
                break
            time.sleep(0.01)
    os.killpg(task.pid, signal.SIGKILL)
    task.wait(30)
    assert pg_store.head() == 0  # nothing of the killed transaction
    retried = pg_store.append(penalties(60_000, "big"), recorded_at=RECORDED_AT, idempotency_key="task:ingest:big")
    again = pg_store.append(penalties(60_000, "big"), recorded_at=RECORDED_AT, idempotency_key="task:ingest:big")
    assert (retried.count, again.count, again.replayed, pg_store.head()) == (60_000, 0, True, 60_000)


def test_a_task_killed_after_its_commit_and_retried_appends_nothing(pg_store: EventStore, pg_url: str,
                                                                    tmp_path: Path) -> None:
    task = _start_killed_task(pg_url, tmp_path, 500)
    assert task.stdout is not None
    assert [task.stdout.readline().strip() for _ in range(2)] == ["appending", "appended"]
    os.killpg(task.pid, signal.SIGKILL)
    task.wait(30)
    retried = pg_store.append(penalties(500, "big"), recorded_at=RECORDED_AT, idempotency_key="task:ingest:big")
    assert (retried.replayed, retried.first_position, retried.last_position, pg_store.head()) == (True, 1, 500, 500)


def test_a_log_moves_to_postgresql_and_back_hash_for_hash(pg_store: EventStore, tmp_path: Path) -> None:
    original = EventStore(tmp_path / "original.duckdb")
    for n in range(3):
        original.append(penalties(40, f"session:e/{n}"), recorded_at=RECORDED_AT, idempotency_key=f"file:{n}")
    there = copy_log(original, pg_store, batch_rows=50)
    back_store = EventStore(tmp_path / "back.duckdb")
    back = copy_log(pg_store, back_store, batch_rows=50)
    assert (there.ok, there.events, there.commands) == (True, 120, 3)
    assert (back.ok, back.events, back.commands) == (True, 120, 3)
    assert back.last_hash == there.last_hash == original.tip().hash  # type: ignore[union-attr]
    assert original.rows_after(0).equals(back_store.rows_after(0))
    assert compare_logs(original, back_store) is None
    again = back_store.append(penalties(40, "session:e/0"), recorded_at=RECORDED_AT, idempotency_key="file:0")
    assert again.replayed and back_store.head() == 120  # the keys moved with the events
    assert back_store.append(penalties(1, "new"), recorded_at=RECORDED_AT).first_position == 121


def test_a_copy_that_differs_is_named(pg_store: EventStore, tmp_path: Path, pg_url: str) -> None:
    original = EventStore(tmp_path / "original.duckdb")
    original.append(penalties(5), recorded_at=RECORDED_AT)
    copy_log(original, pg_store)
    with psycopg.connect(pg_url, autocommit=True) as con:
        con.execute("ALTER TABLE events DISABLE TRIGGER events_append_only")
        con.execute("UPDATE events SET source_sha256 = 'x' WHERE position = 4")
    assert compare_logs(original, pg_store) == "position 4: the copy differs in source_sha256"


def test_urls_are_shown_without_their_password() -> None:
    assert redacted("postgresql://ranker:s3cr%40t@db.example:5432/fed") == "postgresql://ranker:***@db.example:5432/fed"
    assert repr(PostgresLog("postgresql://u:p@h/d")) == "PostgresLog('postgresql://u:***@h/d')"
