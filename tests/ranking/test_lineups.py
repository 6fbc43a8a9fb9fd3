"""A team's share of the boards within a session: each member's award counts the boards they sat
for (`LineupRecorded`), under the preset's minimum share and pro rata rule."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from models.events import (
    ContestantRegistered,
    LineupRecorded,
    Player,
    ResultRecorded,
    SessionScheduled,
    TournamentRegistered,
    event_payload,
    session_stream,
)
from models.ranking_rules import RuleSet
from pipelines.commands.director import publish_scores
from pipelines.log.store import EventStore, NewEvent
from pipelines.ranking.edition import compute_edition
from pipelines.ranking.inputs import RankingInputs
from pipelines.ranking.members import import_member_list
from pipelines.ranking.rules import load_rules
from pipelines.ranking.units import Units
from tests.conftest import RECORDED_AT, examples
from tests.ranking.scenario import CET, MEMBERS_AT

EVENT, SESSION = "swiss-2026", "1"
PLAYED = datetime(2026, 11, 21, 10, 0, tzinfo=CET)
AS_OF = datetime(2026, 11, 23, 12, 0, tzinfo=CET)
BOARDS = 20
TEAMS = {"Lions": [f"Lion {i}" for i in range(1, 6)], "Tigers": [f"Tiger {i}" for i in range(1, 5)],
         "Bears": [f"Bear {i}" for i in range(1, 5)], "Wolves": [f"Wolf {i}" for i in range(1, 5)]}
MEMBER_IDS = {name: f"{team[0]}{i}" for team, names in TEAMS.items() for i, name in enumerate(names, start=1)}


def new(event: object, stream: str) -> NewEvent:
    return NewEvent(stream, event.type, event_payload(event), PLAYED)  # type: ignore[attr-defined]


def matches() -> list[NewEvent]:
    """Lions beat Tigers by more than Bears beat Wolves, on every board: 4S made in both rooms by the
    Lions; 4S by the Bears in the open room, 2S by the Wolves in the closed room."""
    rows = []
    for home, away, closed in (("Lions", "Tigers", ("4S", "E")), ("Bears", "Wolves", ("2S", "N"))):
        for board in range(1, BOARDS + 1):
            rows.append(ResultRecorded(event_id=EVENT, session_id=SESSION, board=board, table_id=f"{home}-open",
                                       room="open", ns_id=home, ew_id=away, contract="4S", declarer="N", tricks=10))
            rows.append(ResultRecorded(event_id=EVENT, session_id=SESSION, board=board, table_id=f"{home}-closed",
                                       room="closed", ns_id=away, ew_id=home, contract=closed[0],
                                       declarer=closed[1], tricks=10))  # type: ignore[arg-type]
    return [new(row, session_stream(EVENT, SESSION)) for row in rows]


def lineup(team: str, names: list[str], boards: range) -> NewEvent:
    event = LineupRecorded(event_id=EVENT, session_id=SESSION, contestant_id=team,
                           players=tuple(Player(name=n) for n in names), boards=tuple(boards))
    return new(event, session_stream(EVENT, SESSION))


def swiss(store: EventStore, tmp_path: Path, *, lineups: bool = True) -> None:
    """A one-session match of 20 boards: Lion 5 replaces Lion 4 in the closed room for boards 17-20."""
    members = tmp_path / "members.csv"
    members.write_text("federation_id,name\n" + "".join(f"{i},{n}\n" for n, i in MEMBER_IDS.items()))
    for federation in ("PZBS", "WBF"):
        import_member_list(store, members, federation=federation, at=MEMBERS_AT, recorded_at=RECORDED_AT)
    events = [
        new(TournamentRegistered(event_id=EVENT, name="Swiss Teams"), f"tournament:{EVENT}"),
        new(SessionScheduled(event_id=EVENT, session_id=SESSION, scoring="IMP_TEAMS", field_layout="one_field",
                             session_date=PLAYED.date()), session_stream(EVENT, SESSION)),
        *[new(ContestantRegistered(event_id=EVENT, session_id=SESSION, contestant_id=team, kind="team",
                                   players=tuple(Player(name=n) for n in names)), session_stream(EVENT, SESSION))
          for team, names in TEAMS.items()],
        *matches(),
    ]
    if lineups:
        events += [lineup("Lions", ["Lion 1", "Lion 2"], range(1, 21)),
                   lineup("Lions", ["Lion 3", "Lion 4"], range(1, 17)),
                   lineup("Lions", ["Lion 3", "Lion 5"], range(17, 21))]
    store.append(events, recorded_at=RECORDED_AT)
    publish_scores(store, EVENT, SESSION, at=PLAYED + timedelta(hours=8))


def lions(store: EventStore, preset: str) -> dict[str, tuple[float, float]]:
    edition = compute_edition(store, load_rules(preset), as_of=AS_OF)
    rows = edition.awards.filter(pl.col("contestant_id") == "Lions").sort("player_name")
    return {name: (share, award) for name, share, award in rows.select("player_name", "share", "award").iter_rows()}


def test_a_member_who_sat_for_4_of_20_boards_gets_pzbs_pro_rata(store: EventStore, tmp_path: Path) -> None:
    swiss(store, tmp_path)
    found = lions(store, "pzbs-3")
    full = found["Lion 1"][1]
    # PZBS: half the boards needed; 4 of 20 is 0.2 of them -> 0.2 / 0.5 = 40 % of the award.
    assert {name: share for name, (share, _) in found.items()} == pytest.approx(
        {"Lion 1": 1.0, "Lion 2": 1.0, "Lion 3": 1.0, "Lion 4": 1.0, "Lion 5": 0.4})
    assert found["Lion 5"][1] == pytest.approx(0.4 * full) and full > 0


def test_wbf_gives_nothing_under_a_third_of_the_boards(store: EventStore, tmp_path: Path) -> None:
    swiss(store, tmp_path)
    found = lions(store, "wbf")
    assert found["Lion 1"][1] == 800.0 and found["Lion 4"][1] == 800.0  # 16 of 20: more than a third
    assert found["Lion 5"] == (0.0, 0.0)


def test_without_line_ups_every_registered_member_played_every_board(store: EventStore, tmp_path: Path) -> None:
    swiss(store, tmp_path, lineups=False)
    found = lions(store, "wbf")
    assert {name: award for name, (_, award) in found.items()} == dict.fromkeys(TEAMS["Lions"], 800.0)


# --- from a file: the rooms' results name who sat ----------------------------------------------------

def room_game(board: int, room: str, seats: dict[str, str]) -> str:
    """One room's game of a Lions v Tigers match: the Lions make 4S in both rooms."""
    declarer = "N" if room == "Open" else "E"  # the home team sits NS in the open room, EW in the closed
    tags = {"Event": "Swiss Teams", "Site": "-", "Date": "2026.11.21", "Board": str(board), "Room": room,
            "HomeTeam": "Lions", "VisitTeam": "Tigers", **seats, "Dealer": "N", "Vulnerable": "None",
            "Scoring": "IMP", "Declarer": declarer, "Contract": "4S", "Result": "10"}
    return "".join(f'[{tag} "{value}"]\n' for tag, value in tags.items()) + "\n"


