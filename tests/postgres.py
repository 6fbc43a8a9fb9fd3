"""A throwaway PostgreSQL server for the tests, and a fresh database for each test that asks.

`BRIDGELEDGER_TEST_PG` names a server to use (a URL of a database the tests may create databases
from). Otherwise the first test that needs one starts a cluster on 127.0.0.1 with
`scripts/throwaway_postgres.sh` (Debian's `postgresql` package; `.ci/run` installs it) and stops
it when the run ends. No PostgreSQL server installed is a test failure that says how to get one,
not a skip: the log's contract is tested on both backends or not at all.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "throwaway_postgres.sh"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def with_database(url: str, database: str) -> str:
    """`url` pointing at another database of the same server."""
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, f"/{database}", parts.query, parts.fragment))


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[str]:
    """The URL of a PostgreSQL server's maintenance database, on 127.0.0.1."""
    given = os.environ.get("BRIDGELEDGER_TEST_PG")
    if given:
        yield given
        return
    directory = tempfile.mkdtemp(prefix="bridgeledger-pg-")
    started = subprocess.run([str(SCRIPT), "start", directory, str(_free_port())],
                             capture_output=True, text=True, check=False)
    if started.returncode != 0:
        shutil.rmtree(directory, ignore_errors=True)
        pytest.fail(f"no PostgreSQL server for the log's tests: {started.stderr.strip()} "
                    "(or set BRIDGELEDGER_TEST_PG to a server's URL)", pytrace=False)
    try:
        yield started.stdout.strip()
    finally:
        subprocess.run([str(SCRIPT), "stop", directory], capture_output=True, check=False)
        shutil.rmtree(directory, ignore_errors=True)


@pytest.fixture
def pg_url(postgres_server: str) -> Iterator[str]:
    """A new, empty database for one test; dropped after it."""
    import psycopg

    name = f"bl_{uuid.uuid4().hex[:16]}"
    with psycopg.connect(postgres_server, autocommit=True) as con:
        con.execute(f'CREATE DATABASE "{name}"')
    try:
        yield with_database(postgres_server, name)
    finally:
        with psycopg.connect(postgres_server, autocommit=True) as con:
            con.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
