"""`frame_of` gives the frame `.pl()` gives, by Python rows when small and through Arrow otherwise;
`ArrowStream` inserts the rows a registered frame inserts."""

from __future__ import annotations

import duckdb
import pytest
from polars.testing import assert_frame_equal

from pipelines.base import query_frames
from pipelines.base.query_frames import ArrowStream, frame_of, polars_type


@pytest.fixture(autouse=True)
def arrow_not_loaded(monkeypatch: pytest.MonkeyPatch) -> None:
    """As in a command that never loaded pyarrow (this test process has: `.pl()` loads it)."""
    monkeypatch.setattr(query_frames, "_arrow_loaded", lambda: False)

ROWS_SQL = """
SELECT * FROM (VALUES
  ('a', 1::BIGINT, 2::INTEGER, 3::SMALLINT, 4::TINYINT, 5::UBIGINT, 1.5::DOUBLE, 0.25::FLOAT, true,
   DATE '2026-11-21', TIMESTAMP '2026-11-21 10:00:00.123456', [1, 2]::BIGINT[], {'n': 'x', 'l': ['p', 'q']},
   [{'k': 1::BIGINT}]),
  (NULL, NULL, NULL, NULL, NULL, NULL, 'NaN'::DOUBLE, '-0.0'::FLOAT, NULL, NULL, NULL, []::BIGINT[],
   {'n': NULL, 'l': NULL}, NULL),
  ('<script>é\u200f', -9223372036854775808, -1, -2, -3, 18446744073709551615, '-0.0'::DOUBLE, NULL, false,
   DATE '1970-01-01', TIMESTAMP '1969-12-31 23:59:59.999999', [NULL, 7]::BIGINT[], NULL, [])
) t(s, i64, i32, i16, i8, u64, f64, f32, b, d, ts, li, st, ls)
"""


def test_small_results_are_built_from_rows_exactly_as_arrow_builds_them() -> None:
    con = duckdb.connect()
    relation = con.sql(ROWS_SQL)
    assert all(polars_type(t) is not None for t in relation.types)  # this result takes the row route
    ours = frame_of(relation)
    assert_frame_equal(ours, relation.pl())
    assert ours["s"].to_list() == ["a", None, "<script>é\u200f"]
    assert ours["u64"].to_list() == [5, None, 18446744073709551615]
    assert str(ours["f32"][1]) == "-0.0" and str(ours["f64"][2]) == "-0.0"


def test_an_empty_result_keeps_its_columns_and_types() -> None:
    con = duckdb.connect()
    relation = con.sql(f"SELECT * FROM ({ROWS_SQL}) WHERE false")
    ours = frame_of(relation)
    assert ours.height == 0
    assert ours.schema == relation.pl().schema


def test_a_large_result_goes_through_arrow_in_one_chunk(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(query_frames, "SMALL_ROWS", 10)
    monkeypatch.setattr(query_frames, "_BATCH_ROWS", 7)
    con = duckdb.connect()
    relation = con.sql("SELECT range AS n, range::VARCHAR AS s FROM range(25)")
    ours = frame_of(relation)
    assert ours["n"].to_list() == list(range(25))
    assert all(ours.get_column(c).n_chunks() == 1 for c in ours.columns)
    assert_frame_equal(ours, relation.pl())


@pytest.mark.parametrize("sql", ["SELECT 1.25::DECIMAL(5, 2) AS v", "SELECT TIMESTAMPTZ '2026-11-21 10:00Z' AS v",
                                 "SELECT 'x'::BLOB AS v", "SELECT 1::HUGEINT AS v"])
def test_a_type_without_an_exact_row_mapping_goes_through_arrow(sql: str) -> None:
    con = duckdb.connect()
    relation = con.sql(sql)
    assert polars_type(relation.types[0]) is None
    assert_frame_equal(frame_of(relation), relation.pl())


def test_a_registered_stream_inserts_the_rows_a_registered_frame_inserts() -> None:
    con = duckdb.connect()
    frame = duckdb.connect().sql(ROWS_SQL).pl()
    con.execute(f"CREATE TABLE a AS SELECT * FROM ({ROWS_SQL}) WHERE false")
    con.execute("CREATE TABLE b AS SELECT * FROM a")
    con.register("by_frame", frame)
    con.execute("INSERT INTO a SELECT * FROM by_frame")
    con.register("by_stream", ArrowStream(frame))
    con.execute("INSERT INTO b SELECT * FROM by_stream")
    assert con.sql("SELECT count(*) FROM b").fetchall() == [(3,)]
    assert_frame_equal(frame_of(con.sql("SELECT * FROM b")), frame_of(con.sql("SELECT * FROM a")))
    assert frame_of(con.sql("SELECT s FROM b"))["s"].to_list() == ["a", None, "<script>é\u200f"]


def test_once_pyarrow_is_loaded_every_result_goes_through_arrow(monkeypatch: pytest.MonkeyPatch) -> None:
    # Its import is paid then: trying a large result's rows first would only cost a wasted read.
    monkeypatch.setattr(query_frames, "_arrow_loaded", lambda: True)
    monkeypatch.setattr(query_frames, "polars_type", lambda _t: pytest.fail("the rows were tried first"))
    relation = duckdb.connect().sql(ROWS_SQL)
    assert_frame_equal(frame_of(relation), relation.pl())


def test_a_small_result_is_read_once_as_rows(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(query_frames, "_through_arrow", lambda _r: pytest.fail("went through Arrow"))
    assert frame_of(duckdb.connect().sql("SELECT 1 AS a"))["a"].to_list() == [1]
