"""The entry point: contracts of the frames, order, determinism, many methods at once, penalties."""

from __future__ import annotations

import io
from typing import Any

import polars as pl
import pytest
from polars.testing import assert_frame_equal

from models.conditions import ConditionsOfContest
from pipelines.scoring.engine import BOARD_SCORE_EXTRA_COLUMNS, score
from pipelines.scoring.frames import BOARD_SCORES_SCHEMA, SESSIONS_SCHEMA, STANDINGS_SCHEMA
from pipelines.scoring.standings import STANDING_EXTRA_COLUMNS

from .builders import results, sessions, traveller, weighted


def mixed_rows() -> list[dict[str, Any]]:
    """Four sessions of two events, four methods, in a deliberately shuffled order."""
    rows: list[dict[str, Any]] = []
    rows += traveller([420, 170, "A+/A-", -50, 100], board=2, event_id="E2", session_id="B")
    rows += traveller([620, 170, 140, 140, -100], board=1, event_id="E1", session_id="X")
    rows += traveller([90, 0, -50, -50], board=1, event_id="E1", session_id="M")
    rows.append(weighted([(420, 0.7), (-50, 0.3)], event_id="E1", session_id="M", section="A", board=1,
                         table_id="5", ns_id="N5", ew_id="E5"))
    rows += traveller([980, 480, 450, -50], board=1, event_id="E2", session_id="B")
    rows += traveller([100, 50, 0], board=3, event_id="E1", session_id="T")
    return rows


def mixed_sessions() -> pl.DataFrame:
    return pl.DataFrame({
        "event_id": ["E1", "E1", "E2", "E1"], "session_id": ["M", "X", "B", "T"],
        "scoring": ["MP", "CROSS_IMP", "BUTLER", "TOTAL"],
        "field_layout": ["two_field", "one_field", "two_field", "two_field"],
    }, schema=SESSIONS_SCHEMA)


def test_outputs_conform_to_the_contracts() -> None:
    boards, standings = score(results(mixed_rows()), mixed_sessions(), {})
    assert boards.schema == pl.Schema(BOARD_SCORES_SCHEMA | BOARD_SCORE_EXTRA_COLUMNS)
    assert standings.schema == pl.Schema(STANDINGS_SCHEMA | STANDING_EXTRA_COLUMNS)
    assert boards.height == len(mixed_rows())
    assert boards["status"].null_count() == boards.height
    assert standings["status"].null_count() == standings.height


def test_rows_come_out_in_published_order() -> None:
    boards, standings = score(results(mixed_rows()), mixed_sessions(), {})
    keys = ["event_id", "session_id", "section", "board", "table_id"]
    assert_frame_equal(boards.select(keys), boards.select(keys).sort(keys))
    s_keys = ["event_id", "session_id", "section", "direction", "rank", "contestant_id"]
    assert_frame_equal(standings.select(s_keys), standings.select(s_keys).sort(s_keys))


def test_each_session_is_scored_by_its_method() -> None:
    boards, standings = score(results(mixed_rows()), mixed_sessions(), {})
    mp = boards.filter(pl.col("session_id") == "M")
    assert mp["mp_ns"].null_count() == 0 and mp["imp_ns"].null_count() == mp.height
    cross = boards.filter(pl.col("session_id") == "X")
    assert cross.sort("table_id")["imp_ns"].to_list() == [10.5, -0.25, -1.25, -1.25, -7.75]
    butler = boards.filter(pl.col("session_id") == "B")
    assert butler["datum"].null_count() == 0 and butler["mp_ns"].null_count() == butler.height
    total = boards.filter(pl.col("session_id") == "T")
    assert total.sort("table_id")["points_ns"].to_list() == [100.0, 50.0, 0.0]
    assert set(standings.filter(pl.col("session_id") == "X")["direction"]) == {"ALL"}
    assert set(standings.filter(pl.col("session_id") == "M")["direction"]) == {"NS", "EW"}


def test_scoring_twice_gives_byte_identical_csv() -> None:
    def as_csv() -> tuple[bytes, bytes]:
        shuffled = results(mixed_rows())
        boards, standings = score(shuffled, mixed_sessions(), {})
        out_b, out_s = io.BytesIO(), io.BytesIO()
        boards.drop("status").write_csv(out_b)
        standings.write_csv(out_s)
        return out_b.getvalue(), out_s.getvalue()

    first, second = as_csv(), as_csv()
    assert first == second
    assert b"-0.0" not in first[0]


