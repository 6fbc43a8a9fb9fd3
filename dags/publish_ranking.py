"""Monthly: publish the federation ranking as of the run's data interval end.

Thin: one task, one call into `pipelines`. The edition is named after the rule set and the
interval end, so a rerun of the same run finds it published and appends nothing.
"""

from __future__ import annotations

import pendulum
from airflow.sdk import Param, dag, task

STORE_POOL = "bridgeledger_store"  # one slot: DuckDB has a single writer (see pipelines.tasks)


@dag(
    dag_id="publish_ranking",
    schedule="0 6 1 * *",
    start_date=pendulum.datetime(2026, 1, 1, tz="UTC"),
    catchup=False,
    max_active_runs=1,
    tags=["bridgeledger", "ranking"],
    params={
        "store": Param("bridgeledger.duckdb", type="string", minLength=1, description="DuckDB event store"),
        "rules": Param("pzbs-4", type="string", minLength=1, description="Rule set: a TOML file or a preset"),
    },
)
def publish_ranking() -> None:
    """Compute and publish the ranking edition as of the end of the run's interval."""

    @task(pool=STORE_POOL)
    def publish(params: dict[str, object] | None = None, data_interval_end: object = None) -> int:
        from pipelines.ranking.tasks import publish_ranking as publish_edition

        assert params is not None and data_interval_end is not None
        return publish_edition(str(params["store"]), str(params["rules"]),
                               data_interval_end.isoformat())  # type: ignore[attr-defined]

    publish()


publish_ranking()
