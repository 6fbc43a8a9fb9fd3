"""A whole file as frames: the hand records and traveller lines of a `ParsedFile`, column by column.

Every reader's output reaches the event log through this shape. A careful reader returns records
(`ParsedFile`) and `columnar_from_parsed` turns them into frames; a vectorised fast path (PBN, LIN)
builds the frames directly from the text. Both must agree to the byte: whenever a fast path returns
a `ColumnarFile`, it equals `columnar_from_parsed` of the careful reader on the same bytes (the
tests hold every fast path to that). A fast path returns None for anything it cannot vouch for, and
the careful reader, with its positioned diagnostics, takes the file instead.

Column meanings are those of `parsers.records`; the encodings are those of the event payloads:
cards `SA`, contracts `4SX` / `PASS`, seats `N`, vulnerability `None`/`NS`/`EW`/`All`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import accumulate
from typing import Any

import polars as pl
import pyarrow as pa
from pydantic import BaseModel

from models.diagnostics import Diagnostic, errors_among
from models.events import BoardDealt, Player, ResultRecorded
from models.shape import REQUIRED, canonical_text, payload_fields, polars_dtype
from parsers.arrow import arrow_type
from parsers.arrow import frame as arrow_frame
from parsers.records import (
    ArtificialRecord,
    BoardRecord,
    ContestantRecord,
    FileMetadata,
    ParsedFile,
    ResultRecord,
)

PLAYERS = pl.List(pl.Struct({"name": pl.String(), "federation_id": pl.String()}))
"""Players sitting one side, in the order the file names them."""

FILE_CONTEXT = frozenset({"event_id", "session_id", "source"})
"""Payload fields ingest fills from the file rather than from a column: the names it gives the
event and session, and each row's provenance (`source`: the file's SHA-256, `record`, `line`)."""


def frame_schema(model: type[BaseModel], extra: Mapping[str, pl.DataType] | None = None) -> pl.Schema:
    """The columns a reader's frame of `model`'s events has: the record's index and line, then every
    payload field but `FILE_CONTEXT`, in the model's order and types (`models.shape`), then `extra`."""
    fields = {name: polars_dtype(f.shape) for name, f in payload_fields(model).items() if name not in FILE_CONTEXT}
    return pl.Schema({"record": pl.Int64(), "line": pl.Int64(), **fields, **(extra or {})})


BOARD_SCHEMA = frame_schema(BoardDealt)
"""One row per hand record: `BoardDealt`'s fields (dealer and vulnerability null when the board
does not mark them: Law 2 applies; deal null when the hands are unknown)."""

RESULT_SCHEMA = frame_schema(ResultRecorded, {"ns_players": PLAYERS, "ew_players": PLAYERS})
"""One row per traveller line with a result: `ResultRecorded`'s fields (`published` as its
canonical JSON text, '{}' for none), and the players who sat each side."""


_BOARD_ARROW = {name: arrow_type(dtype) for name, dtype in BOARD_SCHEMA.items()}
_RESULT_ARROW = {name: arrow_type(dtype) for name, dtype in RESULT_SCHEMA.items()}


def conformed(frame: pl.DataFrame, schema: pl.Schema, model: type[BaseModel]) -> pl.DataFrame:
    """`frame` as exactly `schema`'s columns; a payload field the reader does not fill (a field
    newer than the reader) is the field's default on every row."""
    if frame.schema == schema:
        return frame
    fields = payload_fields(model)
    return frame.select(
        (pl.col(name) if name in frame.columns else _default(fields[name].default)).cast(dtype).alias(name)
        for name, dtype in schema.items()
    )


def _default(value: Any) -> pl.Expr:
    if isinstance(value, dict):
        return pl.lit(canonical_text(value))
    if isinstance(value, tuple):
        return pl.lit(pl.Series([list(value)])).first()
    if value is REQUIRED:
        raise ValueError("a required field has no column")
    return pl.lit(value)


@dataclass(frozen=True)
class ColumnarFile:
    """Everything a reader got from one file, with boards and results as frames.

    Artificial scores and contestants stay records: a file has few of them, and they carry the
    variety (awards, players) that frames gain nothing from.
    """

    source: str
    format: str
    parser_version: str
    metadata: FileMetadata
    boards: pl.DataFrame
    results: pl.DataFrame
    artificial: tuple[ArtificialRecord, ...] = ()
    contestants: tuple[ContestantRecord, ...] = ()
    diagnostics: tuple[Diagnostic, ...] = ()
    quarantined: int = 0

    @property
    def errors(self) -> tuple[Diagnostic, ...]:
        """Diagnostics of severity error."""
        return errors_among(self.diagnostics)

    @property
    def has_records(self) -> bool:
        """Whether anything worth appending was read."""
        return bool(self.boards.height or self.results.height or self.artificial)


def encode_published(values: dict[str, float | str]) -> str:
    """The canonical JSON of a row's published values, as payloads store it."""
    return canonical_text(values)


