"""`bridgeledger sql` is read-only and contained: every escape the attack used is refused."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from pipelines.cli import app
from pipelines.store import EventStore

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
