"""The event log's contract: append-only, one transaction, hash chain, concurrency, upcasting."""

from __future__ import annotations

import shutil
import subprocess
import sys
import textwrap
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import duckdb
import polars as pl
import pytest

import pipelines.log.store as store_module
from models.upcasting import Computed, Dropped, Upcaster, Upcasters
from pipelines.log.store import (
    ConcurrencyError,
    EventStore,
    NewEvent,
    StoreBusy,
    StoreError,
    event_frame,
    table_columns,
)
from tests.conftest import RECORDED_AT

AT = datetime(2026, 11, 21, 20, 0, tzinfo=UTC)


def _events(n: int, stream: str = "session:e/1") -> list[NewEvent]:
    return [NewEvent(stream, "PenaltyAwarded",
                     {"event_id": "e", "session_id": "1", "contestant_id": str(i), "amount": 1.0,
                      "unit": "MP", "reason": "slow play"}, AT + timedelta(minutes=i))
            for i in range(n)]


def test_append_assigns_positions_and_stream_versions(store: EventStore) -> None:
    first = store.append(_events(3), recorded_at=RECORDED_AT)
    second = store.append(_events(2, "session:e/2") + _events(1), recorded_at=RECORDED_AT)
    assert (first.count, first.first_position, first.last_position) == (3, 1, 3)
    assert (second.first_position, second.last_position) == (4, 6)
    events = store.read()
    assert [(e.position, e.stream_id, e.stream_version) for e in events] == [
        (1, "session:e/1", 1), (2, "session:e/1", 2), (3, "session:e/1", 3),
        (4, "session:e/2", 1), (5, "session:e/2", 2), (6, "session:e/1", 4),
    ]
    assert events[1].occurred_at == AT + timedelta(minutes=1)
    assert events[1].payload["contestant_id"] == "1"
    assert store.head() == 6


def test_has_event_looks_for_a_type_on_one_stream(store: EventStore) -> None:
    assert not store.has_event("session:e/1", "PenaltyAwarded")  # no store file yet
    store.append(_events(2) + _events(1, "session:e/2"), recorded_at=RECORDED_AT)
    assert store.has_event("session:e/1", "PenaltyAwarded") and store.has_event("session:e/2", "PenaltyAwarded")
    assert not store.has_event("session:e/1", "SessionScheduled")
    assert not store.has_event("session:e/3", "PenaltyAwarded")
    with store.session():
        assert store.has_event("session:e/2", "PenaltyAwarded")


def test_expected_version_mismatch_is_a_concurrency_error_and_appends_nothing(store: EventStore) -> None:
    store.append(_events(2), recorded_at=RECORDED_AT)
    with pytest.raises(ConcurrencyError, match="expected 1"):
        store.append(_events(5), recorded_at=RECORDED_AT, expected_versions={"session:e/1": 1})
    assert store.head() == 2


def test_the_unique_key_refuses_a_second_writer_of_the_same_version(store: EventStore) -> None:
    """Two writers in one process who both read version 0 and both append version 1."""
    store.append(_events(1, "source:abc"), recorded_at=RECORDED_AT)
    with pytest.raises(ConcurrencyError):
        store.append(_events(1, "source:abc"), recorded_at=RECORDED_AT, expected_versions={"source:abc": 0})
    assert [e.stream_version for e in store.read(stream_id="source:abc")] == [1]


def test_a_failed_append_leaves_nothing_behind(store: EventStore) -> None:
    store.append(_events(1), recorded_at=RECORDED_AT)
    naive = NewEvent("session:e/1", "PenaltyAwarded", {}, datetime(2026, 1, 1))  # no timezone
    with pytest.raises(ValueError, match="no timezone"):
        store.append([*_events(3), naive], recorded_at=RECORDED_AT)
    assert store.head() == 1
    assert store.verify().ok


def _tamper(path: Path, sql: str) -> EventStore:
    con = duckdb.connect(str(path))
    con.execute(sql)
    con.close()
    return EventStore(path)


