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

from pipelines.cli.app import app
from pipelines.commands.director import publish_scores
from pipelines.log.anchor import anchor_path, read_anchor
from pipelines.log.store import EventStore, NewEvent, StoreError
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
        "from pipelines.log.store import EventStore, NewEvent\n"
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


def test_a_rewritten_log_with_a_new_head_file_is_named_rewritten_not_cut(sample_store: EventStore) -> None:
    from pipelines.log.chain import GENESIS_HASH, canonical_bytes, chain

    publish_scores(sample_store, EVENT, SESSION, at=datetime(2026, 11, 21, 21, tzinfo=UTC))  # carries head 367
    # An attacker edits row 100 and recomputes every hash after it, then writes the head file anew.
    con = duckdb.connect(str(sample_store.path))
    con.execute("UPDATE events SET payload = replace(payload::VARCHAR, '\"N\"', '\"S\"')::JSON WHERE position = 100")
    rows = con.execute("SELECT position, stream_id, stream_version, type, schema_version, payload::VARCHAR, "
                       "epoch_us(occurred_at), epoch_us(recorded_at), source_sha256 FROM events ORDER BY position"
                       ).fetchall()
    prev = GENESIS_HASH
    for row in rows:
        digest = chain(prev, [canonical_bytes(*row)])[0].hex()
        con.execute("UPDATE events SET prev_hash = ?, hash = ? WHERE position = ?", [prev, digest, row[0]])
        prev = digest
    con.close()
    anchor_path(sample_store.path).write_text(json.dumps({"position": rows[-1][0], "hash": prev}) + "\n")
    report = sample_store.verify()
    assert (report.ok, report.first_bad_position) == (False, 367)
    assert report.reason is not None and report.reason.startswith("the log was rewritten: ScoresPublished at position")
    assert "cut from its end" not in report.reason


def test_a_missing_head_file_is_said_not_passed_over(sample_store: EventStore) -> None:
    publish_scores(sample_store, EVENT, SESSION, at=datetime(2026, 11, 21, 21, tzinfo=UTC))
    anchor_path(sample_store.path).unlink()
    report = sample_store.verify()
    assert report.ok
    assert report.notes == (f"the head file {anchor_path(sample_store.path)} is missing: rows cut from the log's end "
                            "can be detected only up to the latest head a publication carries (position 367); "
                            "the next append writes it again",)
    result = runner.invoke(app, ["verify"])
    assert result.exit_code == 0 and "is missing: rows cut from the log's end" in result.output


def test_a_store_file_cut_short_is_one_clear_line_from_every_command(sample_store: EventStore) -> None:
    shutil.copy(sample_store.path, sample_store.path.with_name("whole.duckdb"))
    size = sample_store.path.stat().st_size
    os.truncate(sample_store.path, size // 4)
    for command in (["verify"], ["score"], ["sql", "SELECT count(*) FROM events"]):
        result = subprocess.run([sys.executable, "-m", "pipelines.cli", *command, "--store", str(sample_store.path)],
                                capture_output=True, text=True, check=False)
        assert result.returncode == 1, command
        assert "Traceback" not in result.stderr, (command, result.stderr)
        assert str(sample_store.path) in result.stderr and "Restore it from a copy" in result.stderr, command
