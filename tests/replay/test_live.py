"""Live projections: session-keyed replay, incremental refresh, status over time, old stores."""

from __future__ import annotations

import weakref
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import duckdb
import polars as pl
import pytest
from polars.testing import assert_frame_equal

from models.conditions import CarryOver, ConditionsOfContest
from pipelines.commands.director import TableRef, publish_scores, register_tournament, request_correction
from pipelines.edges.tasks import close_due_periods, score_at
from pipelines.files.ingest import IngestOptions, ingest_bytes, ingest_file
from pipelines.log import payload_frames
from pipelines.log.store import EventStore, to_epoch_us
from pipelines.replay import live
from pipelines.replay.frames import Projection, publication_windows, replay
from pipelines.replay.live import export_tables, read_tables, refresh
from pipelines.replay.projections import export_csv, score_projection, score_store
from tests.conftest import RECORDED_AT, SAMPLE_DATA

EVENT = "club-championship-2026"
PLAYED = datetime(2026, 11, 21, 18, 0, tzinfo=UTC)
PUBLISHED = datetime(2026, 11, 21, 20, 0, tzinfo=UTC)


def _second_session(store: EventStore, *, at: datetime, session: str = "2", event: str = EVENT) -> None:
    data = (SAMPLE_DATA / "club_championship_traveller.csv").read_bytes()
    ingest_bytes(store, data.replace(f"{EVENT},1,".encode(), f"{event},{session},".encode()),
                 source=f"{event}-{session}.csv", recorded_at=RECORDED_AT, options=IngestOptions(occurred_at=at))


@pytest.fixture
def two_sessions(store: EventStore) -> EventStore:
    ingest_file(store, SAMPLE_DATA / "club_championship_traveller.csv", recorded_at=RECORDED_AT,
                options=IngestOptions(occurred_at=PLAYED))
    _second_session(store, at=PLAYED)
    publish_scores(store, EVENT, "1", at=PUBLISHED)
    return store


def test_a_session_replay_equals_the_whole_replay_of_that_session(two_sessions: EventStore) -> None:
    request_correction(two_sessions, TableRef(EVENT, "2", 1, "4", "A"), at=datetime(2026, 11, 21, 20, 10, tzinfo=UTC),
                       correction_id="c1", requested_by="NS 4", reason="nine tricks", tricks=9)
    whole = score_projection(replay(two_sessions))
    alone = score_projection(replay(two_sessions, sessions=[(EVENT, "2")]))
    mine = pl.col("session_id") == "2"
    assert alone.board_scores.height == 338
    assert_frame_equal(alone.board_scores, whole.board_scores.filter(mine))
    assert_frame_equal(alone.standings, whole.standings.filter(mine))
    assert alone.projection.corrections["correction_id"].to_list() == ["c1"]
    assert alone.projection.windows.is_empty()  # session 2 was never published
    assert alone.as_of_us == whole.as_of_us  # the whole log's clock, not the session's


def test_a_session_replay_reads_its_streams_once_and_leaves_no_staged_table(two_sessions: EventStore) -> None:
    # The replay stages its scope's events in a temporary table (`PayloadReader`); on a held
    # connection (the site's), a table left behind would pile up with every replay.
    with two_sessions.session():
        alone = replay(two_sessions, sessions=[(EVENT, "2")])
        with two_sessions.reader() as con:
            staged = con.execute("SELECT table_name FROM duckdb_tables() WHERE temporary").fetchall()
    assert staged == []
    assert alone.results.height == 338 and set(alone.results["session_id"]) == {"2"}
    whole = replay(two_sessions).original_results.filter(pl.col("session_id") == "2")
    assert_frame_equal(alone.original_results.sort("board", "table_id"), whole.sort("board", "table_id"))


