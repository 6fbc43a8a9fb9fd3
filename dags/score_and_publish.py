"""
### score_and_publish

Runs when `ingest_inbox` updates the `bridgeledger_sessions` asset. Sessions with results and no
publication yet are published at the run's time (`run_after`), which opens their Law 79C
correction period as their conditions of contest say; then the log is scored at its head, the
analyst views refreshed, the standings written to the outputs folder and the results site
rewritten where its pages changed. No deal is solved here: the `analyse_deals` DAG does that, and
until then a board page says "analysis pending". The run writes through the one-slot
`bridgeledger_store` pool; a busy store is retried with back-off.

Settings: the `bridgeledger` Variable (JSON with `store`, `outdir`, ...) or `BRIDGELEDGER_STORE`.
"""

from __future__ import annotations

from typing import Any

from airflow.sdk import dag, task

from dags.common import (
    DEFAULT_ARGS,
    RUNS_PAST_A_SITE_BUILD,
    SESSIONS,
    START,
    STORE_POOL,
    call,
    notify_run_failure,
    run_time,
    settings,
    site_tasks,
)


@dag(dag_id="score_and_publish", schedule=[SESSIONS], start_date=START, catchup=False,
     max_active_runs=RUNS_PAST_A_SITE_BUILD,
     is_paused_upon_creation=False, default_args=DEFAULT_ARGS, on_failure_callback=notify_run_failure,
     doc_md=__doc__, tags=["bridgeledger", "law-79c"])
def score_and_publish() -> None:
    """Publish new sessions, then score, write the outputs and the results site."""

    @task(pool=STORE_POOL)
    def publish(dag_run: Any = None) -> list[str]:
        from pipelines.edges.operations import publish_unpublished

        return call(lambda: publish_unpublished(settings(), at=run_time(dag_run)))

    @task(pool=STORE_POOL)
    def score(published: list[str]) -> dict[str, str]:
        from pipelines.edges.operations import score_head

        return call(lambda: score_head(settings()))

    site, site_big = site_tasks("score_and_publish")
    outputs = score(publish())
    site(outputs)
    site_big(outputs)


score_and_publish()