def test_input_order_does_not_change_the_scores() -> None:
    frame = results(mixed_rows())
    forward, _ = score(frame, mixed_sessions(), {})
    backward, _ = score(frame.reverse(), mixed_sessions(), {})
    assert_frame_equal(forward, backward)


def test_conditions_pick_the_method_and_its_rules() -> None:
    rows = traveller([-620] * 4 + [-170] * 3)
    conditions = {"E": ConditionsOfContest.model_validate({"method": "BUTLER", "butler": {"trim": "count"}})}
    boards, _ = score(results(rows), sessions("MP"), conditions)
    assert set(boards["datum"]) == {-440.0}


def test_unscheduled_session_is_scored_with_defaults(caplog: pytest.LogCaptureFixture) -> None:
    boards, _ = score(results(traveller([100, 50])), sessions(session_ids=("other",)), {})
    assert boards["mp_ns"].to_list() == [2.0, 0.0]
    assert "not scheduled" in caplog.text


def test_empty_input_gives_empty_frames() -> None:
    boards, standings = score(results([]), sessions(), {})
    assert boards.height == 0 and standings.height == 0
    assert boards.schema == pl.Schema(BOARD_SCORES_SCHEMA | BOARD_SCORE_EXTRA_COLUMNS)
    assert standings.schema == pl.Schema(STANDINGS_SCHEMA | STANDING_EXTRA_COLUMNS)


def penalty(contestant: str, amount: float, unit: str) -> pl.DataFrame:
    return pl.DataFrame({"event_id": ["E"], "session_id": ["S"], "section": ["A"], "contestant_id": [contestant],
                         "amount": [amount], "unit": [unit]})


def test_matchpoint_penalty_in_mps_and_in_percent() -> None:
    rows = traveller([420, 170, -50]) + traveller([100, 200, 300], board=2)
    _, plain = score(results(rows), sessions(), {})
    _, in_mp = score(results(rows), sessions(), {}, penalty("N1", 1.0, "MP"))
    _, in_pct = score(results(rows), sessions(), {}, penalty("N1", 25.0, "%"))

    def n1(frame: pl.DataFrame) -> dict[str, Any]:
        return frame.filter(pl.col("contestant_id") == "N1").row(0, named=True)

    assert (n1(plain)["score"], n1(plain)["percentage"]) == (4.0, 50.0)
    assert (n1(in_mp)["score"], n1(in_mp)["percentage"]) == (3.0, 37.5)
    assert (n1(in_pct)["score"], n1(in_pct)["percentage"]) == (2.0, 25.0)


def test_a_penalty_in_shares_of_one_boards_top_is_not_a_share_of_the_session() -> None:
    # Three tables, two boards: a top is 4 MPs on a board, 8 on the session (scale 2/1/0).
    rows = traveller([420, 170, -50]) + traveller([100, 200, 300], board=2)
    _, plain = score(results(rows), sessions(), {})
    _, quarter_top = score(results(rows), sessions(), {}, penalty("N1", 25.0, "TOP%"))
    _, ten_percent = score(results(rows), sessions(), {}, penalty("N1", 10.0, "%"))
    _, both = score(results(rows), sessions(), {}, pl.concat([penalty("N1", 25.0, "TOP%"), penalty("N1", 0.5, "MP")]))

    def n1(frame: pl.DataFrame) -> tuple[float, float]:
        row = frame.filter(pl.col("contestant_id") == "N1").row(0, named=True)
        return row["score"], row["percentage"]

    assert n1(plain) == (4.0, 50.0)
    assert n1(quarter_top) == (3.0, 37.5)  # a quarter of one board's top (4 MPs): 1 MP, 12.5 points of 8
    assert n1(ten_percent) == (pytest.approx(3.2), pytest.approx(40.0))  # ten points off the percentage
    assert n1(both) == (2.5, 31.25)


def test_penalty_in_a_foreign_unit_is_left_out_and_the_rest_scored(caplog: pytest.LogCaptureFixture) -> None:
    rows = results(traveller([420, 170]))
    _, plain = score(rows, sessions(), {})
    both = pl.concat([penalty("N1", 1.0, "VP"), penalty("N1", 0.5, "MP")])
    _, penalised = score(rows, sessions(), {}, both)
    n1 = pl.col("contestant_id") == "N1"
    assert penalised.filter(n1)["score"].to_list() == [plain.filter(n1)["score"][0] - 0.5]
    assert "a MP session deducts only MP or %" in caplog.text


