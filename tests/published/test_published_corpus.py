"""`ingest F && score` reproduces a real program's published scores with no configuration.

Through the whole pipeline (reader -> events -> replay -> engine), every value each oracle file
publishes is compared with ours by `diff-published`: scores, MPs, IMPs, percentages and Butler
datums. The only differences allowed are the rows `corpus/SOURCES.md` says were hand-edited, and one
RealBridge table whose other room is not in the file (we leave it unscored rather than guess).
"""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from pipelines.files.ingest import ingest_file
from pipelines.log.store import EventStore
from pipelines.published.scores import published_differences, published_values
from pipelines.published.standings import published_standings, standing_differences
from pipelines.replay.projections import score_store
from tests.conftest import CORPUS, RECORDED_AT

ORACLES = [
    # file, session method as scheduled from the file, values compared, allowed differences (board, table)
    ("pbn/ffb_dn1_finale_2022_seance1.pbn", "MP", 3296, set()),
    ("pbn/ffb_dn1_finale_2022_seance5.pbn", "MP", 3079, set()),
    ("pbn/ruter7_klubbkveld_2012_butler.pbn", "BUTLER", 672, set()),
    ("pbn/endplay_realbridge_2021_teams.pbn", "IMP_TEAMS", 877, {(20, "6")}),
    ("usebio/abf_mp_pairs_mitchell.xml", "MP", 1536, set()),
    ("usebio/abf_mp_pairs_mitchell_03.xml", "MP", 378, set()),
    ("usebio/abf_mp_pairs_mitchell_04.xml", "MP", 402, set()),
    ("usebio/abf_mp_pairs_howell.xml", "MP", 482, set()),
    ("usebio/abf_mp_pairs_mitchell_adjusted_02.xml", "MP", 1697, {(3, "1NS-1EW"), (4, "1NS-21EW")}),
    ("usebio/abf_butler_howell.xml", "BUTLER", 560, set()),
    ("usebio/abf_butler_mitchell.xml", "BUTLER", 979, set()),
    ("usebio/abf_cross_imp_howell.xml", "CROSS_IMP", 324, set()),
]


@pytest.mark.parametrize(("name", "method", "compared", "allowed"), ORACLES, ids=[o[0] for o in ORACLES])
def test_published_scores_reproduce_through_ingest(tmp_path: Path, name: str, method: str, compared: int,
                                                   allowed: set[tuple[int, str]]) -> None:
    store = EventStore(tmp_path / "oracle.duckdb")
    ingest_file(store, CORPUS / name, recorded_at=RECORDED_AT)
    edition = score_store(store)
    assert edition.projection.sessions["scoring"].to_list() == [method]
    assert published_values(store, edition.position).height == compared
    differences = published_differences(store, edition)
    assert set(differences.select("board", "table_id").rows()) == allowed


def test_the_hand_edited_abf_board_is_the_only_thing_that_differs() -> None:
    """SOURCES.md: mitchell_02's board 1 (19 rows) and one board-4 row contradict their traveller."""
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        store = EventStore(Path(tmp) / "m02.duckdb")
        ingest_file(store, CORPUS / "usebio" / "abf_mp_pairs_mitchell_02.xml", recorded_at=RECORDED_AT)
        differences = published_differences(store, score_store(store))
    per_board = differences.group_by("board").agg(pl.col("table_id").n_unique()).sort("board").rows()
    assert per_board == [(1, 19), (3, 1), (4, 1)]


def test_measures_per_file_include_percentages_and_datums(tmp_path: Path) -> None:
    store = EventStore(tmp_path / "ffb.duckdb")
    ingest_file(store, CORPUS / "pbn/ffb_dn1_finale_2022_seance1.pbn", recorded_at=RECORDED_AT)
    counts = dict(published_values(store, store.head()).group_by("measure").len().rows())
    assert counts == {"score_ns": 656, "mp_ns": 660, "mp_ew": 660, "pct_ns": 660, "pct_ew": 660}


def test_a_field_the_file_does_not_hold_is_reported_not_hidden(tmp_path: Path) -> None:
    """BBO Helper's daylong: each board's ScorePercentage is against a field the file leaves out."""
    store = EventStore(tmp_path / "bbo.duckdb")
    ingest_file(store, CORPUS / "pbn/bbohelper_daylong_2024-06-02.pbn", recorded_at=RECORDED_AT)
    differences = published_differences(store, score_store(store))
    assert differences["measure"].to_list() == ["pct_ns"] * 8
    assert differences["ours"].null_count() == 8
    assert differences.filter(pl.col("board") == 1)["theirs"].item() == 51.32


