"""
### publish_ranking

On the rule set's publication schedule (its `[publication] schedule`, a cron in UTC; monthly at
06:00 UTC on the 1st unless it says otherwise): the federation ranking edition as of the run's
scheduled time is computed from final results only and published (`RankingPublished`), named
after the rule set and that time, so a rerun of the same run finds it published and appends
nothing. A run triggered by hand publishes the edition as of its own time. The rule set is the
`ranking_rules` setting (a TOML file or a preset name such as `sbu`); the schedule is read from it
when this file is parsed, so a changed schedule takes effect at the next parse. With no rule set
named the DAG has no schedule (there is nothing to publish), and a run by hand fails saying so.

Settings: the `bridgeledger` Variable (JSON with `store`, `ranking_rules`, ...) or
`BRIDGELEDGER_STORE` and `BRIDGELEDGER_RANKING_RULES`.
"""

from __future__ import annotations

from typing import Any

from airflow.sdk import dag, task

from dags.common import (
    DEFAULT_ARGS,
    START,
    STORE_POOL,
    call,
    notify_run_failure,
    ranking_schedule,
    scheduled_time,
    settings,
    site_tasks,
)


@dag(dag_id="publish_ranking", schedule=ranking_schedule(), start_date=START, catchup=False, max_active_runs=1,
     is_paused_upon_creation=False, default_args=DEFAULT_ARGS, on_failure_callback=notify_run_failure,
     doc_md=__doc__, tags=["bridgeledger", "ranking"])
def publish_ranking() -> None:
    """Compute and publish the ranking edition as of the run's scheduled time."""

    @task(pool=STORE_POOL)
    def publish(dag_run: Any = None) -> int:
        from pipelines.edges.operations import publish_ranking_edition

        return call(lambda: publish_ranking_edition(settings(), as_of=scheduled_time(dag_run), with_site=False))

    site, site_big = site_tasks("publish_ranking")
    position = publish()
    site(position)
    site_big(position)


publish_ranking()
