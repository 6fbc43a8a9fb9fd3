"""Airflow: the DAG folder imports cleanly, and score_session runs end to end with dag.test().

Airflow reads its configuration at import, so each check runs in a subprocess with its own
AIRFLOW_HOME and SQLite metadata database.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.conftest import REPO, SAMPLE_DATA

pytest.importorskip("airflow", reason="the [airflow] extra is installed by `make test`")


def _airflow_env(home: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.update({
        "AIRFLOW_HOME": str(home),
        "AIRFLOW__CORE__DAGS_FOLDER": str(REPO / "dags"),
        "AIRFLOW__CORE__LOAD_EXAMPLES": "False",
        "AIRFLOW__DATABASE__SQL_ALCHEMY_CONN": f"sqlite:///{home / 'airflow.db'}",
        "PYTHONPATH": str(REPO),
    })
    return env


def _run(code: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=env, capture_output=True,
                          text=True, timeout=300, cwd=REPO)


@pytest.fixture(scope="module")
def airflow_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    home = tmp_path_factory.mktemp("airflow_home")
    env = _airflow_env(home)
    airflow = Path(sys.executable).parent / "airflow"
    subprocess.run([str(airflow), "db", "migrate"], env=env, check=True, capture_output=True, timeout=300)
    subprocess.run([str(airflow), "pools", "set", "bridgeledger_store", "1", "single DuckDB writer"],
                   env=env, check=True, capture_output=True, timeout=120)
    return home


def test_dagbag_has_no_import_errors(airflow_home: Path) -> None:
    result = _run("""
        from airflow.dag_processing.dagbag import DagBag
        bag = DagBag(dag_folder="dags")
        print("ERRORS", dict(bag.import_errors))
        print("DAGS", sorted(bag.dags))
    """, _airflow_env(airflow_home))
    assert result.returncode == 0, result.stderr[-3000:]
    assert "ERRORS {}" in result.stdout
    assert "'close_correction_periods', 'publish_ranking', 'score_session'" in result.stdout


def test_score_session_runs_end_to_end(airflow_home: Path, tmp_path: Path) -> None:
    store, outdir = tmp_path / "dag.duckdb", tmp_path / "out"
    result = _run(f"""
        from airflow.dag_processing.dagbag import DagBag
        dag = DagBag(dag_folder="dags").get_dag("score_session")
        run = dag.test(run_conf={{"store": {str(store)!r}, "outdir": {str(outdir)!r},
                                 "paths": [{str(SAMPLE_DATA / 'club_championship_traveller.csv')!r}]}})
        print("STATE", run.state)
    """, _airflow_env(airflow_home))
    assert "STATE success" in result.stdout, result.stdout[-3000:] + result.stderr[-3000:]
    assert (outdir / "standings.csv").read_text().count("\n") == 27  # header + 13 NS + 13 EW pairs
    session_page = outdir / "site" / "e-club-championship-2026" / "s-1" / "index.html"
    assert session_page.read_text().count('<td class="num place">') == 26  # the site: 13 NS + 13 EW pairs
    import duckdb

    with duckdb.connect(str(store), read_only=True) as con:
        assert con.execute("SELECT count(*) FROM events").fetchall() == [(367,)]


def test_close_correction_periods_marks_due_sessions_final(airflow_home: Path, tmp_path: Path) -> None:
    from datetime import UTC, datetime

    from pipelines.director import publish_scores
    from pipelines.ingest import ingest_file
    from pipelines.store import EventStore

    store = EventStore(tmp_path / "close.duckdb")
    ingest_file(store, SAMPLE_DATA / "club_championship_traveller.csv",
                recorded_at=datetime(2026, 11, 21, 19, 0, tzinfo=UTC))
    publish_scores(store, "club-championship-2026", "1", at=datetime(2026, 11, 21, 20, 0, tzinfo=UTC))
    outdir = tmp_path / "final"
    code = f"""
        import pendulum
        from airflow.dag_processing.dagbag import DagBag
        dag = DagBag(dag_folder="dags").get_dag("close_correction_periods")
        conf = {{"store": {str(store.path)!r}, "outdir": {str(outdir)!r}}}
        run = dag.test(logical_date=pendulum.datetime(2026, 11, 21, 21, 0, tz="UTC"), run_conf=conf)
        print("STATE", run.state)
    """
    result = _run(code, _airflow_env(airflow_home))
    assert "STATE success" in result.stdout, result.stdout[-3000:] + result.stderr[-3000:]
    [closed] = store.read(types=["CorrectionPeriodClosed"])
    assert closed.occurred_at == datetime(2026, 11, 21, 20, 30, tzinfo=UTC)  # at the deadline
    import polars as pl

    assert set(pl.read_csv(outdir / "standings.csv")["status"]) == {"final"}
    rerun = _run(code, _airflow_env(airflow_home))
    assert "STATE success" in rerun.stdout
    assert len(store.read(types=["CorrectionPeriodClosed"])) == 1  # idempotent


def test_publish_ranking_publishes_once_per_interval(airflow_home: Path, tmp_path: Path) -> None:
    from pipelines.store import EventStore
    from tests.ranking.scenario import build_session

    store = EventStore(tmp_path / "ranking.duckdb")
    build_session(store, tmp_path)
    code = f"""
        import pendulum
        from airflow.dag_processing.dagbag import DagBag
        dag = DagBag(dag_folder="dags").get_dag("publish_ranking")
        conf = {{"store": {str(store.path)!r}, "rules": "sbu"}}
        run = dag.test(logical_date=pendulum.datetime(2026, 12, 1, 6, 0, tz="UTC"), run_conf=conf)
        print("STATE", run.state)
    """
    result = _run(code, _airflow_env(airflow_home))
    assert "STATE success" in result.stdout, result.stdout[-3000:] + result.stderr[-3000:]
    [published] = store.read(types=["RankingPublished"])
    assert published.payload["rule_set"] == "sbu" and published.payload["edition"].startswith("sbu-1@2026-12-01")
    rerun = _run(code, _airflow_env(airflow_home))
    assert "STATE success" in rerun.stdout, rerun.stdout[-3000:] + rerun.stderr[-3000:]
    assert len(store.read(types=["RankingPublished"])) == 1  # idempotent
