"""One event shape: the columns of readers, ingest, replay and scoring come from the event models.

A field of a model that some columnar stage does not carry fails here; a field added to a model
(here to a subclass built in the test) reaches ingest's payloads, the store and replay's frames
without another list being edited.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest
from pydantic import BaseModel

from models.events import EVENT_TYPES, BoardDealt, ResultRecorded, event_payload
from models.shape import json_transform_type, model_fields, payload_fields, polars_dtype, replayed_fields
from models.upcasting import Upcasters
from parsers.columnar import BOARD_SCHEMA, FILE_CONTEXT, RESULT_SCHEMA, columnar_from_parsed
from pipelines.files.ingest import FileContext, ingest_file, parse_bytes, read_columnar, results_frame
from pipelines.log.payload_frames import PayloadReader
from pipelines.log.store import EventStore
from pipelines.replay.frames import replay
from pipelines.scoring.frames import RESULTS_SCHEMA
from tests.conftest import CORPUS, RECORDED_AT, SAMPLE_DATA

CTX = FileContext("e1", "s1", "ab" * 32, 1_763_762_400_000_000)


class NotedResult(ResultRecorded):
    """`ResultRecorded` with two optional fields added after the fact (no schema version bump)."""

    director_note: str | None = None
    """A note the director wrote on the traveller."""
    scorer: str = "unknown"
    """Who keyed the result in."""


@pytest.mark.parametrize("event_type", sorted(EVENT_TYPES))
def test_every_field_of_every_event_has_a_column_type(event_type: str) -> None:
    """Property over the catalogue: every payload field has a polars and a DuckDB type, so any field
    a model gains is extracted and framed without a hand-written type."""
    for field in model_fields(EVENT_TYPES[event_type]):
        assert polars_dtype(field.shape) is not None
        assert json_transform_type(field.shape).startswith(('"', "[", "{"))


FILES = [SAMPLE_DATA / "club_championship_traveller.csv", SAMPLE_DATA / "club_championship_handrecord.pbn",
         SAMPLE_DATA / "weekend" / "saturday" / "national_pairs_s1_A.pbn",
         SAMPLE_DATA / "weekend" / "friday" / "hillside_pairs.xml", CORPUS / "lin" / "bbo_20784109_redouble.lin"]


@pytest.mark.parametrize("path", FILES, ids=lambda path: path.name)
def test_readers_frames_carry_every_payload_field(path: Path) -> None:
    """Boards and results frames, as each reader returns them (the fast path where there is one, and
    the careful reader's records), have a column for every field of `BoardDealt` and
    `ResultRecorded` that the file does not supply itself."""
    data = path.read_bytes()
    for read in (read_columnar(data, path.name), columnar_from_parsed(parse_bytes(data, path.name))):
        assert read.boards.height + read.results.height > 0
        for frame, schema, model in ((read.boards, BOARD_SCHEMA, BoardDealt),
                                     (read.results, RESULT_SCHEMA, ResultRecorded)):
            assert frame.schema == schema
            assert set(payload_fields(model)) - FILE_CONTEXT <= set(frame.columns), model.__name__


def test_stored_payloads_are_the_whole_model(store: EventStore, traveller: Path) -> None:
    """What ingest stores column-wise is every field of the model (and validates as it)."""
    ingest_file(store, traveller, recorded_at=RECORDED_AT)
    for event in store.read(types=["ResultRecorded", "BoardDealt"]):
        model = EVENT_TYPES[event.type]
        assert set(event.payload) == set(payload_fields(model)), event.type
        assert event_payload(model.model_validate(event.payload)) == event.payload


def test_replay_and_scoring_frames_hold_every_replayed_field(store: EventStore, traveller: Path) -> None:
    ingest_file(store, traveller, recorded_at=RECORDED_AT)
    results = replay(store).results
    assert list(replayed_fields(ResultRecorded)) == list(RESULTS_SCHEMA)[:len(replayed_fields(ResultRecorded))]
    assert set(replayed_fields(ResultRecorded)) <= set(results.columns)
    recorded = results.filter(pl.col("kind") == "result")
    assert recorded.height == 337 and recorded["contract"].null_count() == 0


def _read(store: EventStore, model: type[BaseModel]) -> pl.DataFrame:
    with store.reader() as con:
        return PayloadReader(con, store.head(), Upcasters(), 2**62).frame("ResultRecorded", model)


def test_an_added_optional_field_flows_from_a_reader_frame_to_replay(store: EventStore, traveller: Path) -> None:
    read = read_columnar(traveller.read_bytes(), traveller.name)
    # A reader that now fills the new field for some rows; the rest leave it unset.
    noted = read.results.with_columns(
        director_note=pl.when(pl.col("board") == 1).then(pl.lit("slow play")).otherwise(None))
    facts = results_frame(noted, CTX, NotedResult)
    store.append_frame(facts, recorded_at=RECORDED_AT)

    stored = store.read(types=["ResultRecorded"])
    assert {e.payload["director_note"] for e in stored} == {"slow play", None}
    assert all(e.payload["scorer"] == "unknown" for e in stored)  # no column: the field's default
    assert [NotedResult.model_validate(e.payload).director_note for e in stored] == noted["director_note"].to_list()

    frame = _read(store, NotedResult)
    assert frame["director_note"].to_list() == noted["director_note"].to_list()
    assert frame["board"].to_list() == noted["board"].to_list()
    assert "director_note" in {name for name in replayed_fields(NotedResult)}


def test_events_written_before_a_field_was_added_read_as_its_default(store: EventStore, traveller: Path) -> None:
    """Additive optional fields need no version bump: the old payloads lack them, and read as the
    default (a scalar default filled, a None default null)."""
    read = read_columnar(traveller.read_bytes(), traveller.name)
    store.append_frame(results_frame(read.results, CTX), recorded_at=RECORDED_AT)  # today's ResultRecorded
    frame = _read(store, NotedResult)
    assert frame.height == read.results.height
    assert frame["scorer"].unique().to_list() == ["unknown"]
    assert frame["director_note"].null_count() == frame.height
    assert frame.drop("director_note", "scorer").equals(_read(store, ResultRecorded))