def test_refresh_rescores_only_the_touched_event_and_matches_a_full_replay(two_sessions: EventStore,
                                                                          tmp_path: Path) -> None:
    first = refresh(two_sessions)
    assert first.full and first.sessions.height == 2
    assert refresh(two_sessions).sessions.is_empty()  # nothing new: nothing rescored
    _second_session(two_sessions, at=PLAYED, session="3")
    other = (SAMPLE_DATA / "club_championship_traveller.csv").read_bytes().replace(EVENT.encode(), b"other-event")
    ingest_bytes(two_sessions, other, source="other.csv", recorded_at=RECORDED_AT,
                 options=IngestOptions(occurred_at=PLAYED))
    refresh(two_sessions)
    request_correction(two_sessions, TableRef("other-event", "1", 2, "3", "A"),
                       at=datetime(2026, 11, 21, 20, 5, tzinfo=UTC), correction_id="o1", requested_by="EW",
                       reason="eight", tricks=8)
    touched = refresh(two_sessions)
    assert not touched.full
    assert touched.sessions.rows() == [("other-event", "1")]
    assert touched.board_rows == 338
    live = export_tables(two_sessions, tmp_path / "live")
    whole = export_csv(score_store(two_sessions), tmp_path / "whole")
    assert {n: p.read_bytes() for n, p in live.items()} == {n: p.read_bytes() for n, p in whole.items()}


