"""The log's contract, one suite for both backends: what every caller may rely on."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import duckdb
import orjson
import polars as pl
import psycopg
import pytest

from pipelines.files.ingest import ingest_file
from pipelines.log.store import ConcurrencyError, EventStore, NewEvent, StoreError, event_frame
from pipelines.replay.live import refresh
from tests.conftest import RECORDED_AT, SAMPLE_DATA

AT = datetime(2026, 11, 21, 20, 0, tzinfo=UTC)


def penalties(n: int, stream: str = "session:e/1", start: int = 0) -> list[NewEvent]:
    return [NewEvent(stream, "PenaltyAwarded",
                     {"event_id": "e", "session_id": "1", "contestant_id": str(i), "amount": 1.0,
                      "unit": "MP", "reason": "slow play"}, AT + timedelta(minutes=i))
            for i in range(start, start + n)]


def test_append_assigns_positions_and_stream_versions(log_store: EventStore) -> None:
    first = log_store.append(penalties(3), recorded_at=RECORDED_AT)
    second = log_store.append(penalties(2, "session:e/2") + penalties(1, start=3), recorded_at=RECORDED_AT)
    assert (first.count, first.first_position, first.last_position) == (3, 1, 3)
    assert (second.count, second.first_position, second.last_position) == (3, 4, 6)
    events = log_store.read()
    assert [(e.position, e.stream_id, e.stream_version) for e in events] == [
        (1, "session:e/1", 1), (2, "session:e/1", 2), (3, "session:e/1", 3),
        (4, "session:e/2", 1), (5, "session:e/2", 2), (6, "session:e/1", 4),
    ]
    assert events[5].occurred_at == AT + timedelta(minutes=3)
    assert events[5].recorded_at == RECORDED_AT
    assert events[5].payload["contestant_id"] == "3"
    assert log_store.head() == 6
    assert log_store.stream_version("session:e/1") == 4 and log_store.stream_version("nobody") == 0
    assert log_store.has_event("session:e/2", "PenaltyAwarded")
    assert not log_store.has_event("session:e/2", "SessionScheduled")
    assert [e.position for e in log_store.read(stream_id="session:e/2")] == [4, 5]
    assert [e.position for e in log_store.read(up_to=2)] == [1, 2]


def test_a_stale_expected_version_appends_nothing(log_store: EventStore) -> None:
    log_store.append(penalties(2), recorded_at=RECORDED_AT)
    with pytest.raises(ConcurrencyError, match="at version 2, expected 1"):
        log_store.append(penalties(1, "session:e/2") + penalties(1, start=5), recorded_at=RECORDED_AT,
                         expected_versions={"session:e/1": 1})
    assert log_store.head() == 2 and log_store.stream_version("session:e/2") == 0
    done = log_store.append(penalties(1, start=5), recorded_at=RECORDED_AT, expected_versions={"session:e/1": 2})
    assert (done.first_position, log_store.stream_version("session:e/1")) == (3, 3)


def test_an_idempotency_key_appends_its_events_once(log_store: EventStore) -> None:
    first = log_store.append(penalties(3), recorded_at=RECORDED_AT, idempotency_key="ingest:abc")
    again = log_store.append(penalties(3), recorded_at=RECORDED_AT, idempotency_key="ingest:abc")
    other = log_store.append(penalties(1, start=7), recorded_at=RECORDED_AT, idempotency_key="ingest:def")
    assert not first.replayed and again.replayed
    assert (again.count, again.first_position, again.last_position, again.last_hash) == (
        0, 1, 3, first.last_hash)
    assert (other.first_position, log_store.head()) == (4, 4)
    commands = log_store.commands()
    assert commands.select("idempotency_key", "first_position", "last_position", "count").rows() == [
        ("ingest:abc", 1, 3, 3), ("ingest:def", 4, 4, 1)]


def test_payloads_come_back_as_the_bytes_that_were_hashed(log_store: EventStore) -> None:
    # Key order and spacing a JSON database type would rewrite; the chain covers these exact bytes.
    payload = '{"z": 1,  "a": "Ł\\u00e9 \\"q\\"", "m": [3, 1]}'
    frame = pl.DataFrame({"stream_id": ["s"], "type": ["Noted"], "payload": [payload],
                          "occurred_us": [1_700_000_000_123_456]})
    log_store.append_frame(frame, recorded_at=RECORDED_AT)
    rows = log_store.rows_after(0)
    assert rows["payload"].to_list() == [payload]
    assert rows["occurred_us"].to_list() == [1_700_000_000_123_456]
    assert orjson.loads(rows["payload"][0]) == {"z": 1, "a": 'Łé "q"', "m": [3, 1]}
    assert log_store.verify().ok


def test_verify_passes_a_whole_chain_and_names_its_length(log_store: EventStore) -> None:
    for i in range(4):
        log_store.append(penalties(5, f"session:e/{i}"), recorded_at=RECORDED_AT)
    report = log_store.verify(batch_size=7)  # batches that cut appends in two
    assert (report.ok, report.events) == (True, 20)


def test_rows_after_pages_through_the_log(log_store: EventStore) -> None:
    log_store.append(penalties(5), recorded_at=RECORDED_AT)
    page = log_store.rows_after(2, limit=2)
    assert page["position"].to_list() == [3, 4]
    assert page["prev_hash"][0] == log_store.rows_after(1, limit=1)["hash"][0]
    assert log_store.rows_after(5).height == 0


def test_readers_see_the_log_through_duckdb_tables(log_store: EventStore) -> None:
    log_store.append(penalties(3), recorded_at=RECORDED_AT)
    log_store.append(penalties(2, "session:e/2"), recorded_at=RECORDED_AT)
    with log_store.reader() as con:
        rows = con.execute("SELECT position, stream_id, payload->>'$.contestant_id' FROM events "
                           "ORDER BY position").fetchall()
    assert rows == [(1, "session:e/1", "0"), (2, "session:e/1", "1"), (3, "session:e/1", "2"),
                    (4, "session:e/2", "0"), (5, "session:e/2", "1")]


def test_rows_that_do_not_continue_the_chain_are_not_imported(log_store: EventStore) -> None:
    log_store.append(penalties(2), recorded_at=RECORDED_AT)
    stray = log_store.rows_after(1)  # row 2 again: its prev_hash is row 1's, not the tip's
    with pytest.raises(StoreError, match="do not continue this log's chain"):
        log_store.import_rows(stray)
    assert log_store.head() == 2


def test_event_frame_and_append_agree(log_store: EventStore) -> None:
    events = penalties(2)
    log_store.append_frame(event_frame(events), recorded_at=RECORDED_AT)
    assert [e.payload for e in log_store.read()] == [dict(e.payload) for e in events]


def test_a_session_reads_what_it_appended(log_store: EventStore) -> None:
    with log_store.session():
        log_store.append(penalties(2), recorded_at=RECORDED_AT)
        with log_store.reader() as con:
            assert con.execute("SELECT count(*) FROM events").fetchone() == (2,)
        log_store.append(penalties(1, "session:e/2"), recorded_at=RECORDED_AT)
        with log_store.reader() as con:
            assert con.execute("SELECT max(position) FROM events").fetchone() == (3,)


def test_a_session_lends_one_connection_to_nested_readers_and_writers(log_store: EventStore) -> None:
    log_store.append(penalties(2), recorded_at=RECORDED_AT)
    other = EventStore(log_store.location, analytics=log_store.path if log_store.backend == "postgresql" else None)
    with log_store.session(), log_store.writer() as outer:
        outer.execute("CREATE TABLE IF NOT EXISTS derived_notes (n INTEGER)")
        with log_store.reader() as inner, other.reader() as borrowed:  # no second attach of the file
            assert inner is outer and borrowed is outer
            assert inner.execute("SELECT count(*) FROM events").fetchone() == (2,)


def test_derived_tables_live_in_the_analytics_file_never_in_the_log(log_store: EventStore) -> None:
    """Projections are kept beside the log: its own database holds `events` and `commands` only."""
    ingest_file(log_store, SAMPLE_DATA / "club_championship_traveller.csv", recorded_at=RECORDED_AT)
    refresh(log_store)
    assert _log_tables(log_store) == ["commands", "events"]
    with log_store.reader() as con:
        kept = {row[0] for row in con.execute(
            "SELECT table_name FROM duckdb_tables() WHERE database_name = current_database()").fetchall()}
        scored = con.execute("SELECT count(*) FROM standings").fetchone()
    assert {"projection_board_scores", "projection_standings"} <= kept
    assert scored is not None and scored[0] > 0


def _log_tables(store: EventStore) -> list[str]:
    if store.log_file is not None:
        with duckdb.connect(str(store.log_file), read_only=True) as con:
            return sorted(row[0] for row in con.execute("SELECT table_name FROM duckdb_tables()").fetchall())
    with psycopg.connect(store.location) as pg:
        rows = pg.execute("SELECT tablename FROM pg_tables WHERE schemaname = 'public'").fetchall()
    return sorted(str(row[0]) for row in rows)
