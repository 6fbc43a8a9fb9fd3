"""The hash-narrowed key operations give exactly what the plain polars operations give."""

from __future__ import annotations

import polars as pl
from hypothesis import given, settings
from hypothesis import strategies as st

from pipelines.base.keyed import join_small, keep_last_per_key, matching_rows
from tests.conftest import examples

KEYS = ["event_id", "board", "table_id"]
ROW = st.tuples(st.sampled_from(["e1", "e2", None]), st.integers(1, 3), st.sampled_from(["1", "2", "10", None]))


def _frame(rows: list[tuple[str | None, int, str | None]]) -> pl.DataFrame:
    return pl.DataFrame(rows, schema={"event_id": pl.String, "board": pl.Int64, "table_id": pl.String},
                        orient="row").with_row_index("n")


@settings(max_examples=examples(80), deadline=None)
@given(st.lists(ROW, max_size=30))
def test_keep_last_per_key_is_unique_keep_last(rows: list[tuple[str | None, int, str | None]]) -> None:
    frame = _frame(rows)
    assert keep_last_per_key(frame, KEYS).equals(frame.unique(KEYS, keep="last", maintain_order=True))


@settings(max_examples=examples(80), deadline=None)
@given(st.lists(ROW, max_size=30), st.lists(ROW, max_size=6))
def test_matching_rows_is_a_semi_join(rows: list[tuple[str | None, int, str | None]],
                                      others: list[tuple[str | None, int, str | None]]) -> None:
    frame, other = _frame(rows), _frame(others)
    expected = frame.join(other.select(KEYS), on=KEYS, how="semi")["n"].to_list()
    assert frame.filter(matching_rows(frame, other, KEYS))["n"].to_list() == expected


@settings(max_examples=examples(80), deadline=None)
@given(st.lists(ROW, max_size=30), st.lists(ROW, max_size=6))
def test_join_small_is_a_left_join(rows: list[tuple[str | None, int, str | None]],
                                   others: list[tuple[str | None, int, str | None]]) -> None:
    frame = _frame(rows)
    other = _frame(others).unique(KEYS, keep="last").rename({"n": "tag"})
    expected = frame.join(other, on=KEYS, how="left", maintain_order="left")
    assert join_small(frame, other, KEYS).equals(expected)
