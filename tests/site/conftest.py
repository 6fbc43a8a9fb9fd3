"""Fixtures for the results site: the sample weekend's store and site, built once per test run."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import pytest

from pipelines.log.store import EventStore
from pipelines.site.analysis import cached
from tests.site.club_session import EVENT, SESSION, build_club_session

REPO = Path(__file__).resolve().parents[2]
ARTEFACTS = REPO / "build" / "test-artifacts" / "site"
"""Screenshots the browser tests leave for a person to look at (build/ is not committed)."""
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--no-first-run"]
SESSION_DIR = f"e-{EVENT}/s-{SESSION}"


@dataclass(frozen=True)
class SampleSite:
    """The demo's store and the site it wrote."""

    store: EventStore
    site: Path


@pytest.fixture(scope="session")
def sample_site(tmp_path_factory: pytest.TempPathFactory) -> SampleSite:
    """The sample club session: scored, published, corrected, and its site."""
    workdir = tmp_path_factory.mktemp("demo")
    store = build_club_session(workdir, now=datetime(2026, 11, 22, 9, 0, tzinfo=UTC))
    return SampleSite(store, workdir / "outputs" / "site")


@pytest.fixture(scope="session")
def sample_analyses(sample_site: SampleSite) -> dict[str, object]:
    """The double-dummy analyses the demo cached, by canonical deal."""
    with sample_site.store.reader() as con:
        deals = [r[0] for r in con.execute("SELECT deal FROM derived_double_dummy").fetchall()]
    return dict(cached(sample_site.store, deals))


@pytest.fixture(scope="session")
def browser() -> Iterator[object]:
    """Debian's headless Chromium, driven by playwright (which never downloads a browser of its own)."""
    from playwright.sync_api import sync_playwright

    assert CHROMIUM.exists(), "the browser tests need Debian's chromium: apt-get install -y chromium (.ci/run does)"
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield launched
        launched.close()


@pytest.fixture(scope="session")
def weekend_site(tmp_path_factory: pytest.TempPathFactory) -> SampleSite:
    """The demo's weekend (pairs over two sessions and two sections, one-session club pairs, a Swiss
    with a fouled board, the federation ranking), run as `bridgeledger demo` runs it, and its site."""
    from pipelines.edges.demo import run_demo

    workdir = tmp_path_factory.mktemp("weekend")
    summary = run_demo(workdir, now=datetime(2026, 11, 22, 9, 0, tzinfo=UTC))
    assert summary.ok
    return SampleSite(EventStore(workdir / "bridgeledger.duckdb"), workdir / "outputs" / "site")