def test_multi_session_carry_over() -> None:
    rows = traveller([100, 50], session_id="S1") + traveller([100, 50], session_id="S2", ns_ids=["N2", "N1"])
    conditions = {"E": ConditionsOfContest.model_validate(
        {"carry_over": {"mode": "cumulative", "fraction": 0.5, "session_order": ["S1", "S2"]}})}
    _, standings = score(results(rows), sessions(session_ids=("S1", "S2")), conditions)
    n1 = standings.filter(pl.col("contestant_id") == "N1").sort("session_id")
    assert n1["score"].to_list() == [2.0, 0.0]
    assert n1["cumulative_score"].to_list() == [2.0, 1.0]


def test_carry_over_keeps_a_mitchells_ns_1_and_ew_1_apart() -> None:
    """NS pair 1 and EW pair 1 of a Mitchell are two pairs: each carries only its own score."""
    def session(session_id: str) -> list[dict[str, object]]:
        return traveller([100, 50], session_id=session_id, ns_ids=["1", "2"], ew_ids=["2", "1"])

    conditions = {"E": ConditionsOfContest.model_validate(
        {"carry_over": {"mode": "cumulative", "session_order": ["S1", "S2"]}, "field_layout": "two_field"})}
    _, standings = score(results(session("S1") + session("S2")), sessions(session_ids=("S1", "S2")), conditions)
    totals = {(row["direction"], row["contestant_id"], row["session_id"]): (row["score"], row["cumulative_score"])
              for row in standings.iter_rows(named=True)}
    assert totals[("NS", "1", "S2")] == (2.0, 4.0)  # top both times: 2 + 2
    assert totals[("EW", "1", "S2")] == (2.0, 4.0)  # EW 1 sat against NS 2 both times and beat it
    assert totals[("NS", "2", "S2")] == (0.0, 0.0)
    assert totals[("EW", "2", "S2")] == (0.0, 0.0)


def test_null_section_is_a_section_of_its_own() -> None:
    rows = traveller([100, 50]) + traveller([30, 20])
    for row in rows[2:]:
        row["section"] = None
    boards, standings = score(results(rows), sessions(), {})
    assert boards["top"].to_list() == [2.0, 2.0, 2.0, 2.0]
    assert standings.filter(pl.col("section").is_null()).height == 4


@pytest.mark.slow
def test_a_million_mixed_results_replay_byte_identically() -> None:
    """Float sums over weighted outcomes only reproduce if every join keeps its order: at this size
    polars' hash joins run in parallel, which is where an unordered join once broke this."""
    import hashlib
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_scoring.py"
    spec = importlib.util.spec_from_file_location("bench_scoring", path)
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    frame, schedule = bench.generate(20_000, 50)

    def digest() -> str:
        boards, standings = score(frame, schedule, {})
        out = io.BytesIO()
        boards.write_csv(out)
        standings.write_csv(out)
        return hashlib.sha256(out.getvalue()).hexdigest()

    assert digest() == digest()


def test_the_pairs_tie_break_is_the_direct_encounter_among_the_tied() -> None:
    # A Howell: P1-P2 and P3-P4 on board 1 and 2, P2-P4 and P3-P1 on board 3 (2 tables, top 2).
    rows = (traveller([100, 100], board=1, ns_ids=["P1", "P3"], ew_ids=["P2", "P4"])
            + traveller([200, 100], board=2, ns_ids=["P1", "P3"], ew_ids=["P2", "P4"])
            + traveller([100, -100], board=3, ns_ids=["P2", "P3"], ew_ids=["P4", "P1"]))
    # P1 1+2+2 = 5; P2 1+0+2 = 3; P4 1+2+0 = 3; P3 1+0+0 = 1. P2 beat P4 2-0 on board 3, their only meeting.
    rules = {"E": ConditionsOfContest(tie_breaks=("head_to_head_mp",))}
    _, broken = score(results(rows), sessions(layout="one_field"), rules)
    _, shown = score(results(rows), sessions(layout="one_field"), {})
    assert broken.select("contestant_id", "score", "rank", "tied").rows() == [
        ("P1", 5.0, 1, False), ("P2", 3.0, 2, False), ("P4", 3.0, 3, False), ("P3", 1.0, 4, False)]
    assert shown.select("contestant_id", "rank", "tied").rows() == [
        ("P1", 1, False), ("P2", 2, True), ("P4", 2, True), ("P3", 4, False)]


def test_pairs_tied_who_never_met_stay_tied() -> None:
    rules = {"E": ConditionsOfContest(tie_breaks=("head_to_head_mp",))}
    _, standings = score(results(traveller([100, 100, 50])), sessions(), rules)
    ns = standings.filter(pl.col("direction") == "NS")
    assert ns.select("contestant_id", "rank", "tied").rows() == [("N1", 1, True), ("N2", 1, True), ("N3", 3, False)]
