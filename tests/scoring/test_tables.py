"""The Law values of each table's standing row: Law 2 vulnerability, Law 77, Law 12C1 outcomes, Law 87."""

from __future__ import annotations

from typing import Any

import orjson
import polars as pl

from models.board import law2_vulnerability
from pipelines.scoring.fouled import with_fouled_groups
from pipelines.scoring.tables import scored_results, table_results, weighted_rows, with_vulnerability

_KEYS = {"event_id": "E", "session_id": "S", "section": "A"}


def _boards(*marked: tuple[str, int, str]) -> pl.DataFrame:
    """BoardDealt rows as replay reads them: (section, board, vulnerability as marked)."""
    return pl.DataFrame(
        [{"position": i, "event_id": "E", "session_id": "S", "section": section, "board": board,
          "dealer": "N", "vulnerability": vul} for i, (section, board, vul) in enumerate(marked)],
        schema={"position": pl.Int64, "event_id": pl.String, "session_id": pl.String, "section": pl.String,
                "board": pl.Int64, "dealer": pl.String, "vulnerability": pl.String})


def _results(rows: list[dict[str, Any]]) -> pl.DataFrame:
    return pl.DataFrame([{**_KEYS, "table_id": str(i + 1), **row} for i, row in enumerate(rows)],
                        schema_overrides={"board": pl.Int64, "tricks": pl.Int64})


def test_an_unmarked_board_is_vulnerable_by_law_2_whatever_its_number() -> None:
    frame = _results([{"board": board} for board in range(1, 49)])
    located = with_vulnerability(frame, _boards())
    expected = [(law2_vulnerability(b).is_vulnerable("NS"), law2_vulnerability(b).is_vulnerable("EW"))
                for b in range(1, 49)]
    assert list(zip(located["vulnerable_ns"], located["vulnerable_ew"], strict=True)) == expected
    assert expected[16] == expected[0] == (False, False) and expected[3] == (True, True)  # 17 is like 1


def test_a_board_marked_otherwise_is_played_as_marked() -> None:
    # Board 1 is love all by Law 2; section A's copy says NS, the all-sections record of board 2 says EW.
    frame = _results([{"board": 1}, {"board": 2}, {"board": 3}])
    located = with_vulnerability(frame, _boards(("A", 1, "NS"), ("", 2, "EW")))
    assert located.select("vulnerable_ns", "vulnerable_ew").rows() == [(True, False), (False, True), (False, True)]


def test_table_results_are_scored_by_law_77_from_ns_view() -> None:
    frame = _results([
        {"board": 2, "contract": "4S", "declarer": "N", "tricks": 10},    # NS vulnerable: 620
        {"board": 2, "contract": "3NTX", "declarer": "E", "tricks": 7},   # EW not vulnerable, -2 doubled: +300
        {"board": 7, "contract": "6HXX", "declarer": "S", "tricks": 13},  # vul: 720 + 500 + 750 + 100 + 400 (overtrick)
        {"board": 1, "contract": "PASS", "declarer": None, "tricks": None},
    ])
    scored = scored_results(frame, _boards())
    assert scored["score_ns"].to_list() == [620, 300, 2470, 0]
    assert set(scored["kind"]) == {"result"}


def test_weighted_outcomes_are_each_scored_with_their_weight() -> None:
    component = pl.List(pl.Struct({"contract": pl.String, "declarer": pl.String, "tricks": pl.Int64,
                                   "weight": pl.Float64}))
    weighted = pl.DataFrame(
        [{**_KEYS, "board": 1, "table_id": "3", "ns_id": "1", "ew_id": "2",
          "ns_components": [{"contract": "4S", "declarer": "N", "tricks": 10, "weight": 0.6},
                            {"contract": "4S", "declarer": "N", "tricks": 9, "weight": 0.4}],
          "ew_components": [{"contract": "3NT", "declarer": "E", "tricks": 9, "weight": 1.0}]}],
        schema_overrides={"board": pl.Int64, "ns_components": component, "ew_components": component})
    row = weighted_rows(weighted, _boards()).row(0, named=True)
    assert row["ns_components"] == [{"score_ns": 420, "weight": 0.6}, {"score_ns": -50, "weight": 0.4}]
    assert row["ew_components"] == [{"score_ns": -400, "weight": 1.0}]


def test_the_latest_record_of_a_fouled_board_gives_each_table_its_group() -> None:
    fouled = pl.DataFrame([
        {"position": 1, **_KEYS, "board": 5, "groups": orjson.dumps({"x": ["1"], "y": ["2", "3"]}).decode()},
        {"position": 2, **_KEYS, "board": 5, "groups": orjson.dumps({"p": ["1", "2"], "q": ["3"]}).decode()},
    ], schema_overrides={"board": pl.Int64})
    frame = _results([{"board": 5}, {"board": 5}, {"board": 5}, {"board": 6}])
    assert with_fouled_groups(frame, fouled)["fouled_group"].to_list() == ["p", "p", "q", None]


def test_table_results_stack_results_then_artificial_then_weighted_rows() -> None:
    recorded = _results([{"board": 1, "contract": "1NT", "declarer": "S", "tricks": 8, "ns_id": "1", "ew_id": "2"}])
    artificial = _results([{"board": 1, "ns_id": "3", "ew_id": "4", "ns_award": "A+", "ew_award": "A-",
                            "kind": "artificial"}])
    empty = pl.DataFrame()
    stacked = table_results(recorded, artificial, empty, _boards(), empty)
    assert stacked.select("kind", "score_ns", "ns_award").rows() == [("result", 120, None), ("artificial", None, "A+")]
