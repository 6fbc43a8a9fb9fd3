"""Score a session: ingest its files, score at the resulting log position, verify, publish CSVs.

Thin by design: each task imports from `pipelines` inside its body and makes one call. XCom
carries a log position and file paths, never data.
"""

from __future__ import annotations

import pendulum
from airflow.sdk import Param, dag, task

STORE_POOL = "bridgeledger_store"  # one slot: DuckDB has a single writer (see pipelines.tasks)


@dag(
    dag_id="score_session",
    schedule=None,
    start_date=pendulum.datetime(2026, 1, 1, tz="UTC"),
    catchup=False,
    max_active_runs=1,
    tags=["bridgeledger"],
    params={
        "store": Param("bridgeledger.duckdb", type="string", minLength=1,
                       description="DuckDB event store file"),
        "paths": Param([], type="array", items={"type": "string"}, minItems=1,
                       description="Files to ingest (.csv, .pbn, .lin, .xml)"),
        "outdir": Param("outputs", type="string", minLength=1, description="Where CSVs are written"),
        "strict": Param(False, type="boolean", description="Refuse a whole file on any error"),
    },
)
def score_session() -> None:
    """Ingest -> analyse new deals -> score at that position -> verify; publish the results site."""

    @task(pool=STORE_POOL)
    def ingest(params: dict[str, object] | None = None) -> int:
        from pipelines.tasks import ingest_paths

        assert params is not None
        return ingest_paths(str(params["store"]), [str(p) for p in params["paths"]],  # type: ignore[attr-defined]
                            strict=bool(params["strict"]))

    @task(pool=STORE_POOL)
    def score(position: int, params: dict[str, object] | None = None) -> dict[str, str]:
        from pipelines.tasks import score_at

        assert params is not None
        return score_at(str(params["store"]), position, str(params["outdir"]))

    @task
    def verify(outputs: dict[str, str], params: dict[str, object] | None = None) -> int:
        from pipelines.tasks import verify_store

        assert params is not None
        return verify_store(str(params["store"]))

    @task(pool=STORE_POOL)
    def analyse(position: int, params: dict[str, object] | None = None) -> int:
        from pipelines.tasks import analyse_new_deals

        assert params is not None
        return analyse_new_deals(str(params["store"]), position)

    @task(pool=STORE_POOL)
    def site(position: int, params: dict[str, object] | None = None) -> str:
        from pipelines.tasks import publish_site

        assert params is not None
        return publish_site(str(params["store"]), position, f"{params['outdir']}/site")

    position = analyse(ingest())
    verify(score(position))
    site(position)


score_session()
