"""Arrow arrays handed to polars through the Arrow C stream interface.

Readers build some columns as Arrow arrays over their own buffers (string views into the file's
bytes, lists from offsets) and hand them to polars without copying. `pl.from_arrow` and
`pl.Series(pyarrow_array)` take polars' pyarrow path, whose first use imports `pyarrow.compute`
(70-100 ms, more than reading a club's file takes) for a check of chunked dictionary arrays that
these arrays never need. The Arrow PyCapsule stream interface reaches the same zero-copy import
without it.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any

import numpy as np
import numpy.typing as npt
import polars as pl
import pyarrow as pa
from polars.datatypes import DataTypeClass

INLINE = 12
"""The longest text (in UTF-8 bytes) an Arrow string view holds itself, with no data buffer."""


class _Stream:
    """An Arrow array seen only through `__arrow_c_stream__` (the interface polars' constructor takes)."""

    __slots__ = ("_chunks",)

    def __init__(self, array: pa.Array) -> None:
        self._chunks = pa.chunked_array([array], type=array.type)

    def __arrow_c_stream__(self, requested_schema: Any = None) -> Any:
        return self._chunks.__arrow_c_stream__(requested_schema)


def series(array: pa.Array, name: str = "") -> pl.Series:
    """`array` as a polars Series named `name`, its buffers taken over rather than copied."""
    # The stream's own field name wins over a name given with it: set the name afterwards.
    return pl.Series(_Stream(array)).alias(name)


class _TableStream:
    """A table's columns seen only through `__arrow_c_stream__` (see `_Stream`)."""

    __slots__ = ("_table",)

    def __init__(self, columns: Mapping[str, pa.Array]) -> None:
        self._table = pa.table(dict(columns))

    def __arrow_c_stream__(self, requested_schema: Any = None) -> Any:
        return self._table.__arrow_c_stream__(requested_schema)


def frame(columns: Mapping[str, pa.Array]) -> pl.DataFrame:
    """`columns` as one polars frame, in one hand-over (a frame built column by column from Python
    lists costs about a millisecond of fixed overhead per column, more than a club's file takes)."""
    return pl.DataFrame(_TableStream(columns))


def arrow_type(dtype: pl.DataType | DataTypeClass) -> pa.DataType:
    """The Arrow type polars reads back as `dtype` without a cast (strings and lists as large)."""
    if isinstance(dtype, pl.List):
        return pa.large_list(arrow_type(dtype.inner))
    if isinstance(dtype, pl.Struct):
        return pa.struct([pa.field(f.name, arrow_type(f.dtype)) for f in dtype.fields])
    scalars: dict[Any, pa.DataType] = {
        pl.String: pa.large_string(), pl.Int64: pa.int64(), pl.Float64: pa.float64(), pl.Boolean: pa.bool_()}
    return scalars[dtype if isinstance(dtype, type) else type(dtype)]


def named(codes: npt.NDArray[np.integer[Any]], names: tuple[str, ...],
          valid: npt.NDArray[np.bool_] | None = None) -> pa.Array:
    """The names of `codes` (indices into `names`, each at most `INLINE` bytes) as an Arrow string
    array, null where not `valid` (the code there may be anything).

    A short name's view is the name itself, so this is one gather of 16-byte rows (`np.take` along
    the rows: fancy indexing is several times slower on rows)."""
    picked = codes if valid is None else np.where(valid, codes, 0)
    found = np.take(_name_views(names), picked.astype(np.intp), axis=0)
    bitmap = None if valid is None else pa.py_buffer(np.packbits(valid, bitorder="little"))
    return pa.Array.from_buffers(pa.string_view(), codes.size, [bitmap, pa.py_buffer(found)])


@functools.cache
def _name_views(names: tuple[str, ...]) -> npt.NDArray[np.uint64]:
    """The Arrow string view of each name, the name inline in it: its length, then its bytes."""
    table = np.zeros((len(names), 16), dtype=np.uint8)
    for row, name in enumerate(names):
        encoded = name.encode("utf-8")
        if len(encoded) > INLINE:
            raise ValueError(f"{name!r} is too long to sit in its view")
        table[row, 0] = len(encoded)
        table[row, 4:4 + len(encoded)] = np.frombuffer(encoded, dtype=np.uint8)
    return table.view("<u8")
