"""diff-published on deals: published double-dummy tricks and par against endplay's analysis.

One deal (board 11 of endplay's RealBridge export, whose published DoubleDummyTricks and par
agree with the solver) played as two boards: board 1 publishes it as the export does, board 2 with
North's notrump tricks and the par planted wrong.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from pipelines.files.ingest import ingest_bytes, ingest_file
from pipelines.log.store import EventStore
from pipelines.published.analysis import analysis_differences, published_deals
from pipelines.site import analysis
from tests.conftest import CORPUS, RECORDED_AT
from tests.published import dd_kept

DEAL = "N:KT8.A96.A95.7542 Q5.KJ52.KQ874.T8 AJ92.874.JT6.AQ3 7643.QT3.32.KJ96"
DD = "77667775576677566775"


def _game(board: int, dd: str, par: str) -> str:
    return (f'[Event "Analysis"]\n[Site "Club"]\n[Date "2026.11.20"]\n[Board "{board}"]\n[Dealer "S"]\n'
            f'[Vulnerable "None"]\n[Deal "{DEAL}"]\n[DoubleDummyTricks "{dd}"]\n{par}\n'
            '[Declarer "S"]\n[Contract "1NT"]\n[Result "8"]\n')


FILE = (_game(1, DD, '[OptimumScore "NS 90"]') + "\n" + _game(2, "8" + DD[1:], '[ParScore "120"]')).encode()


def test_published_tricks_and_par_that_are_not_ours_are_listed(store: EventStore) -> None:
    ingest_bytes(store, FILE, source="a.pbn", recorded_at=RECORDED_AT)
    assert published_deals(store, store.head())["board"].to_list() == [1, 2]
    found = analysis_differences(store, store.head())
    assert found.select("board", "measure", "ours", "theirs").rows() == [
        (2, "par", "90", "120"), (2, "tricks N NT", "7", "8")]


def test_without_the_solver_an_unanalysed_deal_is_listed_not_passed(store: EventStore,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(analysis, "solver_version", lambda: None)
    ingest_bytes(store, FILE, source="a.pbn", recorded_at=RECORDED_AT)
    found = analysis_differences(store, store.head())
    assert found.select("board", "measure", "ours", "theirs").rows() == [
        (1, "analysis", None, DD), (2, "analysis", None, "8" + DD[1:])]


@pytest.mark.parametrize(("name", "boards"), [
    ("pbn/endplay_realbridge_2021_teams.pbn", 10), ("pbn/bridgecomposer_latin1.pbn", 15),
    ("pbn/pbnref_three_records_crlf.pbn", 3), ("pbn/bbohelper_daylong_2024-06-02.pbn", 6),
])
def test_published_analyses_of_the_corpus_agree_with_ours(tmp_path: Path, name: str, boards: int) -> None:
    store = EventStore(tmp_path / "dd.duckdb")
    ingest_file(store, CORPUS / name, recorded_at=RECORDED_AT)
    analysis.seed_from_file(store, dd_kept.KEPT)  # the solver's analyses, kept (see the next test)
    assert published_deals(store, store.head()).height == boards
    assert analysis_differences(store, store.head()).height == 0


def test_the_kept_analyses_are_the_solvers_for_every_deal_compared() -> None:
    import orjson

    kept = orjson.loads(dd_kept.KEPT.read_bytes())["deals"]
    deals = dd_kept.corpus_deals()
    assert sorted(kept) == deals and len(deals) == 62
    for deal, solved in analysis.solve(deals[::15]).items():  # the real solver, on five of them each run
        assert orjson.loads(kept[deal]["tricks"]) == solved.tricks
        assert {k: [p.score_ns, list(p.contracts)] for k, p in solved.par.items()} == orjson.loads(kept[deal]["par"])


def test_a_sample_hand_record_with_placeholder_tricks_is_listed(tmp_path: Path) -> None:
    """Dealmaster Pro's sample: board 1 publishes 1 trick for North in hearts with the ace-king of
    trumps in hand; the file's own OptimumResultTable says the same, so the reading is right."""
    store = EventStore(tmp_path / "trophy.duckdb")
    ingest_file(store, CORPUS / "pbn/bridgecomposer_hand_trophy_pairs.pbn", recorded_at=RECORDED_AT)
    analysis.seed_from_file(store, dd_kept.KEPT)
    found = analysis_differences(store, store.head()).filter(board=1)
    assert ("tricks N H", "4", "1") in found.select("measure", "ours", "theirs").rows()
    assert found.height == 10
