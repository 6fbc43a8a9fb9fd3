"""Arrow arrays handed to polars through the Arrow C stream interface.

Readers build some columns as Arrow arrays over their own buffers (string views into the file's
bytes, lists from offsets) and hand them to polars without copying. `pl.from_arrow` and
`pl.Series(pyarrow_array)` take polars' pyarrow path, whose first use imports `pyarrow.compute`
(70-100 ms, more than reading a club's file takes) for a check of chunked dictionary arrays that
these arrays never need. The Arrow PyCapsule stream interface reaches the same zero-copy import
without it.
"""

from __future__ import annotations

from typing import Any

import polars as pl
import pyarrow as pa


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
