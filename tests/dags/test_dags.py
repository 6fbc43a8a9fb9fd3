"""Airflow: the DAG folder parses cleanly with every DAG operable, each task does its work, and the
inbox's DAG runs end to end under Airflow itself.

The DAGs are parsed in this process (`DagBag`, with the throwaway home of `conftest.py`) and their
tasks' callables are called as Airflow calls them: with the run they belong to, the upstream
task's result, and the federation's settings where production keeps them, the `bridgeledger`
Variable (here AIRFLOW_VAR_BRIDGELEDGER). A task that fails is handed to its failure callbacks
with the context Airflow gives them. The wiring between the tasks (which result goes where, trigger
rules, pools) is checked on the parsed DAGs. One DAG runs for real: `ingest_inbox` under
`dag.test()`, in a subprocess with its own AIRFLOW_HOME and SQLite metadata database, which maps a
task per file, passes results between tasks, fails the run on a rejected file and runs the
callbacks.
"""

from __future__ import annotations

import copy
import json
import logging
import os
import shutil
import subprocess
import sys
import textwrap
from collections import defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import polars as pl
import pytest

from models.conditions import ConditionsOfContest
from pipelines.commands.director import publish_scores, register_tournament
from pipelines.files.ingest import ingest_file
from pipelines.log.store import EventStore
from tests.conftest import REPO, SAMPLE_DATA

pytest.importorskip("airflow", reason="the [airflow] extra is installed by `make test`")

from airflow.dag_processing.dagbag import DagBag
from airflow.sdk.exceptions import AirflowFailException, AirflowSkipException, ParamValidationError

WEEKEND = SAMPLE_DATA / "weekend"
PLAYED = datetime(2026, 11, 21, 19, tzinfo=UTC)
SITE_DAGS = ("score_and_publish", "close_correction_periods", "analyse_deals", "publish_ranking", "score_session")


@dataclass(frozen=True)
class Run:
    """What a DAG run shows its tasks: its own time, and the end of the interval a scheduled run
    stands for (a manual run has none)."""

    run_after: datetime
    data_interval_end: datetime | None = None
    run_id: str = "manual__test"


def _manual_run() -> Run:
    """A run triggered by hand now (`dag.test()` without a logical date)."""
    return Run(datetime.now(UTC))


def _settings(root: Path) -> dict[str, str]:
    return {"store": str(root / "store.duckdb"), "inbox": str(root / "inbox"), "outdir": str(root / "out"),
            "site": str(root / "site"), "notifications": str(root / "notifications.jsonl")}


def _parse() -> DagBag:
    return DagBag(dag_folder=str(REPO / "dags"))


@pytest.fixture(scope="module")
def bag() -> DagBag:
    """The DAG folder, parsed once (with no settings: the tasks read theirs when they run)."""
    return _parse()


@pytest.fixture
def federation(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, str]]:
    """The federation's settings in the `bridgeledger` Variable, as the tasks read them."""
    settings = _settings(tmp_path)
    monkeypatch.delenv("BRIDGELEDGER_STORE", raising=False)
    monkeypatch.setenv("AIRFLOW_VAR_BRIDGELEDGER", json.dumps(settings))
    yield settings


@pytest.fixture
def no_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    """Neither the `bridgeledger` Variable nor BRIDGELEDGER_STORE."""
    monkeypatch.delenv("BRIDGELEDGER_STORE", raising=False)
    monkeypatch.delenv("AIRFLOW_VAR_BRIDGELEDGER", raising=False)


def task_of(bag: DagBag, dag_id: str, task_id: str) -> Callable[..., Any]:
    """The callable Airflow runs for a task."""
    return bag.dags[dag_id].get_task(task_id).python_callable  # type: ignore[no-any-return]


def fails_and_notifies(bag: DagBag, dag_id: str, task_id: str, run: Run, **arguments: Any) -> str:
    """Run a task that must fail without retries (`AirflowFailException`), hand the failure to the
    task's callbacks with the context Airflow gives them, and return the error."""
    task = bag.dags[dag_id].get_task(task_id)
    with pytest.raises(AirflowFailException) as failed:
        task.python_callable(**arguments)
    context = {"ti": SimpleNamespace(dag_id=dag_id, task_id=task_id, run_id=run.run_id), "dag_run": run,
               "exception": failed.value}
    for callback in failure_callbacks(task):
        callback(context)
    return str(failed.value)