@pytest.mark.parametrize(("sql", "bad_position"), [
    ("UPDATE events SET payload = '{\"amount\": 99}' WHERE position = 3", 3),
    ("UPDATE events SET occurred_at = occurred_at + INTERVAL 1 MINUTE WHERE position = 2", 2),
    ("DELETE FROM events WHERE position = 4", 5),
    ("INSERT INTO events SELECT position + 100, stream_id, stream_version + 100, type, schema_version, "
     "payload, occurred_at, recorded_at, source_sha256, prev_hash, hash FROM events WHERE position = 2", 102),
])
def test_verify_names_the_first_tampered_position(store: EventStore, tmp_path: Path, sql: str,
                                                  bad_position: int) -> None:
    store.append(_events(5), recorded_at=RECORDED_AT)
    assert store.verify().ok
    copy = tmp_path / "copy.duckdb"
    shutil.copy(store.path, copy)
    report = _tamper(copy, sql).verify()
    assert not report.ok
    assert report.first_bad_position == bad_position
    assert store.verify().ok  # the original is untouched


def test_a_second_process_waits_then_reports_busy(store: EventStore) -> None:
    store.append(_events(1), recorded_at=RECORDED_AT)
    holder = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(f"""
            import duckdb, sys, time
            con = duckdb.connect({str(store.path)!r})
            print("locked", flush=True)
            time.sleep(4)
        """)],
        stdout=subprocess.PIPE, text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
        impatient = EventStore(store.path, busy_timeout=0.5)
        started = time.monotonic()
        with pytest.raises(StoreBusy, match="busy"):
            impatient.append(_events(1), recorded_at=RECORDED_AT)
        assert time.monotonic() - started >= 0.5
        patient = EventStore(store.path, busy_timeout=20)
        patient.append(_events(2), recorded_at=RECORDED_AT)  # waits for the holder to finish
    finally:
        holder.wait(timeout=30)
    assert store.head() == 3
    assert store.verify().ok


def test_upcasters_bring_old_payloads_to_the_current_version(store: EventStore) -> None:
    """A frozen v0-style payload (made-up older shape: `points` instead of `amount`)."""
    old_payload: dict[str, Any] = {"event_id": "e", "session_id": "1", "contestant_id": "7", "points": 3,
                                   "unit": "MP", "reason": "late"}
    store.append([NewEvent("session:e/1", "PenaltyAwarded", old_payload, AT, schema_version=0)],
                 recorded_at=RECORDED_AT)
    registry = Upcasters()
    registry.add(Upcaster("PenaltyAwarded", 0, (Computed("amount", pl.col("points").cast(pl.Float64),
                                                         {"points": int}),
                                                Dropped("points"))))

    [event] = store.read(upcasters=registry)
    assert (event.schema_version, event.payload["amount"], "points" in event.payload) == (1, 3.0, False)
    with duckdb.connect(str(store.path), read_only=True) as con:
        assert con.execute("SELECT schema_version FROM events").fetchall() == [(0,)]  # stored row unchanged
    with pytest.raises(StoreError, match="no upcaster for PenaltyAwarded v0"):
        store.read()


def test_a_columnar_batch_is_stored_exactly_as_the_same_events_one_by_one(store: EventStore, tmp_path: Path) -> None:
    """`append_frame` (bulk writers) and `append` (NewEvents) write identical rows, hashes included."""
    events = _events(4) + _events(2, "session:e/2")
    store.append(events, recorded_at=RECORDED_AT, source_sha256="ab" * 32)
    other = EventStore(tmp_path / "frame.duckdb")
    other.append_frame(event_frame(events).drop("schema_version"), recorded_at=RECORDED_AT,
                       source_sha256="ab" * 32)
    query = ("SELECT position, stream_id, stream_version, type, schema_version, payload::VARCHAR,"
             " epoch_us(occurred_at), epoch_us(recorded_at), source_sha256, prev_hash, hash FROM events"
             " ORDER BY position")
    with store.reader() as left, other.reader() as right:
        assert left.execute(query).fetchall() == right.execute(query).fetchall()
    assert other.read()[0].schema_version == 1


def test_a_columnar_batch_needs_its_columns(store: EventStore) -> None:
    with pytest.raises(ValueError, match="occurred_us"):
        store.append_frame(event_frame(_events(1)).drop("occurred_us"), recorded_at=RECORDED_AT)
    assert store.head() == 0


