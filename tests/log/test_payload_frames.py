"""Replay's frames of a scope of sessions: staged by one query per stream, and no query for a type
the scope does not hold."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import polars as pl
import pytest
from polars.testing import assert_frame_equal

import pipelines.log.payload_frames as payload_frames
from models.events import CURRENT_VERSIONS, EVENT_TYPES, UPCASTERS
from models.shape import Shape, replayed_fields
from pipelines.base.query_frames import frame_of
from pipelines.commands.director import publish_scores
from pipelines.files.ingest import ingest_file
from pipelines.log.payload_frames import PayloadReader, Scope, empty_frame, frame_sql
from pipelines.log.store import EventStore
from tests.conftest import RECORDED_AT, SAMPLE_DATA

EVENT = "club-championship-2026"
SCOPE = Scope.of([(EVENT, "1")])
AS_OF_US = 2**62
OTHER_EVENT = SAMPLE_DATA / "weekend" / "friday" / "riverside_pairs.csv"


@pytest.fixture
def session(store: EventStore, traveller: Path) -> EventStore:
    ingest_file(store, traveller, recorded_at=RECORDED_AT)
    ingest_file(store, SAMPLE_DATA / "club_championship_handrecord.pbn", recorded_at=RECORDED_AT)
    ingest_file(store, OTHER_EVENT, recorded_at=RECORDED_AT)  # another event's streams, which are left out
    publish_scores(store, EVENT, "1", at=datetime(2026, 11, 21, 20, 0, tzinfo=UTC))
    return store


def _fields(event_type: str) -> dict[str, Shape]:
    return {name: f.shape for name, f in replayed_fields(EVENT_TYPES[event_type]).items()}


FRAMED = sorted(t for t in EVENT_TYPES if not {"position", "occurred_us"} & set(_fields(t)))
"""The types a frame can hold: a payload field named like the frame's own columns cannot be one."""


def test_only_the_ranking_edition_names_a_field_like_a_frame_column() -> None:
    # Its `position` is the log position the edition was computed at; the ranking reads it, not replay.
    assert sorted(set(EVENT_TYPES) - set(FRAMED)) == ["RankingPublished"]


@pytest.mark.parametrize("event_type", FRAMED)
def test_a_type_the_scope_lacks_has_the_columns_its_query_would_give(session: EventStore, event_type: str) -> None:
    fields = _fields(event_type)
    with session.reader() as con:
        queried = frame_of(con.sql(frame_sql(fields, "schema_version = ? AND FALSE"),
                                   params=[event_type, CURRENT_VERSIONS.get(event_type, 1)]))
    assert queried.is_empty()
    assert empty_frame(fields).schema == queried.schema


def test_staging_by_stream_reads_what_a_filter_on_the_log_reads(session: EventStore,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    with session.reader() as con:
        head = int(con.execute("SELECT max(position) FROM events").fetchall()[0][0])

        def frames(position: int) -> dict[str, pl.DataFrame]:
            with PayloadReader(con, position, UPCASTERS, AS_OF_US, SCOPE) as read:
                return {event_type: read.frame(event_type) for event_type in FRAMED}

        by_stream, before = frames(head), frames(head - 1)  # the publication is the log's last event
        monkeypatch.setattr(payload_frames, "_STREAM_QUERIES", 0)  # the scope read with one filter on the log
        by_filter, before_by_filter = frames(head), frames(head - 1)
        recorded = con.execute("SELECT count(*) FROM events WHERE type = 'ResultRecorded' AND stream_id = ?",
                               [SCOPE.streams[0]]).fetchall()[0][0]
    assert recorded > 300 and by_stream["ResultRecorded"].height == recorded
    assert by_stream["ScoresPublished"].height == 1
    assert by_stream["BoardDealt"].height > 0 and by_stream["BoardFouled"].is_empty()
    assert set(by_stream["ResultRecorded"]["event_id"]) == {EVENT}
    assert before["ScoresPublished"].is_empty() and before["ResultRecorded"].height == recorded
    for event_type, frame in by_stream.items():
        assert_frame_equal(frame, by_filter[event_type])
        assert_frame_equal(before[event_type], before_by_filter[event_type])
