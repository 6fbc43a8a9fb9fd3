"""The command line, as a person uses it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pipelines.cli.app import app
from pipelines.log.store import EventStore
from tests.conftest import SAMPLE_DATA

runner = CliRunner()


@pytest.fixture
def store_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "cli.duckdb"
    monkeypatch.setenv("BRIDGELEDGER_STORE", str(path))
    return path


def test_ingest_score_verify_and_query(store_file: Path, tmp_path: Path) -> None:
    traveller = str(SAMPLE_DATA / "club_championship_traveller.csv")
    first = runner.invoke(app, ["ingest", traveller])
    assert first.exit_code == 0, first.output
    assert "367 events appended to club-championship-2026/1" in first.output
    again = runner.invoke(app, ["ingest", traveller])
    assert "already ingested" in again.output
    scored = runner.invoke(app, ["score", "--out", str(tmp_path / "out")])
    assert scored.exit_code == 0, scored.output
    assert (tmp_path / "out" / "standings.csv").exists()
    verified = runner.invoke(app, ["verify"])
    assert verified.exit_code == 0 and "367 events, hash chain intact" in verified.output
    query = runner.invoke(app, ["sql", "SELECT count(*) AS n FROM standings WHERE direction = 'NS'"])
    assert query.exit_code == 0 and "13" in query.output


def test_sql_connection_is_read_only(store_file: Path) -> None:
    runner.invoke(app, ["ingest", str(SAMPLE_DATA / "club_championship_traveller.csv")])
    result = runner.invoke(app, ["sql", "DELETE FROM events"])
    assert result.exit_code == 1
    assert "read-only" in result.output.lower()
    assert "367 events" in runner.invoke(app, ["verify"]).output


def test_store_option_beats_the_environment(store_file: Path, tmp_path: Path) -> None:
    other = tmp_path / "other.duckdb"
    runner.invoke(app, ["ingest", "--store", str(other), str(SAMPLE_DATA / "club_championship_traveller.csv")])
    assert other.exists() and not store_file.exists()


def test_a_rejected_file_exits_nonzero_and_names_the_line(store_file: Path) -> None:
    result = runner.invoke(app, ["ingest", "--strict", str(SAMPLE_DATA / "malformed_traveller.csv")])
    assert result.exit_code == 1
    assert "malformed_traveller.csv:4:36" in result.output


def test_verify_without_a_store_is_a_clear_error(store_file: Path) -> None:
    result = runner.invoke(app, ["verify"])
    assert result.exit_code == 1 and "no event store" in result.output


def test_schema_is_json_schema_of_the_catalogue() -> None:
    result = runner.invoke(app, ["schema"])
    schema = json.loads(result.output)
    assert "ResultRecorded" in schema["discriminator"]["mapping"]


def test_demo_runs_the_weekend_and_its_figures_match_a_replay_from_zero(tmp_path: Path) -> None:
    result = runner.invoke(app, ["demo", "--workdir", str(tmp_path / "demo")])
    assert result.exit_code == 0, result.output
    out = result.output
    assert "hash chain intact" in out
    assert "ingest       REFUSED harbour_pairs.csv" in out
    assert "approve-late late correction nat-s2-1 approved (Law 79C2)" in out
    assert "correction periods closed: 5 session(s) final" in out
    assert "ranking edition nbf-2026-11-23: 41 players ranked" in out
    assert "new award: Swiss Teams 2026" in out  # Monday's edition says why players moved
    assert ("R3 Northern Lights v Westerly Winds board 15: Northern Lights +3, Westerly Winds +3 IMPs "
            "(Law 87C, 86B2(a): fouled board") in out  # Sunday's fouled board, no comparison between the rooms

    from pipelines.edges.demo import MONDAY
    from pipelines.edges.tasks import close_due_periods
    from pipelines.edges.timeline import run_timeline
    from pipelines.ranking.publish import published_editions, rebuild_edition
    from pipelines.replay.projections import export_csv, score_store

    again = EventStore(tmp_path / "again.duckdb")  # the weekend again, from zero, in another store
    run_timeline(again, SAMPLE_DATA / "weekend" / "timeline.toml")
    close_due_periods(str(again.path), MONDAY.isoformat(), str(tmp_path / "again"))
    replayed = export_csv(score_store(again), tmp_path / "again")
    demo_store = EventStore(tmp_path / "demo" / "bridgeledger.duckdb")
    for name, path in replayed.items():  # the demo's scores are what any replay of the weekend gives
        fresh = export_csv(score_store(demo_store), tmp_path / "fresh")[name]
        assert fresh.read_bytes() == path.read_bytes(), name
    editions = published_editions(demo_store)
    assert sorted(editions) == ["nbf-2026-11-21", "nbf-2026-11-23"]
    for label, published in editions.items():  # each edition rebuilds byte for byte
        assert rebuild_edition(demo_store, label).output_sha256() == published.event.output_sha256


def test_check_prints_positioned_diagnostics_and_fails_on_errors() -> None:
    bad = runner.invoke(app, ["check", str(SAMPLE_DATA / "malformed_traveller.csv")])
    assert bad.exit_code == 1
    assert "malformed_traveller.csv:5:40: error: declarer must be N, E, S or W, got 'Q'" in bad.output
    good = runner.invoke(app, ["check", str(SAMPLE_DATA / "club_championship_traveller.csv")])
    assert good.exit_code == 0 and "337 results, 1 artificial scores, 0 error(s)" in good.output


def test_director_commands_publish_correct_approve_adjust_penalise(store_file: Path, tmp_path: Path) -> None:
    s = ["--event", "club-championship-2026", "--session", "1"]
    ingest = ["ingest", "--at", "2026-11-21T19:00+01:00", str(SAMPLE_DATA / "club_championship_traveller.csv")]
    assert runner.invoke(app, ingest).exit_code == 0
    steps = [
        ["publish", *s, "--at", "2026-11-21T21:00+01:00"],
        ["correct", *s, "--board", "1", "--table", "4", "--tricks", "9", "--id", "c1", "--by", "NS 4",
         "--reason", "nine tricks", "--at", "2026-11-21T21:10+01:00"],
        ["correct", *s, "--board", "2", "--table", "3", "--contract", "2NT", "--declarer", "S", "--id", "c2",
         "--by", "EW 5", "--reason", "2NT", "--at", "2026-11-21T21:40+01:00"],
        ["adjust", *s, "--board", "5", "--table", "2", "--ns", "A+", "--ew", "A-", "--director", "TD",
         "--reason", "late arrival", "--requested-at", "2026-11-21T21:20+01:00", "--at", "2026-11-21T21:25+01:00"],
        ["penalty", *s, "--contestant", "7", "--direction", "NS", "--amount", "3", "--unit", "MP",
         "--reason", "slow play", "--law", "90B2", "--at", "2026-11-21T21:26+01:00"],
    ]
    for step in steps:
        result = runner.invoke(app, step)
        assert result.exit_code == 0 and "recorded at log position" in result.output, (step[0], result.output)
    audit = runner.invoke(app, ["audit", *s, "--out", str(tmp_path / "audit")])
    assert audit.exit_code == 0, audit.output
    rows = (tmp_path / "audit" / "audit_club-championship-2026_1.csv").read_text().splitlines()
    # The penalty is audited too (issue #36 item 5), between the ruling and c2 by the time each claims.
    assert len(rows) == 5 and ",c2," in rows[4] and "rejected" in rows[4] and "applied" in rows[1]
    assert rows[3].startswith("penalty,") and ",applied,recorded before the session became final," in rows[3]
    late = runner.invoke(app, ["approve-late", "--id", "c2", "--organiser", "TO", "--director", "TD",
                               "--statement", "slip shows 2NT", "--at", "2026-11-21T22:00+01:00"])
    assert late.exit_code == 0
    diff = runner.invoke(app, ["diff", "--from", "2026-11-21T21:05+01:00", "--to", "2026-11-21T23:00+01:00"])
    assert diff.exit_code == 0 and "LateCorrectionApproved" in diff.output and "PenaltyAwarded" in diff.output
    query = runner.invoke(app, ["score", "--out", str(tmp_path / "o")])
    assert query.exit_code == 0
    ns7 = [line for line in (tmp_path / "o" / "standings.csv").read_text().splitlines()
           if ",NS,7," in line]
    assert len(ns7) == 1


@pytest.mark.parametrize("bad", [
    ["publish", "--event", "nope", "--session", "1", "--at", "2026-11-21T21:00+01:00"],
    ["correct", "--event", "club-championship-2026", "--session", "1", "--board", "99", "--table", "1",
     "--tricks", "9", "--id", "x", "--by", "x", "--reason", "x", "--at", "2026-11-21T21:10+01:00"],
    ["correct", "--event", "club-championship-2026", "--session", "1", "--board", "1", "--table", "1",
     "--tricks", "9", "--id", "x", "--by", "x", "--reason", "x", "--at", "2026-11-21T21:10"],
    ["approve-late", "--id", "ghost", "--organiser", "x", "--director", "x", "--statement", "x",
     "--at", "2026-11-21T22:00+01:00"],
    ["penalty", "--event", "club-championship-2026", "--session", "1", "--contestant", "99", "--amount", "1",
     "--unit", "MP", "--reason", "x", "--at", "2026-11-21T22:00+01:00"],
])
def test_wrong_director_commands_append_nothing(store_file: Path, bad: list[str]) -> None:
    runner.invoke(app, ["ingest", str(SAMPLE_DATA / "club_championship_traveller.csv")])
    before = runner.invoke(app, ["verify"]).output
    result = runner.invoke(app, bad)
    assert result.exit_code != 0
    assert ("refused" in result.output and "nothing was appended" in result.output) or "timezone" in result.output
    assert runner.invoke(app, ["verify"]).output == before


def test_weighted_and_foul_commands(store_file: Path, tmp_path: Path) -> None:
    assert runner.invoke(app, ["ingest", str(SAMPLE_DATA / "club_championship_traveller.csv")]).exit_code == 0
    s = ["--event", "club-championship-2026", "--session", "1"]
    weighted = runner.invoke(app, ["weighted", *s, "--board", "3", "--table", "2", "--ns", "4S:N:10:0.7",
                                   "--ns", "4S:N:9:0.3", "--director", "TD", "--reason", "UI",
                                   "--requested-at", "2026-11-21T21:00+01:00", "--at", "2026-11-21T21:05+01:00"])
    assert weighted.exit_code == 0, weighted.output
    bad = runner.invoke(app, ["weighted", *s, "--board", "3", "--table", "2", "--ns", "4S:N:10", "--director",
                              "TD", "--reason", "x", "--requested-at", "2026-11-21T21:00+01:00"])
    assert bad.exit_code == 2 and "CONTRACT:DECLARER:TRICKS:WEIGHT" in bad.output
    foul = runner.invoke(app, ["foul", *s, "--board", "4", "--section", "A", "--group", "a=1,2,3,4,5,6",
                               "--group", "b=7,8,9,10,11,12,13", "--reason", "cards swapped",
                               "--at", "2026-11-21T21:06+01:00"])
    assert foul.exit_code == 0, foul.output
    runner.invoke(app, ["score", "--out", str(tmp_path / "o")])
    import polars as pl

    scores = pl.read_csv(tmp_path / "o" / "board_scores.csv")
    assert scores.filter((pl.col("board") == 3) & (pl.col("table_id") == 2))["contract"].to_list() == [None]
    board4 = scores.filter(pl.col("board") == 4)
    assert board4["top"].unique().to_list() == [24.0]
    assert board4.filter(pl.col("table_id") <= 6)["mp_ns"].sum() == pytest.approx(24 * 6 / 2, abs=0.01)


def test_site_prints_names_as_text_not_as_markup(store_file: Path, tmp_path: Path) -> None:
    runner.invoke(app, ["ingest", str(SAMPLE_DATA / "club_championship_traveller.csv")])
    # Rich markup in an event id: "[/x]" closes a tag nobody opened, which rich refuses with an exception.
    missing = runner.invoke(app, ["site", "--event", "[/x]", "--out", str(tmp_path / "none")])
    assert missing.exit_code == 1 and "there is no scored event '[/x]'" in missing.output
    out = tmp_path / "site[bold]"  # a folder name rich would read as a style
    built = runner.invoke(app, ["site", "--event", "club-championship-2026", "--out", str(out)])
    assert built.exit_code == 0, built.output
    assert f"index: {out / 'index.html'}" in built.output.replace("\n", "")