def outlet_events() -> defaultdict[Any, SimpleNamespace]:
    """What Airflow hands a task with outlets: each asset's event, whose `extra` the task sets."""
    return defaultdict(SimpleNamespace)


def failure_callbacks(task: Any) -> list[Callable[[dict[str, Any]], None]]:
    """A task's failure callbacks (Airflow keeps one alone or a list)."""
    callbacks = task.on_failure_callback
    return list(callbacks) if isinstance(callbacks, list | tuple) else [callbacks] if callbacks else []


def run_params(bag: DagBag, dag_id: str, conf: dict[str, Any]) -> dict[str, Any]:
    """The params a run triggered with `conf` hands its tasks, validated as Airflow validates them."""
    params = copy.deepcopy(bag.dags[dag_id].params)
    params.update(conf)
    return params.validate()  # type: ignore[no-any-return]


def upstream(bag: DagBag, dag_id: str) -> dict[str, set[str]]:
    """Each task of a DAG and the tasks whose results it waits for."""
    return {t.task_id: set(t.upstream_task_ids) for t in bag.dags[dag_id].tasks}


def test_dagbag_has_no_import_errors_and_every_dag_is_operable(bag: DagBag) -> None:
    assert dict(bag.import_errors) == {}
    assert sorted(bag.dags) == ["analyse_deals", "close_correction_periods", "ingest_inbox", "publish_ranking",
                                "score_and_publish", "score_session"]
    for dag in bag.dags.values():
        args = dag.default_args
        assert (bool(dag.doc_md), dag.is_paused_upon_creation, args["retries"], args["retry_exponential_backoff"],
                args["on_failure_callback"].__name__, dag.on_failure_callback.__name__) \
            == (True, False, 4, True, "notify_failure", "notify_run_failure"), dag.dag_id
        # Each task runs the failure notice (from the default arguments) when it fails.
        assert all([c.__name__ for c in failure_callbacks(t)] == ["notify_failure"] for t in dag.tasks), dag.dag_id
    # Issue #36: every task has a time limit; the solver holds no slot of the store's pool.
    tasks = {(d.dag_id, t.task_id): (t.pool, int(t.execution_timeout.total_seconds()) if t.execution_timeout
                                     else None) for d in bag.dags.values() for t in d.tasks}
    assert len(tasks) >= 14 and all(timeout is not None for _, timeout in tasks.values()), tasks
    assert tasks[("analyse_deals", "analyse")] == ("default_pool", 780)
    assert tasks[("score_session", "analyse")][0] == "default_pool"
    assert tasks[("close_correction_periods", "close_due")] == ("bridgeledger_store", 1800)
    # The next close or publication does not wait for the last run's site task.
    runs = {d.dag_id: d.max_active_runs for d in bag.dags.values()}
    assert runs["close_correction_periods"] == runs["score_and_publish"] == runs["analyse_deals"] == 3, runs
    # Rendering the site (many minutes for 100,000 boards) never holds the store's pool either.
    assert {tasks[(d, "site")][0] for d in SITE_DAGS} == {"bridgeledger_site"}
    assert tasks[("score_and_publish", "site")] == ("bridgeledger_site", 7200)
    # ...and the big events' pages are written in a pool of their own, beside the small ones'.
    assert {tasks[(d, "site_big")] for d in SITE_DAGS} == {("bridgeledger_site_big", 7200)}
    # The site pool's slot goes to the task showing closed periods first, then to the publication's.
    weights = {(d.dag_id, t.task_id): (t.priority_weight, str(t.weight_rule)) for d in bag.dags.values()
               for t in d.tasks}
    assert weights[("close_correction_periods", "site")] == (10, "absolute")
    assert weights[("score_and_publish", "site")] == (5, "absolute")
    assert weights[("analyse_deals", "site")][0] == 1
    assert weights[("close_correction_periods", "site_big")] == (10, "absolute")