def test_a_team_file_records_who_sat_for_which_boards(store: EventStore, tmp_path: Path) -> None:
    from pipelines.files.ingest import IngestOptions, ingest_file

    games = []
    for board in range(1, 9):
        games.append(room_game(board, "Open", {"North": "Lion 1", "South": "Lion 2", "East": "Tiger 1",
                                               "West": "Tiger 2"}))
        west = "Lion 4" if board <= 6 else "Lion 5"  # Lion 5 replaces Lion 4 for the last two boards
        games.append(room_game(board, "Closed", {"North": "Tiger 3", "South": "Tiger 4", "East": "Lion 3",
                                                 "West": west}))
    path = tmp_path / "swiss.pbn"
    path.write_text("% PBN 2.1\n% EXPORT\n\n" + "".join(games))
    ingest_file(store, path, recorded_at=RECORDED_AT,
                options=IngestOptions(event_id=EVENT, session_id=SESSION, occurred_at=PLAYED))
    recorded = {(e.payload["contestant_id"], frozenset(p["name"] for p in e.payload["players"])): e.payload["boards"]
                for e in store.read(types=["LineupRecorded"])}
    assert recorded == {("Lions", frozenset({"Lion 1", "Lion 2"})): list(range(1, 9)),
                        ("Lions", frozenset({"Lion 3", "Lion 4"})): list(range(1, 7)),
                        ("Lions", frozenset({"Lion 3", "Lion 5"})): [7, 8],
                        ("Tigers", frozenset({"Tiger 1", "Tiger 2"})): list(range(1, 9)),
                        ("Tigers", frozenset({"Tiger 3", "Tiger 4"})): list(range(1, 9))}
    members = tmp_path / "members.csv"
    members.write_text("federation_id,name\n" + "".join(f"{i},{n}\n" for n, i in MEMBER_IDS.items()))
    import_member_list(store, members, federation="WBF", at=MEMBERS_AT, recorded_at=RECORDED_AT)
    publish_scores(store, EVENT, SESSION, at=PLAYED + timedelta(hours=8))
    found = lions(store, "wbf")
    # 2 of 8 boards is under the WBF's third: nothing; 6 of 8 the full award.
    assert found["Lion 5"] == (0.0, 0.0) and found["Lion 4"] == (1.0, 800.0) and found["Lion 1"] == (1.0, 800.0)


