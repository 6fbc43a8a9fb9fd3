"""
### ingest_inbox

Every five minutes, files waiting in the federation's inbox go into the event log, one mapped
task per file through the one-slot `bridgeledger_store` pool. Each file is ingested leniently (a
bad record is quarantined with a positioned diagnostic) and then moved to `processed/`, or to
`rejected/` when nothing in it could be used (or it is a link, not a file), or to `held/` when its
event is not registered; its diagnostics are written beside it and logged at WARNING in the task
log. The `bridgeledger_sessions` asset is then updated with the sessions the files touched and
every session the log says still waits to be published or scored, which starts `score_and_publish`.

A rejected file does not stop the others: they are ingested and scored. The run then ends
**failed** (the `report` task), so that the failure notice reaches the federation's scorer, who
must ask the club for a corrected file.

Why a schedule and not an asset watcher: Airflow 3's file watchers (`FileDeleteTrigger`,
`DirectoryFileDeleteTrigger`) delete the file they see before any task runs; a federation's
inbox must keep each file until it is safely in the log and moved with its diagnostics.

Settings: the `bridgeledger` Variable (JSON with `store`, `inbox`, ...) or `BRIDGELEDGER_STORE`.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from airflow.sdk import dag, task

from dags.common import DEFAULT_ARGS, SESSIONS, START, STORE_POOL, call, notify_run_failure, settings


@dag(dag_id="ingest_inbox", schedule="*/5 * * * *", start_date=START, catchup=False, max_active_runs=1,
     is_paused_upon_creation=False, default_args=DEFAULT_ARGS, on_failure_callback=notify_run_failure,
     doc_md=__doc__, tags=["bridgeledger", "inbox"])
def ingest_inbox() -> None:
    """Inbox -> log, one file at a time; announce the sessions touched."""

    @task
    def waiting() -> list[str]:
        from pipelines.edges.operations import pending_files

        return call(lambda: pending_files(settings()))

    @task(pool=STORE_POOL)
    def ingest(path: str) -> dict[str, Any]:
        from pipelines.edges.operations import ingest_inbox_file

        return call(lambda: ingest_inbox_file(settings(), path, recorded_at=datetime.now(UTC))).as_dict()

    @task(outlets=[SESSIONS], trigger_rule="all_done")
    def announce(outcomes: list[dict[str, Any]], outlet_events: Any = None) -> list[str]:
        from airflow.sdk.exceptions import AirflowSkipException

        from pipelines.edges.operations import sessions_to_announce

        sessions = call(lambda: sessions_to_announce(settings(), outcomes))
        if not sessions:
            raise AirflowSkipException("no session waits to be published or scored")
        outlet_events[SESSIONS].extra = {"sessions": sessions}
        return sessions

    @task(trigger_rule="all_done")
    def report(files: list[str], outcomes: list[dict[str, Any]]) -> int:
        from pipelines.edges.operations import require_all_ingested

        return call(lambda: require_all_ingested(files, outcomes))

    files = waiting()
    outcomes = ingest.expand(path=files)
    announce(outcomes)
    report(files, outcomes)


ingest_inbox()