def test_each_task_gets_the_result_it_works_on(bag: DagBag) -> None:
    # What the tests below hand each task's callable is what these edges carry in a real run.
    assert upstream(bag, "ingest_inbox") == {"waiting": set(), "ingest": {"waiting"}, "announce": {"ingest"},
                                             "report": {"waiting", "ingest"}}
    assert upstream(bag, "score_and_publish") == {"publish": set(), "score": {"publish"}, "site": {"score"},
                                                  "site_big": {"score"}}
    assert upstream(bag, "close_correction_periods") == {"close_due": set(), "site": {"close_due"},
                                                         "site_big": {"close_due"}}
    assert upstream(bag, "analyse_deals") == {"analyse": set(), "site": {"analyse"}, "site_big": {"analyse"}}
    assert upstream(bag, "publish_ranking") == {"publish": set(), "site": {"publish"}, "site_big": {"publish"}}
    assert upstream(bag, "score_session") == {"ingest": set(), "score": {"ingest"}, "verify": {"score"},
                                              "site": {"ingest"}, "site_big": {"ingest"}, "analyse": {"ingest"}}
    # A rejected file's task does not stop the announcement or the report that fails the run.
    inbox = bag.dags["ingest_inbox"]
    assert {t.task_id: t.trigger_rule for t in inbox.tasks} == {
        "waiting": "all_success", "ingest": "all_success", "announce": "all_done", "report": "all_done"}
    assert [str(a.name) for a in inbox.get_task("announce").outlets] == ["bridgeledger_sessions"]
    with pytest.raises(ParamValidationError, match="non-empty"):  # a session's run names its files
        run_params(bag, "score_session", {})


# -- the one run under Airflow itself ---------------------------------------------------------------

_POOLS = {"bridgeledger_store": "single DuckDB writer", "bridgeledger_site": "one site build at a time",
          "bridgeledger_site_big": "one big events' site build"}


def _airflow_env(home: Path, settings: dict[str, str] | None = None) -> dict[str, str]:
    env = dict(os.environ)
    env.pop("BRIDGELEDGER_STORE", None)
    env.update({
        "AIRFLOW_HOME": str(home),
        "AIRFLOW__CORE__DAGS_FOLDER": str(REPO / "dags"),
        "AIRFLOW__CORE__LOAD_EXAMPLES": "False",
        "AIRFLOW__DATABASE__SQL_ALCHEMY_CONN": f"sqlite:///{home / 'airflow.db'}",
        "PYTHONPATH": str(REPO),
    })
    if settings is not None:
        env["AIRFLOW_VAR_BRIDGELEDGER"] = json.dumps(settings)
    else:
        env.pop("AIRFLOW_VAR_BRIDGELEDGER", None)
    return env


def _airflow_home(home: Path) -> Path:
    """A metadata database migrated and the pools set, as an operator sets up a federation's Airflow."""
    env = _airflow_env(home)
    airflow = Path(sys.executable).parent / "airflow"
    subprocess.run([str(airflow), "db", "migrate"], env=env, check=True, capture_output=True, timeout=300)
    pools = home / "pools.json"
    pools.write_text(json.dumps({name: {"slots": 1, "description": about, "include_deferred": False}
                                 for name, about in _POOLS.items()}))
    subprocess.run([str(airflow), "pools", "import", str(pools)], env=env, check=True, capture_output=True,
                   timeout=120)
    return home


def _test_run(dag_id: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    code = f"""
        from airflow.dag_processing.dagbag import DagBag
        dag = DagBag(dag_folder="dags").get_dag({dag_id!r})
        run = dag.test()
        print("STATE", run.state)
        for ti in run.get_task_instances():
            print("TASK", ti.task_id, ti.map_index, ti.state)
    """
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=env, capture_output=True, text=True,
                          timeout=300, cwd=REPO)


