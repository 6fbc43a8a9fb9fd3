"""Double-dummy tables and par of real deals, held to endplay's own calc_dd_table and par (the oracle)."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from pipelines.edges.tasks import analyse_pending_deals, publish_site
from pipelines.files.ingest import IngestOptions, ingest_file
from pipelines.log.store import EventStore, StoreBusy, table_columns
from pipelines.site import analysis, build_site
from pipelines.site.analysis import (
    CACHE_TABLE,
    SEATS,
    STRAINS,
    DoubleDummy,
    Par,
    analyse_deals,
    cached,
    canonical_deal,
    pending_deals,
    solve,
)
from pipelines.site.labels import ENGLISH
from tests.conftest import CORPUS, SAMPLE_DATA
from tests.site import dd_oracle
from tests.site.club_session import EVENT, PLAYED, SESSION


def test_corpus_has_the_deals() -> None:
    assert (CORPUS / "pbn" / dd_oracle.FILES[0]).exists()
    assert len(dd_oracle.corpus_boards()) >= 31


def test_the_kept_tables_and_par_are_endplays_own_and_so_are_ours() -> None:
    # The real solver, on a few of the kept deals each run: endplay's own calc_dd_table and par ...
    boards = dd_oracle.corpus_boards()
    kept = dd_oracle.kept()
    assert {deal: (kept[deal]["where"], kept[deal]["dealer"], kept[deal]["vulnerability"]) for deal in kept} \
        == {deal: (where, dealer, vulnerability) for where, deal, dealer, vulnerability in boards}
    sample = boards[::12]
    for where, deal, dealer, vulnerability in sample:
        solved = dd_oracle.solved_by_endplay(deal, dealer, vulnerability)
        assert solved == {key: kept[deal][key] for key in solved}, where
    # ... and `solve`, which runs endplay's calc_all_tables, gives the same as the kept results.
    _assert_as_kept(solve([deal for _, deal, _, _ in sample]), sample, kept)


def test_tables_and_par_equal_endplays_own(monkeypatch: pytest.MonkeyPatch) -> None:
    import endplay.dds

    kept = dd_oracle.kept()
    boards = dd_oracle.corpus_boards()
    # The solver stands in with the tables it gave for these deals (the test above holds them to it);
    # everything `solve` does with them, its par for every dealer and vulnerability included, runs.
    monkeypatch.setattr(endplay.dds, "calc_all_tables", lambda deals: [_table(kept[d.to_pbn()]) for d in deals])
    _assert_as_kept(solve([deal for _, deal, _, _ in boards]), boards, kept)


def _table(entry: dict[str, Any]) -> Any:
    """The endplay DDTable the solver gave for a kept deal."""
    from endplay._dds import ddTableResults
    from endplay.dds.ddtable import DDTable

    data = ddTableResults()
    for strain, row in enumerate(entry["table"]):
        for seat, tricks in enumerate(row):
            data.resTable[strain][seat] = tricks
    return DDTable(data)


def _assert_as_kept(ours: dict[str, DoubleDummy], boards: Sequence[tuple[str, str, str, str]],
                    kept: dict[str, dict[str, Any]]) -> None:
    strains = {"S": 0, "H": 1, "D": 2, "C": 3, "NT": 4}
    assert sorted(ours) == sorted(deal for _, deal, _, _ in boards)
    for where, deal, dealer, vulnerability in boards:
        grid = kept[deal]["table"]
        expected = {seat: {s: grid[strains[s]]["NESW".index(seat)] for s in STRAINS} for seat in SEATS}
        assert ours[deal].tricks == expected, where
        found = ours[deal].par_for(dealer, vulnerability)
        assert found is not None and found.score_ns == kept[deal]["par_score"], where
        assert _expanded(found.contracts) == {tuple(c) for c in kept[deal]["par_contracts"]}, where


def _expanded(contracts: tuple[str, ...]) -> set[tuple[str, str, int]]:
    """`4SX EW -3` -> {(4SX, E, -3), (4SX, W, -3)}."""
    out = set()
    for text in contracts:
        contract, seats, result = text.split(" ")
        out |= {(contract, seat, 0 if result == "=" else int(result)) for seat in seats}
    return out


@pytest.mark.parametrize(("text", "canonical"), [
    ("E:A86432.T98.A4.74 JT95.64.K93.AKQJ K7.KQ2.JT72.T982 Q.AJ753.Q865.653",
     "N:Q.AJ753.Q865.653 A86432.T98.A4.74 JT95.64.K93.AKQJ K7.KQ2.JT72.T982"),
    ("N:K652.K73.K54.742 - Q7.AQ2.QJ96.AKQ6 AT943.T654.72.53", None),  # a hand unknown: nothing to analyse
    (None, None),
])
def test_the_cache_key_is_the_deal_from_north(text: str | None, canonical: str | None) -> None:
    assert canonical_deal(text) == canonical



# --- issue #36, item 1: analysis bounded, saved as it goes, resumable; page builds never wait on it ---

RECORDED = datetime(2026, 11, 22, 9, 0, tzinfo=UTC)


class Killed(Exception):
    """Stands for a kill -9 in the middle of the solver's work."""


