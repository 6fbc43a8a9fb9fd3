"""The log is anchored: cutting its end, or losing its WAL, is reported, never silently passed."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import duckdb
import pytest
from typer.testing import CliRunner

from pipelines.anchor import anchor_path, read_anchor
from pipelines.cli import app
from pipelines.director import publish_scores
from pipelines.store import EventStore, NewEvent, StoreError
from tests.hostile.conftest import EVENT, SESSION

runner = CliRunner()


def _tamper(store: EventStore, statement: str) -> None:
    """What an attacker with a writable connection does (never the code under test)."""
    con = duckdb.connect(str(store.path))
    con.execute(statement)
    con.close()


def test_every_append_moves_the_anchor(sample_store: EventStore) -> None:
    head = read_anchor(sample_store.path)
    assert head is not None and head.position == 367
    assert head == sample_store.tip()
    sample_store.append([NewEvent("x", "PlayerIdentitiesMerged", {"kept_id": "a", "merged_id": "b"},
                                  datetime(2026, 11, 22, tzinfo=UTC))], recorded_at=datetime(2026, 11, 22, tzinfo=UTC))
    moved = read_anchor(sample_store.path)
    assert moved is not None and moved.position == 368 and moved == sample_store.tip()


@pytest.mark.parametrize("cut", ["DELETE FROM events WHERE position = (SELECT max(position) FROM events)",
                                 "DELETE FROM events WHERE position > 300", "DELETE FROM events",
                                 "DROP TABLE events"])
def test_verify_reports_a_log_shorter_than_its_anchor(sample_store: EventStore, cut: str) -> None:
    _tamper(sample_store, cut)
    report = sample_store.verify()
    assert not report.ok
    assert report.first_bad_position == 367
    assert "shorter than a head it has seen" in (report.reason or "")
    result = runner.invoke(app, ["verify"])
    assert result.exit_code == 1 and "position 367" in result.output


def test_a_publication_carries_the_head_and_verify_checks_it(sample_store: EventStore) -> None:
    tip = sample_store.tip()
    position = publish_scores(sample_store, EVENT, SESSION, at=datetime(2026, 11, 21, 21, tzinfo=UTC))
    [published] = sample_store.read(types=["ScoresPublished"])
    assert tip is not None and position == 368
    assert published.payload["log_head"] == {"position": 367, "hash": tip.hash}
    assert sample_store.verify().ok
    # A publication that saw a different log up to its head (a log rebuilt, or restored from
    # another copy) is named, even when the anchor file agrees with the log.
    sample_store.append([NewEvent(f"session:{EVENT}/{SESSION}", "ScoresPublished",
                                  {"event_id": EVENT, "session_id": SESSION, "correction_period_minutes": None,
                                   "log_head": {"position": 360, "hash": "f" * 64}},
                                  datetime(2026, 11, 21, 21, 5, tzinfo=UTC))],
                        recorded_at=datetime(2026, 11, 21, 21, 5, tzinfo=UTC))
    report = sample_store.verify()
    assert not report.ok and report.first_bad_position == 360
    assert "ScoresPublished at position 369" in (report.reason or "")


def _crash_after_appends(path: Path) -> None:
    script = (
        "import os, sys\n"
        "from datetime import UTC, datetime\n"
        "from pipelines.store import EventStore, NewEvent\n"
        "store = EventStore(sys.argv[1])\n"
        "with store.session():\n"
        "    for i in range(3):\n"
        "        store.append([NewEvent('x', 'PlayerIdentitiesMerged', {'kept_id': 'a', 'merged_id': str(i)},\n"
        "                               datetime(2026, 11, 22, tzinfo=UTC))], recorded_at=datetime.now(UTC))\n"
        "    os._exit(0)  # killed before the connection closes: the commits are in the WAL only\n"
    )
    subprocess.run([sys.executable, "-c", script, str(path)], check=True, env={**os.environ})


def test_a_lost_wal_is_reported_by_verify(tmp_path: Path) -> None:
    path = tmp_path / "events.duckdb"
    _crash_after_appends(path)
    wal = Path(str(path) + ".wal")
    assert wal.exists()
    os.remove(wal)
    report = EventStore(path).verify()
    assert not report.ok and report.first_bad_position == 3
    assert ".wal" in (report.reason or "")


def test_a_cut_wal_is_reported_by_verify(tmp_path: Path) -> None:
    path = tmp_path / "events.duckdb"
    _crash_after_appends(path)
    wal = Path(str(path) + ".wal")
    wal.write_bytes(wal.read_bytes()[: wal.stat().st_size // 2])
    report = EventStore(path).verify()
    assert not report.ok
    assert "shorter than a head it has seen" in (report.reason or "")


def test_a_corrupt_wal_is_a_clear_error_not_a_traceback(tmp_path: Path) -> None:
    path = tmp_path / "events.duckdb"
    _crash_after_appends(path)
    wal = Path(str(path) + ".wal")
    damaged = bytearray(wal.read_bytes())
    middle = len(damaged) // 2
    damaged[middle:middle + 40] = b"\xff" * 40
    wal.write_bytes(bytes(damaged))
    with pytest.raises(StoreError, match="write-ahead log"):
        EventStore(path).verify()
    result = runner.invoke(app, ["verify", "--store", str(path)])
    assert result.exit_code == 1
    assert "damaged" in result.output and "Traceback" not in result.output


def test_an_unreadable_anchor_does_not_stop_verify(sample_store: EventStore) -> None:
    anchor_path(sample_store.path).write_text("{not json", encoding="utf-8")
    assert sample_store.verify().ok
    shutil.copy(anchor_path(sample_store.path), anchor_path(sample_store.path).with_suffix(".bak"))
    anchor_path(sample_store.path).write_text(json.dumps({"position": 9, "hash": "0" * 64}), encoding="utf-8")
    assert not sample_store.verify().ok
