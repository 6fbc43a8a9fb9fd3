"""Every reader, on real files: each result read is one table scored, or the difference is said.

Replay keeps one result per (session, section, board, table); a result read that shares that key
with another is not scored. Ingest warns of each (`ingest.result.table-claimed`) and counts them
(`IngestReport.contested`), `score` prints how many there are (`pipelines.files.claims.replaced_results`).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from pipelines.cli.app import app
from pipelines.files.claims import replaced_results
from pipelines.files.ingest import IngestOptions, ingest_file
from pipelines.log.store import EventStore
from pipelines.replay.projections import score_store
from tests.conftest import CORPUS, RECORDED_AT, SAMPLE_DATA

FILES = {
    "csv": [SAMPLE_DATA / "club_championship_traveller.csv"],
    "pbn": [CORPUS / "pbn" / name for name in ("ffb_dn1_finale_2022_seance1.pbn", "pbntools_bbo_aba_17901.pbn",
                                              "endplay_realbridge_2021_teams.pbn", "pbntools_jfrpary_wb120802.pbn")],
    "lin": [CORPUS / "lin" / name for name in ("bbo_myhands_multi.lin", "bbo_teammatch_17360.lin",
                                              "vugraph_wbtc2015_swe_pol_reexported.lin")],
    "usebio": [CORPUS / "usebio" / name for name in ("abf_mp_pairs_mitchell.xml", "abf_butler_howell.xml")],
}
TABLE = ["event_id", "session_id", "section", "board", "table_id"]


def _tables_scored(store: EventStore) -> int:
    return score_store(store).board_scores.select(TABLE).unique().height


@pytest.mark.parametrize("path", [p for paths in FILES.values() for p in paths], ids=lambda p: p.name)
def test_every_result_read_is_one_table_scored(store: EventStore, path: Path) -> None:
    report = ingest_file(store, path, recorded_at=RECORDED_AT)
    read = report.counts.get("ResultRecorded", 0) + report.counts.get("ArtificialScoreAwarded", 0)
    assert read > 0 and report.contested == 0
    assert _tables_scored(store) == read
    assert replaced_results(store, store.head()) == 0


# BBO's single-board files: each one board at one table, none naming its table.
SINGLE_BOARD_LIN = sorted(p for p in (CORPUS / "lin").glob("bbo_*.lin") if "myhands" not in p.name
                          and "teammatch" not in p.name)


def test_single_board_files_sent_into_one_session_keep_every_result(store: EventStore) -> None:
    options = IngestOptions(event_id="bbo-files", session_id="1")
    reports = [ingest_file(store, path, recorded_at=RECORDED_AT, options=options) for path in SINGLE_BOARD_LIN]
    read = sum(r.counts.get("ResultRecorded", 0) for r in reports)
    assert (len(SINGLE_BOARD_LIN), read) == (13, 12)  # bbo_28189727_unplayed.lin has no result
    # Each file used to be "table 1"; now each result is its own foursome's table. But bbo_33* are
    # one foursome's boards 1 and 2 of two different evenings (other deals), forced here into one
    # session: the second board 1 and board 2 claim the first ones' tables, and that is said.
    claims = {r.source: r.contested for r in reports if r.contested}
    assert claims == {"bbo_3399598383_alert.lin": 1, "bbo_3399600265.lin": 1}
    [said] = [d for d in reports[-1].diagnostics if d.code == "ingest.result.table-claimed"]
    assert said.message.startswith("board 2 table 'jaak99/jdr9999 v myriam1745/sisse1745' already has a "
                                   "result from bbo_3381683999.lin")
    assert _tables_scored(store) == read - 2 == 10
    assert replaced_results(store, store.head()) == 2


def test_a_file_sent_again_under_another_name_is_warned_and_counted(store: EventStore, tmp_path: Path) -> None:
    options = IngestOptions(event_id="bbo-files", session_id="1")
    first = CORPUS / "lin" / "bbo_28189410_claim.lin"
    ingest_file(store, first, recorded_at=RECORDED_AT, options=options)
    again = tmp_path / "claim-again.lin"
    again.write_bytes(first.read_bytes() + b"\n")  # other bytes, same table: it replaces the first
    report = ingest_file(store, again, recorded_at=RECORDED_AT, options=options)
    assert report.contested == 1
    [warning] = [d for d in report.diagnostics if d.code == "ingest.result.table-claimed"]
    assert "already has a result from bbo_28189410_claim.lin" in warning.message
    assert (_tables_scored(store), replaced_results(store, store.head())) == (1, 1)
    shown = CliRunner().invoke(app, ["score", "--store", str(store.path)])
    assert shown.exit_code == 0, shown.output
    assert "1 result(s) recorded are not scored: a later result claims the same" in shown.output


def test_the_count_score_prints_is_of_the_sessions_it_scored(store: EventStore, tmp_path: Path) -> None:
    # A store of millions of results must not read every payload to say this: the count is kept to
    # the sessions a command scored, and a session without a contested table counts none.
    first = CORPUS / "lin" / "bbo_28189410_claim.lin"
    contested = IngestOptions(event_id="bbo-files", session_id="1")
    ingest_file(store, first, recorded_at=RECORDED_AT, options=contested)
    again = tmp_path / "claim-again.lin"
    again.write_bytes(first.read_bytes() + b"\n")
    ingest_file(store, again, recorded_at=RECORDED_AT, options=contested)
    ingest_file(store, first, recorded_at=RECORDED_AT, options=IngestOptions(event_id="other", session_id="1"))
    head = store.head()
    assert replaced_results(store, head) == 1
    assert replaced_results(store, head, ["session:bbo-files/1"]) == 1
    assert replaced_results(store, head, ["session:other/1"]) == 0
    assert replaced_results(store, head, []) == 0
    for event, said in (("bbo-files", True), ("other", False)):
        shown = CliRunner().invoke(app, ["score", "--store", str(store.path), "--event", event])
        assert shown.exit_code == 0, shown.output
        assert ("1 result(s) recorded are not scored" in shown.output) is said