def _fake(deal: str) -> DoubleDummy:
    """A stand-in analysis (the real solver is 0.4 s a deal): tricks from the deal's first characters."""
    seven = {seat: dict.fromkeys(STRAINS, 7) for seat in SEATS}
    seven["N"]["NT"] = len(deal) % 14
    return DoubleDummy(deal, seven, {"N/None": Par(0, ())})


class FakeSolver:
    """Counts the deals handed to the solver, and dies at the `die_at`-th deal when told to."""

    def __init__(self, die_at: int | None = None) -> None:
        self.seen: list[str] = []
        self.die_at = die_at

    def __call__(self, deals: Sequence[str]) -> dict[str, DoubleDummy]:
        out = {}
        for deal in deals:
            if self.die_at is not None and len(self.seen) + 1 == self.die_at:
                raise Killed(f"killed while solving deal {self.die_at}")
            self.seen.append(deal)
            out[deal] = _fake(deal)
        return out


@pytest.fixture
def unanalysed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> EventStore:
    """The sample club session's 26 deals and results in a store whose cache holds none of them."""
    store = EventStore(tmp_path / "events.duckdb")
    for name in ("club_championship_handrecord.pbn", "club_championship_traveller.csv"):
        ingest_file(store, SAMPLE_DATA / name, recorded_at=RECORDED, options=IngestOptions(occurred_at=PLAYED))
    monkeypatch.setattr(analysis, "solver_version", lambda: "endplay (stand-in)")
    return store


def _cached_count(store: EventStore) -> int:
    with store.reader() as con:
        if not table_columns(con, [CACHE_TABLE]):
            return 0
        return int(con.execute(f"SELECT count(*) FROM {CACHE_TABLE}").fetchone()[0])  # type: ignore[index]


def test_a_killed_analysis_keeps_every_deal_it_solved_and_the_next_run_resumes(
        unanalysed: EventStore, monkeypatch: pytest.MonkeyPatch) -> None:
    dying = FakeSolver(die_at=4)
    monkeypatch.setattr(analysis, "solve", dying)
    with pytest.raises(Killed):
        analyse_deals(unanalysed)
    assert _cached_count(unanalysed) == 3  # the three solved before the kill were saved, one by one
    assert len(pending_deals(unanalysed)) == 23
    resumed = FakeSolver()
    monkeypatch.setattr(analysis, "solve", resumed)
    report = analyse_deals(unanalysed)
    assert (report.solved, report.pending) == (23, 0)
    assert not set(resumed.seen) & set(dying.seen)  # nothing solved twice
    assert _cached_count(unanalysed) == 26 and pending_deals(unanalysed) == []
    stored = cached(unanalysed, dying.seen)
    assert {d: a.tricks for d, a in stored.items()} == {d: _fake(d).tricks for d in dying.seen}


