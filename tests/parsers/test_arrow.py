"""`parsers.arrow.series`: an Arrow array as a polars Series, named, with its values and nulls."""

from __future__ import annotations

import polars as pl
import pyarrow as pa

from parsers.arrow import series


def test_a_named_string_column_keeps_its_name_values_and_nulls() -> None:
    column = series(pa.array(["SA", None, "HK"], type=pa.string_view()), "lead")
    assert column.name == "lead"
    assert column.dtype == pl.String
    assert column.to_list() == ["SA", None, "HK"]


def test_lists_from_offsets_are_rows_of_the_flat_values() -> None:
    flat = pa.array(["1C", "P", "1NT", "P", "P", "P"], type=pa.large_string())
    lists = pa.LargeListArray.from_arrays(pa.array([0, 2, 2, 6], type=pa.int64()), flat)
    column = series(lists)
    assert column.name == ""
    assert column.to_list() == [["1C", "P"], [], ["1NT", "P", "P", "P"]]
