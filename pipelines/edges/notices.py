"""Failure notices that an orchestrator writes when a run ends failed, once per failed task.

A task's own failure writes its notice from inside the task (`operations.write_failure_notice`).
A task marked failed from outside (the UI or the REST API) runs no code of its own, so the run's
failure writes it instead; a task that already has its notice for that run gets no second one.
"""

from __future__ import annotations

import json
import logging
from datetime import datetime
from pathlib import Path

from pipelines.edges.operations import Settings, write_failure_notice

log = logging.getLogger(__name__)


def noticed(notifications: Path, *, dag_id: str, task_id: str, run_id: str) -> bool:
    """Whether the notifications file already holds a notice for this task of this run."""
    if not notifications.is_file():
        return False
    for line in notifications.read_text(encoding="utf-8").splitlines():
        try:
            notice = json.loads(line)
        except json.JSONDecodeError:
            continue  # a line cut short by a crash names nothing
        if isinstance(notice, dict) and (notice.get("dag_id"), notice.get("task_id"), notice.get("run_id")) \
                == (dag_id, task_id, run_id):
            return True
    return False


def notice_run_failure(settings: Settings, *, dag_id: str, task_id: str | None, run_id: str, at: datetime,
                       reason: str) -> Path | None:
    """Write the notice of a failed run for the task that failed it (`task_id`; None: the run as a
    whole), unless that task already wrote its own; return the file written to, or None."""
    named = task_id or "(run)"
    if noticed(settings.notifications, dag_id=dag_id, task_id=named, run_id=run_id):
        log.info("%s/%s of %s already has its failure notice", dag_id, named, run_id)
        return None
    error = (f"the run ended failed ({reason}); task {named} ended failed without a notice of its own: "
             "it was marked failed from outside (the UI or the API) or killed")
    return write_failure_notice(settings, dag_id=dag_id, task_id=named, run_id=run_id, at=at, error=error)