@pytest.mark.slow
def test_a_dropped_file_is_ingested_moved_and_announced(bag: DagBag, federation: dict[str, str],
                                                        tmp_path: Path) -> None:
    settings = federation
    store = EventStore(settings["store"])
    for event in ("riverside-pairs-2026-11-20", "hillside-pairs-2026-11-20"):  # the store exists before the files
        conditions = ConditionsOfContest.from_toml(WEEKEND / "conditions" / f"{event}.toml")
        register_tournament(store, event, event, at=datetime(2026, 11, 20, 18, tzinfo=UTC), conditions=conditions)
    inbox = tmp_path / "inbox"
    (inbox / "hillside-pairs-2026-11-20" / "1").mkdir(parents=True)
    shutil.copy(WEEKEND / "friday" / "riverside_pairs.csv", inbox / "riverside_pairs.csv")
    shutil.copy(WEEKEND / "friday" / "hillside_pairs.xml", inbox / "hillside-pairs-2026-11-20" / "1" / "h.xml")
    shutil.copy(WEEKEND / "broken" / "harbour_pairs.csv", inbox / "harbour_pairs.csv")
    (inbox / "still_uploading.csv.part").write_text("event,session\n")

    home = _airflow_home(tmp_path / "airflow_home")
    result = _test_run("ingest_inbox", _airflow_env(home, settings))
    out = result.stdout
    assert "STATE failed" in out, out[-3000:] + result.stderr[-3000:]  # a file was rejected: the federation is told
    assert out.count("TASK ingest") == 3 and "TASK ingest 0 success" in out and "TASK ingest 2 success" in out
    assert "TASK announce -1 success" in out and "TASK report -1 failed" in out
    processed = sorted(p.name for p in (tmp_path / "processed").rglob("*") if p.is_file())
    assert processed == ["h.xml", "riverside_pairs.csv"]
    rejected = tmp_path / "rejected"
    assert sorted(p.name for p in rejected.iterdir()) == ["harbour_pairs.csv", "harbour_pairs.csv.diagnostics.txt"]
    assert "harbour_pairs.csv:1:1: error" in (rejected / "harbour_pairs.csv.diagnostics.txt").read_text()
    assert "harbour_pairs.csv:1:1: error" in result.stdout + result.stderr  # in the task log at WARNING
    assert [p.name for p in inbox.rglob("*") if p.is_file()] == ["still_uploading.csv.part"]
    sessions = {(e.payload["event_id"], e.payload["session_id"]) for e in store.read(types=["SessionScheduled"])}
    assert sessions == {("riverside-pairs-2026-11-20", "1"), ("hillside-pairs-2026-11-20", "1")}
    [notice] = [json.loads(line) for line in Path(settings["notifications"]).read_text().splitlines()]
    assert notice["dag_id"] == "ingest_inbox" and notice["task_id"] == "report"
    assert "harbour_pairs.csv" in notice["error"]

    # The next run: nothing waits in the inbox, but the log says both sessions are still
    # unpublished: announced again (issue #36 item 6: announcing follows from the log, not from the
    # task that appended), and the report passes.
    files = task_of(bag, "ingest_inbox", "waiting")()
    assert files == []
    events = outlet_events()
    announced = task_of(bag, "ingest_inbox", "announce")([], outlet_events=events)
    assert announced == ["hillside-pairs-2026-11-20/1", "riverside-pairs-2026-11-20/1"]
    assert [e.extra for e in events.values()] == [{"sessions": announced}]
    assert task_of(bag, "ingest_inbox", "report")(files, []) == 0
    from pipelines.edges.operations import publish_unpublished, resolve_settings, score_head

    publish_unpublished(resolve_settings(settings, env={}), at=datetime(2026, 11, 21, 22, tzinfo=UTC))
    score_head(resolve_settings(settings, env={}))
    with pytest.raises(AirflowSkipException):  # published and scored: nothing to announce
        task_of(bag, "ingest_inbox", "announce")([], outlet_events=outlet_events())


# -- each DAG's tasks, called as Airflow calls them ---------------------------------------------------

