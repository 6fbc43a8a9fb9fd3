"""Wiring every bridgeledger DAG shares: settings, retries, the failure notice, the store pool.

No bridgeledger logic lives here: settings are read from Airflow (the `bridgeledger` Variable,
JSON) and handed to `pipelines.edges.operations`; everything else is Airflow's own vocabulary.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from datetime import UTC, datetime, timedelta
from typing import Any, TypeVar

import pendulum
from airflow.sdk import Asset

STORE_POOL = "bridgeledger_store"
"""One slot: DuckDB has one writer at a time, so every task that writes the store queues here."""

SITE_POOL = "bridgeledger_site"
"""One slot: the tasks that write the results site, one at a time (they share its folder and
manifest). Not the store's pool: rendering a session of 100,000 boards takes many minutes and holds
no store connection, so publishing, ingesting and closing periods must not queue behind it; the
site's short reads of the store wait for the store's lock like any reader."""

SITE_BIG_POOL = "bridgeledger_site_big"
"""One slot: the tasks that write the site's big events (over `BIG_EVENT_BOARDS` boards: the first
render of one of 100,000 boards takes minutes), so that the pages of a weekend's closed periods and
new publications, in `bridgeledger_site`, never queue behind them. The two builds share the site's
folder: each saves its own events' part of the manifest, under the folder's lock."""

SITE_FIRST = {"close_correction_periods": 10, "score_and_publish": 5}
"""priority_weight of the site tasks (weight_rule absolute): when the site pool's one slot frees
(after a long render, the first of a session of 100,000 boards), the task showing closed periods
goes first, then the one showing new publications, then the analysis's; the DAGs not named here
keep Airflow's default of 1."""

RUNS_PAST_A_SITE_BUILD = 3
"""max_active_runs of the DAGs that end with a site task: the next run's work (closing a period,
publishing a session, the next analysis slice) must not wait for the last run's site task, queued
behind a long render in the site pool; their store tasks are idempotent and take turns in the
store's pool, and the analysis task runs one at a time (max_active_tis_per_dag)."""

TASK_TIMEOUT = timedelta(minutes=30)
"""Every task's `execution_timeout`: a task that runs longer is stopped and retried or failed."""

SITE_TIMEOUT = timedelta(hours=2)
"""The site tasks' `execution_timeout`: the first render of a session of 100,000 boards took more
than 30 minutes on a loaded two-core machine, and a site task holds up no write (its own pool)."""

ANALYSIS_SLICE = timedelta(seconds=float(os.environ.get("BRIDGELEDGER_ANALYSIS_SLICE_SECONDS", "480")))
"""How long one run of `analyse_deals` solves before it stops (every deal saved as it goes); the
next run, five minutes on, resumes. Eight minutes unless BRIDGELEDGER_ANALYSIS_SLICE_SECONDS says
otherwise (the smoke script's runs are one minute, to show a second run resuming)."""

ANALYSIS_TIMEOUT = ANALYSIS_SLICE + timedelta(minutes=5)
"""The analysis task's `execution_timeout`: its slice and the reading and saving around it."""

SETTINGS_VARIABLE = "bridgeledger"
"""Airflow Variable (JSON: store, inbox, outdir, site, notifications); BRIDGELEDGER_STORE otherwise."""

SESSIONS = Asset(name="bridgeledger_sessions")
"""Updated when files added results to sessions; the event's extra names them."""

START = pendulum.datetime(2026, 1, 1, tz="UTC")

T = TypeVar("T")


def configured() -> Any:
    """The `bridgeledger` Variable as JSON, or None (Airflow looks in AIRFLOW_VAR_BRIDGELEDGER first)."""
    from airflow.sdk import Variable

    return Variable.get(SETTINGS_VARIABLE, default=None, deserialize_json=True)


def settings() -> Any:
    """The federation's store and folders (pipelines.edges.operations.Settings)."""
    from pipelines.edges.operations import resolve_settings

    return resolve_settings(configured())


def ranking_schedule() -> str | None:
    """The cron of the rule set the settings name (its `publication.schedule`), None (by hand only)
    when none is named; read when the DAG file is parsed: the settings and one rule set file, no store."""
    from pipelines.ranking.rules import ranking_schedule as schedule_of

    return schedule_of(configured())


