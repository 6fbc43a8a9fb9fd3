"""Shared fixtures: the corpus beside the checkout, fixed clocks, fresh stores; Hypothesis profiles."""

from __future__ import annotations

import math
import os
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from hypothesis import settings

from pipelines.commands import director
from pipelines.log.store import EventStore
from tests.postgres import pg_url, postgres_server  # noqa: F401 (fixtures for every test folder)

if TYPE_CHECKING:
    from tests.corpus import IngestedCorpus

REPO = Path(__file__).resolve().parents[1]
SAMPLE_DATA = REPO / "sample_data"
CORPUS = REPO.parent / "shared" / "corpus"
RECORDED_AT = datetime(2026, 11, 21, 22, 0, tzinfo=UTC)
TYPED_AT = datetime(2000, 1, 1, tzinfo=UTC)
"""When the tests' director commands are typed (`pipelines.commands.director.appended_now`): before any
session of theirs is published, so that each request is entered as its weekend happens, never
back-dated. A test of back-dating sets the clock itself; `WALL_CLOCK` is the real one."""
WALL_CLOCK = director.appended_now

LONG_EXAMPLES = 100
"""Examples per property test under the `long` profile (`make test-long`): Hypothesis' own default,
the number every test without a `max_examples` of its own ran before the profiles."""
CI_EXAMPLES = 25
"""Examples per property test under the `ci` profile (`make test`, the default); a test that names
its own number gets the same share of it through `examples`."""
settings.register_profile("ci", max_examples=CI_EXAMPLES, derandomize=True)
settings.register_profile("long", max_examples=LONG_EXAMPLES)
# Loaded here, before any test module is imported: a test's own `@settings` falls back to the
# profile loaded when it is created.
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


def examples(n: int) -> int:
    """A property test's `max_examples`: `n` under the `long` profile, the same share of it as the
    loaded profile's default under any other (a quarter under `ci`), at least one."""
    return max(1, math.ceil(n * settings.default.max_examples / LONG_EXAMPLES))


POSTGRES_FIXTURES = {"postgres_server", "pg_url", "log_store"}
"""The fixtures that start (or use) the throwaway PostgreSQL server of `tests.postgres`."""


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Under pytest-xdist, the tests that use PostgreSQL go to one worker (`--dist loadgroup`):
    each worker would start a server of its own for them."""
    if not config.pluginmanager.hasplugin("xdist"):
        return
    for item in items:
        if POSTGRES_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.xdist_group("postgres"))


def pytest_report_header() -> str:
    """Which Hypothesis profile this run uses (`HYPOTHESIS_PROFILE`), at the top of the report."""
    return f"hypothesis profile: {settings.get_current_profile_name()} (HYPOTHESIS_PROFILE=long runs every example)"


@pytest.fixture(autouse=True, scope="session")
def _director_types_as_it_happens() -> Iterator[None]:
    """Every test's director commands are recorded at `TYPED_AT` (see there), not on the day the
    tests run: a weekend of 2026 replayed in December would be back-dated (issue #36, item 5).
    Session-wide, so that the stores module- and session-scoped fixtures build are typed so too;
    a test that sets the clock itself (`monkeypatch.setattr`) gets this one back afterwards."""
    director.appended_now = lambda: TYPED_AT
    try:
        yield
    finally:
        director.appended_now = WALL_CLOCK


@pytest.fixture(scope="session")
def ingested_corpus(tmp_path_factory: pytest.TempPathFactory) -> IngestedCorpus:
    """Corpus files ingested once per run, each test getting a copy of its own (`tests.corpus`)."""
    from tests.corpus import IngestedCorpus

    return IngestedCorpus(tmp_path_factory.mktemp("corpus-stores"))


@pytest.fixture
def store(tmp_path: Path) -> EventStore:
    """An empty event store in a temporary directory."""
    return EventStore(tmp_path / "events.duckdb", busy_timeout=2.0)


@pytest.fixture
def traveller() -> Path:
    """The sample session's CSV traveller."""
    return SAMPLE_DATA / "club_championship_traveller.csv"
