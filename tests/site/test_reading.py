"""The weekend's site as players read it (issue #34): on a phone (390 px), on a desktop, and printed.

Every page type's key numbers (score, MP, %, IMPs, VPs, points) must be inside the viewport without
sideways scrolling. A screenshot of every page at both widths is left in `ARTEFACTS` for a person.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.site.conftest import ARTEFACTS, SampleSite
from tests.site.reader import DESKTOP, PHONE, visit

pytestmark = pytest.mark.browser

NATIONAL = "e-national-pairs-2026"
SWISS = "e-swiss-teams-2026/s-1"
PAGES: dict[str, tuple[str, str]] = {
    # page type -> (page, the cells that hold its key numbers)
    "index": ("index.html", "table.events td"),
    "event": (f"{NATIONAL}/index.html", "table.overall td.total, table.overall td.pct"),
    "session-pairs": (f"{NATIONAL}/s-1/index.html", "table.standings td.score, table.standings td.pct, "
                      "table.standings td.cumulative, table.standings td.boards"),
    "session-swiss": (f"{SWISS}/index.html", "table.standings td.score, table.standings td.vp, "
                      "table.matches td.imps, table.matches td.vps"),
    "traveller-mp": (f"{NATIONAL}/s-2/board-B-21.html", "table.traveller td.score, table.traveller td.score-ns, "
                     "table.traveller td.score-ew, table.traveller td.value, table.traveller td.result"),
    "traveller-imp": (f"{SWISS}/board-15.html", "table.traveller td.score, table.traveller td.score-ns, "
                      "table.traveller td.score-ew, table.traveller td.value"),
    "card-pairs": (f"{NATIONAL}/s-2/card-A-ew-12.html", "table.score-card td.value, table.score-card td.running, "
                   "table.score-card td.running-pct, table.score-card td.score"),
    "card-team": (f"{SWISS}/card-all-Harbour_Herons*.html", "table.score-card td.value, table.score-card td.running"),
    "audit": (f"{NATIONAL}/s-2/audit.html", "table.audit td.change"),
    "ranking": ("ranking/index.html", "table.ranking td.points, table.ranking td.place"),
    "player": ("ranking/player-NBF10027.html", "table.awards td.points, .player-points"),
}


def _page(site: Path, pattern: str) -> str:
    [found] = [p.relative_to(site).as_posix() for p in site.glob(pattern)]
    return found


def _outside(page: Any, selector: str, width: int) -> tuple[int, list[str]]:
    """How many of the selector's cells are shown, and those that reach past the viewport's edges."""
    return tuple(page.locator(selector).evaluate_all(  # type: ignore[return-value]
        """(cells, width) => {
             const shown = cells.filter(c => c.checkVisibility());
             return [shown.length, shown.filter(c => { const r = c.getBoundingClientRect();
                                                      return r.left < 0 || r.right > width; })
                                        .map(c => c.className + ' ' + c.innerText + ' ' +
                                                  Math.round(c.getBoundingClientRect().right))];
           }""", width))


@pytest.mark.parametrize("width", ["phone", "desktop"])
@pytest.mark.parametrize("kind", list(PAGES))
def test_key_numbers_are_on_screen(weekend_site: SampleSite, browser: Any, kind: str, width: str) -> None:
    viewport = PHONE if width == "phone" else DESKTOP
    pattern, cells = PAGES[kind]
    seen = visit(browser, weekend_site.site, _page(weekend_site.site, pattern), viewport=viewport,
                 screenshot=f"weekend-{kind}-{width}")
    shown, outside = _outside(seen.page, cells, viewport["width"])
    assert shown > 0, f"{kind}: none of {cells} is shown"
    assert outside == []
    assert seen.page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
    seen.assert_clean(weekend_site.site)
    seen.close()


def test_a_printed_traveller_keeps_every_column(weekend_site: SampleSite, browser: Any) -> None:
    """A4 portrait, 12 mm margins: 186 mm of line, 703 CSS px. Every column, the phone's hidden ones
    (lead, MP NS, MP EW) too, fits it; the PDF itself is kept beside the screenshots."""
    a4_line = round(186 / 25.4 * 96)
    seen = visit(browser, weekend_site.site, f"{NATIONAL}/s-2/board-B-21.html", viewport={"width": a4_line,
                                                                                          "height": 1000})
    seen.page.emulate_media(media="print")
    heads = seen.page.locator("table.traveller thead th").evaluate_all(
        "cells => cells.filter(c => c.checkVisibility()).map(c => c.innerText.trim())")
    assert heads == ["Table", "NS", "EW", "Contract", "Lead", "Result", "Score NS", "Score EW", "MP NS", "MP EW",
                     "% NS", "% EW"]  # every column but the phone's one signed score
    shown, outside = _outside(seen.page, "table.traveller td, table.traveller th", a4_line)
    assert shown >= 12 * 8 and outside == []
    assert seen.page.evaluate("document.querySelector('header.top').checkVisibility()") is False
    ARTEFACTS.mkdir(parents=True, exist_ok=True)
    pdf = seen.page.pdf(path=str(ARTEFACTS / "weekend-traveller-print.pdf"), format="A4",
                        margin={"top": "12mm", "bottom": "12mm", "left": "12mm", "right": "12mm"})
    assert pdf.startswith(b"%PDF") and pdf.count(b"/Type /Page\n") + pdf.count(b"/Type/Page") >= 1
    seen.close()


@pytest.mark.parametrize("width", ["phone", "desktop"])
def test_both_deals_of_a_fouled_board_are_on_screen(weekend_site: SampleSite, browser: Any, width: str) -> None:
    """National Pairs B-21 (Law 87): the hand record's deal and the fouled one, every hand of both
    inside the viewport, each deal captioned with the tables that played it."""
    viewport = PHONE if width == "phone" else DESKTOP
    seen = visit(browser, weekend_site.site, f"{NATIONAL}/s-2/board-B-21.html", viewport=viewport,
                 screenshot=f"weekend-fouled-deals-{width}")
    shown, outside = _outside(seen.page, "figure.deal .hand, figure.deal .version", viewport["width"])
    assert (shown, outside) == (10, [])
    assert seen.page.locator("figure.deal .version").all_inner_texts() == [
        "The hand record's deal, played at tables 1, 2, 3", "The fouled deal, played at tables 4, 5, 6, 7"]
    seen.assert_clean(weekend_site.site)
    seen.close()


@pytest.mark.parametrize("width", ["phone", "desktop"])
@pytest.mark.parametrize(("page", "rows"), [(f"{SWISS}/index.html", 8), (f"{NATIONAL}/index.html", 28)])
def test_ranking_points_and_player_links_are_on_screen(weekend_site: SampleSite, browser: Any, page: str, rows: int,
                                                       width: str) -> None:
    """Issue #34 item 10: the points each result earned beside the standings' numbers, every row's
    inside the viewport; each ranked player's name under their pair or team is a link to their
    ranking page, and following one opens that player's page."""
    viewport = PHONE if width == "phone" else DESKTOP
    kind = "swiss" if page.startswith(SWISS) else "overall"
    seen = visit(browser, weekend_site.site, page, viewport=viewport, screenshot=f"weekend-points-{kind}-{width}")
    shown, outside = _outside(seen.page, "td.ranking-points", viewport["width"])
    assert (shown, outside) == (rows, [])
    assert set(seen.texts("th abbr[title='Ranking points this result earned']")) == {"Ranking pts"}
    assert seen.page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
    links = seen.page.locator("th.who .names a[href*='ranking/player-']")
    targets = links.evaluate_all("links => links.filter(a => a.checkVisibility()).map(a => [a.href, a.innerText])")
    assert len(targets) >= rows // 2
    for href, _ in targets:
        assert Path(href.removeprefix("file://")).is_file(), href
    name = targets[0][1]
    links.first.click()
    seen.page.wait_for_load_state("load")
    assert seen.page.url == targets[0][0]
    assert name in seen.page.locator("h1").inner_text()
    seen.assert_clean(weekend_site.site)
    seen.close()
