"""A DuckDB query's rows as a polars frame: small results as Python rows, large ones through Arrow.

DuckDB hands polars its rows through pyarrow (`.pl()`, `to_arrow_reader`), and importing pyarrow
(with numpy) costs about a quarter of a second, more than reading one event's rows takes. The
commands a director runs after a correction (`site --event`, `audit`) read a few thousand rows, so
a result of up to `SMALL_ROWS` rows whose column types all have an exact polars type here is built
from its Python rows, and pyarrow is never imported. A larger result (a full rebuild reads
millions) goes through Arrow a batch at a time, as before. Both give the same frame: the polars
types here are the ones the Arrow route gives (`tests/base/test_query_frames.py`).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import duckdb
import polars as pl
from duckdb.sqltypes import DuckDBPyType

if TYPE_CHECKING:
    import pyarrow as pa

SMALL_ROWS = 20_000
"""Up to this many rows a result is built from Python rows (about 10 ms per 2,500 rows of 24 columns)."""

_BATCH_ROWS = 1_000_000

_SCALARS: dict[str, pl.DataType] = {
    "varchar": pl.String(), "bigint": pl.Int64(), "integer": pl.Int32(), "smallint": pl.Int16(),
    "tinyint": pl.Int8(), "ubigint": pl.UInt64(), "uinteger": pl.UInt32(), "usmallint": pl.UInt16(),
    "utinyint": pl.UInt8(), "double": pl.Float64(), "float": pl.Float32(), "boolean": pl.Boolean(),
    "date": pl.Date(), "timestamp": pl.Datetime("us"),
}
"""DuckDB type ids whose values polars takes from Python exactly; any other type (decimals, zoned
times, blobs...) sends the result through Arrow."""


def polars_type(duck_type: DuckDBPyType) -> pl.DataType | None:
    """The polars type the Arrow route gives a DuckDB type, or None when it is not one of ours."""
    kind = str(duck_type.id)
    if kind in _SCALARS:
        return _SCALARS[kind]
    if kind not in ("list", "struct"):
        return None
    names = [str(name) for name, _ in duck_type.children]
    inner = [polars_type(child) for _, child in duck_type.children if isinstance(child, DuckDBPyType)]
    known = [t for t in inner if t is not None]
    if len(known) != len(names):
        return None
    return pl.List(known[0]) if kind == "list" else pl.Struct(dict(zip(names, known, strict=True)))


def frame_of(relation: duckdb.DuckDBPyRelation) -> pl.DataFrame:
    """Every row of `relation` as a frame, in its order, with the types `.pl()` would give them.

    Once pyarrow is loaded (a large result needed it, or an ingest), its import is paid and every
    result goes through Arrow: a result's rows are only tried while that import can still be saved.
    """
    if _arrow_loaded():
        return _through_arrow(relation)
    types = [polars_type(t) for t in relation.types]
    if all(t is not None for t in types):
        rows = relation.limit(SMALL_ROWS + 1).fetchall()
        if len(rows) <= SMALL_ROWS:
            schema = {name: t for name, t in zip(relation.columns, types, strict=True) if t is not None}
            return pl.DataFrame(rows, schema=schema, orient="row")
    return _through_arrow(relation)


def _arrow_loaded() -> bool:
    return "pyarrow" in sys.modules


def _through_arrow(relation: duckdb.DuckDBPyRelation) -> pl.DataFrame:
    """Batch by batch, so that Arrow's copy of all the rows never sits beside polars' (at ten
    million results that is gigabytes)."""
    reader = relation.to_arrow_reader(_BATCH_ROWS)
    parts = [_from_arrow(batch) for batch in reader]
    if not parts:
        return _from_arrow(reader.schema.empty_table())
    stacked = pl.concat(parts, rechunk=False)
    del parts
    return one_chunk(stacked)


def _from_arrow(arrow: Any) -> pl.DataFrame:
    frame = pl.from_arrow(arrow)
    assert isinstance(frame, pl.DataFrame)
    return frame


def one_chunk(frame: pl.DataFrame) -> pl.DataFrame:
    """`frame` with every column in one chunk, rebuilt a column at a time.

    Scoring gathers and filters millions of rows, at half the speed on chunked columns (and any
    operation on misaligned chunks copies the whole frame). `DataFrame.rechunk` would hold the old
    and the new copy of every column at once; column by column, each old one is freed as it goes.
    """
    for name in frame.columns:
        if frame.get_column(name).n_chunks() > 1:
            frame = frame.with_columns(frame.get_column(name).rechunk())
    return frame


@dataclass(frozen=True)
class ArrowStream:
    """A frame offered to DuckDB (`con.register`) as a bare Arrow C stream.

    DuckDB converts a polars frame it is given through `to_arrow`, which imports pyarrow; a stream
    it reads directly. The rows are the same (`tests/base/test_query_frames.py`).
    """

    frame: pl.DataFrame

    def __arrow_c_stream__(self, requested_schema: object | None = None) -> object:
        """The frame's own Arrow C stream (the PyCapsule protocol)."""
        return self.frame.__arrow_c_stream__(requested_schema)


def for_duckdb(frame: pl.DataFrame) -> pa.Table | ArrowStream:
    """`frame` as `con.register` should take it to insert its rows.

    Once pyarrow is loaded (an ingest's readers load it), it is an Arrow table with the classic string
    layout, which DuckDB scans fastest. Until then, it is a bare Arrow stream. A director's command
    appends a few events, and converting them would cost that command the import.
    """
    if _arrow_loaded():
        return frame.to_arrow(compat_level=pl.CompatLevel.oldest())
    return ArrowStream(frame)
