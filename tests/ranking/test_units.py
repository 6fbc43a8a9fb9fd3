"""Ranking units from standings (carry-over, provisional sessions) and team members' shares."""

from __future__ import annotations

import polars as pl
import pytest

from pipelines.ranking.awards import player_awards, unit_awards
from pipelines.ranking.inputs import CONTESTANT_FIELDS, SESSION_FIELDS, TOURNAMENT_FIELDS, RankingInputs
from pipelines.ranking.rules import load_rules
from pipelines.ranking.standings_source import StandingsSnapshot
from pipelines.ranking.units import Units, ranking_units


def standings(rows: list[tuple[str, str, str, float, int, str]]) -> pl.DataFrame:
    """(event, session, contestant, score, boards, status) in one section, one field."""
    frame = pl.DataFrame(rows, schema=["event_id", "session_id", "contestant_id", "score", "boards", "status"],
                         orient="row")
    return frame.with_columns(section=pl.lit("A"), direction=pl.lit("ALL")).with_columns(
        rank=pl.col("score").rank("min", descending=True).over("event_id", "session_id").cast(pl.Int64))


def tournaments(carry: dict[str, tuple[float, list[str]]]) -> pl.DataFrame:
    rows = [{"event_id": e, "name": e, "category": None, "start_date": None, "end_date": None,
             "conditions": {"carry_over": {"mode": "cumulative", "fraction": f, "session_order": order}}}
            for e, (f, order) in carry.items()]
    return pl.DataFrame(rows, schema=TOURNAMENT_FIELDS)


def snapshot(frame: pl.DataFrame) -> StandingsSnapshot:
    return StandingsSnapshot(1, 0, frame, pl.DataFrame(), pl.DataFrame())


TWO_SESSIONS = [("E", session, contestant, score, 10, "final")
                for session, scores in (("s1", (60.0, 50.0, 40.0)), ("s2", (40.0, 55.0, 50.0)))
                for contestant, score in zip("ABC", scores, strict=True)]
"""A, B and C over two sessions: 60/40, 50/55, 40/50."""


def test_carried_over_sessions_make_one_unit_ranked_by_the_total() -> None:
    units = ranking_units(snapshot(standings(TWO_SESSIONS)), tournaments({"E": (1.0, [])}))
    assert units.placed.select("unit_session", "contestant_id", "rank", "boards", "sessions").rows() == [
        ("", "B", 1, 20, 2), ("", "A", 2, 20, 2), ("", "C", 3, 20, 2)]
    assert sorted(units.unit_sessions["session_id"]) == ["s1", "s2"]


def test_a_carried_fraction_counts_the_earlier_sessions_in_the_given_order() -> None:
    # Order s2 then s1, half carried: A 60 + 20 = 80, B 50 + 27.5 = 77.5, C 40 + 25 = 65.
    units = ranking_units(snapshot(standings(TWO_SESSIONS)), tournaments({"E": (0.5, ["s2", "s1"])}))
    assert units.placed.select("contestant_id", "rank").rows() == [("A", 1), ("B", 2), ("C", 3)]


def test_a_carried_over_event_waits_for_every_session_to_be_final() -> None:
    rows = [*TWO_SESSIONS[:3], *[(e, s, c, v, b, "provisional") for e, s, c, v, b, _ in TWO_SESSIONS[3:]]]
    units = ranking_units(snapshot(standings(rows)), tournaments({"E": (1.0, [])}))
    assert units.placed.is_empty()
    assert units.provisional.rows() == [("E", "s2", "provisional")]


def test_without_carry_over_each_final_session_is_a_unit() -> None:
    rows = [*TWO_SESSIONS[:3], *[(e, s, c, v, b, "provisional") for e, s, c, v, b, _ in TWO_SESSIONS[3:]]]
    units = ranking_units(snapshot(standings(rows)), tournaments({}))
    assert units.placed.select("unit_session", "contestant_id", "rank").rows() == [
        ("s1", "A", 1), ("s1", "B", 2), ("s1", "C", 3)]
    assert units.provisional.rows() == [("E", "s2", "provisional")]


# --- team members -----------------------------------------------------------------------------------

