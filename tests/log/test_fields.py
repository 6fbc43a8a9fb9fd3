"""Payload fields read in SQL come out as the current model has them, old rows upcast first."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import Path

import polars as pl
import pytest

from models.events import CURRENT_VERSIONS, UPCASTERS
from models.upcasting import MissingUpcaster, Renamed, Upcaster, Upcasters
from pipelines.log import fields
from pipelines.log.fields import PayloadField, payload_fields
from pipelines.log.store import EventStore, NewEvent
from pipelines.log.views import RANKING_LOG_VIEWS_SQL
from tests.conftest import RECORDED_AT

AT = datetime(2026, 11, 21, 20, 0, tzinfo=UTC)
REPO = Path(__file__).resolve().parents[2]
TABLE = (PayloadField("table_id", "table_id"), PayloadField("board", "board", pl.Int64()),
         PayloadField("sha256", "source.sha256"), PayloadField("mp", "published.mp_ns", pl.Float64()))


def _result(table: str, *, version: int, old_name: bool = False, mp: object = 4.5) -> NewEvent:
    key = "tbl" if old_name else "table_id"
    return NewEvent("session:e/1", "Claimed", {key: table, "board": 3, "source": {"sha256": "ab"},
                                               "published": {"mp_ns": mp}}, AT, schema_version=version)


def test_rows_of_an_older_version_are_upcast_before_their_fields_are_read(
        log_store: EventStore, monkeypatch: pytest.MonkeyPatch) -> None:
    """Version 1 called the table `tbl`; version 2 renamed it. Both rows give `table_id`."""
    monkeypatch.setitem(fields.CURRENT_VERSIONS, "Claimed", 2)
    upcasters = Upcasters()
    upcasters.add(Upcaster("Claimed", 1, (Renamed("tbl", "table_id"),)))
    log_store.append([_result("7", version=1, old_name=True), _result("8", version=2, mp="n/a")],
                     recorded_at=RECORDED_AT)
    with log_store.reader() as con:
        read = payload_fields(con, ["Claimed"], TABLE, upcasters=upcasters)
        raw = con.execute("SELECT payload->>'$.table_id' FROM events ORDER BY position").fetchall()
    assert raw == [(None,), ("8",)]  # what a reader of the stored JSON alone would have seen
    assert read.to_dicts() == [
        {"position": 1, "stream_id": "session:e/1", "type": "Claimed", "table_id": "7", "board": 3,
         "sha256": "ab", "mp": 4.5},
        {"position": 2, "stream_id": "session:e/1", "type": "Claimed", "table_id": "8", "board": 3,
         "sha256": "ab", "mp": None},  # not a number: null, as SQL's TRY_CAST gives
    ]


def test_repeated_rows_counts_rows_whose_stream_and_keys_came_before_old_rows_upcast_first(
        log_store: EventStore, monkeypatch: pytest.MonkeyPatch) -> None:
    """Table 7 claimed by a version-1 row (`tbl`) and again by a current one: one repeat, found only
    once the old row is upcast; table 8 once; table 9 twice but in another stream each time; a row
    that `keep` leaves out is no repeat."""
    monkeypatch.setitem(fields.CURRENT_VERSIONS, "Claimed", 2)
    upcasters = Upcasters()
    upcasters.add(Upcaster("Claimed", 1, (Renamed("tbl", "table_id"),)))
    other = NewEvent("session:e/2", "Claimed", {"table_id": "9", "board": 3, "source": {"sha256": "cd"}}, AT,
                     schema_version=2)
    unsourced = NewEvent("session:e/1", "Claimed", {"table_id": "8", "board": 3, "source": {}}, AT, schema_version=2)
    log_store.append([_result("7", version=1, old_name=True), _result("7", version=2), _result("8", version=2),
                      _result("9", version=2), other, unsourced], recorded_at=RECORDED_AT)
    keys = ["table_id", "board"]
    with log_store.reader() as con:
        repeats = fields.repeated_rows(con, ["Claimed"], TABLE, keys, keep="sha256 IS NOT NULL", upcasters=upcasters)
        every = fields.repeated_rows(con, ["Claimed"], TABLE, keys, upcasters=upcasters)
        later = fields.repeated_rows(con, ["Claimed"], TABLE, keys, where="position >= ?", params=[2],
                                     upcasters=upcasters)
        read = payload_fields(con, ["Claimed"], TABLE, upcasters=upcasters)
    assert (repeats, every, later) == (1, 2, 1)
    assert every == read.height - read.select("stream_id", *keys).n_unique()  # what a frame of them counts


def test_the_filter_and_the_types_choose_the_rows(log_store: EventStore) -> None:
    log_store.append([_result("7", version=1), _result("8", version=1),
                      NewEvent("session:e/2", "Other", {"table_id": "9"}, AT)], recorded_at=RECORDED_AT)
    with log_store.reader() as con:
        read = payload_fields(con, ["Claimed", "Other"], TABLE[:1], where="position >= ?", params=[2])
        none = payload_fields(con, ["Missing"], TABLE)
    assert read.rows() == [(2, "session:e/1", "Claimed", "8"), (3, "session:e/2", "Other", "9")]
    assert none.height == 0 and none.schema["board"] == pl.Int64 and none.schema["mp"] == pl.Float64


def test_the_analysts_views_read_only_payloads_no_upcaster_has_changed() -> None:
    """The ranking's SQL views over the log (`members`, `ranking_editions`, `ranking_titles`) read
    payload JSON as stored: right only while their events are at their first schema version. The
    day one is bumped, this fails: the view must then read rows kept upcast (a derived table), not
    raw JSON."""
    read_raw = set(re.findall(r"type = '(\w+)'", RANKING_LOG_VIEWS_SQL))
    assert read_raw == {"MemberRegistered", "RankingPublished"}
    assert {event_type: CURRENT_VERSIONS.get(event_type, 1) for event_type in read_raw} == dict.fromkeys(read_raw, 1)
    assert not [key for key in UPCASTERS.steps if key[0] in read_raw]


def test_no_module_outside_the_logs_owner_reads_payload_json_in_sql() -> None:
    """Every payload field read in SQL goes through `payload_fields` (old rows upcast first); the
    views above are the one exception, and they are guarded."""
    readers = {path.relative_to(REPO).as_posix() for path in (REPO / "pipelines").rglob("*.py")
               if re.search(r"payload->|json_extract", path.read_text(encoding="utf-8"))}
    assert readers == {"pipelines/log/fields.py", "pipelines/log/views.py"}


def test_the_rankings_typed_frames_upcast_older_rows_too(log_store: EventStore,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """`payload_frame` reads the ranking's fields in one pass of DuckDB's JSON parser; a row stored
    under an older version is upcast before its fields are read, as `payload_fields` does."""
    from pipelines.log import payload_frames

    monkeypatch.setitem(payload_frames.CURRENT_VERSIONS, "Claimed", 2)
    upcasters = Upcasters()
    upcasters.add(Upcaster("Claimed", 1, (Renamed("tbl", "table_id"),)))
    log_store.append([_result("7", version=1, old_name=True), _result("8", version=2),
                      _result("9", version=1, old_name=True, mp="n/a")], recorded_at=RECORDED_AT)
    with log_store.reader() as con:
        read = payload_frames.payload_frame(con, "Claimed", {"table_id": pl.String(), "board": pl.Int64()},
                                            up_to=3, as_of_us=2**62, upcasters=upcasters)
        # Without its upcaster an old row is never read as if it were current.
        with pytest.raises(MissingUpcaster, match="Claimed v1 -> v2"):
            payload_frames.payload_frame(con, "Claimed", {"table_id": pl.String()}, up_to=2, as_of_us=2**62,
                                         upcasters=Upcasters())
    assert read.select("position", "table_id", "board").rows() == [(1, "7", 3), (2, "8", 3), (3, "9", 3)]
    assert read.schema["board"] == pl.Int64
