"""An event's ranking category, as a ranking officer sets it: from the CLI or the conditions file;
a category the rule set does not have stops the edition and names the ones it has."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

from pipelines.cli.app import app
from pipelines.log.store import EventStore
from tests.conftest import RECORDED_AT, SAMPLE_DATA
from tests.ranking.scenario import EVENT, registrations, write_member_list

runner = CliRunner()
CONDITIONS = SAMPLE_DATA / "club_championship_conditions.toml"
AS_OF = "2026-11-22T12:00+01:00"


@pytest.fixture
def store_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "cli.duckdb"
    monkeypatch.setenv("BRIDGELEDGER_STORE", str(path))
    monkeypatch.setenv("COLUMNS", "200")
    return path


def run(*args: str) -> str:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.output


def session_registered_as(store_file: Path, tmp_path: Path, *register: str) -> None:
    """The sample session, its event registered by hand with `register` and these options."""
    run("players", "import", str(write_member_list(tmp_path / "members.csv")), "--federation", "SBU",
        "--at", "2026-11-01T12:00+01:00")
    run("register", "--event", EVENT, "--name", "Club Championship", *register, "--at", "2026-11-21T18:00+01:00")
    run("ingest", str(SAMPLE_DATA / "club_championship_traveller.csv"), "--at", "2026-11-21T19:00+01:00")
    EventStore(store_file).append(registrations(), recorded_at=RECORDED_AT)
    run("publish", "--event", EVENT, "--session", "1", "--at", "2026-11-21T21:00+01:00")


def awards_by_category(out: Path) -> dict[str, float]:
    awards = pl.read_csv(out / "awards.csv")
    return dict(awards.group_by("category").agg(pl.col("base_award").max()).iter_rows())


def test_register_help_shows_the_category() -> None:
    assert "--category" in run("register", "--help")


def test_a_category_given_on_the_command_line_weighs_the_event(store_file: Path, tmp_path: Path) -> None:
    session_registered_as(store_file, tmp_path, "--conditions", str(CONDITIONS), "--category", "national")
    registered = [e.payload for e in EventStore(store_file).read(types=["TournamentRegistered"])]
    assert registered[-1]["category"] == "national"
    run("rank", "--rules", "sbu", "--as-of", AS_OF, "--out", str(tmp_path / "e"))
    # SBU: a national event's first place is worth 240 (a club night's 60).
    assert awards_by_category(tmp_path / "e") == {"national": 240.0}


def test_a_category_in_the_conditions_file_is_accepted(store_file: Path, tmp_path: Path) -> None:
    conditions = tmp_path / "conditions.toml"
    conditions.write_text(CONDITIONS.read_text().replace('method = "MP"', 'method = "MP"\ncategory = "district"'))
    session_registered_as(store_file, tmp_path, "--conditions", str(conditions))
    registered = [e.payload for e in EventStore(store_file).read(types=["TournamentRegistered"])]
    assert registered[-1]["category"] == "district" and "category" not in registered[-1]["conditions"]
    run("rank", "--rules", "sbu", "--as-of", AS_OF, "--out", str(tmp_path / "e"))
    assert list(awards_by_category(tmp_path / "e")) == ["district"]


def test_two_different_categories_are_refused(store_file: Path, tmp_path: Path) -> None:
    conditions = tmp_path / "conditions.toml"
    conditions.write_text(CONDITIONS.read_text().replace('method = "MP"', 'method = "MP"\ncategory = "district"'))
    result = runner.invoke(app, ["register", "--event", EVENT, "--name", "C", "--conditions", str(conditions),
                                 "--category", "national"])
    assert result.exit_code == 1 and "'national' differs from the conditions' category 'district'" in result.output
    assert not store_file.exists() or not list(EventStore(store_file).read(types=["TournamentRegistered"]))


def test_an_unknown_category_stops_the_edition_and_names_the_rule_sets(store_file: Path, tmp_path: Path) -> None:
    session_registered_as(store_file, tmp_path, "--conditions", str(CONDITIONS), "--category", "nationals")
    result = runner.invoke(app, ["rank", "--rules", "sbu", "--as-of", AS_OF, "--publish", "--edition", "e1"])
    assert result.exit_code == 1
    said = " ".join(result.output.split())
    assert f"{EVENT} ('nationals')" in said and "its categories are club, district, national" in said
    assert not list(EventStore(store_file).read(types=["RankingPublished"]))


def test_the_demo_registers_every_event_with_a_category_its_rule_set_has(tmp_path: Path) -> None:
    # The demo's register steps go through `register_tournament`, the function `register` calls.
    from pipelines.edges.demo import WEEKEND
    from pipelines.edges.timeline import RegisterStep, load_timeline, run_timeline
    from pipelines.ranking.rules import load_rules

    steps = [step for step in load_timeline(WEEKEND / "timeline.toml") if isinstance(step, RegisterStep)]
    store = EventStore(tmp_path / "demo.duckdb")
    for step in steps:
        one = tmp_path / f"{step.event}.toml"
        one.write_text(f'[[step]]\nat = "{step.at.isoformat()}"\naction = "register"\nevent = "{step.event}"\n'
                       f'name = "{step.name}"\ncategory = "{step.category}"\n')
        (tmp_path / "conditions").mkdir(exist_ok=True)
        source = WEEKEND / "conditions" / f"{step.event}.toml"
        if source.exists():
            (tmp_path / "conditions" / source.name).write_text(source.read_text())
        assert all(outcome.ok for outcome in run_timeline(store, one))
    registered = {e.payload["event_id"]: e.payload["category"] for e in store.read(types=["TournamentRegistered"])}
    categories = load_rules(WEEKEND / "ranking_rules.toml").categories
    assert len(registered) == 4 and set(registered.values()) == {"club", "national"}
    assert all(category in categories for category in registered.values())
