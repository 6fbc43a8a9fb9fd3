"""`score` as a person uses it on a live store: incremental, --full, and editions beside the views."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pipelines.cli.app import app
from tests.conftest import REPO, SAMPLE_DATA

runner = CliRunner()
S = ["--event", "club-championship-2026", "--session", "1"]


@pytest.fixture
def store_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "cli.duckdb"
    monkeypatch.setenv("BRIDGELEDGER_STORE", str(path))
    traveller = str(SAMPLE_DATA / "club_championship_traveller.csv")
    assert runner.invoke(app, ["ingest", "--at", "2026-11-21T19:00+01:00", traveller]).exit_code == 0
    return path


def test_score_rescores_what_changed_and_full_gives_the_same_files(store_file: Path, tmp_path: Path) -> None:
    first = runner.invoke(app, ["score"])
    assert first.exit_code == 0 and "1 session(s) rebuilt" in first.output, first.output
    assert "0 session(s) rescored" in runner.invoke(app, ["score"]).output
    correct = runner.invoke(app, ["correct", *S, "--board", "1", "--table", "4", "--tricks", "9", "--id", "c1",
                                  "--by", "NS 4", "--reason", "nine", "--at", "2026-11-21T21:10+01:00"])
    assert correct.exit_code == 0, correct.output
    again = runner.invoke(app, ["score", "--out", str(tmp_path / "live")])
    assert again.exit_code == 0 and "1 session(s) rescored" in again.output, again.output
    full = runner.invoke(app, ["score", "--full", "--out", str(tmp_path / "full")])
    assert full.exit_code == 0 and "rebuilt" in full.output
    for name in ("board_scores.csv", "standings.csv"):
        assert (tmp_path / "live" / name).read_bytes() == (tmp_path / "full" / name).read_bytes()
    assert ",A,1,4,4,7,3NT,N,9," in (tmp_path / "live" / "board_scores.csv").read_text()


def test_an_edition_leaves_the_views_alone(store_file: Path, tmp_path: Path) -> None:
    position = runner.invoke(app, ["correct", *S, "--board", "1", "--table", "4", "--tricks", "9", "--id", "c1",
                                   "--by", "NS 4", "--reason", "nine", "--at", "2026-11-21T21:10+01:00"])
    assert runner.invoke(app, ["score"]).exit_code == 0
    before = runner.invoke(app, ["score", "--position", "367", *S, "--out", str(tmp_path / "then")])
    assert before.exit_code == 0 and "the views are unchanged" in before.output, before.output
    assert ",A,1,4,4,7,3NT,N,7," in (tmp_path / "then" / "board_scores.csv").read_text()  # as recorded
    view = runner.invoke(app, ["sql", "SELECT tricks FROM board_scores WHERE board = 1 AND table_id = '4'"])
    assert "9" in view.output and position.exit_code == 0
    bad = runner.invoke(app, ["score", "--full", "--position", "3"])
    assert bad.exit_code == 2


def test_help_imports_no_scoring_or_storage_library() -> None:
    probe = ("import sys; from pipelines.cli.app import app; "
             "print(sorted(m for m in ('polars', 'duckdb', 'pyarrow', 'pydantic', 'pipelines.log.store') "
             "if m in sys.modules))")
    loaded = subprocess.run([sys.executable, "-c", probe], cwd=REPO, capture_output=True, text=True, check=True)
    assert loaded.stdout.strip() == "[]"