def test_a_large_append_chained_in_chunks_verifies_and_fails_whole(store: EventStore,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """Chunks are hashed while the previous one is inserted; the chain and the transaction span them."""
    monkeypatch.setattr(store_module, "_CHUNK_ROWS", 3)
    monkeypatch.setattr(store_module, "_MIN_CHUNK_ROWS", 1)
    store.append(_events(10), recorded_at=RECORDED_AT)
    assert [e.stream_version for e in store.read()] == list(range(1, 11))
    assert store.verify().ok
    store.append(_events(1, "source:x"), recorded_at=RECORDED_AT)
    # A racing writer took source:x version 1 after we read the versions: the UNIQUE key refuses
    # the third chunk, and the first two roll back with it.
    monkeypatch.setattr(store_module, "_current_versions", lambda con, streams: {})
    with pytest.raises(ConcurrencyError):
        store.append(_events(6, "session:e/2") + _events(1, "source:x"), recorded_at=RECORDED_AT)
    assert store.head() == 11
    assert store.read(stream_id="session:e/2") == []
    assert store.verify().ok


def test_a_session_shares_one_connection_for_reads_and_appends(store: EventStore) -> None:
    with store.session():
        store.append(_events(2), recorded_at=RECORDED_AT)
        assert store.stream_version("session:e/1") == 2
        store.append(_events(1), recorded_at=RECORDED_AT)
        assert [e.stream_version for e in store.read()] == [1, 2, 3]
    assert store.head() == 3


def test_another_store_of_the_same_file_joins_the_session_on_its_thread(store: EventStore,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """A step that names the store by its path (an Airflow task function) inside a caller's session
    borrows the session's connection; before, it failed to attach the file a second time."""
    attached: list[bool] = []
    real_attach = store_module._attach
    monkeypatch.setattr(store_module, "_attach",
                        lambda path, ro, **files: attached.append(ro) or real_attach(path, ro, **files))
    with store.session():
        by_path = EventStore(str(store.path.parent / ".." / store.path.parent.name / store.path.name))
        by_path.append(_events(2), recorded_at=RECORDED_AT)
        assert store.stream_version("session:e/1") == 2
        with by_path.session():
            assert by_path.head() == 2
    assert attached == [False]
    assert store.verify().ok


def test_a_session_lends_its_connection_only_on_its_own_thread(store: EventStore) -> None:
    """Another thread must never share a DuckDB connection in use: it opens its own, and finds the
    file attached by this process (DuckDB's own refusal, reported as a store error)."""
    from concurrent.futures import ThreadPoolExecutor

    with store.session(), ThreadPoolExecutor(max_workers=1) as other:
        store.append(_events(1), recorded_at=RECORDED_AT)
        with pytest.raises(StoreError, match="already attached"):
            other.submit(lambda: EventStore(store.path).head()).result()
    assert EventStore(store.path).head() == 1


_SETTINGS = "SELECT current_setting('checkpoint_threshold'), current_setting('threads')"


def _store_copied_without_its_wal(store: EventStore, tmp_path: Path) -> int:
    """How many events a copy of the `.duckdb` file alone holds (what a backup of the file would)."""
    copy = tmp_path / "copy.duckdb"
    shutil.copyfile(store.path, copy)
    with duckdb.connect(str(copy), read_only=True) as con:
        return int(con.execute("SELECT count(*) FROM events").fetchall()[0][0])


def test_a_large_append_is_in_the_database_file_as_soon_as_it_commits(
        store: EventStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A batch of a megabyte or more is checkpointed at commit, not left in the WAL for the close."""
    monkeypatch.setattr(store_module, "_CHECKPOINT_AT_COMMIT_BYTES", 1_000)  # 10 of these events
    store.append(_events(1), recorded_at=RECORDED_AT)  # closing the connection checkpoints it
    with store.session():
        store.append(_events(3), recorded_at=RECORDED_AT)
        assert _store_copied_without_its_wal(store, tmp_path) == 1  # small: in the WAL until the close
        store.append(_events(20), recorded_at=RECORDED_AT)
        assert _store_copied_without_its_wal(store, tmp_path) == 24
        with duckdb.connect() as fresh:
            defaults = fresh.execute(_SETTINGS).fetchall()
        with store.reader() as con:  # the settings an append changes are back to DuckDB's defaults
            assert con.execute(_SETTINGS).fetchall() == defaults == [("16.0 MiB", defaults[0][1])]
    assert store.verify().ok and store.head() == 24


def _row_groups(store: EventStore) -> list[int]:
    with store.reader() as con:
        rows = con.execute("SELECT row_group_id, max(start + count) - min(start)"
                           " FROM pragma_storage_info('event_log.main.events') WHERE column_name = 'position'"
                           " GROUP BY ALL ORDER BY 1").fetchall()
    return [int(count) for _, count in rows]


def test_every_connection_keeps_the_store_in_small_row_groups(store: EventStore) -> None:
    """A checkpoint rewrites the last row group with what was appended to it: small groups keep that cheap."""
    events = event_frame(_events(1)).select(pl.all().repeat_by(20_000).explode())
    store.append_frame(events, recorded_at=RECORDED_AT)
    assert _row_groups(store) == [16_384, 3_616]
    store.append_frame(events, recorded_at=RECORDED_AT)  # a second connection, after a reopen
    assert _row_groups(store) == [16_384, 16_384, 7_232]
    assert store.head() == 40_000 and store.verify().ok


def test_new_positions_come_from_the_sequence_gaps_and_all() -> None:
    with duckdb.connect() as con:
        con.execute("ATTACH ':memory:' AS event_log")
        con.execute("CREATE SEQUENCE event_log.main.event_position START 1")
        assert store_module._next_positions(con, 4).to_list() == [1, 2, 3, 4]
        assert store_module._next_positions(con, 2).to_list() == [5, 6]
    with duckdb.connect() as con:  # a sequence that leaves gaps: the positions are drawn one by one
        con.execute("ATTACH ':memory:' AS event_log")
        con.execute("CREATE SEQUENCE event_log.main.event_position START 10 INCREMENT BY 3")
        assert store_module._next_positions(con, 3).to_list() == [19, 22, 25]


def test_table_columns_names_what_the_store_holds_and_leaves_out_the_rest(store: EventStore) -> None:
    store.append([NewEvent("s", "T", {"a": 1}, datetime(2026, 11, 21, tzinfo=UTC))], recorded_at=RECORDED_AT)
    with store.writer() as con:
        con.execute("CREATE TABLE derived_x (b INTEGER, a VARCHAR)")
        con.execute("CREATE VIEW derived_v AS SELECT a FROM derived_x")
        found = table_columns(con, ["derived_x", "missing", "derived_v", "events"])
    assert list(found) == ["derived_x", "derived_v", "events"]
    assert found["derived_x"] == ["b", "a"] and found["derived_v"] == ["a"]
    assert found["events"][:3] == ["position", "stream_id", "stream_version"]


def _memory_settings(store: EventStore) -> tuple[str, str]:
    with store.reader() as con:
        row = con.execute("SELECT current_setting('memory_limit'), current_setting('temp_directory')").fetchall()[0]
    return str(row[0]), str(row[1])


def test_every_connection_holds_duckdb_to_a_memory_limit_and_spills_beside_the_analytics_file(
        store: EventStore, monkeypatch: pytest.MonkeyPatch) -> None:
    """DuckDB's own limit (80% of the machine) let a score keep every page of the log it touched."""
    store.append(_events(1), recorded_at=RECORDED_AT)
    monkeypatch.delenv(store_module.DUCKDB_MEMORY_ENV, raising=False)
    spill = str(store.analytics_path.with_name(f"{store.analytics_path.name}.tmp"))
    assert store_module.DUCKDB_MEMORY == "2GB"
    assert _memory_settings(store) == ("1.8 GiB", spill)  # DuckDB shows 2GB (10^9 bytes) in GiB
    monkeypatch.setenv(store_module.DUCKDB_MEMORY_ENV, "512MB")
    assert _memory_settings(store) == ("488.2 MiB", spill)


def test_a_memory_limit_that_is_not_a_size_is_refused_by_name(store: EventStore,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    store.append(_events(1), recorded_at=RECORDED_AT)
    monkeypatch.setenv(store_module.DUCKDB_MEMORY_ENV, "lots")
    with pytest.raises(StoreError, match=r"\$BRIDGELEDGER_DUCKDB_MEMORY is 'lots', not a size"):
        store.head()