def test_a_rebuild_in_batches_holds_one_batch_of_frames_at_a_time(two_sessions: EventStore, tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """Peak memory follows the batch, not the history: each batch's replay reads its own sessions only,
    and when the next batch is replayed no frame of the one before (its replay, the rows it staged)
    is still held. Counted by weak references, so that it fails however small the frames."""
    for event in ("b-event", "c-event"):
        _second_session(two_sessions, at=PLAYED, session="1", event=event)
    replayed: list[list[tuple[str, str]]] = []
    held: list[weakref.ref[object]] = []

    def one_batch_at_a_time(store: EventStore, **options: Any) -> Projection:
        assert [ref for ref in held if ref() is not None] == [], f"batch {len(replayed) + 1} began holding frames"
        projection = replay(store, **options)
        replayed.append(sorted(options["sessions"]))
        held.extend(weakref.ref(frame) for frame in (projection, projection.results, projection.sessions))
        return projection

    def staged(con: duckdb.DuckDBPyConnection, table: str, frame: pl.DataFrame) -> None:
        held.append(weakref.ref(frame))
        insert(con, table, frame)

    insert = live._insert
    monkeypatch.setattr(live, "replay", one_batch_at_a_time)
    monkeypatch.setattr(live, "_insert", staged)
    rebuilt = refresh(two_sessions, full=True, batch_events=1)
    assert replayed == [[("b-event", "1")], [("c-event", "1")], [(EVENT, "1"), (EVENT, "2")]]  # by event_id
    assert rebuilt.full and rebuilt.sessions.height == 4 and rebuilt.board_rows == 4 * 338
    _tables_equal_a_whole_replay(two_sessions, tmp_path)


def test_a_rebuild_in_batches_reads_a_registration_made_after_every_session(
        two_sessions: EventStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A batch's reads are bounded by its streams' positions (`live._span`): the tournament's own
    stream counts, so conditions registered at the log's end, past every session's events, still
    change the totals (carried over here). A bound from the sessions alone would miss them.
    A batch of many streams reads a range of the log (a few are looked up one by one): here
    every batch does."""
    monkeypatch.setattr(payload_frames, "_INDEXED_STREAMS", 0)
    _second_session(two_sessions, at=PLAYED, session="1", event="b-event")
    register_tournament(two_sessions, EVENT, "Club championship", at=datetime(2026, 11, 21, 20, 6, tzinfo=UTC),
                        conditions=ConditionsOfContest(carry_over=CarryOver(mode="cumulative")))
    rebuilt = refresh(two_sessions, full=True, batch_events=1)
    assert rebuilt.full and rebuilt.sessions.height == 3
    _tables_equal_a_whole_replay(two_sessions, tmp_path)
    session_2 = read_tables(two_sessions)[1].filter(pl.col("session_id") == "2")
    carried = session_2.select("section", "direction", "contestant_id", "cumulative_score").sort(pl.all())
    assert carried.height == 26 and carried.null_count().sum_horizontal().item() == 0
    assert (session_2["cumulative_score"] > session_2["score"]).all()  # session 1's totals carried in


def _tables_equal_a_whole_replay(store: EventStore, outdir: Path) -> None:
    live = export_tables(store, outdir / "live")
    whole = export_csv(score_store(store), outdir / "whole")
    assert {n: p.read_bytes() for n, p in live.items()} == {n: p.read_bytes() for n, p in whole.items()}


def _cumulative(store: EventStore, session: str) -> list[tuple[str, float]]:
    standings = read_tables(store)[1].filter(pl.col("session_id") == session)
    return sorted(standings.select("contestant_id", "cumulative_score").rows())


def test_a_correction_rescores_its_own_session_unless_totals_carry_over(two_sessions: EventStore,
                                                                        tmp_path: Path) -> None:
    refresh(two_sessions)
    at = datetime(2026, 11, 21, 20, 5, tzinfo=UTC)
    request_correction(two_sessions, TableRef(EVENT, "1", 2, "3", "A"), at=at, correction_id="c1",
                       requested_by="EW", reason="eight", tricks=8)
    alone = refresh(two_sessions)
    assert alone.sessions.rows() == [(EVENT, "1")]  # a board's score never depends on another session
    assert alone.replayed_sessions == {(EVENT, "1"), (EVENT, "2")}  # (the site reads the event's others)
    _tables_equal_a_whole_replay(two_sessions, tmp_path / "alone")

    register_tournament(two_sessions, EVENT, "Club championship", at=datetime(2026, 11, 21, 20, 6, tzinfo=UTC),
                        conditions=ConditionsOfContest(carry_over=CarryOver(mode="cumulative")))
    assert sorted(refresh(two_sessions).sessions.rows()) == [(EVENT, "1"), (EVENT, "2")]  # new conditions
    before = _cumulative(two_sessions, "2")
    request_correction(two_sessions, TableRef(EVENT, "1", 2, "3", "A"), at=datetime(2026, 11, 21, 20, 7, tzinfo=UTC),
                       correction_id="c2", requested_by="NS", reason="ten", tricks=10)
    carried = refresh(two_sessions)
    # Session 2's totals carry session 1's over: a correction in session 1 changes them.
    assert sorted(carried.sessions.rows()) == [(EVENT, "1"), (EVENT, "2")]
    assert _cumulative(two_sessions, "2") != before
    _tables_equal_a_whole_replay(two_sessions, tmp_path / "carried")


def test_a_late_correction_to_one_session_turns_the_others_final_too(two_sessions: EventStore,
                                                                     tmp_path: Path) -> None:
    publish_scores(two_sessions, EVENT, "2", at=PUBLISHED)
    refresh(two_sessions)
    late = datetime(2026, 11, 23, 12, 0, tzinfo=UTC)  # both sessions' correction periods are over
    request_correction(two_sessions, TableRef(EVENT, "1", 2, "3", "A"), at=late, correction_id="late",
                       requested_by="EW", reason="eight", tricks=8)
    refreshed = refresh(two_sessions)
    assert refreshed.sessions.rows() == [(EVENT, "1")] and refreshed.relabelled.rows() == [(EVENT, "2")]
    with two_sessions.reader() as con:
        statuses = con.execute("SELECT session_id, status, position FROM projection_sessions ORDER BY 1").fetchall()
    assert statuses == [("1", "final", refreshed.position), ("2", "final", refreshed.position)]
    _tables_equal_a_whole_replay(two_sessions, tmp_path)


def test_a_period_that_ends_with_no_event_of_its_own_turns_final(two_sessions: EventStore) -> None:
    refresh(two_sessions)
    _, standings = read_tables(two_sessions)
    assert set(standings.filter(pl.col("session_id") == "1")["status"]) == {"provisional"}
    # Two hours later another event's session is played: the log's clock passes session 1's deadline.
    _second_session(two_sessions, at=datetime(2026, 11, 21, 22, 0, tzinfo=UTC), event="next-club-night")
    done = refresh(two_sessions)
    # Only the new event is rescored; the first event's rows are relabelled (no event of theirs came in).
    assert sorted(done.sessions.rows()) == [("next-club-night", "2")]
    assert sorted(done.relabelled.rows()) == [(EVENT, "1"), (EVENT, "2")]
    board, standings = read_tables(two_sessions)
    assert set(standings.filter(pl.col("session_id") == "1")["status"]) == {"final"}
    assert set(board.filter(pl.col("session_id") == "1")["status"]) == {"final"}
    assert set(standings.filter(pl.col("session_id") == "2")["status"]) == {"provisional"}  # never published


def test_a_relabel_gives_the_tables_a_rescore_gives(two_sessions: EventStore, tmp_path: Path) -> None:
    publish_scores(two_sessions, EVENT, "2", at=PUBLISHED)
    refresh(two_sessions)  # both sessions provisional at the tables' clock
    _second_session(two_sessions, at=datetime(2026, 11, 21, 22, 0, tzinfo=UTC), event="next-club-night")
    rescored = EventStore(tmp_path / "rescored.duckdb")
    rescored.path.write_bytes(two_sessions.path.read_bytes())
    relabelled = refresh(two_sessions)
    assert sorted(relabelled.relabelled.rows()) == [(EVENT, "1"), (EVENT, "2")]
    assert refresh(rescored, full=True).full

    def tables(store: EventStore) -> list[pl.DataFrame]:
        with store.reader() as con:
            return [con.sql(f"SELECT * FROM {name}").pl().sort(pl.all(), nulls_last=True)
                    for name in ("projection_board_scores", "projection_standings", "projection_sessions",
                                 "projection_state")]

    for kept, rebuilt in zip(tables(two_sessions), tables(rescored), strict=True):
        assert_frame_equal(kept, rebuilt)
    _, standings = read_tables(two_sessions)
    assert set(standings.filter(pl.col("event_id") == EVENT)["status"]) == {"final"}


def test_the_close_periods_task_and_score_agree(two_sessions: EventStore, tmp_path: Path) -> None:
    score_at(str(two_sessions.path), two_sessions.head(), str(tmp_path / "before"))
    assert set(pl.read_csv(tmp_path / "before" / "standings.csv").filter(pl.col("session_id") == 1)["status"]) \
        == {"provisional"}
    closed = close_due_periods(str(two_sessions.path), "2026-11-21T21:00:00+00:00", str(tmp_path / "final"))
    assert closed == [f"{EVENT}/1"]
    final = pl.read_csv(tmp_path / "final" / "standings.csv")
    assert set(final.filter(pl.col("session_id") == 1)["status"]) == {"final"}
    # The CLI's score (a refresh) shows what the task published, and a replay of the whole log agrees.
    refresh(two_sessions)
    assert set(read_tables(two_sessions)[1].filter(pl.col("session_id") == "1")["status"]) == {"final"}
    cutoff = to_epoch_us(datetime(2026, 11, 21, 21, tzinfo=UTC))
    assert_frame_equal(publication_windows(two_sessions, as_of_us=cutoff),
                       replay(two_sessions, as_of_us=cutoff).windows)


def test_a_store_written_before_live_projections_migrates_verifies_and_scores(two_sessions: EventStore,
                                                                              tmp_path: Path) -> None:
    # What the previous version left in a store: the events, two projection tables, and a state
    # table with a position only (written as its `write_views` wrote them).
    edition = score_store(two_sessions)
    with two_sessions.writer() as con:
        con.execute("DROP VIEW IF EXISTS board_scores")
        con.execute("DROP VIEW IF EXISTS standings")
        for table in ("projection_board_scores", "projection_standings", "projection_sessions", "projection_state"):
            con.execute(f"DROP TABLE IF EXISTS {table}")
        con.register("old_board", edition.board_scores)
        con.register("old_standings", edition.standings)
        con.execute("CREATE TABLE projection_board_scores AS SELECT * FROM old_board")
        con.execute("CREATE TABLE projection_standings AS SELECT * FROM old_standings")
        con.execute("CREATE TABLE projection_state AS SELECT ?::BIGINT AS position", [edition.position])
        events_before = con.execute("SELECT position, hash FROM events ORDER BY position").fetchall()
        columns_before = con.execute("SELECT column_name, data_type FROM duckdb_columns()"
                                     " WHERE table_name = 'events' ORDER BY column_index").fetchall()
    done = refresh(two_sessions)
    assert done.full  # the old state had no clock: rebuilt, not trusted
    assert two_sessions.verify().ok
    with two_sessions.reader() as con:
        assert con.execute("SELECT position, hash FROM events ORDER BY position").fetchall() == events_before
        assert con.execute("SELECT column_name, data_type FROM duckdb_columns()"
                           " WHERE table_name = 'events' ORDER BY column_index").fetchall() == columns_before
        tables = {row[0] for row in con.execute("SELECT table_name FROM duckdb_tables()").fetchall()}
        count = con.execute("SELECT count(*) FROM board_scores").fetchall()[0][0]
    assert {"projection_sessions", "projection_state"} <= tables
    assert count == edition.board_scores.height == 676
    live = export_tables(two_sessions, tmp_path / "live")
    whole = export_csv(edition, tmp_path / "whole")
    assert {n: p.read_bytes() for n, p in live.items()} == {n: p.read_bytes() for n, p in whole.items()}


def test_tables_with_other_columns_are_rebuilt_not_continued(two_sessions: EventStore) -> None:
    refresh(two_sessions)
    with two_sessions.writer() as con:  # as a version with one column fewer left them
        con.execute("ALTER TABLE projection_board_scores DROP COLUMN points_ew")
    _second_session(two_sessions, at=PLAYED, session="3")
    assert refresh(two_sessions).full
    with two_sessions.reader() as con:
        assert "points_ew" in {row[0] for row in con.execute("DESCRIBE board_scores").fetchall()}


def test_an_as_of_edition_written_to_the_views_is_rebuilt_not_continued(two_sessions: EventStore) -> None:
    from pipelines.replay.live import write_views

    write_views(two_sessions, score_store(two_sessions, as_of_us=to_epoch_us(PLAYED)))
    assert refresh(two_sessions).full


def test_the_log_clock_kept_with_the_tables_is_the_clock_a_scan_of_the_log_gives(two_sessions: EventStore) -> None:
    from pipelines.replay.frames import log_clock

    refresh(two_sessions)
    late = datetime(2026, 11, 22, 9, 30, tzinfo=UTC)  # after every event so far: the clock moves
    request_correction(two_sessions, TableRef(EVENT, "2", 1, "4", "A"), at=late, correction_id="c-late",
                       requested_by="NS 4", reason="nine tricks", tricks=9)
    early = datetime(2026, 11, 21, 19, 0, tzinfo=UTC)  # recorded after it, happened before: the clock stays
    request_correction(two_sessions, TableRef(EVENT, "2", 2, "4", "A"), at=early, correction_id="c-early",
                       requested_by="NS 4", reason="ten tricks", tricks=10)
    refreshed = refresh(two_sessions)
    assert not refreshed.full and refreshed.clock_us == to_epoch_us(late)
    with two_sessions.reader() as con:
        kept = con.execute("SELECT position, clock_us, log_clock_us FROM projection_state").fetchall()
        assert kept == [(refreshed.position, to_epoch_us(late), log_clock(con, refreshed.position))]


def test_tables_whose_state_kept_no_log_clock_continue_and_keep_it(two_sessions: EventStore) -> None:
    refresh(two_sessions)
    with two_sessions.writer() as con:  # as the version before the kept log clock left them
        con.execute("CREATE OR REPLACE TABLE projection_state AS SELECT position, clock_us FROM projection_state")
    _second_session(two_sessions, at=PLAYED, session="3")
    refreshed = refresh(two_sessions)
    assert not refreshed.full and refreshed.sessions.rows() == [(EVENT, "3")]  # the new session alone
    with two_sessions.reader() as con:
        assert con.execute("SELECT clock_us = log_clock_us FROM projection_state").fetchall() == [(True,)]
    whole = score_projection(replay(two_sessions))
    assert_frame_equal(read_tables(two_sessions)[0].sort("session_id", "board", "table_id"),
                       whole.board_scores.sort("session_id", "board", "table_id"), check_dtypes=False)
