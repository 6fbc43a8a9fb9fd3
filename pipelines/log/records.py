"""What goes into the log and what comes back out, whatever the backend."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import orjson
import polars as pl

from models.events import CURRENT_VERSIONS
from models.upcasting import MissingUpcaster, Upcasters
from pipelines.log.chain import from_epoch_us, to_epoch_us
from pipelines.log.errors import ConcurrencyError, StoreError
from pipelines.log.payloads import encode_payload


@dataclass(frozen=True, slots=True)
class NewEvent:
    """An event about to be appended: the caller says what and when; the store says where."""

    stream_id: str
    type: str
    payload: Mapping[str, Any]
    occurred_at: datetime
    schema_version: int | None = None  # None: the version this code writes for `type`


@dataclass(frozen=True, slots=True)
class AppendResult:
    """What an append wrote.

    `replayed` is True when the append carried an idempotency key the log had already recorded:
    nothing was written, and the positions are those of the first append under that key.
    """

    count: int
    first_position: int | None
    last_position: int | None
    last_hash: str | None = None
    replayed: bool = False


@dataclass(frozen=True, slots=True)
class StoredEvent:
    """An event as read back, with its payload upcast to the current schema version."""

    position: int
    stream_id: str
    stream_version: int
    type: str
    schema_version: int
    payload: dict[str, Any]
    occurred_at: datetime
    recorded_at: datetime
    source_sha256: str | None


RawRow = tuple[int, str, int, str, int, str, int, int, str | None]
"""position, stream, version, type, schema version, payload JSON, occurred and recorded (µs), sha."""


def stored_events(rows: Sequence[RawRow], upcasters: Upcasters) -> list[StoredEvent]:
    """Rows as read from either backend, payloads decoded and upcast to the current versions
    (one by one: this is the path of the few events a command reads; replay upcasts in bulk)."""
    events = []
    for pos, stream, version, typ, schema, payload, occurred, recorded, sha in rows:
        body = orjson.loads(payload)
        target = CURRENT_VERSIONS.get(typ, schema)
        if schema < target:
            try:
                body = upcasters.upcast(typ, schema, body, target)
            except MissingUpcaster as exc:
                raise StoreError(str(exc)) from exc
            schema = target
        events.append(StoredEvent(pos, stream, version, typ, schema, body, from_epoch_us(occurred),
                                  from_epoch_us(recorded), sha))
    return events


def event_frame(events: Sequence[NewEvent]) -> pl.DataFrame:
    """`NewEvent`s as the columns `append_frame` takes, payloads encoded canonically."""
    epoch_us: dict[datetime, int] = {}  # a file's events mostly share one occurred_at
    occurred = []
    for event in events:
        moment = event.occurred_at
        if moment not in epoch_us:
            epoch_us[moment] = to_epoch_us(moment)
        occurred.append(epoch_us[moment])
    return pl.DataFrame(
        {
            "stream_id": [e.stream_id for e in events],
            "type": [e.type for e in events],
            "schema_version": [e.schema_version for e in events],
            "payload": [encode_payload(e.payload) for e in events],
            "occurred_us": occurred,
        },
        schema={"stream_id": pl.String, "type": pl.String, "schema_version": pl.Int32,
                "payload": pl.String, "occurred_us": pl.Int64},
    )


def prepared_frame(frame: pl.DataFrame, *, recorded_at: datetime, source_sha256: str | None) -> pl.DataFrame:
    """An append's columns checked and completed: schema versions filled with the version this code
    writes for each type, and the recording time and source file on every row."""
    missing = {"stream_id", "type", "payload", "occurred_us"} - set(frame.columns)
    if missing:
        raise ValueError(f"append_frame needs columns {sorted(missing)}")
    current = pl.col("type").replace_strict(CURRENT_VERSIONS, default=1, return_dtype=pl.Int32)
    given = pl.col("schema_version").cast(pl.Int32) if "schema_version" in frame.columns else None
    return frame.with_columns(
        schema_version=current if given is None else given.fill_null(current),
        recorded_us=pl.lit(to_epoch_us(recorded_at), dtype=pl.Int64),
        source_sha256=pl.lit(source_sha256, dtype=pl.String),
    )


def with_versions(frame: pl.DataFrame, current: Mapping[str, int]) -> pl.DataFrame:
    """Each row's stream version: its stream's current version plus its rank within the append."""
    base = pl.DataFrame({"stream_id": list(current), "base": list(current.values())},
                        schema={"stream_id": pl.String, "base": pl.Int64})
    return (
        frame.join(base, on="stream_id", how="left", maintain_order="left")
        .with_columns(
            stream_version=pl.col("base").fill_null(0) + pl.int_range(1, pl.len() + 1).over("stream_id")
        )
        .drop("base")
    )


def check_expected(current: Mapping[str, int], expected: Mapping[str, int]) -> None:
    """Refuse the append when a stream is not at the version its caller decided on."""
    for stream, version in expected.items():
        if current.get(stream, 0) != version:
            raise ConcurrencyError(
                f"stream {stream} is at version {current.get(stream, 0)}, expected {version}: "
                "another command changed it since it was read"
            )


def event_filter(types: Sequence[str] | None, up_to: int | None, stream_id: str | None, *,
                 param: str, any_of: str) -> tuple[str, list[Any]]:
    """The WHERE clause (empty, or with a leading space) picking events by type, position and
    stream, and its parameters, in a backend's dialect: `param` its placeholder, `any_of` its
    membership test of a list parameter (`{}` where the placeholder goes)."""
    clauses: list[str] = []
    params: list[Any] = []
    if types is not None:
        clauses.append("type " + any_of.format(param))
        params.append(list(types))
    if up_to is not None:
        clauses.append(f"position <= {param}")
        params.append(up_to)
    if stream_id is not None:
        clauses.append(f"stream_id = {param}")
        params.append(stream_id)
    return (f" WHERE {' AND '.join(clauses)}" if clauses else ""), params
