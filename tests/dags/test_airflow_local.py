"""scripts/airflow_local.sh: Airflow's components on localhost with few workers, and a stop that ends
every process they started, a task process that leads its own process group included (issue #36,
items 11 and 18). Airflow itself is stood in for by a script that records how it was called."""

from __future__ import annotations

import os
import socket
import subprocess
import time
from pathlib import Path

from tests.conftest import REPO

SCRIPT = REPO / "scripts" / "airflow_local.sh"

FAKE_AIRFLOW = """#!/usr/bin/env bash
echo "$* | host=$AIRFLOW__API__HOST parallelism=$AIRFLOW__CORE__PARALLELISM api_workers=$AIRFLOW__API__WORKERS" \\
    >>"$AIRFLOW_HOME/calls"
if [[ $1 == scheduler ]]; then
    # A task process as Airflow's supervisor leaves it: leading its own process group; its parent
    # then exits, as a scheduler stopped alone would, and the task runs on with another parent.
    python3 -c 'import os, sys, time
os.setpgid(0, 0)
open(sys.argv[1], "w").write(str(os.getpid()))
time.sleep(600)' "$AIRFLOW_HOME/task.pid" &
    exit 0
fi
exec sleep 600
"""


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return False
    return "State:\tZ" not in state  # a zombie has ended; only its parent's reaping is left


def test_stop_ends_every_process_started_even_a_task_in_its_own_process_group(tmp_path: Path) -> None:
    bin_dir, home = tmp_path / "bin", tmp_path / "airflow_home"
    bin_dir.mkdir()
    home.mkdir()
    (bin_dir / "airflow").write_text(FAKE_AIRFLOW)
    (bin_dir / "airflow").chmod(0o755)
    env = {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}", "AIRFLOW_HOME": str(home),
           "AIRFLOW_STOP_GRACE": "5"}
    for name in ("AIRFLOW__CORE__PARALLELISM", "AIRFLOW__API__WORKERS"):
        env.pop(name, None)
    with socket.socket() as probe:  # a port nobody listens on: the script refuses a busy one
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env["AIRFLOW__API__PORT"] = str(port)

    def run(command: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([str(SCRIPT), command], env=env, capture_output=True, text=True, timeout=60)

    try:
        started = run("start")
        assert started.returncode == 0, started.stdout + started.stderr
        for _ in range(100):
            if (home / "task.pid").is_file() and (home / "task.pid").read_text():
                break
            time.sleep(0.1)
        task = int((home / "task.pid").read_text())
        assert _alive(task) and os.getpgid(task) == task  # it leads its own process group
        session = int((home / "bridgeledger-airflow.sid").read_text())
        assert os.getsid(task) == session != os.getsid(0)
        stopped = run("stop")
        assert stopped.returncode == 0, stopped.stdout + stopped.stderr
        assert "no process of the session is left" in stopped.stdout
        assert not _alive(task)
    finally:
        run("stop")
    calls = sorted(line.split(" | ") for line in (home / "calls").read_text().splitlines())
    assert [c[0] for c in calls] == [f"api-server --host 127.0.0.1 --port {port}", "dag-processor",
                                     "scheduler --skip-serve-logs", "triggerer --skip-serve-logs"]  # no log servers
    assert {c[1] for c in calls} == {"host=127.0.0.1 parallelism=4 api_workers=1"}  # not 32 idle workers


def test_start_refuses_a_port_another_process_listens_on(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        env = {**os.environ, "AIRFLOW_HOME": str(tmp_path), "AIRFLOW__API__PORT": str(taken.getsockname()[1])}
        started = subprocess.run([str(SCRIPT), "start"], env=env, capture_output=True, text=True, timeout=60)
    assert started.returncode == 1 and "is in use by another process" in started.stdout
    assert not (tmp_path / "bridgeledger-airflow.sid").exists()