def test_score_and_publish_opens_the_correction_period(bag: DagBag, federation: dict[str, str]) -> None:
    settings = federation
    store = EventStore(settings["store"])
    ingest_file(store, SAMPLE_DATA / "club_championship_traveller.csv", recorded_at=PLAYED)
    run = _manual_run()
    outputs = task_of(bag, "score_and_publish", "score")(task_of(bag, "score_and_publish", "publish")(dag_run=run))
    task_of(bag, "score_and_publish", "site")(outputs)
    task_of(bag, "score_and_publish", "site_big")(outputs)
    [published] = store.read(types=["ScoresPublished"])
    assert published.occurred_at == run.run_after  # the run's own time
    standings = pl.read_csv(Path(settings["outdir"]) / "standings.csv")
    assert standings.height == 26
    session_page = Path(settings["site"]) / "e-club-championship-2026" / "s-1" / "index.html"
    assert session_page.read_text().count('<td class="num place">') == 26  # the site: 13 NS + 13 EW pairs
    assert "provisional until" in session_page.read_text()
    assert task_of(bag, "score_and_publish", "publish")(dag_run=run) == []  # the rerun publishes nothing ...
    task_of(bag, "score_and_publish", "site")(task_of(bag, "score_and_publish", "score")([]))  # ... and goes on
    assert len(store.read(types=["ScoresPublished"])) == 1  # a session is published once


def test_close_correction_periods_triggered_by_hand_closes_what_is_due(bag: DagBag, federation: dict[str, str]) -> None:
    settings = federation
    store = EventStore(settings["store"])
    ingest_file(store, SAMPLE_DATA / "club_championship_traveller.csv", recorded_at=PLAYED)
    publish_scores(store, "club-championship-2026", "1", at=datetime(2026, 11, 21, 20, 0, tzinfo=UTC))
    run = _manual_run()  # no logical date
    closed_ids = task_of(bag, "close_correction_periods", "close_due")(dag_run=run)
    task_of(bag, "close_correction_periods", "site")(closed_ids)
    task_of(bag, "close_correction_periods", "site_big")(closed_ids)
    [closed] = store.read(types=["CorrectionPeriodClosed"])
    assert closed.occurred_at == datetime(2026, 11, 21, 20, 30, tzinfo=UTC)  # at the deadline
    assert set(pl.read_csv(Path(settings["outdir"]) / "standings.csv")["status"]) == {"final"}
    page = (Path(settings["site"]) / "e-club-championship-2026" / "s-1" / "index.html").read_text()
    assert "provisional" not in page and "final" in page  # the site says so too, at once (issue #36)
    again = task_of(bag, "close_correction_periods", "close_due")(dag_run=run)
    assert again == []
    for site in ("site", "site_big"):
        with pytest.raises(AirflowSkipException, match="no period closed"):  # no page changed
            task_of(bag, "close_correction_periods", site)(again)
    assert len(store.read(types=["CorrectionPeriodClosed"])) == 1  # idempotent


def test_a_missing_store_fails_clearly_and_creates_nothing(bag: DagBag, federation: dict[str, str]) -> None:
    settings = federation
    run = _manual_run()
    error = fails_and_notifies(bag, "close_correction_periods", "close_due", run, dag_run=run)
    assert "no event store at" in error
    assert not Path(settings["store"]).exists()
    [notice] = [json.loads(line) for line in Path(settings["notifications"]).read_text().splitlines()]
    assert notice["task_id"] == "close_due" and "no event store at" in notice["error"]


@pytest.mark.usefixtures("no_settings")
def test_unset_settings_fail_with_a_message(bag: DagBag) -> None:
    run = _manual_run()
    assert "no store configured" in fails_and_notifies(bag, "close_correction_periods", "close_due", run, dag_run=run)


def test_score_session_runs_end_to_end(bag: DagBag, federation: dict[str, str]) -> None:
    settings = federation
    params = run_params(bag, "score_session", {"paths": [str(SAMPLE_DATA / "club_championship_traveller.csv")]})
    position = task_of(bag, "score_session", "ingest")(params=params)
    task_of(bag, "score_session", "verify")(task_of(bag, "score_session", "score")(position))
    site = Path(settings["site"]) / "index.html"
    assert [task_of(bag, "score_session", task_id)(position) for task_id in ("site", "site_big", "analyse")] \
        == [str(site), str(site), position]
    assert (Path(settings["outdir"]) / "standings.csv").read_text().count("\n") == 27  # header + 13 NS + 13 EW
    assert EventStore(settings["store"]).head() == position > 0


