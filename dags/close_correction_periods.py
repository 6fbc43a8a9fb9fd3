"""Every ten minutes: sessions whose Law 79C correction period has passed become final.

Thin: one task, one call into `pipelines`. The run's data interval end is "now", so a rerun of
the same run makes the same decision.
"""

from __future__ import annotations

import pendulum
from airflow.sdk import Param, dag, task

STORE_POOL = "bridgeledger_store"  # one slot: DuckDB has a single writer (see pipelines.tasks)


@dag(
    dag_id="close_correction_periods",
    schedule="*/10 * * * *",
    start_date=pendulum.datetime(2026, 1, 1, tz="UTC"),
    catchup=False,
    max_active_runs=1,
    tags=["bridgeledger", "law-79c"],
    params={
        "store": Param("bridgeledger.duckdb", type="string", minLength=1, description="DuckDB event store"),
        "outdir": Param("outputs", type="string", minLength=1, description="Where final CSVs are written"),
    },
)
def close_correction_periods() -> None:
    """Close due correction periods and publish the final standings."""

    @task(pool=STORE_POOL)
    def close_due(params: dict[str, object] | None = None, data_interval_end: object = None) -> list[str]:
        from pipelines.tasks import close_due_periods

        assert params is not None and data_interval_end is not None
        return close_due_periods(str(params["store"]), data_interval_end.isoformat(),  # type: ignore[attr-defined]
                                 str(params["outdir"]))

    close_due()


close_correction_periods()
