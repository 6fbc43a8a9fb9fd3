"""
### close_correction_periods

Every ten minutes: each published session whose Law 79C correction period has ended by the run's
time gets a `CorrectionPeriodClosed` event at its deadline, the final standings are written, and
the results site is rewritten so that its pages say final (no deal is solved for it).
The run's time is `run_after`, which scheduled and manual runs both have, so a run triggered by
hand closes what is due now, and a rerun of the same run closes nothing new. A store that does not
exist is a failure, not an empty success.

Settings: the `bridgeledger` Variable (JSON with `store`, `outdir`, ...) or `BRIDGELEDGER_STORE`.
"""

from __future__ import annotations

from typing import Any

from airflow.sdk import dag, task

from dags.common import (
    DEFAULT_ARGS,
    RUNS_PAST_A_SITE_BUILD,
    START,
    STORE_POOL,
    call,
    notify_run_failure,
    run_time,
    settings,
    site_tasks,
)


@dag(dag_id="close_correction_periods", schedule="*/10 * * * *", start_date=START, catchup=False,
     max_active_runs=RUNS_PAST_A_SITE_BUILD, is_paused_upon_creation=False, default_args=DEFAULT_ARGS,
     on_failure_callback=notify_run_failure, doc_md=__doc__, tags=["bridgeledger", "law-79c"])
def close_correction_periods() -> None:
    """Close due correction periods and publish the final standings."""

    @task(pool=STORE_POOL)
    def close_due(dag_run: Any = None) -> list[str]:
        from pipelines.edges.operations import close_due

        return call(lambda: close_due(settings(), at=run_time(dag_run)))

    site, site_big = site_tasks("close_correction_periods", skip_unless="no period closed: no page changed")
    closed = close_due()
    site(closed)
    site_big(closed)


close_correction_periods()
