"""Airflow in the test process: a throwaway home, set before anything imports airflow.

Airflow reads its configuration when it is first imported, so these settings are made when this
file is loaded, before the test modules beside it (which import airflow) are collected: the DAGs
are parsed here from this checkout's `dags/`, with no example DAG and never with the home or the
database of an Airflow the machine may run. The tests in this process parse DAGs and call their
tasks' callables; they never touch a metadata database (the one real run, `dag.test()`, is a
subprocess with a home and database of its own).
"""

from __future__ import annotations

import gc
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
HOME = Path(tempfile.mkdtemp(prefix="bridgeledger-airflow-home-"))
os.environ.update({
    "AIRFLOW_HOME": str(HOME),
    "AIRFLOW__CORE__DAGS_FOLDER": str(REPO / "dags"),
    "AIRFLOW__CORE__LOAD_EXAMPLES": "False",
    "AIRFLOW__DATABASE__SQL_ALCHEMY_CONN": f"sqlite:///{HOME / 'airflow.db'}",
})


def pytest_unconfigure() -> None:
    """The throwaway home goes when the run ends."""
    shutil.rmtree(HOME, ignore_errors=True)


@pytest.fixture(autouse=True)
def _collector_as_it_was() -> Iterator[None]:
    """A task's callable sets the collector's pace for the one job its process runs
    (`dags.common.call`); here the process is the test run's, so its pace is put back."""
    kept, enabled = gc.get_threshold(), gc.isenabled()
    yield
    gc.set_threshold(*kept)
    if enabled:
        gc.enable()
    else:
        gc.disable()
