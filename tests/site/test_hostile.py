"""Names from files are text on every page, never markup; CSV cells never become formulas."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import polars as pl
import pytest

from models.events import Player
from parsers.pbn.writer import dumps
from pipelines.files.exports import session_records
from pipelines.files.ingest import IngestOptions, ingest_file
from pipelines.log.store import EventStore
from pipelines.site import build_site
from pipelines.site.analysis import DoubleDummy, save, solver_version
from pipelines.site.csvsafe import neutralise, neutralised
from tests.site.club_session import EVENT, SESSION
from tests.site.conftest import SampleSite
from tests.site.reader import visit

SCRIPT = "<script>alert(1)</script>"
IMG = "\"'><img src=x onerror=alert(1)>"
RTL = "\u202eevil\u202c Smith"
HOSTILE_EVENT = "hostile-cup"


@pytest.fixture(scope="module")
def hostile_site(sample_site: SampleSite, sample_analyses: dict[str, DoubleDummy],
                 tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sample session written out as a PBN file whose event, pairs and players have hostile names,
    ingested into a fresh store and published as a site."""
    records = session_records(sample_site.store, EVENT, SESSION)
    contestants = tuple(c.model_copy(update={"name": SCRIPT if i % 2 == 0 else None,
                                             "players": (Player(name=IMG), Player(name=f"{RTL} {i}"))})
                        for i, c in enumerate(records.contestants))
    meta = records.metadata.model_copy(update={"event_name": f"{SCRIPT} Cup"})
    folder = tmp_path_factory.mktemp("hostile")
    source = folder / "hostile.pbn"
    source.write_text(dumps(records.model_copy(update={"contestants": contestants, "metadata": meta})),
                      encoding="utf-8")
    store = EventStore(folder / "events.duckdb")
    ingest_file(store, source, recorded_at=datetime(2026, 11, 22, tzinfo=UTC),
                options=IngestOptions(event_id=HOSTILE_EVENT, session_id="1"))
    save(store, sample_analyses, solver_version() or "test")  # the same deals: analysed once, not again
    report = build_site(store, folder / "site")
    assert report.analysis is not None and report.analysis.solved == 0
    return folder / "site"


def _pages(site: Path) -> list[Path]:
    return sorted(site.rglob("*.html"))


def test_every_page_escapes_the_names(hostile_site: Path) -> None:
    pages = _pages(hostile_site)
    assert len(pages) > 50
    for page in pages:
        html = page.read_text(encoding="utf-8")
        assert "<script" not in html and "<img src=x" not in html, page
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html, page  # the event's name is in every page's crumbs


@pytest.mark.browser
@pytest.mark.parametrize("page", ["index.html", "session", "board", "card", "audit", "event"])
def test_names_read_as_text_in_the_browser(hostile_site: Path, browser: Any, page: str) -> None:
    relative = {"index.html": "index.html", "event": f"e-{HOSTILE_EVENT}/index.html",
                "session": f"e-{HOSTILE_EVENT}/s-1/index.html", "board": f"e-{HOSTILE_EVENT}/s-1/board-A-1.html",
                "card": f"e-{HOSTILE_EVENT}/s-1/card-A-ns-1.html", "audit": f"e-{HOSTILE_EVENT}/s-1/audit.html"}[page]
    seen = visit(browser, hostile_site, relative, screenshot=f"hostile-{page}")
    body = seen.page.inner_text("body")
    assert f"{SCRIPT} Cup" in body
    if page in ("session", "board", "card"):
        assert IMG in body and RTL in body
    assert seen.page.locator("img[src=x], script").count() == 0
    seen.assert_clean(hostile_site)  # no alert() ran: a dialog would be recorded
    seen.close()


def test_csv_cells_that_look_like_formulas_are_text() -> None:
    assert [neutralise(v) for v in ["=1+2", "+44", "-3", "@SUM(A1)", "\tx", "Smith", "3NT"]] == [
        "'=1+2", "'+44", "'-3", "'@SUM(A1)", "'\tx", "Smith", "3NT"]
    frame = pl.DataFrame({"name": ["=HYPERLINK(\"x\")", "Ann"], "score": [-100, 420]})
    out = neutralised(frame)
    assert out["name"].to_list() == ["'=HYPERLINK(\"x\")", "Ann"]
    assert out["score"].to_list() == [-100, 420]  # numbers stay numbers