# --- the oracle: shares from line-ups, written from the rule sets' words ------------------------------

def _frames(players: int, boards: int, seats: list[list[int]]) -> tuple[Units, RankingInputs, pl.DataFrame,
                                                                        pl.DataFrame]:
    """One session: team T1 (players p1..pN) beat T2 over `boards`; on board b, T1's open-room pair
    is seats[b][0:2] and its closed-room pair seats[b][2:4]."""
    from pipelines.ranking.inputs import CONTESTANT_FIELDS, LINEUP_FIELDS, SESSION_FIELDS
    from pipelines.ranking.units import ranking_units
    from tests.ranking.test_units import snapshot, standings, tournaments

    frame = standings([("E", "s1", "T1", 30.0, boards, "final"), ("E", "s1", "T2", 10.0, boards, "final")])
    units = ranking_units(snapshot(frame), tournaments({}))
    names = [f"p{i + 1}" for i in range(players)]
    contestants = pl.DataFrame([{"event_id": "E", "session_id": "s1", "contestant_id": "T1", "kind": "team",
                                 "section": "A", "direction": None,
                                 "players": [{"name": n, "federation_id": n} for n in names]}],
                               schema=CONTESTANT_FIELDS)
    sat: dict[tuple[str, ...], list[int]] = {}
    for board, order in enumerate(seats, start=1):
        for pair in (order[0:2], order[2:4]):
            sat.setdefault(tuple(sorted(names[i] for i in pair)), []).append(board)
    lineups = pl.DataFrame([{"event_id": "E", "session_id": "s1", "section": "A", "contestant_id": "T1",
                             "players": [{"name": n, "federation_id": None} for n in pair], "boards": sat_boards}
                            for pair, sat_boards in sat.items()], schema=LINEUP_FIELDS)
    inputs = RankingInputs(
        members=pl.DataFrame(), links=pl.DataFrame(), merges=pl.DataFrame(), tournaments=tournaments({}),
        sessions=pl.DataFrame([{"event_id": "E", "session_id": "s1", "number": 1, "session_date": None,
                                "scoring": "VP_TEAMS"}], schema=SESSION_FIELDS),
        contestants=contestants, lineups=lineups)
    registered = contestants.explode("players").select(
        "event_id", "session_id", "section", "direction", "contestant_id",
        player_name=pl.col("players").struct.field("name"), original_id=pl.col("players").struct.field("name"),
        player_id=pl.col("players").struct.field("name"))
    return units, inputs, registered, frame


@settings(max_examples=examples(40), deadline=None)
@given(data=st.data(), players=st.integers(4, 6), boards=st.integers(1, 24),
       preset=st.sampled_from(["wbf", "wbf-placing", "pzbs-3", "pzbs-4", "abf", "sbu", "acbl"]))
def test_each_member_s_share_is_the_boards_they_sat_for_under_the_rule(data: st.DataObject, players: int,
                                                                      boards: int, preset: str) -> None:
    from pipelines.ranking.awards import player_awards, unit_awards

    seats = [data.draw(st.permutations(range(players))) for _ in range(boards)]
    units, inputs, registered, frame = _frames(players, boards, seats)
    rules = load_rules(preset)
    awarded = player_awards(unit_awards(units, inputs, rules), units, registered, frame, rules, inputs.lineups)
    shares = dict(awarded.filter(pl.col("contestant_id") == "T1").select("player_id", "share").iter_rows())
    team = rules.teams
    for i in range(players):
        played = sum(1 for order in seats if i in order[:4])
        fraction = played / boards
        if fraction >= team.min_board_share - 1e-9:
            expected = 1.0
        elif team.below == "pro_rata":
            expected = fraction / team.min_board_share
        else:
            expected = 0.0
        if team.large_team_share and players > 4:
            expected *= 4 / players
        assert shares[f"p{i + 1}"] == pytest.approx(expected), (preset, i, played, boards)


