"""Team match points (`[match_points]`): the WBF's 6 master points per round-robin match won and 3 per
tied match, from the matches the store knows, shared by the boards each member sat for."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path

import polars as pl
import pytest
from pydantic import ValidationError

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
from pipelines.ranking.diff import diff_rankings
from pipelines.ranking.edition import compute_edition
from pipelines.ranking.members import import_member_list
from pipelines.ranking.rules import load_rules
from pipelines.ranking.statement import player_statement
from tests.conftest import RECORDED_AT
from tests.ranking.scenario import CET, MEMBERS_AT

EVENT, SESSION = "round-robin-2026", "1"
PLAYED = datetime(2026, 11, 21, 10, 0, tzinfo=CET)
PUBLISHED = PLAYED + timedelta(hours=8)
AS_OF = datetime(2026, 11, 23, 12, 0, tzinfo=CET)
BOARDS = 8
TEAMS = {"Lions": [f"Lion {i}" for i in range(1, 6)], "Tigers": [f"Tiger {i}" for i in range(1, 5)],
         "Bears": [f"Bear {i}" for i in range(1, 5)], "Wolves": [f"Wolf {i}" for i in range(1, 5)]}
MEMBER_IDS = {name: f"{team[0]}{i}" for team, names in TEAMS.items() for i, name in enumerate(names, start=1)}
ROUNDS = [  # (home, away, outcome for home): "win" = +6 IMPs a board, "draw" = the same result in both rooms
    (1, "Lions", "Tigers", "win"), (1, "Bears", "Wolves", "draw"),
    (2, "Bears", "Lions", "win"), (2, "Tigers", "Wolves", "win"),
    (3, "Lions", "Wolves", "win"), (3, "Tigers", "Bears", "draw"),
]
"""Lions beat Tigers and Wolves and lose to Bears; Tigers beat Wolves and draw with Bears; Bears beat
Lions and draw twice; Wolves draw once."""


def new(event: object, stream: str) -> NewEvent:
    return NewEvent(stream, event.type, event_payload(event), PLAYED)  # type: ignore[attr-defined]


def _results(round_no: int, home: str, away: str, outcome: str) -> list[ResultRecorded]:
    """One match of `BOARDS` boards numbered by round (round 2 plays boards 9-16): the home team makes
    4S in the open room; in the closed room the away team stops in 2S (home +6 IMPs) or also bids 4S."""
    closed = "2S" if outcome == "win" else "4S"
    rows = []
    for board in range((round_no - 1) * BOARDS + 1, round_no * BOARDS + 1):
        rows.append(ResultRecorded(event_id=EVENT, session_id=SESSION, board=board, table_id=f"{home}-open",
                                   round=round_no, room="open", ns_id=home, ew_id=away, contract="4S",
                                   declarer="N", tricks=10))
        rows.append(ResultRecorded(event_id=EVENT, session_id=SESSION, board=board, table_id=f"{home}-closed",
                                   round=round_no, room="closed", ns_id=away, ew_id=home, contract=closed,
                                   declarer="N", tricks=10))
    return rows


def round_robin(store: EventStore, tmp_path: Path, *, scoring: str = "VP_TEAMS", publish: bool = True) -> None:
    """Three rounds in one session; Lion 5 sits for Lion 4 on the last 4 boards of round 3 only."""
    members = tmp_path / "members.csv"
    members.write_text("federation_id,name\n" + "".join(f"{i},{n}\n" for n, i in MEMBER_IDS.items()))
    import_member_list(store, members, federation="WBF", at=MEMBERS_AT, recorded_at=RECORDED_AT)
    stream = session_stream(EVENT, SESSION)
    events = [
        new(TournamentRegistered(event_id=EVENT, name="Round Robin"), f"tournament:{EVENT}"),
        new(SessionScheduled(event_id=EVENT, session_id=SESSION, scoring=scoring, field_layout="one_field",
                             session_date=PLAYED.date()), stream),
        *[new(ContestantRegistered(event_id=EVENT, session_id=SESSION, contestant_id=team, kind="team",
                                   players=tuple(Player(name=n) for n in names)), stream)
          for team, names in TEAMS.items()],
        *[new(row, stream) for match in ROUNDS for row in _results(*match)],
        *[new(LineupRecorded(event_id=EVENT, session_id=SESSION, contestant_id="Lions",
                             players=tuple(Player(name=n) for n in pair), boards=tuple(boards)), stream)
          for pair, boards in ((("Lion 1", "Lion 2"), range(1, 25)), (("Lion 3", "Lion 4"), range(1, 21)),
                               (("Lion 3", "Lion 5"), range(21, 25)))],
    ]
    store.append(events, recorded_at=RECORDED_AT)
    if publish:
        publish_scores(store, EVENT, SESSION, at=PUBLISHED)


def match_lines(awards: pl.DataFrame, player: str) -> list[tuple[str, float, float]]:
    rows = awards.filter((pl.col("player_name") == player) & pl.col("team_match").is_not_null())
    return sorted(rows.select("team_match", "base_award", "award").iter_rows())


def test_wbf_gives_6_per_round_robin_match_won_and_3_per_tied_match(store: EventStore, tmp_path: Path) -> None:
    round_robin(store, tmp_path)
    awards = compute_edition(store, load_rules("wbf"), as_of=AS_OF).awards
    assert match_lines(awards, "Lion 1") == [("session 1, R1 Lions v Tigers", 6.0, 6.0),
                                             ("session 1, R3 Lions v Wolves", 6.0, 6.0)]
    assert match_lines(awards, "Tiger 2") == [("session 1, R2 Tigers v Wolves", 6.0, 6.0),
                                              ("session 1, R3 Bears v Tigers", 3.0, 3.0)]
    assert match_lines(awards, "Bear 3") == [("session 1, R1 Bears v Wolves", 3.0, 3.0),
                                             ("session 1, R2 Bears v Lions", 6.0, 6.0),
                                             ("session 1, R3 Bears v Tigers", 3.0, 3.0)]
    assert match_lines(awards, "Wolf 4") == [("session 1, R1 Bears v Wolves", 3.0, 3.0)]
    match_rows = awards.filter(pl.col("team_match").is_not_null())
    assert match_rows["place"].null_count() == match_rows.height
    assert set(match_rows["award_kind"]) == {"master"}


def test_a_member_under_a_third_of_the_boards_gets_no_match_points(store: EventStore, tmp_path: Path) -> None:
    round_robin(store, tmp_path)
    awards = compute_edition(store, load_rules("wbf"), as_of=AS_OF).awards
    # Lion 5 sat for 4 of the Lions' 24 boards (under a third): nothing, for the place or the matches.
    assert match_lines(awards, "Lion 5") == [("session 1, R1 Lions v Tigers", 6.0, 0.0),
                                             ("session 1, R3 Lions v Wolves", 6.0, 0.0)]
    assert match_lines(awards, "Lion 4") == [("session 1, R1 Lions v Tigers", 6.0, 6.0),
                                             ("session 1, R3 Lions v Wolves", 6.0, 6.0)]


def test_match_points_decay_as_master_points_and_add_to_the_total(store: EventStore, tmp_path: Path) -> None:
    round_robin(store, tmp_path)
    later = compute_edition(store, load_rules("wbf"), as_of=AS_OF.replace(year=2027))
    wolf = later.awards.filter(pl.col("player_name") == "Wolf 4")
    # Wolves are 4th of four (200 on the table) and drew one match (3): a year on, 85 % of each.
    assert wolf.select("team_match", "age_years", "decay", "points").sort("team_match", nulls_last=True).rows() == [
        ("session 1, R1 Bears v Wolves", 1, 0.85, pytest.approx(2.55)), (None, 1, 0.85, pytest.approx(170.0))]
    ranked = dict(later.ranking.select("player_id", "points").iter_rows())
    assert ranked["W4"] == 172.55


def test_the_statement_shows_each_match_on_its_own_line(store: EventStore, tmp_path: Path) -> None:
    round_robin(store, tmp_path)
    statement = player_statement(compute_edition(store, load_rules("wbf"), as_of=AS_OF), "T2")
    assert statement.awards.select("event_name", "session_id", "team_match", "base_award", "points").rows() == [
        ("Round Robin", "1", None, 300.0, 300.0),  # third of four
        ("Round Robin", "1", "session 1, R2 Tigers v Wolves", 6.0, 6.0),
        ("Round Robin", "1", "session 1, R3 Bears v Tigers", 3.0, 3.0)]
    assert any("team_match is match points" in note for note in statement.notes)
    assert statement.points == 309.0


def test_the_edition_diff_names_the_matches(store: EventStore, tmp_path: Path) -> None:
    round_robin(store, tmp_path, publish=False)
    rules = load_rules("wbf")
    before = compute_edition(store, rules, as_of=AS_OF)
    publish_scores(store, EVENT, SESSION, at=PUBLISHED)
    after = compute_edition(store, rules, as_of=AS_OF)
    diff = diff_rankings(before, after, old_label="before", new_label="after")
    tiger = diff.reasons.filter(pl.col("player_id") == "T1").select("reason", "points_change", "detail").rows()
    assert ("new award", 3.0, "Round Robin 1 ALL Tigers, match points for session 1, R3 Bears v Tigers: 3 points") \
        in tiger
    assert ("new award", 6.0, "Round Robin 1 ALL Tigers, match points for session 1, R2 Tigers v Wolves: 6 points") \
        in tiger


def test_knockout_matches_give_no_round_robin_points(store: EventStore, tmp_path: Path) -> None:
    round_robin(store, tmp_path, scoring="IMP_TEAMS")
    awards = compute_edition(store, load_rules("wbf"), as_of=AS_OF).awards
    assert awards.filter(pl.col("team_match").is_not_null()).is_empty() and awards.height > 0


def _rules_with(match_points: dict[str, object]) -> RuleSet:
    return RuleSet.model_validate({**load_rules("wbf").model_dump(), "match_points": match_points})


def test_without_a_vp_scale_the_imps_decide_and_the_category_base_can_scale(store: EventStore,
                                                                          tmp_path: Path) -> None:
    round_robin(store, tmp_path, scoring="IMP_TEAMS")
    # Championship base 1: scaled or not, 10 and 4; a transnational event (base 0.5) would give 5 and 2.
    rules = _rules_with({"per_match_won": 10, "per_match_drawn": 4, "scaled": True, "scorings": ["IMP_TEAMS"]})
    awards = compute_edition(store, rules, as_of=AS_OF).awards
    assert match_lines(awards, "Tiger 1") == [("session 1, R2 Tigers v Wolves", 10.0, 10.0),
                                              ("session 1, R3 Bears v Tigers", 4.0, 4.0)]


def test_rule_sets_without_match_points_keep_their_hash_and_their_awards_columns(store: EventStore,
                                                                                tmp_path: Path) -> None:
    round_robin(store, tmp_path)
    placing = load_rules("wbf-placing")
    assert placing.match_points is None
    assert placing.content_hash() == RuleSet.model_validate(
        {k: v for k, v in placing.model_dump().items() if k != "match_points"}).content_hash()
    assert "match_points" not in placing.canonical_json().decode()
    header = compute_edition(store, placing, as_of=AS_OF).output_bytes()["awards"].split(b"\n")[0]
    assert b"team_match" not in header
    wbf = compute_edition(store, load_rules("wbf"), as_of=AS_OF).output_bytes()["awards"].split(b"\n")[0]
    assert b",team_match," in wbf


def test_a_match_points_rule_is_checked() -> None:
    base = load_rules("wbf").model_dump()
    with pytest.raises(ValidationError, match="not among the categories"):
        RuleSet.model_validate({**base, "match_points": {"per_match_won": 6, "categories": ["nationals"]}})
    with pytest.raises(ValidationError, match="must not exceed"):
        RuleSet.model_validate({**base, "match_points": {"per_match_won": 3, "per_match_drawn": 6}})


def test_match_points_kept_between_editions_are_the_points_computed_afresh(store: EventStore,
                                                                          tmp_path: Path) -> None:
    from pipelines.ranking.standings_source import replay_standings

    round_robin(store, tmp_path)
    rules = load_rules("wbf")
    first = compute_edition(store, rules, as_of=AS_OF, keep=True)
    again = compute_edition(store, rules, as_of=AS_OF + timedelta(days=1), keep=True)  # from the kept rows
    scratch = compute_edition(store, rules, as_of=AS_OF + timedelta(days=1), standings=replay_standings)
    assert again.output_sha256() == scratch.output_sha256()
    assert first.awards.filter(pl.col("team_match").is_not_null()).height == 2 * 5 + 2 * 4 + 3 * 4 + 1 * 4
