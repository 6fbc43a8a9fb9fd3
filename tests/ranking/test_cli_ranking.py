"""The ranking's commands as a person uses them: a member list, two editions, a correction between."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pipelines.cli.app import app
from pipelines.commands import director
from pipelines.log.store import EventStore
from tests.conftest import RECORDED_AT, SAMPLE_DATA
from tests.ranking.scenario import registrations, write_member_list

runner = CliRunner()
EVENT = "club-championship-2026"


def run(*args: str) -> str:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.output


@pytest.fixture
def store_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "cli.duckdb"
    monkeypatch.setenv("BRIDGELEDGER_STORE", str(path))
    monkeypatch.setenv("COLUMNS", "200")
    return path


def test_members_editions_correction_diff_statement(store_file: Path, tmp_path: Path) -> None:
    members = write_member_list(tmp_path / "members.csv")
    assert "53 members, 53 new or changed" in run("players", "import", str(members), "--federation", "SBU",
                                                  "--at", "2026-11-01T12:00+01:00")
    run("ingest", str(SAMPLE_DATA / "club_championship_traveller.csv"), "--at", "2026-11-21T19:00+01:00")
    EventStore(store_file).append(registrations(), recorded_at=RECORDED_AT)
    run("publish", "--event", EVENT, "--session", "1", "--at", "2026-11-21T21:00+01:00")
    assert "0 unmatched player(s)" in run("players", "unmatched", "--as-of", "2026-11-22T12:00+01:00")

    provisional = run("rank", "--rules", "sbu", "--as-of", "2026-11-21T21:10+01:00")
    assert "0 players" in provisional and "not final" in provisional
    first = run("rank", "--rules", "sbu", "--as-of", "2026-11-22T12:00+01:00", "--publish", "--edition", "e1",
                "--out", str(tmp_path / "e1"))
    assert "20 players, 52 awards" in first and "published edition 'e1'" in first
    # Typed at 22:00, half an hour after the period ended: back-dated, let in by its acknowledgement.
    with pytest.MonkeyPatch.context() as clock:
        clock.setattr(director, "appended_now", lambda: datetime(2026, 11, 21, 21, 0, tzinfo=UTC))
        run("correct", "--event", EVENT, "--session", "1", "--board", "1", "--table", "4", "--by", "NS pair 4",
            "--reason", "9 tricks, not 7", "--id", "c1", "--tricks", "9", "--at", "2026-11-21T21:10+01:00",
            "--acknowledge-back-dated", "slip found in the scorer's tray", "--acknowledged-by", "TD Kowalski")
    run("rank", "--rules", "sbu", "--as-of", "2026-11-22T12:00+01:00", "--publish", "--edition", "e2")

    diff = run("rank", "diff", "e1", "e2")
    assert "10 player(s) moved" in diff
    # Raised (as claimed) at 21:10, inside the period; it reached the log after the period ended.
    assert diff.count("correction: c1 (9 tricks, not 7, by NS pair 4; back-dated: claims 2026-11-21T20:10:00+00:00,"
                      " inside the period that ended 2026-11-21T20:30:00+00:00, recorded ") == 10
    shown = run("rank", "show", "e1", "--out", str(tmp_path / "again"))
    assert "matches the publication" in shown
    for name in ("ranking", "sub_rankings", "awards"):
        assert (tmp_path / "again" / f"{name}.csv").read_bytes() == (tmp_path / "e1" / f"{name}.csv").read_bytes()

    statement = run("statement", "Nowak Anna 4", "--edition", "e2")
    assert "1041 Nowak Anna 4: place 13, 24 points" in statement
    movement = run("sql", "SELECT player_id, previous_place, place, movement FROM ranking "
                          "WHERE edition = 'e2' AND player_id = '1091'")
    assert "1091" in movement and "13" in movement and "-6" in movement
    assert "e1" in run("rank", "list") and "e2" in run("sql", "SELECT edition FROM ranking_editions")


def test_refusals_say_why(store_file: Path, tmp_path: Path) -> None:
    bad = tmp_path / "members.csv"
    bad.write_text("federation_id,name,gender\n1,Anna,Q\n")
    result = runner.invoke(app, ["players", "import", str(bad), "--federation", "SBU"])
    assert result.exit_code == 1 and f"{bad}:2:3: gender 'Q'" in result.output
    result = runner.invoke(app, ["rank", "--rules", "no-such-rules", "--as-of", "2026-11-22T12:00+01:00"])
    assert result.exit_code == 1 and "not a preset" in result.output
    result = runner.invoke(app, ["rank", "--rules", "sbu", "--as-of", "2026-11-22T12:00"])
    assert result.exit_code != 0 and "timezone" in result.output
    result = runner.invoke(app, ["players", "merge", "1", "2"])
    assert result.exit_code == 1 and "not a member" in result.output