def test_line_ups_that_miss_some_of_the_team_s_boards_take_no_board_from_anyone(store: EventStore,
                                                                                tmp_path: Path) -> None:
    # The file named who sat on boards 1-10 only: the Lions' members count as playing all 20.
    swiss(store, tmp_path, lineups=False)
    store.append([lineup("Lions", ["Lion 1", "Lion 2"], range(1, 11)), lineup("Lions", ["Lion 3", "Lion 5"],
                                                                            range(1, 11))], recorded_at=RECORDED_AT)
    found = lions(store, "wbf")
    assert {name: award for name, (_, award) in found.items()} == dict.fromkeys(TEAMS["Lions"], 800.0)


# --- the oracle extended: match points, from the match results and the rule sets' words ----------------

def _share_by_rule(rules: RuleSet, played: int, boards: int, players: int) -> float:
    """A member's share of the team's award, as the rule set's `teams` words say."""
    team = rules.teams
    fraction = played / boards
    if fraction >= team.min_board_share - 1e-9:
        share = 1.0
    elif team.below == "pro_rata":
        share = fraction / team.min_board_share
    else:
        share = 0.0
    return share * (4 / players if team.large_team_share and players > 4 else 1.0)


@settings(max_examples=examples(40), deadline=None)
@given(data=st.data(), players=st.integers(4, 6), boards=st.integers(1, 24), rounds=st.integers(1, 5),
       preset=st.sampled_from(["wbf", "pzbs-3", "pzbs-4", "abf", "sbu", "acbl"]),
       won=st.sampled_from([6.0, 1.5, 10.0]), drawn_share=st.sampled_from([0.0, 0.5, 1.0]), scaled=st.booleans())
def test_each_member_s_match_points_are_the_matches_won_and_drawn_times_their_share(
        data: st.DataObject, players: int, boards: int, rounds: int, preset: str, won: float, drawn_share: float,
        scaled: bool) -> None:
    from pipelines.ranking.awards import player_awards, unit_awards
    from pipelines.ranking.matches import match_outcomes, with_match_points
    from pipelines.scoring.teams import MATCH_SCHEMA

    seats = [data.draw(st.permutations(range(players))) for _ in range(boards)]
    units, inputs, registered, frame = _frames(players, boards, seats)
    base_rules = load_rules(preset)
    rules = RuleSet.model_validate({**base_rules.model_dump(), "match_points": {
        "per_match_won": won, "per_match_drawn": won * drawn_share, "scaled": scaled}})
    # Each round T1 meets T2: both sides' VPs (equal ones tie), or IMP margins where there is no VP scale.
    scores = st.sampled_from([0.0, 4.5, 10.0, 10.0, 15.55, 20.0])
    results = [(data.draw(st.booleans()), data.draw(scores), data.draw(scores)) for _ in range(rounds)]
    rows = []
    for number, (on_vp, mine, theirs) in enumerate(results, start=1):
        for team, opponent, score, other in (("T1", "T2", mine, theirs), ("T2", "T1", theirs, mine)):
            rows.append({"event_id": "E", "session_id": "s1", "section": "A", "match_id": f"R{number} T1 v T2",
                         "team_id": team, "opponent_id": opponent, "boards": boards, "scheduled_boards": boards,
                         "imps_for": None, "imps_against": None, "imp_margin": score - other if not on_vp else 0.0,
                         "vp": score if on_vp else None})
    matches = match_outcomes(pl.DataFrame(rows, schema=MATCH_SCHEMA))
    awarded = with_match_points(player_awards(unit_awards(units, inputs, rules), units, registered, frame, rules,
                                              inputs.lineups), matches, units, rules)
    got = (awarded.filter((pl.col("contestant_id") == "T1") & pl.col("team_match").is_not_null())
           .group_by("player_id").agg(pl.col("award").sum()))
    found = dict(got.iter_rows())
    category = rules.categories[rules.default_category]
    weight = category.weight * rules.weight.team_factor
    per_round = [won if (mine if on_vp else mine - theirs) > (theirs if on_vp else theirs - mine)
                 else won * drawn_share if mine == theirs else 0.0 for on_vp, mine, theirs in results]
    team_points = sum(per_round) * (category.base if scaled else 1.0) * weight
    for i in range(players):
        played = sum(1 for order in seats if i in order[:4])
        expected = team_points * _share_by_rule(rules, played, boards, players)
        assert found.get(f"p{i + 1}", 0.0) == pytest.approx(expected), (preset, i, results)
