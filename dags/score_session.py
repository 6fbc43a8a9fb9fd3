"""
### score_session

Triggered by hand with the files of one session (`paths`): ingest them, score at the resulting log
position, verify the hash chain, write the standings. Each task imports from `pipelines` inside
its body and makes one call; XCom carries a log position and file paths, never data. For files
that arrive on their own, `ingest_inbox` does this continuously.

Settings: the `bridgeledger` Variable (JSON with `store`, `outdir`, ...) or `BRIDGELEDGER_STORE`.
"""

from __future__ import annotations

from airflow.sdk import Param, dag, task

from dags.common import (
    ANALYSIS_SLICE,
    ANALYSIS_TIMEOUT,
    DEFAULT_ARGS,
    START,
    STORE_POOL,
    call,
    notify_run_failure,
    settings,
    site_tasks,
)


@dag(dag_id="score_session", schedule=None, start_date=START, catchup=False, max_active_runs=1,
     is_paused_upon_creation=False, default_args=DEFAULT_ARGS, on_failure_callback=notify_run_failure,
     doc_md=__doc__, tags=["bridgeledger"],
     params={
         "paths": Param([], type="array", items={"type": "string"}, minItems=1,
                        description="Files to ingest (.csv, .pbn, .lin, .xml), absolute paths"),
         "strict": Param(False, type="boolean", description="Refuse a whole file on any error"),
     })
def score_session() -> None:
    """Ingest -> score at that position -> verify; publish the results site; analyse new deals beside."""

    @task(pool=STORE_POOL)
    def ingest(params: dict[str, object] | None = None) -> int:
        from pipelines.edges.tasks import ingest_paths

        assert params is not None  # Airflow always passes the validated params
        paths = [str(p) for p in params["paths"]]  # type: ignore[attr-defined]
        return call(lambda: ingest_paths(str(settings().store), paths, strict=bool(params["strict"])))

    @task(pool=STORE_POOL)
    def score(position: int) -> dict[str, str]:
        from pipelines.edges.tasks import score_at

        return call(lambda: score_at(str(settings().store), position, str(settings().outdir)))

    @task
    def verify(outputs: dict[str, str]) -> int:
        from pipelines.edges.tasks import verify_store

        return call(lambda: verify_store(str(settings().store)))

    @task(max_active_tis_per_dag=1, execution_timeout=ANALYSIS_TIMEOUT)
    def analyse(position: int) -> int:
        from pipelines.edges.tasks import analyse_new_deals

        budget = ANALYSIS_SLICE.total_seconds()
        return call(lambda: analyse_new_deals(str(settings().store), position, max_seconds=budget))

    site, site_big = site_tasks("score_session", at_position=True)

    # The analysis holds no store pool and nothing waits for it: the site shows its deals as
    # "analysis pending" until the analyse_deals DAG (or this task) has solved them.
    position = ingest()
    verify(score(position))
    site(position)
    site_big(position)
    analyse(position)


score_session()