def call(work: Callable[[], T]) -> T:
    """Run one pipelines call (settings included): a busy store is retried with back-off, anything
    else fails at once."""
    from airflow.sdk.exceptions import AirflowFailException

    from pipelines.edges.collector import pace_for_a_job
    from pipelines.log.store import StoreBusy

    pace_for_a_job()  # the task's process runs this one job
    try:
        return work()
    except StoreBusy:
        raise
    except Exception as exc:  # a retry would meet the same bad input or setting again
        raise AirflowFailException(f"{type(exc).__name__}: {exc}") from exc


def site_tasks(dag_id: str, *, skip_unless: str | None = None, at_position: bool = False) -> tuple[Any, Any]:
    """The DAG's two site tasks, each taking the upstream task's result: `site` writes the events of
    at most `BIG_EVENT_BOARDS` boards and the ranking's pages (pool `bridgeledger_site`, weighted by
    `SITE_FIRST`), `site_big` the others (pool `bridgeledger_site_big`). They show the log's head,
    or with `at_position` the log position the upstream task returned. `skip_unless`: both are
    skipped with this reason when the upstream result is empty (nothing on the site changed)."""
    from airflow.sdk import task

    def writer(scope: str) -> Callable[[Any], str]:
        def write(upstream: Any) -> str:
            from airflow.sdk.exceptions import AirflowSkipException

            from pipelines.edges.operations import write_site

            if skip_unless is not None and not upstream:
                raise AirflowSkipException(skip_unless)
            position = int(upstream) if at_position else None
            return call(lambda: write_site(settings(), scope, position=position))  # type: ignore[arg-type]

        return write

    small = task(task_id="site", pool=SITE_POOL, execution_timeout=SITE_TIMEOUT,
                 priority_weight=SITE_FIRST.get(dag_id, 1), weight_rule="absolute")(writer("small"))
    big = task(task_id="site_big", pool=SITE_BIG_POOL, execution_timeout=SITE_TIMEOUT,
               priority_weight=SITE_FIRST.get(dag_id, 1), weight_rule="absolute")(writer("big"))
    return small, big


def notify_failure(context: Mapping[str, Any]) -> None:
    """on_failure_callback: a JSON line in the notifications file, for the federation's mail."""
    from pipelines.edges.operations import SettingsError, write_failure_notice

    try:
        configured = settings()
    except SettingsError:
        return  # nowhere to write: the task's own log already says why it failed
    ti = context["ti"]
    run = context.get("dag_run")
    at = getattr(run, "run_after", None) or datetime.now(UTC)
    write_failure_notice(configured, dag_id=ti.dag_id, task_id=ti.task_id, run_id=ti.run_id, at=at,
                         error=str(context.get("exception")))


def notify_run_failure(context: Mapping[str, Any]) -> None:
    """The DAG's on_failure_callback: a notice for the task that failed the run, unless that task
    wrote its own (a task marked failed through the UI or the API runs no callback of its own)."""
    from pipelines.edges.notices import notice_run_failure
    from pipelines.edges.operations import SettingsError

    try:
        configured = settings()
    except SettingsError:
        return
    ti = context.get("ti")
    run = context.get("dag_run")
    dag = context.get("dag")
    notice_run_failure(configured, dag_id=getattr(ti, "dag_id", None) or getattr(dag, "dag_id", "?"),
                       task_id=getattr(ti, "task_id", None), run_id=str(context.get("run_id")),
                       at=getattr(run, "run_after", None) or datetime.now(UTC),
                       reason=str(context.get("reason") or "task_failure"))


def run_time(context_run: Any) -> datetime:
    """The run's own time: `run_after`, which every run has (a manual run has no logical date)."""
    return context_run.run_after  # type: ignore[no-any-return]


def scheduled_time(context_run: Any) -> datetime:
    """The time a scheduled run stands for (its data interval end), else the run's own time."""
    return context_run.data_interval_end or context_run.run_after  # type: ignore[no-any-return]


DEFAULT_ARGS: dict[str, Any] = {
    "owner": "bridgeledger",
    "retries": 4,
    "retry_delay": timedelta(seconds=15),
    "retry_exponential_backoff": True,
    "max_retry_delay": timedelta(minutes=5),
    "on_failure_callback": notify_failure,
    "execution_timeout": TASK_TIMEOUT,
}
"""Retries with back-off (only a busy store is retried: see `call`), a time limit, and a notice on failure."""
