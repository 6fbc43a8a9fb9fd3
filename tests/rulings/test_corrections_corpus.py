"""The Law 79C scenario over a real corpus session: FFB DN1 finale, séance 1 (Magic Contest)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path

import polars as pl

from pipelines.commands.director import TableRef, approve_late_correction, publish_scores, request_correction
from pipelines.files.ingest import IngestOptions, ingest_file
from pipelines.log.store import EventStore, NewEvent, to_epoch_us
from pipelines.replay.projections import ScoredEdition, export_csv, score_store
from tests.conftest import CORPUS, RECORDED_AT

PARIS = timezone(timedelta(hours=1))
FFB = CORPUS / "pbn" / "ffb_dn1_finale_2022_seance1.pbn"
EVENT, SESSION = "ffb-dn1-2022", "1"


def at(hh: int, mm: int, day: int = 6) -> datetime:
    return datetime(2022, 2, day, hh, mm, tzinfo=PARIS)


def _published(store: EventStore, period: float | None = None) -> None:
    ingest_file(store, FFB, recorded_at=RECORDED_AT,
                options=IngestOptions(event_id=EVENT, session_id=SESSION, occurred_at=at(14, 0)))
    publish_scores(store, EVENT, SESSION, at=at(21, 0), correction_period_minutes=period)


def _requests(store: EventStore) -> None:
    # Board 1, table 3: 4S by S made 10 tricks (+420); NS agree it was 9 (-50).
    request_correction(store, TableRef(EVENT, SESSION, 1, "3"), at=at(21, 10), correction_id="c1",
                       requested_by="EW 42", reason="one down, not made", tricks=9)
    request_correction(store, TableRef(EVENT, SESSION, 2, "3"), at=at(21, 40), correction_id="c2",
                       requested_by="NS 3", reason="declarer was N", declarer="N", contract="3NT")


def _pair_score(edition: ScoredEdition, pair: str) -> float:
    return float(edition.standings.filter(pl.col("contestant_id") == pair)["score"].sum())


def test_scenario_over_the_ffb_session(tmp_path: Path) -> None:
    store = EventStore(tmp_path / "ffb.duckdb")
    _published(store)
    first = score_store(store)
    first_files = export_csv(first, tmp_path / "first")
    _requests(store)
    after = score_store(store)
    row = after.board_scores.filter((pl.col("board") == 1) & (pl.col("table_id") == "3")).row(0, named=True)
    assert (row["contract"], row["tricks"], row["score_ns"]) == ("4S", 9, -50)
    assert _pair_score(after, "3") < _pair_score(first, "3")
    assert _pair_score(after, "42") > _pair_score(first, "42")
    decided = dict(after.projection.corrections.select("correction_id", "applied").rows())
    assert decided == {"c1": True, "c2": False}
    then = export_csv(score_store(store, as_of_us=to_epoch_us(at(21, 5))), tmp_path / "then")
    for name in first_files:
        assert then[name].read_bytes() == first_files[name].read_bytes()
    approve_late_correction(store, "c2", at=at(22, 0), organiser="FFB", director="DT",
                            statement="the bidding box record shows 3NT by N")
    assert dict(score_store(store).projection.corrections.select("correction_id", "applied").rows()) == {
        "c1": True, "c2": True}


def test_an_organiser_period_of_a_day_accepts_the_late_request(tmp_path: Path) -> None:
    store = EventStore(tmp_path / "ffb.duckdb")
    _published(store, period=24 * 60)
    _requests(store)
    assert score_store(store).projection.corrections["applied"].to_list() == [True, True]


def test_reverse_arrival_gives_the_same_scores(tmp_path: Path) -> None:
    forward, backward = EventStore(tmp_path / "f.duckdb"), EventStore(tmp_path / "b.duckdb")
    _published(forward)
    _requests(forward)
    late = forward.read()[-3:]  # publication, c1, c2
    ingest_file(backward, FFB, recorded_at=RECORDED_AT,
                options=IngestOptions(event_id=EVENT, session_id=SESSION, occurred_at=at(14, 0)))
    for event in reversed(late):
        backward.append([NewEvent(event.stream_id, event.type, event.payload, event.occurred_at)],
                        recorded_at=event.recorded_at)  # each when it was entered
    a = export_csv(score_store(forward), tmp_path / "a")
    b = export_csv(score_store(backward), tmp_path / "b")
    for name in a:
        assert a[name].read_bytes() == b[name].read_bytes()