def board_frame(boards: tuple[BoardRecord, ...] | list[BoardRecord]) -> pl.DataFrame:
    """Hand records as a frame of `BOARD_SCHEMA`."""
    columns = {
        "record": [b.at.record for b in boards],
        "line": [b.at.line for b in boards],
        "section": [b.section for b in boards],
        "board": [b.board for b in boards],
        "dealer": [b.dealer.value if b.dealer else None for b in boards],
        "vulnerability": [b.vulnerability.value if b.vulnerability else None for b in boards],
        "deal": [b.deal.to_pbn() if b.deal else None for b in boards],
        "published": [encode_published(b.published) for b in boards],
    }
    return _complete(_typed(columns, _BOARD_ARROW), BOARD_SCHEMA, BoardDealt)


def result_frame(results: tuple[ResultRecord, ...] | list[ResultRecord]) -> pl.DataFrame:
    """Traveller lines as a frame of `RESULT_SCHEMA`."""
    columns: dict[str, list[Any] | pa.Array] = {
        "record": [r.at.record for r in results],
        "line": [r.at.line for r in results],
        "section": [r.section for r in results],
        "board": [r.board for r in results],
        "table_id": [r.table_id for r in results],
        "round": [r.round for r in results],
        "room": [_room(r.room) for r in results],
        "ns_id": [r.ns_id for r in results],
        "ew_id": [r.ew_id for r in results],
        "contract": [str(r.contract) for r in results],
        "declarer": [r.contract.declarer.value if r.contract.declarer else None for r in results],
        "tricks": [None if r.contract.is_passed_out else r.tricks for r in results],
        "lead": [str(r.lead) if r.lead else None for r in results],
        "auction": [r.auction for r in results],
        "play": [[str(card) for card in r.play] for r in results],
        "published": [encode_published(r.published) for r in results],
        "ns_players": _players([r.ns_players for r in results]),
        "ew_players": _players([r.ew_players for r in results]),
    }
    return _complete(_typed(columns, _RESULT_ARROW), RESULT_SCHEMA, ResultRecorded)


def _complete(frame: pl.DataFrame, schema: pl.Schema, model: type[BaseModel]) -> pl.DataFrame:
    """`frame`, built in `schema`'s types, with any payload field the records do not carry
    written as its default (`conformed`); the names alone tell, without comparing schemas."""
    return frame if frame.columns == schema.names() else conformed(frame, schema, model)


def _typed(columns: Mapping[str, Sequence[Any] | pa.Array], types: Mapping[str, pa.DataType]) -> pl.DataFrame:
    """Python columns as one frame of `types` (Arrow builds each column in C)."""
    return arrow_frame({
        name: values if isinstance(values, pa.Array) else pa.array(values, type=types[name])
        for name, values in columns.items()
    })



def _offsets(rows: Sequence[Sequence[object]]) -> pa.Array:
    return pa.array(list(accumulate((len(row) for row in rows), initial=0)), type=pa.int64())


def _players(rows: Sequence[tuple[Player, ...]]) -> pa.Array:
    """A list-of-players column, built from flat values and offsets."""
    flat = [player for row in rows for player in row]
    values = pa.StructArray.from_arrays(
        [pa.array([p.name for p in flat], type=pa.large_string()),
         pa.array([p.federation_id for p in flat], type=pa.large_string())],
        names=["name", "federation_id"],
    )
    return pa.LargeListArray.from_arrays(_offsets(rows), values)


def columnar_from_parsed(parsed: ParsedFile) -> ColumnarFile:
    """The frames of a careful reader's records: the reference every fast path must equal."""
    return ColumnarFile(
        source=parsed.source,
        format=parsed.format,
        parser_version=parsed.parser_version,
        metadata=parsed.metadata,
        boards=board_frame(parsed.boards),
        results=result_frame(parsed.results),
        artificial=parsed.artificial,
        contestants=parsed.contestants,
        diagnostics=parsed.diagnostics,
        quarantined=parsed.quarantined,
    )


def assert_same(fast: ColumnarFile, careful: ColumnarFile) -> None:
    """Raise AssertionError naming the first difference between two readings of one file."""
    for name in ("source", "format", "parser_version", "metadata", "artificial", "contestants",
                 "diagnostics", "quarantined"):
        if getattr(fast, name) != getattr(careful, name):
            raise AssertionError(f"{name} differs: {getattr(fast, name)!r} != {getattr(careful, name)!r}")
    for name, fast_frame, careful_frame in (("boards", fast.boards, careful.boards),
                                            ("results", fast.results, careful.results)):
        if fast_frame.schema != careful_frame.schema:
            raise AssertionError(f"{name} schema differs: {fast_frame.schema} != {careful_frame.schema}")
        if fast_frame.height != careful_frame.height:
            raise AssertionError(f"{name}: {fast_frame.height} rows != {careful_frame.height}")
        for column in fast_frame.columns:
            pairs = zip(fast_frame[column].to_list(), careful_frame[column].to_list(), strict=True)
            for index, (a, b) in enumerate(pairs):
                if a != b:
                    raise AssertionError(f"{name}.{column} row {index}: {a!r} != {b!r}")


def _room(room: str | None) -> str | None:
    return room if room in ("open", "closed") else None