@pytest.mark.parametrize(("theirs", "ours", "differs"), [
    (61.0, 61.4, False), (61.0, 61.6, True), (61.2, 61.24, False), (61.2, 61.26, True),
    (61.25, 61.254, False), (61.25, 61.256, True),
])
def test_a_percentage_may_differ_by_half_its_last_published_decimal(theirs: float, ours: float, differs: bool) -> None:
    from pipelines.published.scores import tolerance_expr

    frame = pl.DataFrame({"measure": ["pct_ns"], "theirs": [theirs], "ours": [ours], "tolerance": [0.0051]})
    flagged = frame.select(((pl.col("ours") - pl.col("theirs")).abs() > tolerance_expr()).alias("d"))["d"].item()
    assert flagged is differs


STANDINGS = [
    # file, contestants publishing totals, allowed (contestant, measure) differences
    ("pbn/ffb_dn1_finale_2022_seance1.pbn", 44, set()),
    ("pbn/ffb_dn1_finale_2022_seance5.pbn", 44, set()),
    ("pbn/ruter7_klubbkveld_2012_butler.pbn", 16, set()),
    # Compscore's factored totals in the last decimal: ours 416.0556 and 456.9444, theirs 416.05 and 456.95.
    ("usebio/abf_mp_pairs_mitchell.xml", 38, {("2EW", "total"), ("8NS", "total")}),
    ("usebio/abf_mp_pairs_mitchell_03.xml", 13, set()),
    ("usebio/abf_mp_pairs_mitchell_04.xml", 16, set()),
    ("usebio/abf_mp_pairs_howell.xml", 12, set()),
    # The pairs of the two rows whose published MPs contradict their own traveller (see above).
    ("usebio/abf_mp_pairs_mitchell_adjusted_02.xml", 42,
     {(pair, measure) for pair in ("1NS", "1EW", "21EW") for measure in ("total", "percentage")}),
    ("usebio/abf_butler_howell.xml", 8, set()),
    ("usebio/abf_butler_mitchell.xml", 14, set()),
    ("usebio/abf_cross_imp_howell.xml", 9, set()),
]


@pytest.mark.parametrize(("name", "contestants", "allowed"), STANDINGS, ids=[s[0] for s in STANDINGS])
def test_published_totals_and_places_reproduce(tmp_path: Path, name: str, contestants: int,
                                               allowed: set[tuple[str, str]]) -> None:
    store = EventStore(tmp_path / "standings.duckdb")
    ingest_file(store, CORPUS / name, recorded_at=RECORDED_AT)
    edition = score_store(store)
    assert published_standings(store, edition.position).height == contestants
    differences = standing_differences(store, edition)
    assert set(differences.select("contestant_id", "measure").rows()) == allowed


def test_hand_edited_travellers_move_only_their_pairs_totals(tmp_path: Path) -> None:
    """mitchell_02's edited board 1 (and board-4 row) change the totals of pairs who played them, and no
    one else's: its totals are those of the boards before the edit (8EW's board MPs sum to 565.4, its
    published total is 554), even where an edited row's MPs agree with ours."""
    store = EventStore(tmp_path / "m02.duckdb")
    ingest_file(store, CORPUS / "usebio" / "abf_mp_pairs_mitchell_02.xml", recorded_at=RECORDED_AT)
    edition = score_store(store)
    boards = published_differences(store, edition).join(
        edition.board_scores, on=["event_id", "session_id", "section", "board", "table_id"])
    board_1 = edition.board_scores.filter(pl.col("board") == 1)
    touched = set(boards["ns_id"]) | set(boards["ew_id"]) | set(board_1["ns_id"]) | set(board_1["ew_id"])
    totals = standing_differences(store, edition).filter(pl.col("measure").is_in(["total", "percentage"]))
    assert totals.height > 0 and set(totals["contestant_id"]) <= touched


VUGRAPH = [("lin/bbo_teammatch_17360.lin", 36), ("lin/tmpbn2linvg_gib_match.lin", 8),
           ("lin/tmpbn2linvg_gib_match_bc.lin", 8), ("lin/vugraph_wbtc2015_swe_pol_reexported.lin", 32)]


@pytest.mark.parametrize(("name", "tables"), VUGRAPH, ids=[v[0] for v in VUGRAPH])
def test_vugraph_results_lists_reproduce(tmp_path: Path, name: str, tables: int) -> None:
    from pipelines.published.scores import published_results, result_differences

    store = EventStore(tmp_path / "vugraph.duckdb")
    ingest_file(store, CORPUS / name, recorded_at=RECORDED_AT)
    edition = score_store(store)
    assert published_results(store, edition.position).height == tables
    assert result_differences(store, edition).height == 0
