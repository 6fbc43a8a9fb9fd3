"""Upcasting on read: old rows are brought up to date in bulk, and replay cannot tell them apart.

The older shapes here are made up (the catalogue is at its first version everywhere) and frozen in
this file: `ResultRecorded` v0 said `declarer_seat` and the result relative to the contract
(`result`: -1, 0, +2) instead of the tricks; `PenaltyAwarded` v0 gave whole `points`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import polars as pl
import pytest
from polars.testing import assert_frame_equal

from models.events import ResultRecorded
from models.shape import Shape
from models.upcasting import Computed, Dropped, Filled, Renamed, Upcaster, Upcasters
from pipelines.files.ingest import ingest_file
from pipelines.log.store import EventStore, NewEvent
from pipelines.replay.frames import replay
from tests.conftest import RECORDED_AT

_LEVEL = pl.col("contract").str.slice(0, 1).cast(pl.Int64, strict=False)

STRING = Shape("string")

V0_TO_V1 = Upcasters()
V0_TO_V1.add(Upcaster("ResultRecorded", 0, (
    Renamed("declarer_seat", "declarer"),
    Computed("tricks", _LEVEL + 6 + pl.col("result"), {"contract": str, "result": int | None}),
    Dropped("result"),
)))
V0_TO_V1.add(Upcaster("PenaltyAwarded", 0, (
    Computed("amount", pl.col("points").cast(pl.Float64), {"points": int}),
    Dropped("points"),
)))


def _v0(event_type: str, payload: dict[str, Any]) -> dict[str, Any]:
    """The frozen older shape of a current payload."""
    body = dict(payload)
    if event_type == "ResultRecorded":
        body["declarer_seat"] = body.pop("declarer")
        tricks = body.pop("tricks")
        body["result"] = None if tricks is None else tricks - (int(body["contract"][0]) + 6)
    elif event_type == "PenaltyAwarded":
        body["points"] = int(body.pop("amount"))
    return body


@pytest.fixture
def current(tmp_path: Path, traveller: Path) -> EventStore:
    """The sample traveller and a penalty, stored at the current versions."""
    store = EventStore(tmp_path / "current.duckdb")
    ingest_file(store, traveller, recorded_at=RECORDED_AT)
    store.append([NewEvent("session:club-championship-2026/1", "PenaltyAwarded",
                           {"event_id": "club-championship-2026", "session_id": "1", "contestant_id": "3",
                            "direction": "NS", "amount": 2.0, "unit": "MP", "reason": "slow play"},
                           RECORDED_AT)], recorded_at=RECORDED_AT)
    return store


@pytest.fixture
def legacy(tmp_path: Path, current: EventStore) -> EventStore:
    """The same events in the same order, results and penalties stored at v0."""
    store = EventStore(tmp_path / "legacy.duckdb")
    old = {"ResultRecorded", "PenaltyAwarded"}
    store.append([NewEvent(e.stream_id, e.type, _v0(e.type, e.payload), e.occurred_at,
                           schema_version=0 if e.type in old else None) for e in current.read()],
                 recorded_at=RECORDED_AT)
    return store


def test_replay_of_old_rows_equals_replay_of_current_ones(current: EventStore, legacy: EventStore,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    batches: list[tuple[str, int]] = []
    step_frame = Upcaster.frame

    def counted(self: Upcaster, rows: pl.DataFrame) -> pl.DataFrame:
        batches.append((self.event_type, rows.height))
        return step_frame(self, rows)

    def one_by_one(self: Upcaster, body: dict[str, Any]) -> dict[str, Any]:
        raise AssertionError("replay upcast a payload one by one")

    monkeypatch.setattr(Upcaster, "frame", counted)
    monkeypatch.setattr(Upcaster, "payload", one_by_one)
    old, new = replay(legacy, upcasters=V0_TO_V1), replay(current)

    assert sorted(batches) == [("PenaltyAwarded", 1), ("ResultRecorded", 337)]  # one batch per type
    assert_frame_equal(old.results, new.results)
    assert_frame_equal(old.penalties, new.penalties)
    assert_frame_equal(old.sessions, new.sessions)
    assert old.penalties["amount"].to_list() == [2.0]
    assert old.results.filter(pl.col("kind") == "result")["tricks"].null_count() == \
        sum(1 for e in current.read(types=["ResultRecorded"]) if e.payload["tricks"] is None)


def test_a_replay_of_some_sessions_upcasts_their_old_rows_as_one_batch(current: EventStore, legacy: EventStore,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    # A replay of some sessions stages their events and reads each type from there, skipping the
    # types the scope does not hold and the older-version reads of types stored only at the current one.
    keys = list(replay(current).sessions.select("event_id", "session_id").iter_rows())
    batches: list[tuple[str, int]] = []
    step_frame = Upcaster.frame

    def counted(self: Upcaster, rows: pl.DataFrame) -> pl.DataFrame:
        batches.append((self.event_type, rows.height))
        return step_frame(self, rows)

    monkeypatch.setattr(Upcaster, "frame", counted)
    old, new = replay(legacy, upcasters=V0_TO_V1, sessions=keys), replay(current, sessions=keys)
    assert sorted(batches) == [("PenaltyAwarded", 1), ("ResultRecorded", 337)]
    assert_frame_equal(old.results, new.results)
    assert_frame_equal(old.penalties, new.penalties)
    assert_frame_equal(old.rulings, new.rulings)
    # Types the scope does not hold (no correction was requested): empty, with the columns and types
    # a read of the log gives.
    whole = replay(legacy, upcasters=V0_TO_V1)
    assert old.corrections.is_empty() and old.windows.is_empty()
    assert_frame_equal(old.corrections, whole.corrections)
    assert_frame_equal(old.windows, whole.windows)


def test_the_row_path_applies_the_same_declaration(current: EventStore, legacy: EventStore) -> None:
    """`EventStore.read` (one payload at a time) gives the current payloads back exactly."""
    old = legacy.read(types=["ResultRecorded", "PenaltyAwarded"], upcasters=V0_TO_V1)
    new = current.read(types=["ResultRecorded", "PenaltyAwarded"])
    assert [(e.type, e.schema_version, e.payload) for e in old] == [(e.type, 1, e.payload) for e in new]
    assert ResultRecorded.model_validate(old[0].payload).declarer == new[0].payload["declarer"]


def test_a_batch_of_several_versions_is_chained_step_by_step() -> None:
    """Rows at v0, v1 and v2 of one type in one batch: each step applies to the rows below it."""
    upcasters = Upcasters()
    upcasters.add(Upcaster("T", 0, (Renamed("a", "b"),)))
    upcasters.add(Upcaster("T", 1, (Renamed("b", "c"), Filled("d", "none"))))
    assert upcasters.old_fields("T", 0, 2, {"c": STRING, "d": STRING}) == {"b": STRING, "a": STRING}
    rows = pl.DataFrame({"schema_version": [0, 1, 2], "a": ["x", None, None], "b": [None, "y", None],
                         "c": [None, None, "z"], "d": [None, None, "kept"]})
    upcast = upcasters.upcast_frame("T", rows, 2)
    assert upcast.select("schema_version", "c", "d").rows() == [(2, "x", "none"), (2, "y", "none"), (2, "z", "kept")]
    assert upcasters.upcast("T", 0, {"a": "x"}, 2) == {"c": "x", "d": "none"}
