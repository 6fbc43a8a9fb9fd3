"""Analysts who keep a connection open never block the pipeline, and never see two positions at once."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import duckdb
import pytest

from pipelines.files.ingest import ingest_file
from pipelines.log.snapshot import publish_snapshot, read_snapshot_position, snapshot_path
from pipelines.log.store import EventStore
from pipelines.replay.live import refresh
from pipelines.site import build_site
from tests.conftest import RECORDED_AT, SAMPLE_DATA

REPO = Path(__file__).resolve().parents[2]

# An analyst's client: opens the snapshot read-only, answers, waits (the pipeline runs meanwhile),
# answers again on the same connection, and only then lets go.
_ANALYST = textwrap.dedent("""
    import json, sys, duckdb
    con = duckdb.connect(sys.argv[1], read_only=True)
    def answer():
        return con.execute(
            "SELECT (SELECT position FROM snapshot_position), (SELECT max(position) FROM events), "
            "(SELECT count(*) FROM events), (SELECT count(*) FROM standings)").fetchone()
    print(json.dumps(answer()), flush=True)
    sys.stdin.readline()
    print(json.dumps(answer()), flush=True)
    con.close()
""")


def test_an_analyst_holding_the_snapshot_open_never_blocks_ingest_score_or_site(tmp_path: Path) -> None:
    store = EventStore(tmp_path / "federation.duckdb", busy_timeout=1.0)
    ingest_file(store, SAMPLE_DATA / "club_championship_traveller.csv", recorded_at=RECORDED_AT)
    refresh(store)
    first = publish_snapshot(store)
    analyst = subprocess.Popen([sys.executable, "-c", _ANALYST, str(first.path)], cwd=REPO, text=True,
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert analyst.stdout is not None and analyst.stdin is not None
    before = json.loads(analyst.stdout.readline())
    try:
        weekend = [SAMPLE_DATA / "weekend" / "saturday" / f"national_pairs_s1_{s}.pbn" for s in "AB"]
        assert weekend, "the sample weekend's PBN files"
        for path in weekend:  # all of these take the store's write lock, with the analyst still connected
            assert ingest_file(store, path, recorded_at=RECORDED_AT).events > 0
        refresh(store)
        build_site(store, tmp_path / "site")
        second = publish_snapshot(store)
    finally:
        analyst.stdin.write("\n")
        analyst.stdin.flush()
    after = json.loads(analyst.stdout.readline())
    assert analyst.wait(30) == 0
    assert before == after  # one position for as long as the connection lasts
    assert before[0] == before[1] == first.position and before[2] == first.position
    assert second.position > first.position
    with duckdb.connect(str(snapshot_path(store)), read_only=True) as con:  # a new connection: the new position
        assert con.execute("SELECT max(position) FROM events").fetchone() == (second.position,)
    assert read_snapshot_position(second.path) == second


def test_a_reader_of_the_store_itself_would_have_blocked_the_pipeline(tmp_path: Path) -> None:
    # Why the snapshot exists: the same hold on the store's own file stops the writer.
    from pipelines.log.store import StoreBusy

    store = EventStore(tmp_path / "federation.duckdb", busy_timeout=0.5)
    ingest_file(store, SAMPLE_DATA / "club_championship_traveller.csv", recorded_at=RECORDED_AT)
    holder = subprocess.Popen([sys.executable, "-c", textwrap.dedent("""
        import sys, duckdb
        con = duckdb.connect(sys.argv[1], read_only=True)
        print("open", flush=True)
        sys.stdin.readline()
    """), str(store.path)], cwd=REPO, text=True, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert holder.stdout is not None and holder.stdin is not None
    assert holder.stdout.readline().strip() == "open"
    try:
        with pytest.raises(StoreBusy, match="a reader that keeps it open"):
            refresh(store)
    finally:
        holder.stdin.write("\n")
        holder.stdin.flush()
        holder.wait(30)


def test_the_snapshot_is_replaced_whole_and_leaves_no_temporary_file(tmp_path: Path) -> None:
    store = EventStore(tmp_path / "federation.duckdb")
    ingest_file(store, SAMPLE_DATA / "club_championship_traveller.csv", recorded_at=RECORDED_AT)
    made = publish_snapshot(store)
    again = publish_snapshot(store)
    assert made.position == again.position == store.head()
    assert sorted(p.name for p in tmp_path.iterdir() if "analysts" in p.name) == ["federation.analysts.duckdb"]
    shutil.copy(again.path, tmp_path / "kept.duckdb")
    with duckdb.connect(str(tmp_path / "kept.duckdb"), read_only=True) as con:
        assert con.execute("SELECT count(*) FROM events").fetchone() == (store.head(),)
