"""Ingest of the CSV traveller, and replay-and-score as a pure function of the log."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from models.diagnostics import Severity
from pipelines.files.ingest import IngestOptions, IngestRejected, ingest_bytes, ingest_file
from pipelines.log.store import EventStore
from pipelines.replay.frames import replay
from pipelines.replay.live import write_views
from pipelines.replay.projections import export_csv, score_store
from tests.conftest import RECORDED_AT, SAMPLE_DATA

HEADER = "event,session,board,section,table,ns,ew,contract,declarer,result,lead\n"
ROWS = [
    "e1,s1,1,A,1,1,1,4S,N,=,SA\n",      # NS +420
    "e1,s1,1,A,2,2,2,4S,N,+1,HK\n",     # NS +450
    "e1,s1,1,A,3,3,3,4SX,N,-2,D7\n",    # NS -300
    "e1,s1,1,A,4,4,4,3NT,E,=,C2\n",     # NS -400
]
BAD_ROW = "e1,s1,1,A,5,5,5,4S,N,+9,SA\n"


def test_the_sample_traveller_becomes_events(store: EventStore, traveller: Path) -> None:
    report = ingest_file(store, traveller, recorded_at=RECORDED_AT)
    assert report.counts == {"ArtificialScoreAwarded": 1, "ContestantRegistered": 26, "ResultRecorded": 337,
                             "SessionScheduled": 1, "TournamentRegistered": 1}
    assert report.events == 367  # the counts above plus SourceFileIngested
    assert (report.event_id, report.session_id, report.quarantined) == ("club-championship-2026", "1", 0)


def test_ingesting_the_same_bytes_twice_adds_nothing(store: EventStore, traveller: Path) -> None:
    ingest_file(store, traveller, recorded_at=RECORDED_AT)
    head = store.head()
    again = ingest_file(store, traveller, recorded_at=RECORDED_AT)
    assert (again.already_ingested, again.events, store.head()) == (True, 0, head)


def test_strict_mode_refuses_a_file_with_a_bad_row_and_appends_nothing(store: EventStore) -> None:
    data = (HEADER + "".join(ROWS) + BAD_ROW).encode()
    with pytest.raises(IngestRejected) as refused:
        ingest_bytes(store, data, source="bad.csv", recorded_at=RECORDED_AT, options=IngestOptions(strict=True))
    assert store.head() == 0
    [error] = refused.value.diagnostics
    assert (error.source, error.line, error.column, error.code) == ("bad.csv", 6, 22, "csv.row.result")
    assert "4S +9 means 19 tricks" in error.message


def test_lenient_mode_keeps_everything_but_the_quarantined_row(store: EventStore) -> None:
    data = (HEADER + ROWS[0] + BAD_ROW + "".join(ROWS[1:])).encode()
    report = ingest_bytes(store, data, source="bad.csv", recorded_at=RECORDED_AT)
    assert (report.quarantined, report.counts["ResultRecorded"]) == (1, 4)
    [diagnostic] = report.diagnostics
    assert (diagnostic.line, diagnostic.severity) == (3, Severity.ERROR)
    [ingested] = store.read(types=["SourceFileIngested"])
    assert ingested.payload["quarantined"] == 1
    assert ingested.payload["diagnostics"][0]["line"] == 3


def test_a_file_without_usable_records_is_refused(store: EventStore) -> None:
    with pytest.raises(IngestRejected, match="header"):
        ingest_bytes(store, b"board,contract\n1,4S\n", source="x.csv", recorded_at=RECORDED_AT)
    with pytest.raises(IngestRejected, match="unknown file type"):
        ingest_bytes(store, b"hello", source="notes.txt", recorded_at=RECORDED_AT)
    assert store.head() == 0


def test_replay_scores_matchpoints_per_law_78a(store: EventStore) -> None:
    ingest_bytes(store, (HEADER + "".join(ROWS)).encode(), source="t.csv", recorded_at=RECORDED_AT)
    edition = score_store(store)
    scores = edition.board_scores.sort("table_id").select("table_id", "score_ns", "mp_ns", "mp_ew", "top")
    assert scores.rows() == [("1", 420, 4.0, 2.0, 6.0), ("2", 450, 6.0, 0.0, 6.0),
                             ("3", -300, 2.0, 4.0, 6.0), ("4", -400, 0.0, 6.0, 6.0)]
    ns = edition.standings.filter(pl.col("direction") == "NS").sort("rank")
    assert ns.select("contestant_id", "rank", "score", "percentage").rows() == [
        ("2", 1, 6.0, 100.0), ("1", 2, 4.0, pytest.approx(66.6667, abs=1e-3)),
        ("3", 3, 2.0, pytest.approx(33.3333, abs=1e-3)), ("4", 4, 0.0, 0.0)]


def test_replaying_from_zero_twice_gives_identical_bytes(store: EventStore, traveller: Path,
                                                         tmp_path: Path) -> None:
    ingest_file(store, traveller, recorded_at=RECORDED_AT)
    first = export_csv(score_store(store), tmp_path / "a")
    second = export_csv(score_store(store), tmp_path / "b")
    for name in ("board_scores", "standings"):
        assert first[name].read_bytes() == second[name].read_bytes()
    assert len(first["board_scores"].read_text().splitlines()) == 339


def test_replay_up_to_a_position_ignores_later_events(store: EventStore) -> None:
    ingest_bytes(store, (HEADER + "".join(ROWS[:2])).encode(), source="a.csv", recorded_at=RECORDED_AT)
    position = store.head()
    ingest_bytes(store, (HEADER + "".join(ROWS[2:])).encode(), source="b.csv", recorded_at=RECORDED_AT)
    assert replay(store, up_to=position).results.height == 2
    assert replay(store).results.height == 4


def test_views_are_what_analysts_query(store: EventStore, traveller: Path) -> None:
    ingest_file(store, traveller, recorded_at=RECORDED_AT)
    write_views(store, score_store(store))
    with store.reader() as con:
        columns = [row[0] for row in con.execute("DESCRIBE board_scores").fetchall()]
        top = con.execute("SELECT count(*), max(top) FROM board_scores WHERE status = 'provisional'").fetchall()
    assert columns == ["event_id", "session_id", "section", "board", "table_id", "ns_id", "ew_id", "contract",
                       "declarer", "tricks", "score_ns", "mp_ns", "mp_ew", "top", "pct_ns", "pct_ew", "imp_ns",
                       "imp_ew", "status", "match_id", "datum", "points_ns", "points_ew", "board_rule"]
    assert top == [(338, 24.0)]


def test_the_malformed_sample_file_reports_every_bad_row(store: EventStore) -> None:
    path = SAMPLE_DATA / "malformed_traveller.csv"
    with pytest.raises(IngestRejected) as refused:
        ingest_file(store, path, recorded_at=RECORDED_AT, options=IngestOptions(strict=True))
    assert [(d.line, d.column, d.code) for d in refused.value.diagnostics] == [
        (4, 36, "csv.row.contract"), (5, 40, "csv.row.declarer"), (6, 42, "csv.row.result"),
        (7, 44, "csv.row.lead")]
