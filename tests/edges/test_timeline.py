"""The sample weekend: its generator reproduces the files, and its timeline runs as the weekend did."""

from __future__ import annotations

import importlib.util
import sys
from datetime import UTC, datetime
from pathlib import Path

import polars as pl
import pytest
from pydantic import ValidationError

from models.conditions import ConditionsOfContest
from pipelines.edges.timeline import StepOutcome, load_timeline, run_timeline
from pipelines.log.store import EventStore
from pipelines.replay.projections import score_store
from pipelines.scoring.teams import match_results
from tests.conftest import SAMPLE_DATA

WEEKEND = SAMPLE_DATA / "weekend"
TIMELINE = WEEKEND / "timeline.toml"


@pytest.fixture(scope="module")
def weekend(tmp_path_factory: pytest.TempPathFactory) -> tuple[EventStore, list[StepOutcome]]:
    store = EventStore(tmp_path_factory.mktemp("weekend") / "events.duckdb")
    return store, run_timeline(store, TIMELINE)


def test_the_generator_writes_the_committed_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    spec = importlib.util.spec_from_file_location("make_weekend", SAMPLE_DATA / "make_weekend.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "make_weekend", module)  # dataclasses look their module up as it runs
    spec.loader.exec_module(module)
    module.main(tmp_path)
    written = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*") if p.is_file())
    committed = sorted(p.relative_to(WEEKEND) for p in WEEKEND.rglob("*")
                       if p.is_file() and p.name != "double_dummy.json")  # written by --analyse only
    assert written == committed
    for name in written:
        assert (tmp_path / name).read_bytes() == (WEEKEND / name).read_bytes(), name


def test_every_step_but_the_broken_file_is_carried_out(weekend: tuple[EventStore, list[StepOutcome]]) -> None:
    _, outcomes = weekend
    refused = [o for o in outcomes if not o.ok]
    assert [o.step.action for o in refused] == ["ingest"]
    assert "harbour_pairs.csv:1:1: error" in refused[0].message
    assert "csv.header.separator" in refused[0].message  # a `;`-separated file, refused naming its separator
    assert len(outcomes) == len(load_timeline(TIMELINE))


def test_every_result_read_is_scored(weekend: tuple[EventStore, list[StepOutcome]]) -> None:
    store, _ = weekend
    scores = score_store(store).board_scores
    counts = dict(scores.group_by("event_id", "session_id", "section").len()
                  .select(pl.concat_str("event_id", "session_id", "section", separator="/"), "len").iter_rows())
    assert counts == {
        "riverside-pairs-2026-11-20/1/A": 7 * 14,
        "hillside-pairs-2026-11-20/1/": 5 * 15,
        "national-pairs-2026/1/A": 7 * 14, "national-pairs-2026/1/B": 7 * 14,
        "national-pairs-2026/2/A": 7 * 14, "national-pairs-2026/2/B": 7 * 14,
        "swiss-teams-2026/1/": 4 * 6 * 4 * 2,
    }
    assert scores.filter(pl.col("event_id").str.starts_with("harbour")).is_empty()


def test_files_keep_when_they_happened_and_when_they_arrived(weekend: tuple[EventStore, list[StepOutcome]]) -> None:
    store, _ = weekend
    [first] = [e for e in store.read(types=["SourceFileIngested"]) if e.payload["name"] == "riverside_pairs.csv"]
    assert first.occurred_at == datetime(2026, 11, 20, 21, 15, tzinfo=UTC)  # the step's time (22:15 CET)
    assert first.recorded_at > first.occurred_at  # appended now, not back-dated to the claim


def test_corrections_are_decided_by_the_times_in_the_log(weekend: tuple[EventStore, list[StepOutcome]]) -> None:
    store, _ = weekend
    decided = score_store(store).projection.corrections.sort("correction_id")
    assert decided.select("correction_id", "window", "applied").rows() == [
        ("nat-s1-1", "inside correction period", True),
        ("nat-s2-1", "after correction period", True),
        ("riv-1", "after correction period", False),
    ]
    assert decided.filter(pl.col("correction_id") == "nat-s2-1")["rule"].item().startswith("Law 79C2")


def test_players_recur_across_the_weekend() -> None:
    members = pl.read_csv(WEEKEND / "members.csv", schema_overrides={"birth_year": pl.Int64})
    national = (WEEKEND / "saturday" / "national_pairs_s1_A.pbn").read_text()
    swiss = "".join(p.read_text() for p in (WEEKEND / "sunday").glob("*.pbn"))
    both = [m for m in members["federation_id"] if m in national and
            members.filter(pl.col("federation_id") == m)["name"].item() in swiss]
    assert members.height == 80 and members["federation_id"].n_unique() == 80
    assert len(both) >= 5


def test_a_mistyped_step_refuses_the_whole_timeline(tmp_path: Path, store: EventStore) -> None:
    timeline = tmp_path / "timeline.toml"
    timeline.write_text('[[step]]\nat = "2026-11-20T22:15:00+01:00"\naction = "register"\nevent = "x"\n\n'
                        '[[step]]\nat = "2026-11-20T22:16:00+01:00"\naction = "publsh"\nevent = "x"\n')
    with pytest.raises(ValidationError, match="publsh"):
        run_timeline(store, timeline)
    assert store.head() == 0


def test_the_directors_artificial_score_stays_in_its_match(weekend: tuple[EventStore, list[StepOutcome]]) -> None:
    store, _ = weekend
    edition = score_store(store)
    swiss = edition.standings.filter(pl.col("event_id") == "swiss-teams-2026")
    assert swiss.height == 8 and set(swiss["boards"]) == {24}  # four 6-board matches each, no phantom match
    # 16 matches: 15 share 20 VPs; in the one with the fouled board each team's VPs are its own margin's
    assert swiss["vp"].sum() == pytest.approx(15 * 20 + 13.53 + 9.01)
    board = edition.board_scores.filter((pl.col("event_id") == "swiss-teams-2026") & (pl.col("board") == 9)
                                        & pl.col("table_id").str.starts_with("1-"))
    assert sorted(board["imp_ns"].to_list()) == [-3.0, 3.0]  # Law 12C2(b): +3 / -3 IMPs for the match
    assert board["match_id"].n_unique() == 1


def test_the_fouled_swiss_board_has_no_comparison_where_the_rooms_played_different_forms(
        weekend: tuple[EventStore, list[StepOutcome]]) -> None:
    """Round 3, board 15 (the files' NS scores): match 1 played the original form in both rooms,
    -90 v -90 = 0; match 2's open room the original (Westerly Winds NS +50) and its closed room the
    fouled form (Northern Lights NS -110): no comparison, so +3 IMPs each (Laws 87C, 86B2(a), 12C2),
    not 4 IMPs to Westerly Winds; matches 3 and 4 played the fouled form in both rooms and compare:
    Harbour Herons +50 against -110, IMP(160) = 4, and Hillside Hawks the same."""
    store, _ = weekend
    edition = score_store(store)
    board = edition.board_scores.filter((pl.col("event_id") == "swiss-teams-2026") & (pl.col("board") == 15))
    assert board.sort("table_id").select("table_id", "score_ns", "imp_ns", "imp_ew").rows() == [
        ("1-closed", -90, 0.0, 0.0), ("1-open", -90, 0.0, 0.0),
        ("2-closed", -110, 3.0, 3.0), ("2-open", 50, 3.0, 3.0),
        ("3-closed", 50, 4.0, -4.0), ("3-open", -110, -4.0, 4.0),
        ("4-closed", -110, -4.0, 4.0), ("4-open", 50, 4.0, -4.0)]
    assert board.filter(pl.col("board_rule").is_not_null())["table_id"].sort().to_list() == ["2-closed", "2-open"]
    # The match on 6 boards: Westerly Winds +8 IMPs, 10 + 10(1 - tau^(24/36.74))/(1 - tau^3) = 13.53 VPs;
    # Northern Lights -2 (with its +3), the loser's side of 2 IMPs: 20 - 10.99 = 9.01.
    swiss = edition.standings.filter(pl.col("event_id") == "swiss-teams-2026")
    matches = match_results(edition.board_scores.filter(pl.col("event_id") == "swiss-teams-2026"),
                            ConditionsOfContest.from_toml(WEEKEND / "conditions" / "swiss-teams-2026.toml"))
    assert matches.filter(pl.col("match_id") == "R3 Northern Lights v Westerly Winds").sort("team_id").select(
        "team_id", "imp_margin", "vp").rows() == [("Northern Lights", -2.0, 9.01), ("Westerly Winds", 8.0, 13.53)]
    assert swiss.height == 8


def test_a_team_is_registered_with_everyone_who_sat_for_it(weekend: tuple[EventStore, list[StepOutcome]]) -> None:
    store, _ = weekend
    teams: dict[str, set[str]] = {}
    for event in store.read(types=["ContestantRegistered"]):
        if event.payload["event_id"] == "swiss-teams-2026":
            teams.setdefault(event.payload["contestant_id"], set()).update(p["name"] for p in event.payload["players"])
    assert len(teams) == 8 and all(len(players) == 4 for players in teams.values())  # both rooms' pairs
    riverside = (WEEKEND / "sunday" / "swiss_round1_match1.pbn").read_text()
    assert all(f'"{name}"' in riverside for name in teams["Riverside Rapids"])


def test_the_kept_double_dummy_analyses_are_endplays() -> None:
    pytest.importorskip("endplay", reason="the solver is the [dds] extra, which `make test` installs")
    import orjson

    from pipelines.site.analysis import solve

    kept = orjson.loads((WEEKEND / "double_dummy.json").read_bytes())["deals"]
    assert len(kept) == 15 + 28 + 24  # Hillside's hand record, the National Pairs, the Swiss
    sample = sorted(kept)[::20]
    for deal, analysis in solve(sample).items():
        assert orjson.loads(kept[deal]["tricks"]) == analysis.tricks
        assert {k: [p.score_ns, list(p.contracts)] for k, p in analysis.par.items()} == orjson.loads(kept[deal]["par"])
