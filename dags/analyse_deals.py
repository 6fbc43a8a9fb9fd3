"""
### analyse_deals

Every five minutes: double-dummy analysis (endplay's solver, about 0.4 s of CPU a deal) of the
deals in the log that are not analysed yet, for at most eight minutes a run. Each deal is saved as
soon as it is solved, so a killed or timed-out run loses at most the deal in hand and the next run
resumes where it stopped; progress goes to the task log. The analysis holds no slot of the
`bridgeledger_store` pool (only each deal's short save takes the store's write lock), so closing
correction periods, ingesting and publishing never wait behind it. Until a deal is solved, its
board pages say "analysis pending". When a run solved deals, the `site` task rewrites the pages
that show them (through the store pool, like every site build).

Settings: the `bridgeledger` Variable (JSON with `store`, `site`, ...) or `BRIDGELEDGER_STORE`.
"""

from __future__ import annotations

from airflow.sdk import dag, task

from dags.common import (
    ANALYSIS_SLICE,
    ANALYSIS_TIMEOUT,
    DEFAULT_ARGS,
    RUNS_PAST_A_SITE_BUILD,
    START,
    call,
    notify_run_failure,
    settings,
    site_tasks,
)


@dag(dag_id="analyse_deals", schedule="*/5 * * * *", start_date=START, catchup=False,
     max_active_runs=RUNS_PAST_A_SITE_BUILD,
     is_paused_upon_creation=False, default_args=DEFAULT_ARGS, on_failure_callback=notify_run_failure,
     doc_md=__doc__, tags=["bridgeledger", "analysis"])
def analyse_deals() -> None:
    """Solve pending deals for a bounded time, then rewrite the pages that show them."""

    @task(max_active_tis_per_dag=1, execution_timeout=ANALYSIS_TIMEOUT)
    def analyse() -> int:
        from pipelines.edges.tasks import analyse_pending_deals

        budget = ANALYSIS_SLICE.total_seconds()
        return call(lambda: analyse_pending_deals(str(settings().store), max_seconds=budget))

    site, site_big = site_tasks("analyse_deals", skip_unless="no deal solved in this run: no page to rewrite")
    solved = analyse()
    site(solved)
    site_big(solved)


analyse_deals()