def test_a_run_is_bounded_and_logs_its_progress(unanalysed: EventStore, monkeypatch: pytest.MonkeyPatch,
                                                caplog: pytest.LogCaptureFixture) -> None:
    monkeypatch.setattr(analysis, "solve", FakeSolver())
    caplog.set_level(logging.INFO, logger="pipelines.site.analysis")
    report = analyse_deals(unanalysed, max_deals=5, progress_every_s=0)
    assert (report.solved, report.pending, _cached_count(unanalysed)) == (5, 21, 5)
    progress = [r.getMessage() for r in caplog.records if "solved and saved" in r.getMessage()]
    assert progress[0].startswith("double-dummy: 1/26 deal(s) solved and saved")
    assert progress[-1].startswith("double-dummy: 5/26 deal(s) solved and saved")
    no_time = analyse_deals(unanalysed, max_seconds=0)
    assert (no_time.solved, no_time.pending) == (0, 21)


def test_a_busy_store_keeps_solved_deals_for_the_next_save(unanalysed: EventStore,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(analysis, "solve", FakeSolver())
    real_save, calls = analysis.save, []

    def busy_once(store: EventStore, solved: dict[str, DoubleDummy], solver: str) -> None:
        calls.append(len(solved))
        if len(calls) == 1:
            raise StoreBusy("a reader holds the store")
        real_save(store, solved, solver)

    monkeypatch.setattr(analysis, "save", busy_once)
    assert analyse_deals(unanalysed, max_deals=3).solved == 3
    assert calls == [1, 2, 1] and _cached_count(unanalysed) == 3


def test_the_dags_site_build_solves_nothing_and_says_analysis_pending(unanalysed: EventStore, tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    def no_solver(deals: Sequence[str]) -> dict[str, DoubleDummy]:
        raise AssertionError(f"a page build solved {len(deals)} deal(s)")

    monkeypatch.setattr(analysis, "solve", no_solver)
    site = tmp_path / "site"
    publish_site(str(unanalysed.path), unanalysed.head(), str(site))  # what the DAGs' site tasks call
    page = (site / f"e-{EVENT}" / f"s-{SESSION}" / "board-A-1.html").read_text()
    assert ENGLISH["analysis_pending"] in page and "dd-table" not in page and ENGLISH["no_solver"] not in page
    monkeypatch.setattr(analysis, "solve", FakeSolver())
    assert analyse_pending_deals(str(unanalysed.path), max_deals=20) == 20
    monkeypatch.setattr(analysis, "solve", no_solver)
    # Some of its deals still wait: the session is not read again (a session of 100,000 deals is
    # not re-read at every build while its analysis runs for hours).
    again = build_site(unanalysed, site, up_to=unanalysed.head(), solve_limit=0)
    assert (again.rendered, again.written) == (0, [])
    monkeypatch.setattr(analysis, "solve", FakeSolver())
    assert analyse_pending_deals(str(unanalysed.path), max_seconds=60) == 6
    monkeypatch.setattr(analysis, "solve", no_solver)
    done = build_site(unanalysed, site, up_to=unanalysed.head(), solve_limit=0)  # all solved: looked at again
    assert done.rendered == 1
    page = (site / f"e-{EVENT}" / f"s-{SESSION}" / "board-A-1.html").read_text()
    assert ENGLISH["analysis_pending"] not in page and "dd-table" in page


def test_the_smallest_sessions_deals_are_solved_first(unanalysed: EventStore, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    from scripts.big_handrecord import write

    write(3, tmp_path / "small.pbn")
    ingest_file(unanalysed, tmp_path / "small.pbn", recorded_at=RECORDED,
                options=IngestOptions(event_id="small-2026", session_id="1", occurred_at=PLAYED))
    with unanalysed.reader() as con:
        small = {canonical_deal(r[0]) for r in con.execute(
            "SELECT payload->>'$.deal' FROM events WHERE type = 'BoardDealt' "
            "AND payload->>'$.event_id' = 'small-2026'").fetchall()}
    waiting = pending_deals(unanalysed)
    assert len(waiting) == 29 and set(waiting[:3]) == small


def test_a_build_solves_at_most_its_limit(unanalysed: EventStore, tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    solver = FakeSolver()
    monkeypatch.setattr(analysis, "solve", solver)
    report = build_site(unanalysed, tmp_path / "site", solve_limit=4)
    assert report.analysis is not None and (report.analysis.solved, report.analysis.pending) == (4, 22)
    assert len(solver.seen) == 4 and _cached_count(unanalysed) == 4
