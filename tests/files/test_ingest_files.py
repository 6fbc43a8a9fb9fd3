"""Many files in one call (`pipelines.files.ingest.ingest_files`): one connection shared while it is short.

BBO sends a tournament as hundreds of one-board files; opening and closing the store for each cost
a third of its ingest. The files share one connection until the hold time runs out, each still in
its own transaction, and each file's outcome is its own.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

import pipelines.log.store as store_module
from pipelines.files.ingest import IngestOptions, IngestRejected, IngestReport, ingest_file, ingest_files
from pipelines.log.store import EventStore, StoreBusy
from tests.conftest import RECORDED_AT, SAMPLE_DATA

HEADER = "event,session,board,section,table,ns,ew,contract,declarer,result\n"


def _travellers(folder: Path, count: int) -> list[Path]:
    """`count` one-board CSV files of one session, each a different table."""
    paths = []
    for table in range(1, count + 1):
        path = folder / f"t{table:02d}.csv"
        path.write_text(HEADER + f"e,1,1,A,{table},{table},{table + 50},4S,N,{8 + table % 4}\n")
        paths.append(path)
    return paths


class _Ticks:
    """A clock that moves one second each time it is read."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        self.now += 1.0
        return self.now


@pytest.fixture
def opens(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[bool]]:
    """Every connection opened to a store file (True when read-only)."""
    opened: list[bool] = []
    attach = store_module._attach

    def counting(path: Path, read_only: bool, **files: Path | None) -> object:
        opened.append(read_only)
        return attach(path, read_only, **files)

    monkeypatch.setattr(store_module, "_attach", counting)
    yield opened


def test_files_share_one_connection_and_give_the_events_of_one_call_each(
        tmp_path: Path, opens: list[bool]) -> None:
    paths = _travellers(tmp_path, 8)
    shared = EventStore(tmp_path / "shared.duckdb")
    outcomes = list(ingest_files(shared, paths, recorded_at=RECORDED_AT))
    assert len(opens) == 1 and opens == [False]
    assert [path for path, _ in outcomes] == paths
    reports = [outcome for _, outcome in outcomes]
    assert all(isinstance(r, IngestReport) and not r.already_ingested for r in reports)
    alone = EventStore(tmp_path / "alone.duckdb")
    for path in paths:
        ingest_file(alone, path, recorded_at=RECORDED_AT)
    assert _events(shared) == _events(alone)
    assert len(_events(shared)) == shared.head() == sum(r.events for r in reports if isinstance(r, IngestReport))
    assert shared.verify().first_bad_position is None


def test_the_connection_is_let_go_when_the_hold_time_runs_out(tmp_path: Path, opens: list[bool]) -> None:
    paths = _travellers(tmp_path, 5)
    store = EventStore(tmp_path / "log.duckdb")
    # The clock reads once when the connection opens and once after each file, one second a read:
    # held for two seconds, a connection takes two files (5 files: 3 connections).
    outcomes = list(ingest_files(store, paths, recorded_at=RECORDED_AT, hold_seconds=2.0, clock=_Ticks()))
    assert len(opens) == 3
    assert [type(outcome) for _, outcome in outcomes] == [IngestReport] * 5
    assert store.head() == sum(outcome.events for _, outcome in outcomes if isinstance(outcome, IngestReport))


def test_a_refused_file_does_not_stop_the_others(tmp_path: Path) -> None:
    good = _travellers(tmp_path, 2)
    broken = tmp_path / "broken.csv"
    broken.write_text(HEADER + "e,1,1,A,9,9,59,4S,N,eleven\n")
    missing = tmp_path / "missing.csv"
    store = EventStore(tmp_path / "log.duckdb")
    outcomes = dict(ingest_files(store, [good[0], broken, missing, good[1]], recorded_at=RECORDED_AT,
                                 options=IngestOptions(strict=True)))
    assert isinstance(outcomes[broken], IngestRejected)
    assert isinstance(outcomes[missing], FileNotFoundError)
    assert all(isinstance(outcomes[path], IngestReport) for path in good)
    sources = {e.payload["name"] for e in store.read(types=["SourceFileIngested"])}
    assert sources == {"t01.csv", "t02.csv"}


