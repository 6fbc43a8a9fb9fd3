"""`bridgeledger sql` is read-only and contained: every escape the attack used is refused."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

from pipelines.cli.app import app
from pipelines.edges.analyst_sql import run_query
from pipelines.log.store import EventStore, StoreBusy

runner = CliRunner()


def _refused(query: str) -> str:
    result = runner.invoke(app, ["sql", query])
    assert result.exit_code == 1, result.output
    return result.output


def test_the_published_attack_deletes_nothing(sample_store: EventStore) -> None:
    path = str(sample_store.path).replace("'", "''")
    for statement in ["USE memory", "DETACH event_store", f"ATTACH '{path}' AS w",
                      "DELETE FROM w.events WHERE position = (SELECT max(position) FROM w.events)",
                      f"USE memory; DETACH event_store; ATTACH '{path}' AS w; DELETE FROM w.events"]:
        _refused(statement)
    assert sample_store.head() == 367
    assert sample_store.verify().ok


@pytest.mark.parametrize("statement, why", [
    ("ATTACH ':memory:' AS m", "ATTACH"),
    ("DETACH events", "DETACH"),
    ("USE system", "read-only"),
    ("COPY events TO '{out}/stolen.csv'", "COPY"),
    ("EXPORT DATABASE '{out}/dump'", "EXPORT"),
    ("CREATE TABLE t AS SELECT 1", "CREATE"),
    ("INSERT INTO events SELECT * FROM events", "INSERT"),
    ("SET enable_external_access = true", "SET"),
    ("RESET lock_configuration", "read-only"),
    ("INSTALL httpfs", "read-only"),
    ("LOAD httpfs", "read-only"),
    ("CHECKPOINT", "read-only"),
    ("PRAGMA database_list", "PRAGMA"),
    ("SELECT 1; SELECT 2", "one statement"),
])
def test_statements_that_do_not_only_read_are_refused(sample_store: EventStore, tmp_path: Path,
                                                      statement: str, why: str) -> None:
    output = _refused(statement.format(out=tmp_path))
    assert why in output
    assert not (tmp_path / "stolen.csv").exists() and not (tmp_path / "dump").exists()


@pytest.mark.parametrize("query", [
    "SELECT * FROM read_csv('/etc/passwd')",
    "SELECT * FROM read_text('/etc/passwd')",
    "SELECT * FROM glob('/*')",
    "SELECT * FROM '/etc/passwd'",
    "SELECT * FROM read_parquet('{out}/x.parquet')",
])
def test_files_outside_the_store_cannot_be_read(sample_store: EventStore, tmp_path: Path, query: str) -> None:
    output = _refused(query.format(out=tmp_path))
    assert "query failed" in output
    assert "root:" not in output


def test_reading_queries_still_work(sample_store: EventStore) -> None:
    result = runner.invoke(app, ["sql", "WITH t AS (SELECT type FROM events) SELECT count(*) AS n FROM t;"])
    assert result.exit_code == 0, result.output
    assert "367" in result.output
    described = runner.invoke(app, ["sql", "DESCRIBE events"])
    assert described.exit_code == 0 and "stream_version" in described.output


def _hold_for_writing(path: Path, seconds: float) -> subprocess.Popen[str]:
    """Another process holding the store open for writing for `seconds`, once it says so."""
    holder = subprocess.Popen([sys.executable, "-c", textwrap.dedent(f"""
        import duckdb, time
        con = duckdb.connect({str(path)!r})
        print("locked", flush=True)
        time.sleep({seconds})
    """)], stdout=subprocess.PIPE, text=True)
    assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
    return holder


def test_a_writer_holding_the_store_gives_busy_then_the_query_runs(sample_store: EventStore) -> None:
    # The lock-retry loop used to fall through to an unbound connection ("cannot access local variable").
    holder = _hold_for_writing(sample_store.path, 3)
    try:
        with pytest.raises(StoreBusy, match="is busy"):
            run_query(sample_store, "SELECT count(*) AS n FROM events", busy_timeout=0.3)
        answer = run_query(sample_store, "SELECT count(*) AS n FROM events", busy_timeout=30)
    finally:
        holder.wait(timeout=30)
    assert answer["n"].to_list() == [367]


def test_a_query_past_its_time_limit_is_stopped_saying_which_flag_raises_it(sample_store: EventStore) -> None:
    result = runner.invoke(app, ["sql", "--timeout", "0.3",
                                 "SELECT sum(a.range * b.range) AS s FROM range(300000) a, range(300000) b"])
    assert result.exit_code == 1, result.output
    assert "time limit of 0.3 s" in result.output and "--timeout" in result.output
    assert "Traceback" not in result.output


def test_a_query_past_its_memory_limit_is_stopped_saying_which_flag_raises_it(sample_store: EventStore) -> None:
    result = runner.invoke(app, ["sql", "--memory-limit", "20MB",
                                 "SELECT count(DISTINCT x::VARCHAR || 'abc') AS n FROM range(20000000) t(x)"])
    assert result.exit_code == 1, result.output
    assert "memory" in result.output and "limit of 20MB" in result.output and "--memory-limit" in result.output
    refused = runner.invoke(app, ["sql", "--memory-limit", "lots", "SELECT 1"])
    assert refused.exit_code == 1 and "--memory-limit" in refused.output


def test_the_limits_hold_for_the_query_and_cannot_be_lifted(sample_store: EventStore) -> None:
    setting = run_query(sample_store, "SELECT current_setting('memory_limit') AS m, "
                                           "current_setting('temp_directory') AS t")
    assert setting.row(0) == ("953.6 MiB", "")  # 1GB, nothing spilled beside the store
    assert "SET" in _refused("SET memory_limit = '100GB'")


_QUERY = "SELECT position, stream_id, type FROM events WHERE position <= 2 ORDER BY position"


def test_format_csv_and_json_give_every_row_and_column(sample_store: EventStore) -> None:
    as_csv = runner.invoke(app, ["sql", "--format", "csv", _QUERY])
    assert as_csv.exit_code == 0, as_csv.output
    assert as_csv.output.splitlines() == ["position,stream_id,type",
                                          "1,tournament:club-championship-2026,TournamentRegistered",
                                          "2,session:club-championship-2026/1,SessionScheduled"]
    as_json = runner.invoke(app, ["sql", "--format", "json", _QUERY])
    assert as_json.exit_code == 0, as_json.output
    assert json.loads(as_json.output) == [
        {"position": 1, "stream_id": "tournament:club-championship-2026", "type": "TournamentRegistered"},
        {"position": 2, "stream_id": "session:club-championship-2026/1", "type": "SessionScheduled"}]
    formula = runner.invoke(app, ["sql", "--format", "csv", "SELECT '=HYPERLINK(1)' AS name"])
    assert formula.output.splitlines() == ["name", "'=HYPERLINK(1)"]
    assert runner.invoke(app, ["sql", "--format", "xml", "SELECT 1"]).exit_code == 2


def test_a_table_in_a_pipe_keeps_its_width(sample_store: EventStore) -> None:
    # The runner's output is not a terminal, as a pipe is not: the table used to be squeezed to 80 columns.
    query = "SELECT position, stream_id, type, occurred_at, recorded_at FROM events WHERE position <= 2"
    result = runner.invoke(app, ["sql", query])
    assert result.exit_code == 0, result.output
    assert "…" not in result.output
    assert "session:club-championship-2026/1" in result.output and "TournamentRegistered" in result.output
    rows = [line for line in result.output.splitlines() if "│" in line]
    assert len(rows) == 2 and max(len(line) for line in result.output.splitlines()) > 80
    assert pl.Series(rows).str.contains("2026-11-21 22:00:00").all()
