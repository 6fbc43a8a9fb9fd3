"""The sample weekend's site as a reader sees it in headless Chromium: every page type."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import polars as pl
import pytest

from pipelines.log.store import to_epoch_us
from pipelines.replay.projections import score_store
from pipelines.site import build_site
from tests.site.club_session import EVENT, PUBLISHED, SESSION
from tests.site.conftest import SESSION_DIR, SampleSite
from tests.site.reader import PHONE, visit

pytestmark = pytest.mark.browser


def _expected_standings(site: SampleSite, direction: str) -> list[tuple[str, str]]:
    standings = score_store(site.store).standings.filter(
        (pl.col("event_id") == EVENT) & (pl.col("session_id") == SESSION) & (pl.col("direction") == direction))
    rows = standings.sort(["rank", "contestant_id"]).select("rank", "tied", "contestant_id").rows()
    ordered = sorted(rows, key=lambda r: (r[0], int(r[2])))
    return [(f"{rank}=" if tied else str(rank), contestant) for rank, tied, contestant in ordered]


def test_index_lists_the_event_with_its_final_badge(sample_site: SampleSite, browser: Any) -> None:
    seen = visit(browser, sample_site.site, "index.html", screenshot="index-desktop")
    assert seen.texts("table.events tbody th") == ["Club Championship 2026"]
    assert seen.texts("table.events .badge") == ["final"]
    assert seen.page.get_attribute("html", "lang") == "en"
    seen.assert_clean(sample_site.site)
    seen.page.click("text=Club Championship 2026")
    assert seen.texts("table.sessions tbody th") == ["Session 1"]
    seen.close()


def test_event_page_lists_its_sessions(sample_site: SampleSite, browser: Any) -> None:
    seen = visit(browser, sample_site.site, f"e-{EVENT}/index.html", screenshot="event-desktop")
    assert seen.texts("h1") == ["Club Championship 2026"]
    assert seen.texts("table.sessions tbody td .badge") == ["final"]
    seen.assert_clean(sample_site.site)
    seen.close()


def test_session_standings_rows_in_place_order(sample_site: SampleSite, browser: Any) -> None:
    seen = visit(browser, sample_site.site, f"{SESSION_DIR}/index.html", screenshot="session-desktop")
    assert seen.texts("table.standings caption") == ["Section A · NS", "Section A · EW"]
    for index, direction in enumerate(("NS", "EW")):
        table = seen.page.locator("table.standings").nth(index)
        shown = list(zip(table.locator("tbody td.place").all_inner_texts(),
                         table.locator("tbody th > a").all_inner_texts(), strict=True))
        assert shown == _expected_standings(sample_site, direction)
    ns_top = seen.page.locator("table.standings").nth(0).locator("tbody tr").first
    assert ns_top.locator("th > a").inner_text() == "7" and ns_top.locator("td.pct").inner_text() == "59.19"
    ew = seen.page.locator("table.standings").nth(1)
    assert ew.locator("tbody td.place").all_inner_texts()[3:5] == ["4=", "4="]  # pairs 1 and 11 share 4th
    assert seen.texts("dl.period dd")[:2] == ["2026-11-21 21:00 CET", "2026-11-21 21:30 CET"]
    assert seen.texts(".meta .badge") == ["final"]
    seen.assert_clean(sample_site.site)
    seen.close()


def test_traveller_shows_the_hand_and_the_solvers_table(sample_site: SampleSite, browser: Any) -> None:
    from endplay.dds import calc_dd_table, par
    from endplay.types import Deal, Player, Vul

    seen = visit(browser, sample_site.site, f"{SESSION_DIR}/board-A-1.html", screenshot="board-desktop")
    assert seen.texts("figure.deal .hand.n .line") == ["♠ K652", "♥ K73", "♦ K54", "♣ 742"]
    assert seen.texts("figure.deal .hand.w .line") == ["♠ A10943", "♥ 10654", "♦ 72", "♣ 53"]
    assert seen.texts("figure.deal .dealer") == ["N"] and seen.texts("figure.deal .vul") == ["None"]
    oracle = calc_dd_table(Deal("N:K652.K73.K54.742 J8.J98.AT83.JT98 Q7.AQ2.QJ96.AKQ6 AT943.T654.72.53"))
    grid = oracle.to_list()  # [S, H, D, C, NT][N, E, S, W]
    for row in seen.page.locator("table.dd-table tbody tr").all():
        seat = "NESW".index(row.locator("th").inner_text())
        shown = [int(t) for t in row.locator("td").all_inner_texts()]
        assert shown == [grid[4][seat], grid[0][seat], grid[1][seat], grid[2][seat], grid[3][seat]]
    assert seen.texts(".par-score") == [str(par(oracle, Vul.none, Player.north).score)]
    rows = seen.page.locator("table.traveller tbody tr:not(.note)")
    assert rows.count() == 13
    corrected = seen.page.locator("tr#t-4")
    assert "corrected" in (corrected.get_attribute("class") or "")
    assert corrected.locator("td.result").inner_text() == "="  # the correction made it nine tricks
    assert seen.page.locator("figure.plot img").evaluate("img => img.naturalWidth") > 0
    seen.assert_clean(sample_site.site)
    seen.close()


def test_score_card_running_total_ends_at_the_pairs_score(sample_site: SampleSite, browser: Any) -> None:
    seen = visit(browser, sample_site.site, f"{SESSION_DIR}/card-A-ns-7.html", screenshot="card-desktop")
    running = seen.texts("table.score-card td.running")
    assert len(running) == 26
    assert running[-1] == seen.texts(".card-score")[0] == "369.33"
    assert seen.texts("table.score-card td.running-pct")[-1] == "59.19"
    totals = [float(t) for t in running]
    values = [float(t) for t in seen.page.locator("table.score-card tbody tr").evaluate_all(
        "rows => rows.map(r => r.cells[8].innerText)")]
    assert totals == pytest.approx([sum(values[: i + 1]) for i in range(len(values))], abs=0.006)
    seen.page.locator("table.score-card tbody th a").first.click()
    assert seen.page.url.endswith("board-A-1.html#t-7")
    seen.assert_clean(sample_site.site)
    seen.close()


def test_audit_page_shows_both_corrections(sample_site: SampleSite, browser: Any) -> None:
    seen = visit(browser, sample_site.site, f"{SESSION_DIR}/audit.html", screenshot="audit-desktop")
    decisions = seen.page.locator("table.audit tbody tr").evaluate_all("rows => rows.map(r => r.className)")
    assert decisions == ["applied", "rejected"]
    assert seen.texts("table.audit thead th") == ["Board", "Before → after (Score NS, MP NS)", "Decision", "Raised"]
    first = seen.page.locator("table.audit tbody tr").first
    assert first.locator("th a").inner_text() == "Board 1"
    assert first.locator("th a").get_attribute("href") == "board-A-1.html#t-4"  # the table's row, linked
    # Bridge notation, as a player writes it: suit symbols, whole numbers, the result against the contract.
    assert first.locator(".before").inner_text() == "3NT N -2 · -100 · 1 MP"  # audit.csv: 3NT,N,7,-100,1.00
    assert first.locator(".after").inner_text() == "3NT N = · 400 · 13 MP"  # 3NT,N,9,400,13.00
    assert first.locator(".decision").inner_text() == "correction: applied"
    assert first.locator(".rule").inner_text() == "Law 79C1: raised within the correction period"
    assert first.locator("time").inner_text() == "2026-11-21 21:10 CET"  # the event's zone, not raw ISO
    assert "demo-1" not in seen.page.inner_text("main")  # no internal id on the page (audit.csv keeps it)
    seen.page.locator("table.audit tbody tr th a").first.click()
    assert seen.page.url.endswith("board-A-1.html#t-4")
    seen.assert_clean(sample_site.site)
    seen.close()


@pytest.mark.parametrize("page", ["index.html", f"{SESSION_DIR}/index.html", f"{SESSION_DIR}/board-A-1.html",
                                  f"{SESSION_DIR}/card-A-ew-3.html"])
def test_pages_fit_a_phone_without_sideways_scrolling(sample_site: SampleSite, browser: Any, page: str) -> None:
    name = "phone-" + Path(page).stem
    seen = visit(browser, sample_site.site, page, viewport=PHONE, screenshot=name)
    assert seen.page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    seen.assert_clean(sample_site.site)
    seen.close()


def test_provisional_badge_says_until_when(sample_site: SampleSite, browser: Any, tmp_path: Path) -> None:
    as_of = PUBLISHED + timedelta(minutes=12)
    build_site(sample_site.store, tmp_path / "site", as_of_us=to_epoch_us(as_of))
    seen = visit(browser, tmp_path / "site", "index.html", screenshot="index-provisional")
    assert seen.texts("table.events .badge") == ["provisional until 21:30 CET"]
    assert seen.page.get_attribute("table.events .badge time", "datetime") == "2026-11-21T21:30+01:00"
    seen.close()
    seen = visit(browser, tmp_path / "site", f"{SESSION_DIR}/index.html")
    assert seen.texts(".meta .badge") == ["provisional until 21:30 CET"]
    seen.assert_clean(tmp_path / "site")
    seen.close()


def test_published_time_is_the_events_not_the_builds(sample_site: SampleSite) -> None:
    assert isinstance(PUBLISHED, datetime)
    page = (sample_site.site / SESSION_DIR / "index.html").read_text()
    assert "2026-11-21T21:00+01:00" in page


def test_served_by_a_web_server_it_asks_nothing_of_anyone_else(sample_site: SampleSite, browser: Any) -> None:
    import functools
    import threading
    from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

    class Quiet(SimpleHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:  # the base class names it `format`
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(sample_site.site)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        origin = f"http://127.0.0.1:{server.server_address[1]}/"
        context = browser.new_context()
        page = context.new_page()
        requests: list[str] = []
        errors: list[str] = []
        page.on("request", lambda request: requests.append(request.url))
        page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
        for path in ("index.html", f"{SESSION_DIR}/index.html", f"{SESSION_DIR}/board-A-2.html",
                     f"{SESSION_DIR}/card-A-ew-12.html"):
            response = page.goto(origin + path)
            assert response is not None and response.status == 200
        assert errors == [] and requests and all(url.startswith(origin) for url in requests)
        assert any(url.endswith(".svg") for url in requests) and any(url.endswith("site.css") for url in requests)
        context.close()
    finally:
        server.shutdown()
        server.server_close()
