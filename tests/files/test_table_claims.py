"""Artificial scores claim their table like results do (issue #12): each clash is said at ingest.

A file's Law 12C2 artificial score replaces the table's result whichever file came first, so a
file's artificial score on a table another file's result holds (or the other way round) loses a
result from the standings exactly as two results do.
"""

from __future__ import annotations

import pytest

from pipelines.files.claims import replaced_results
from pipelines.files.ingest import IngestReport, ingest_bytes
from pipelines.log.store import EventStore
from pipelines.replay.projections import score_store
from tests.conftest import RECORDED_AT

HEADER = "event,session,board,section,table,ns,ew,contract,declarer,result\n"


def _ingest(store: EventStore, name: str, *rows: str) -> IngestReport:
    return ingest_bytes(store, (HEADER + "".join(f"{row}\n" for row in rows)).encode(), source=name,
                        recorded_at=RECORDED_AT)


def _claims(report: IngestReport) -> list[tuple[int, str]]:
    return [(d.line, d.message) for d in report.diagnostics if d.code == "ingest.result.table-claimed"]


def test_an_artificial_score_on_a_table_another_files_result_holds_is_reported(store: EventStore) -> None:
    _ingest(store, "first.csv", "e,1,1,A,1,1,1,4S,N,10", "e,1,1,A,2,2,2,4S,N,9")
    later = _ingest(store, "later.csv", "e,1,1,A,2,2,2,A+/A-,,")
    assert later.contested == 1
    assert _claims(later) == [(2, "board 1 (section A) table '2' already has a result from first.csv; this "
                                  "file's artificial score replaces it (two different tables must be named apart)")]
    scored = score_store(store).board_scores.sort("table_id")
    assert scored.select("table_id", "contract", "pct_ns").rows() == [("1", "4S", 50.0), ("2", None, 60.0)]
    assert replaced_results(store, store.head()) == 1  # first.csv's table 2 result is not scored


def test_a_result_on_a_table_another_files_artificial_score_holds_is_reported(store: EventStore) -> None:
    _ingest(store, "ruled.csv", "e,1,1,A,2,2,2,A/A,,")
    later = _ingest(store, "traveller.csv", "e,1,1,A,1,1,1,4S,N,10", "e,1,1,A,2,2,2,4S,N,9")
    assert later.contested == 1
    assert _claims(later) == [(3, "board 1 (section A) table '2' already has an artificial score from ruled.csv; "
                                  "that artificial score stands over this file's result (two different tables "
                                  "must be named apart)")]
    scored = score_store(store).board_scores.sort("table_id")
    assert scored.select("table_id", "contract", "pct_ns").rows() == [("1", "4S", 50.0), ("2", None, 50.0)]
    assert replaced_results(store, store.head()) == 1


def test_a_result_and_an_artificial_score_for_one_table_in_one_file_are_reported(store: EventStore) -> None:
    report = _ingest(store, "both.csv", "e,1,1,A,1,1,1,4S,N,10", "e,1,1,A,1,1,1,A+/A-,,", "e,1,1,A,2,2,2,A/A,,",
                     "e,1,1,A,2,2,2,A+/A,,")
    assert report.contested == 2
    assert _claims(report) == [
        (3, "board 1 (section A) table '1' has a result and an artificial score in this file; the artificial "
            "score is scored"),
        (5, "board 1 (section A) table '2' has two artificial scores in this file; only the later one is scored")]
    scored = score_store(store).board_scores.sort("table_id")
    assert scored.select("table_id", "contract", "pct_ns", "pct_ew").rows() == [("1", None, 60.0, 40.0),
                                                                                ("2", None, 60.0, 50.0)]
    assert replaced_results(store, store.head()) == 2


def test_a_directors_ruling_is_not_a_claim(store: EventStore) -> None:
    """A ruling given at the table (no source file) replaces the result on purpose: nothing to say."""
    from datetime import UTC, datetime

    from pipelines.commands.director import TableRef, award_artificial

    _ingest(store, "first.csv", "e,1,1,A,1,1,1,4S,N,10")
    at = datetime(2026, 1, 3, tzinfo=UTC)
    award_artificial(store, TableRef("e", "1", 1, "1"), at=at, requested_at=at, ns_award="A+", ew_award="A-",
                     director="TD", reason="fouled board")
    again = _ingest(store, "again.csv", "e,1,2,A,1,1,1,4S,N,10")
    assert again.contested == 0
    assert replaced_results(store, store.head()) == 0


def test_claims_are_listed_in_file_order_the_same_every_time(tmp_path_factory: pytest.TempPathFactory) -> None:
    """A re-sent traveller claims every table again: the first twenty claims in the file's order are
    named (the rest counted), and the diagnostics, part of the logged event, are the same bytes each
    time the same files are ingested (the join that finds them once returned its rows in any order)."""

    def traveller(tricks: int) -> list[str]:
        return [f"e,1,{board},A,{table},{table},{table},4S,N,{tricks}"
                for board in range(1, 21) for table in range(1, 21)]

    rows = traveller(10)
    payloads = []
    for attempt in range(3):
        store = EventStore(tmp_path_factory.mktemp(f"claims{attempt}") / "log.duckdb")
        _ingest(store, "first.csv", *rows)
        again = _ingest(store, "again.csv", *traveller(9))
        assert again.contested == len(rows)
        listed = _claims(again)
        assert [line for line, _ in listed] == [*range(2, 22), 0]
        assert listed[0][1].startswith("board 1 (section A) table '1' already has a result from first.csv")
        assert listed[-1][1].startswith(f"... and {len(rows) - 20} more")
        payloads.append([e.payload for e in store.read(types=["SourceFileIngested"])])
    assert payloads[0] == payloads[1] == payloads[2]