def test_publish_ranking_publishes_once_per_interval(bag: DagBag, federation: dict[str, str], tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.ranking.scenario import build_session

    settings = {**federation, "ranking_rules": "sbu"}
    monkeypatch.setenv("AIRFLOW_VAR_BRIDGELEDGER", json.dumps(settings))
    store = EventStore(settings["store"])
    build_session(store, tmp_path)
    scheduled = datetime(2026, 12, 1, 6, 0, tzinfo=UTC)
    run = Run(run_after=scheduled, data_interval_end=scheduled, run_id="scheduled__2026-12-01T06:00:00+00:00")
    position = task_of(bag, "publish_ranking", "publish")(dag_run=run)
    task_of(bag, "publish_ranking", "site")(position)
    task_of(bag, "publish_ranking", "site_big")(position)
    [published] = store.read(types=["RankingPublished"])
    assert published.payload["rule_set"] == "sbu" and published.payload["edition"].startswith("sbu-1@2026-12-01")
    ranking_page = Path(settings["site"]) / "ranking" / "index.html"  # the publication's pages, linked from the index
    assert published.payload["edition"] in ranking_page.read_text(encoding="utf-8")
    assert 'href="ranking/index.html"' in (Path(settings["site"]) / "index.html").read_text(encoding="utf-8")
    task_of(bag, "publish_ranking", "site")(task_of(bag, "publish_ranking", "publish")(dag_run=run))  # the rerun
    assert len(store.read(types=["RankingPublished"])) == 1  # idempotent


def _publish_ranking_schedule(monkeypatch: pytest.MonkeyPatch, settings: dict[str, str]) -> tuple[list[str], str]:
    """The DAG folder's import errors, and publish_ranking's schedule and first run as the scheduler
    reads them (after the DAG's serialisation), with these settings in the Variable."""
    import pendulum
    from airflow.serialization.serialized_objects import DagSerialization
    from airflow.timetables.base import TimeRestriction

    monkeypatch.setenv("AIRFLOW_VAR_BRIDGELEDGER", json.dumps(settings))
    parsed = _parse()
    dag = parsed.dags.get("publish_ranking")
    if dag is None:
        return sorted(parsed.import_errors.values()), "no DAG"
    timetable = DagSerialization.from_dict(DagSerialization.to_dict(dag)).timetable
    first = timetable.next_dagrun_info(last_automated_data_interval=None, restriction=TimeRestriction(
        earliest=pendulum.datetime(2026, 11, 20, tz="UTC"), latest=None, catchup=True))
    first_run = first.run_after.isoformat() if first else None
    return sorted(parsed.import_errors.values()), f"{timetable.summary} | {first_run}"


@pytest.mark.parametrize(("rules", "schedule", "first_run"), [
    (str(WEEKEND / "ranking_rules.toml"), "0 8 * * MON", "2026-11-23T08:00:00+00:00"),  # the NBF's own: Mondays
    ("sbu", "0 6 1 * *", "2026-12-01T06:00:00+00:00"),  # a preset that states none: the default, monthly
    (None, "None", "None"),  # no rule set named yet: nothing to publish, no schedule (runs by hand fail)
])
def test_publish_ranking_runs_on_the_rule_sets_schedule(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                                        rules: str | None, schedule: str, first_run: str) -> None:
    settings = {**_settings(tmp_path), **({"ranking_rules": rules} if rules else {})}
    assert _publish_ranking_schedule(monkeypatch, settings) == ([], f"{schedule} | {first_run}")


def test_a_rule_set_with_a_bad_schedule_is_an_import_error_naming_it(monkeypatch: pytest.MonkeyPatch,
                                                                      tmp_path: Path) -> None:
    rules = tmp_path / "rules.toml"
    rules.write_text((WEEKEND / "ranking_rules.toml").read_text().replace('"0 8 * * MON"', '"0 8 * * MONDAY"'))
    errors, schedule = _publish_ranking_schedule(monkeypatch, {**_settings(tmp_path), "ranking_rules": str(rules)})
    assert any("the day of week 'MONDAY' is not a name or a number from 0 to 7" in e for e in errors), errors
    assert schedule == "no DAG"  # no publish_ranking on a schedule nobody chose


def test_the_analysis_dag_solves_pending_deals_and_rewrites_their_pages(bag: DagBag, federation: dict[str, str],
                                                                       caplog: pytest.LogCaptureFixture) -> None:
    from pipelines.site import analysis
    from pipelines.site.analysis import pending_deals

    settings = federation
    store = EventStore(settings["store"])
    for name in ("club_championship_handrecord.pbn", "club_championship_traveller.csv"):
        ingest_file(store, SAMPLE_DATA / name, recorded_at=PLAYED)
    deals = pending_deals(store)
    analysis.save(store, analysis.solve(deals[2:4]), "endplay")  # a tiny workload: 2 deals solved here ...
    fake = {d: analysis.DoubleDummy(d, {s: dict.fromkeys(analysis.STRAINS, 6) for s in analysis.SEATS},
                                    {"N/None": analysis.Par(0, ())}) for d in deals[4:]}
    analysis.save(store, fake, "stand-in")  # ... and the rest stands in; the DAG's run solves the first two
    outputs = task_of(bag, "score_and_publish", "score")(task_of(bag, "score_and_publish", "publish")(
        dag_run=_manual_run()))
    task_of(bag, "score_and_publish", "site")(outputs)
    task_of(bag, "score_and_publish", "site_big")(outputs)
    assert len(pending_deals(store)) == 2  # publishing solved nothing ...
    folder = Path(settings["site"]) / "e-club-championship-2026" / "s-1"
    pending = [p.name for p in folder.glob("board-*.html") if "analysis pending" in p.read_text()]
    assert len(pending) == 2  # ... and says so on the two boards whose deals wait for the solver
    with caplog.at_level(logging.INFO):
        solved = task_of(bag, "analyse_deals", "analyse")()
    assert solved == 2
    assert "double-dummy: 2/2 deal(s) solved and saved" in caplog.text  # its progress, logged
    task_of(bag, "analyse_deals", "site")(solved)
    task_of(bag, "analyse_deals", "site_big")(solved)
    assert pending_deals(store) == []
    for name in pending:
        page = (folder / name).read_text()
        assert "analysis pending" not in page and "dd-table" in page
    again = task_of(bag, "analyse_deals", "analyse")()
    assert again == 0
    with pytest.raises(AirflowSkipException, match="no deal solved"):  # nothing new
        task_of(bag, "analyse_deals", "site")(again)


def test_a_task_marked_failed_from_outside_writes_one_notice(bag: DagBag, federation: dict[str, str]) -> None:
    settings = federation
    from dags.common import notify_failure

    dag = bag.dags["score_and_publish"]
    # The context Airflow's dag processor hands a DAG's on_failure_callback when a run ends failed
    # because a task was marked failed through the REST API (the task itself ran no callback).
    ti = SimpleNamespace(dag_id="score_and_publish", task_id="site", run_id="manual__1")
    run = Run(run_after=datetime(2026, 11, 22, 3, 0, tzinfo=UTC))
    for _ in range(2):  # a second call (a re-run callback) writes no second notice
        dag.on_failure_callback({"dag": dag, "run_id": "manual__1", "reason": "task_failure", "ti": ti,
                                 "dag_run": run})
    ti = SimpleNamespace(dag_id="score_and_publish", task_id="score", run_id="manual__2")
    notify_failure({"ti": ti, "dag_run": run, "exception": "ValueError: bad"})  # the task's own notice
    dag.on_failure_callback({"dag": dag, "run_id": "manual__2", "reason": "task_failure", "ti": ti, "dag_run": run})
    notices = [json.loads(line) for line in Path(settings["notifications"]).read_text().splitlines()]
    assert [(n["task_id"], n["run_id"]) for n in notices] == [("site", "manual__1"), ("score", "manual__2")]
    assert notices[0]["dag_id"] == "score_and_publish" and notices[0]["at"] == "2026-11-22T03:00:00+00:00"
    assert "marked failed from outside" in notices[0]["error"] and notices[1]["error"] == "ValueError: bad"