def test_a_busy_store_is_reported_for_each_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    paths = _travellers(tmp_path, 3)
    store = EventStore(tmp_path / "log.duckdb", busy_timeout=0.1)

    def busy(path: Path, read_only: bool, **files: Path | None) -> object:
        raise StoreBusy(f"{path} is busy")

    monkeypatch.setattr(store_module, "_attach", busy)
    outcomes = list(ingest_files(store, paths, recorded_at=RECORDED_AT))
    assert [path for path, _ in outcomes] == paths
    assert all(isinstance(outcome, StoreBusy) for _, outcome in outcomes)


def test_a_caller_that_stops_early_lets_go_of_the_connection(tmp_path: Path) -> None:
    paths = _travellers(tmp_path, 3)
    store = EventStore(tmp_path / "log.duckdb")
    outcomes = ingest_files(store, paths, recorded_at=RECORDED_AT)
    next(outcomes)
    outcomes.close()
    other = EventStore(tmp_path / "log.duckdb", busy_timeout=0.5)  # the write lock is free again
    with other.writer() as con:
        names = [row[0] for row in con.execute("SELECT payload->>'$.name' FROM events"
                                               " WHERE type = 'SourceFileIngested'").fetchall()]
    assert names == ["t01.csv"]


def _events(store: EventStore) -> list[tuple[object, ...]]:
    with store.reader() as con:
        return con.execute("SELECT position, stream_id, stream_version, type, payload::VARCHAR FROM events"
                           " ORDER BY position").fetchall()


def test_a_small_file_read_in_one_thread_gives_the_events_the_threaded_path_gives(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A small file's events are built and appended without a second thread (starting one cost more
    than the work); a large one's overlap. Both paths must write the same bytes."""
    import threading

    import pipelines.files.ingest as ingest_module

    source = tmp_path / "club.csv"
    source.write_bytes((SAMPLE_DATA / "club_championship_traveller.csv").read_bytes())
    threads: list[int] = []
    start = threading.Thread.start

    def counted(self: threading.Thread) -> None:
        threads.append(1)
        start(self)

    monkeypatch.setattr(threading.Thread, "start", counted)
    small = EventStore(tmp_path / "small.duckdb")
    ingest_file(small, source, recorded_at=RECORDED_AT)
    assert threads == []
    monkeypatch.setattr(ingest_module, "OVERLAP_ROWS", 0)
    monkeypatch.setattr(store_module, "_MIN_CHUNK_ROWS", 16)  # several chunks: the insert overlaps the hashing
    large = EventStore(tmp_path / "large.duckdb")
    ingest_file(large, source, recorded_at=RECORDED_AT)
    assert len(threads) >= 2  # the payloads built and the chunks inserted beside the main thread
    query = "SELECT position, stream_id, stream_version, type, payload, hash FROM events ORDER BY position"
    with small.reader() as one, large.reader() as other:
        rows = one.execute(query).fetchall()
        assert len(rows) > 300 and rows == other.execute(query).fetchall()


def test_every_file_is_read_before_the_store_is_opened_for_writing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue #36 item 10: a hostile file held the write lock while it was read (a `publish` got
    `StoreBusy` for minutes). Reading and checking come first; only the append opens the store."""
    import pipelines.files.ingest as ingest_module

    steps: list[str] = []
    attach, read = store_module._attach, ingest_module.read_columnar

    def attaching(path: Path, read_only: bool, **files: Path | None) -> object:
        steps.append("open")
        return attach(path, read_only, **files)

    def reading(data: bytes, source: str, *, strict: bool = False) -> object:
        steps.append(f"read {source}")
        return read(data, source, strict=strict)

    monkeypatch.setattr(store_module, "_attach", attaching)
    monkeypatch.setattr(ingest_module, "read_columnar", reading)
    paths = _travellers(tmp_path, 3)
    ingest_file(EventStore(tmp_path / "one.duckdb"), paths[0], recorded_at=RECORDED_AT)
    assert steps == ["read t01.csv", "open"]
    steps.clear()
    outcomes = list(ingest_files(EventStore(tmp_path / "many.duckdb"), paths, recorded_at=RECORDED_AT))
    assert all(isinstance(outcome, IngestReport) for _, outcome in outcomes)
    assert steps == ["read t01.csv", "read t02.csv", "read t03.csv", "open"]
