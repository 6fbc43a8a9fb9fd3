"""What a user meets at the edges of the CLI: hostile names and cells, bad options, missing stores."""

from __future__ import annotations

import os
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

from pipelines.base.neutralise import for_terminal, safe_file_name, spreadsheet_safe
from pipelines.cli.app import app
from pipelines.log.store import EventStore
from tests.conftest import SAMPLE_DATA
from tests.hostile.conftest import EVENT, SESSION

runner = CliRunner()
HEADER = "event,session,board,section,table,ns,ew,contract,declarer,result\n"


def test_rich_markup_in_a_cell_is_printed_not_interpreted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BRIDGELEDGER_STORE", str(tmp_path / "s.duckdb"))
    path = tmp_path / "markup.csv"
    path.write_text(HEADER + "e,1,1,A,1,1,2,3NT,N,9\ne,1,2,A,1,1,2,[/x]\x1b[31m,N,9\n", encoding="utf-8")
    result = runner.invoke(app, ["ingest", str(path)])
    assert result.exit_code == 0, result.output
    assert "[/x]" in result.output and "\x1b" not in result.output
    checked = runner.invoke(app, ["check", str(path)])
    assert "[/x]" in checked.output and "\x1b" not in checked.output


def test_file_names_print_as_text(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BRIDGELEDGER_STORE", str(tmp_path / "s.duckdb"))
    path = tmp_path / "[bold]club\x1b]0;owned\x07[red].csv"
    path.write_bytes((SAMPLE_DATA / "malformed_traveller.csv").read_bytes())
    result = runner.invoke(app, ["ingest", "--strict", str(path)])
    assert result.exit_code == 1
    assert "[bold]club\\x1b]0;owned\\x07[red].csv" in result.output
    assert "\x1b" not in result.output and "\x07" not in result.output


def test_a_file_name_that_is_not_utf8_is_read_and_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BRIDGELEDGER_STORE", str(tmp_path / "s.duckdb"))
    path = Path(os.fsdecode(bytes(tmp_path) + b"/club-\xff\xfe.csv"))
    path.write_bytes((SAMPLE_DATA / "club_championship_traveller.csv").read_bytes())
    result = runner.invoke(app, ["ingest", str(path)])
    assert result.exit_code == 0, result.output
    assert "club-\ufffd\ufffd.csv: 367 events appended" in result.output
    [ingested] = EventStore(tmp_path / "s.duckdb").read(types=["SourceFileIngested"])
    assert ingested.payload["name"] == "club-\ufffd\ufffd.csv"
    assert runner.invoke(app, ["check", str(path)]).exit_code == 0


def test_csv_outputs_neutralise_formulas_and_keep_numbers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BRIDGELEDGER_STORE", str(tmp_path / "s.duckdb"))
    path = tmp_path / "formulas.csv"
    path.write_text(HEADER + "e,1,1,A,1,=HYPERLINK(\"x\"),@SUM(A1),3NT,N,9\ne,1,1,A,2,-2+3,+7,3NT,N,7\n",
                    encoding="utf-8")
    assert runner.invoke(app, ["ingest", str(path)]).exit_code == 0
    assert runner.invoke(app, ["score", "--out", str(tmp_path / "out")]).exit_code == 0
    written = (tmp_path / "out" / "board_scores.csv").read_text(encoding="utf-8")
    assert "'=HYPERLINK" in written and "'@SUM(A1)" in written and "'-2+3" in written
    assert ",+7," in written  # a plain number stays readable as the number it is
    scores = pl.read_csv(tmp_path / "out" / "board_scores.csv", infer_schema_length=0)
    assert {"400", "-100"} <= set(scores["score_ns"].to_list())


def test_spreadsheet_safety_leaves_numbers_and_number_columns_alone() -> None:
    frame = pl.DataFrame({"text": ["-100", "+3", "-1+2", "=A1", "@x", "\tx", "ok", None],
                          "n": [-1, 2, 3, 4, 5, 6, 7, 8]})
    safe = spreadsheet_safe(frame)
    assert safe["text"].to_list() == ["-100", "+3", "'-1+2", "'=A1", "'@x", "'\tx", "ok", None]
    assert safe["n"].to_list() == frame["n"].to_list()


def test_terminal_text_and_file_names() -> None:
    assert for_terminal("a[/x]\x1b[2J\u202eb") == "a\\[/x]\\x1b[2J\\u202eb"
    assert safe_file_name("../a/b") == "_a_b"
    assert safe_file_name("..") == "_"


def test_an_empty_file_creates_no_phantom_session(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = tmp_path / "s.duckdb"
    monkeypatch.setenv("BRIDGELEDGER_STORE", str(store))
    for name in ("empty.pbn", "empty.lin", "empty.csv", "empty.xml"):
        (tmp_path / name).write_bytes(b"")
        runner.invoke(app, ["ingest", str(tmp_path / name)])
    if store.exists():
        types = {e.type for e in EventStore(store).read()}
        assert types <= {"SourceFileIngested"}


@pytest.mark.parametrize("arguments", [
    ["ingest", "--at", "nope", "x.csv"],
    ["ingest", "--at", "2026-11-21T21:00", "x.csv"],
    ["score", "--as-of", "nope"],
    ["score", "--as-of", "9999-12-31T00:00Z"],
    ["score", "--position", str(10**30)],
    ["score", "--position", "-1"],
    ["diff", "--from", str(10**30), "--to", "1"],
    ["diff", "--from", "nope", "--to", "1"],
])
def test_bad_options_are_usage_errors_not_tracebacks(sample_store: EventStore, arguments: list[str]) -> None:
    result = runner.invoke(app, arguments)
    assert result.exit_code == 2, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert sample_store.head() == 367


@pytest.mark.parametrize("arguments", [
    ["score"], ["audit", "--event", "e", "--session", "1"], ["diff-published"], ["diff", "--from", "1", "--to", "2"],
])
def test_commands_on_a_missing_store_say_so_and_create_nothing(tmp_path: Path, arguments: list[str]) -> None:
    missing = tmp_path / "missing.duckdb"
    result = runner.invoke(app, [*arguments, "--store", str(missing), *(["--out", str(tmp_path / "o")]
                                                                       if arguments[0] == "audit" else [])])
    assert result.exit_code == 1, result.output
    assert "no event store" in result.output
    assert not missing.exists()
    assert isinstance(result.exception, SystemExit)


def test_audit_of_an_unknown_session_writes_nothing(sample_store: EventStore, tmp_path: Path) -> None:
    result = runner.invoke(app, ["audit", "--event", "nope", "--session", SESSION, "--out", str(tmp_path / "o")])
    assert result.exit_code == 1 and "no session nope/1" in result.output
    assert not (tmp_path / "o").exists()


def test_ids_with_slashes_stay_in_the_output_directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BRIDGELEDGER_STORE", str(tmp_path / "s.duckdb"))
    path = tmp_path / "slashes.csv"
    path.write_text(HEADER + "../a/b,1/2,1,A,1,1,2,3NT,N,9\n", encoding="utf-8")
    assert runner.invoke(app, ["ingest", str(path)]).exit_code == 0
    result = runner.invoke(app, ["audit", "--event", "../a/b", "--session", "1/2", "--out", str(tmp_path / "o")])
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in (tmp_path / "o").iterdir()) == ["audit__a_b_1_2.csv", "audit__a_b_1_2.html"]


def test_score_position_zero_is_the_empty_log_not_an_error(sample_store: EventStore) -> None:
    result = runner.invoke(app, ["score", "--position", "0"])
    assert result.exit_code == 0, result.output
    assert "scored 0 results" in result.output


def test_the_sample_session_still_scores(sample_store: EventStore) -> None:
    result = runner.invoke(app, ["score"])
    assert result.exit_code == 0 and "scored 338 results" in result.output
    assert EVENT in result.output or "leaders" in result.output
