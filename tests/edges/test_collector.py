"""The cycle collector's pace is set by the processes that run a job (the `bridgeledger` command, an
Airflow task), never by a library call: reading a file leaves the caller's collector as it was."""

from __future__ import annotations

import gc
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from parsers.lin.reader import loads as lin_loads
from parsers.pbn.reader import loads as pbn_loads
from parsers.records import ParsedFile
from pipelines.edges.collector import JOB_THRESHOLDS
from tests.conftest import CORPUS, REPO, SAMPLE_DATA


@pytest.fixture
def default_collector() -> Iterator[None]:
    """The interpreter's own pace during the test, and the test session's restored after it."""
    kept, enabled = gc.get_threshold(), gc.isenabled()
    gc.set_threshold(700, 10, 10)
    gc.enable()
    yield
    gc.set_threshold(*kept)
    if not enabled:
        gc.disable()


def test_the_command_runs_at_the_jobs_pace() -> None:
    # A command's own work sees the pace: `--help` runs through the same entry point as any command.
    probe = ("import gc, sys\nsys.argv = ['bridgeledger', '--help']\n"
             "import pipelines.cli.app as cli\n"
             "cli.app = lambda: print('pace', gc.get_threshold(), gc.isenabled())\n"
             "cli.main()\n")
    run = subprocess.run([sys.executable, "-c", probe], cwd=REPO, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == f"pace {JOB_THRESHOLDS} True"


def test_an_airflow_task_runs_at_the_jobs_pace(default_collector: None) -> None:
    pytest.importorskip("airflow")
    from dags.common import call

    assert call(gc.get_threshold) == JOB_THRESHOLDS


@pytest.mark.parametrize(("read", "path"), [
    (pbn_loads, SAMPLE_DATA / "club_championship_handrecord.pbn"),
    (lin_loads, CORPUS / "lin" / "vugraph_wbtc2015_swe_pol_reexported.lin"),
])
def test_a_reader_leaves_the_callers_collector_alone(default_collector: None, read: Callable[..., ParsedFile],
                                                     path: Path) -> None:
    collections: list[str] = []
    gc.callbacks.append(lambda phase, info: collections.append(phase))
    try:
        parsed = read(path.read_bytes(), source=path.name)
    finally:
        gc.callbacks.pop()
    assert parsed.boards  # it read the file
    # The caller's collector kept running while the reader built its records, at the caller's pace.
    assert collections.count("start") > 0
    assert gc.isenabled() and gc.get_threshold() == (700, 10, 10)