def team_world(lineups: dict[str, list[str]]) -> tuple[Units, RankingInputs, pl.DataFrame, pl.DataFrame]:
    """Team T1 (won) and T2 over sessions s1, s2 of 10 boards each; T1's players by session."""
    rows = [("E", s, t, score, 10, "final") for s in ("s1", "s2") for t, score in (("T1", 30.0), ("T2", 10.0))]
    frame = standings(rows)
    units = ranking_units(snapshot(frame), tournaments({"E": (1.0, [])}))
    contestants = pl.DataFrame(
        [{"event_id": "E", "session_id": s, "contestant_id": "T1", "kind": "team", "section": "A",
          "direction": None, "players": [{"name": p, "federation_id": p} for p in players]}
         for s, players in lineups.items()], schema=CONTESTANT_FIELDS)
    inputs = RankingInputs(
        members=pl.DataFrame(), links=pl.DataFrame(), merges=pl.DataFrame(),
        tournaments=tournaments({"E": (1.0, [])}),
        sessions=pl.DataFrame([{"event_id": "E", "session_id": s, "number": 1, "session_date": None,
                                "scoring": "VP_TEAMS"} for s in ("s1", "s2")], schema=SESSION_FIELDS),
        contestants=contestants)
    players = contestants.explode("players").select(
        "event_id", "session_id", "section", "direction", "contestant_id",
        player_name=pl.col("players").struct.field("name"),
        original_id=pl.col("players").struct.field("federation_id"),
        player_id=pl.col("players").struct.field("federation_id"))
    return units, inputs, players, frame


LINEUPS = {"s1": ["p1", "p2", "p3", "p4"], "s2": ["p1", "p2", "p5", "p6"]}


@pytest.mark.parametrize(("preset", "shares"), [
    # WBF: at least a third of the boards (everyone played half): the full award each.
    ("wbf", {"p1": 1.0, "p2": 1.0, "p3": 1.0, "p4": 1.0, "p5": 1.0, "p6": 1.0}),
    # PZBS: half the boards needed; p3..p6 played exactly half, so all get it in full.
    ("pzbs-3", {"p1": 1.0, "p2": 1.0, "p3": 1.0, "p4": 1.0, "p5": 1.0, "p6": 1.0}),
    # ABF: a team of six shares as 4/6 each.
    ("abf", dict.fromkeys(["p1", "p2", "p3", "p4", "p5", "p6"], 4 / 6)),
])
def test_team_members_share_by_boards_played(preset: str, shares: dict[str, float]) -> None:
    rules = load_rules(preset)
    units, inputs, players, frame = team_world(LINEUPS)
    awarded = player_awards(unit_awards(units, inputs, rules), units, players, frame, rules)
    winners = awarded.filter(pl.col("contestant_id") == "T1")
    assert dict(winners.select("player_id", "share").iter_rows()) == pytest.approx(shares)


def test_a_member_below_the_share_gets_a_pro_rata_award_or_nothing() -> None:
    lineups = {"s1": ["p1", "p2", "p3", "p4", "p5"], "s2": ["p1", "p2", "p3", "p4"]}
    units, inputs, players, frame = team_world(lineups)
    pzbs = load_rules("pzbs-3").model_copy(update={"teams": load_rules("pzbs-3").teams.model_copy(
        update={"min_board_share": 0.75})})
    awarded = player_awards(unit_awards(units, inputs, pzbs), units, players, frame, pzbs)
    shares = dict(awarded.filter(pl.col("contestant_id") == "T1").select("player_id", "share").iter_rows())
    assert shares["p1"] == 1.0 and shares["p5"] == pytest.approx(0.5 / 0.75)
    wbf = load_rules("wbf")
    strict = wbf.model_copy(update={"teams": wbf.teams.model_copy(update={"min_board_share": 0.75})})
    awarded = player_awards(unit_awards(units, inputs, strict), units, players, frame, strict)
    shares = dict(awarded.filter(pl.col("contestant_id") == "T1").select("player_id", "share").iter_rows())
    assert shares["p1"] == 1.0 and shares["p5"] == 0.0


def test_a_player_registered_twice_keeps_the_same_row_whatever_order_the_rows_come_in() -> None:
    # p1 sent again for T1's first session under another id: one row is kept per player and
    # session, chosen by value (the ids), not by the order the joins happened to give.
    units, inputs, players, frame = team_world(LINEUPS)
    again = players.filter((pl.col("session_id") == "s1") & (pl.col("player_name") == "p1")).with_columns(
        original_id=pl.lit("p1-again"), player_id=pl.lit("p1-again"))
    rules = load_rules("wbf")
    shown = []
    for order in (pl.concat([players, again]), pl.concat([again, players]), pl.concat([players, again]).reverse()):
        awarded = player_awards(unit_awards(units, inputs, rules), units, order, frame, rules)
        shown.append(awarded.sort(pl.all()).rows())
    assert shown[0] == shown[1] == shown[2]
    t1 = {row[0] for row in pl.DataFrame(shown[0], schema=awarded.schema, orient="row").filter(
        pl.col("contestant_id") == "T1").select("player_id").rows()}
    assert t1 == {"p1", "p2", "p3", "p4", "p5", "p6"}
