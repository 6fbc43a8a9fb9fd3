"""The federation ranking on the results site: rows as the edition ranks them, movement since the
previous edition, each player's itemised awards and history, the same bytes on a rebuild, names as text."""

from __future__ import annotations

import csv
import shutil
from dataclasses import dataclass
from datetime import UTC, datetime
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import polars as pl
import pytest

from pipelines.log.store import EventStore
from pipelines.ranking.edition import RankingEdition, compute_edition
from pipelines.ranking.members import import_member_list
from pipelines.ranking.publish import publish_edition, rebuild_edition
from pipelines.ranking.rules import load_rules
from pipelines.site import build_site
from pipelines.site.build import MANIFEST
from pipelines.site.paths import player_page
from pipelines.site.views import fmt
from tests.ranking.scenario import CET, build_session
from tests.site.reader import visit

OLD, NEW = "nbf-2026-11-21", "nbf-2026-11-23"
SCRIPT = "<script>alert(1)</script>"
IMG = "\"'><img src=x onerror=alert(1)>"
RTL = "\u202eevil\u202c Smith"


@dataclass(frozen=True)
class RankedSite:
    """The sample weekend's store (two published editions) and its site."""

    store: EventStore
    site: Path
    old: RankingEdition
    new: RankingEdition


@pytest.fixture(scope="module")
def ranked_site(tmp_path_factory: pytest.TempPathFactory) -> RankedSite:
    """The demo's weekend: editions nbf-2026-11-21 and nbf-2026-11-23 published, the site written."""
    from pipelines.edges.demo import run_demo

    workdir = tmp_path_factory.mktemp("weekend")
    run_demo(workdir, now=datetime(2026, 11, 24, 9, 0, tzinfo=UTC))
    store = EventStore(workdir / "bridgeledger.duckdb")
    return RankedSite(store, workdir / "outputs" / "site", rebuild_edition(store, OLD), rebuild_edition(store, NEW))


class _Tables(HTMLParser):
    """Every table's body rows as lists of cell texts (the text a reader or a screen reader gets)."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: dict[str, list[list[str]]] = {}
        self.links: list[str] = []
        self._table: str | None = None
        self._row: list[str] | None = None
        self._cell: list[str] | None = None
        self._hidden = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = dict(attrs)
        if tag == "a" and attributes.get("href"):
            self.links.append(str(attributes["href"]))
        if tag == "table":
            self._table = str(attributes.get("class") or "")
            self.tables[self._table] = []
        elif tag == "tr" and self._table is not None:
            self._row = []
        elif tag in ("td", "th") and self._row is not None:
            self._cell = []
        elif tag == "span" and attributes.get("aria-hidden") == "true":
            self._hidden += 1

    def handle_endtag(self, tag: str) -> None:
        if tag == "span" and self._hidden:
            self._hidden -= 1
        elif tag in ("td", "th") and self._row is not None and self._cell is not None:
            self._row.append("".join(self._cell).strip())
            self._cell = None
        elif tag == "tr" and self._table is not None and self._row is not None:
            self.tables[self._table].append(self._row)
            self._row = None
        elif tag == "table":
            self._table = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None and not self._hidden:
            self._cell.append(data)


def _read(path: Path) -> _Tables:
    parsed = _Tables()
    parsed.feed(path.read_text(encoding="utf-8"))
    return parsed


def _body(rows: list[list[str]]) -> list[list[str]]:
    return rows[1:]  # the header row


def test_ranking_rows_are_the_editions_ranking_in_place_order(ranked_site: RankedSite) -> None:
    page = _read(ranked_site.site / "ranking" / "index.html")
    rows = _body(page.tables["ranking"])
    ranking = ranked_site.new.ranking.sort(["place", "player_id"])
    assert len(rows) == ranking.height == 41
    tied = set(ranking.filter(pl.col("place").is_duplicated())["place"])
    expected = [[f"{p}=" if p in tied else str(p), n, c, fmt(pts), str(a)]
                for p, n, c, pts, a in ranking.select("place", "name", "club", "points", "awards").iter_rows()]
    # place, movement, name, club, points, awards
    assert [[r[0], r[2], r[3], r[4], r[5]] for r in rows] == expected
    assert rows[0][:5] == ["1", "same place", "Elena Hansen", "Lakeside BC", "206.67"]
    hrefs = [h for h in page.links if h.startswith("player-")]
    assert hrefs == [player_page(p) for p in ranking["player_id"]]


def test_movement_says_who_climbed_fell_or_is_new(ranked_site: RankedSite) -> None:
    rows = {r[2]: r[1] for r in _body(_read(ranked_site.site / "ranking" / "index.html").tables["ranking"])}
    old = dict(ranked_site.old.ranking.select("player_id", "place").iter_rows())
    expected = {}
    for player_id, name, place in ranked_site.new.ranking.select("player_id", "name", "place").iter_rows():
        before = old.get(player_id)
        if before is None:
            expected[name] = "new in the ranking"
        elif before == place:
            expected[name] = "same place"
        else:
            word, change = ("up", before - place) if before > place else ("down", place - before)
            expected[name] = f"{word} {change} place{'s' if change != 1 else ''}"
    assert rows == expected
    assert rows["Rosa Ahmed"] == "up 7 places"  # 9th on Saturday, 2nd on Monday
    assert sorted(v for v in rows.values() if v == "new in the ranking") == ["new in the ranking"] * 4
    html = (ranked_site.site / "ranking" / "index.html").read_text(encoding="utf-8")
    assert '<td class="move up"><span class="arrow" aria-hidden="true" title="up 7 places">▲ 7</span>' in html
    assert '<td class="move new"><span class="arrow" aria-hidden="true" title="new in the ranking">new</span>' in html


def test_movement_is_said_in_the_pages_language_with_its_plural_forms() -> None:
    from pipelines.site.ranking_pages import RANKING_WORDS, movement_rows, ranking_words

    assert RANKING_WORDS["pl"].keys() == RANKING_WORDS["en"].keys()
    ranking = pl.DataFrame({"player_id": [str(n) for n in range(1, 8)], "name": list("ABCDEFG"), "club": [None] * 7,
                            "place": list(range(1, 8)), "points": [10.0] * 7, "awards": [1] * 7})
    # climbed 1, 2, 5, 12 and 22 places; fell 3; new
    previous = pl.DataFrame({"player_id": ["1", "2", "3", "4", "5", "6"], "place": [2, 4, 8, 16, 27, 3]})
    said = {r["name"]: r["move_label"] for r in movement_rows(ranking, previous, ranking_words("pl"))}
    assert said == {"A": "w górę o 1 miejsce", "B": "w górę o 2 miejsca", "C": "w górę o 5 miejsc",
                    "D": "w górę o 12 miejsc", "E": "w górę o 22 miejsca", "F": "w dół o 3 miejsca",
                    "G": "nowy w rankingu"}
    english = {r["name"]: r["move_label"] for r in movement_rows(ranking, previous)}
    assert english["A"] == "up 1 place" and english["E"] == "up 22 places" and english["G"] == "new in the ranking"
    assert ranking_words("pl-PL")["player"] == "Zawodnik" and ranking_words("fr")["player"] == "Player"


def test_a_players_page_itemises_the_editions_awards_and_history(ranked_site: RankedSite) -> None:
    new = ranked_site.new
    player_id = new.ranking.filter(pl.col("name") == "Rosa Ahmed")["player_id"][0]
    page = _read(ranked_site.site / "ranking" / player_page(player_id))
    awards = new.awards.filter(pl.col("player_id") == player_id).sort("award_date", "event_id", "session_id")
    assert awards.height == 2
    shown = _body(page.tables["awards"])
    expected = [[str(d), f"{p}=" if t else str(p), str(f), fmt(b), fmt(w, 3), fmt(sh, 3), f"{dc * 100:.0f} %",
                 fmt(pts)]
                for d, p, t, f, b, w, sh, dc, pts in awards.select(
                    "award_date", "place", "tied", "field", "base_award", "weight", "share", "decay",
                    "points").iter_rows()]
    assert [r[1:] for r in shown] == expected
    assert [r[0].startswith(name) for r, name in zip(shown, awards["event_name"], strict=True)] == [True, True]
    assert sum(float(r[-1]) for r in shown) == pytest.approx(new.ranking.filter(
        pl.col("player_id") == player_id)["points"][0] * new.rules.points_divisor, abs=0.01)
    history = _body(page.tables["history"])
    old_points = ranked_site.old.ranking.filter(pl.col("player_id") == player_id)["points"][0]
    new_points = new.ranking.filter(pl.col("player_id") == player_id)["points"][0]
    assert history == [[OLD, fmt(old_points)], [NEW, fmt(new_points)]]
    svg = (ranked_site.site / "ranking" / "plots" / player_page(player_id).replace(".html", ".svg")).read_bytes()
    assert svg.startswith(b"<?xml") and b"published editions" in svg


def test_a_newcomers_history_says_not_ranked_before(ranked_site: RankedSite) -> None:
    old = set(ranked_site.old.ranking["player_id"])
    newcomer = next(p for p in ranked_site.new.ranking["player_id"] if p not in old)
    history = _body(_read(ranked_site.site / "ranking" / player_page(newcomer)).tables["history"])
    assert history[0] == [OLD, "not ranked"] and history[1][0] == NEW and float(history[1][1]) > 0


def test_the_index_links_the_ranking_and_a_rebuild_writes_the_same_bytes(ranked_site: RankedSite,
                                                                          tmp_path: Path) -> None:
    assert "ranking/index.html" in _read(ranked_site.site / "index.html").links
    again = build_site(ranked_site.store, ranked_site.site)
    # The manifest says the ranking's editions did not change; it now keeps the live stamps too.
    assert again.written in ([], [MANIFEST]) and again.rendered == 0
    assert build_site(ranked_site.store, ranked_site.site).written == []
    fresh = build_site(ranked_site.store, tmp_path / "fresh")
    ranking = sorted(p.relative_to(ranked_site.site) for p in (ranked_site.site / "ranking").rglob("*") if p.is_file())
    assert ranking == sorted(p.relative_to(tmp_path / "fresh") for p in (tmp_path / "fresh" / "ranking").rglob("*")
                             if p.is_file())
    assert len(ranking) == 1 + 2 * 41  # the ranking, and a page and a plot per player
    assert all((ranked_site.site / p).read_bytes() == (tmp_path / "fresh" / p).read_bytes() for p in ranking)
    assert fresh.written.count("ranking/index.html") == 1


def test_a_site_without_editions_has_no_ranking(tmp_path: Path) -> None:
    store = EventStore(tmp_path / "events.duckdb")
    build_session(store, tmp_path)
    build_site(store, tmp_path / "site")
    assert not (tmp_path / "site" / "ranking").exists()
    assert not any("ranking" in link for link in _read(tmp_path / "site" / "index.html").links)


def _hostile_members(path: Path, source: Path) -> Path:
    """The scenario's member list with three members renamed: a script, an attribute breaker, RTL marks."""
    rows = list(csv.reader(source.read_text(encoding="utf-8").splitlines()))
    renamed = {"1011": SCRIPT, "1012": IMG, "1071": RTL}
    with path.open("w", encoding="utf-8", newline="") as out:
        csv.writer(out).writerows([[r[0], renamed.get(r[0], r[1]), *r[2:]] for r in rows])
    return path


@pytest.mark.browser
def test_hostile_player_names_are_text(tmp_path: Path, browser: Any) -> None:
    store = EventStore(tmp_path / "events.duckdb")
    build_session(store, tmp_path)
    import_member_list(store, _hostile_members(tmp_path / "renamed.csv", tmp_path / "members.csv"), federation="SBU",
                       at=datetime(2026, 11, 21, 22, 0, tzinfo=CET), recorded_at=datetime(2026, 11, 22, tzinfo=UTC))
    rules, as_of = load_rules("sbu"), datetime(2026, 11, 22, 12, 0, tzinfo=CET)
    edition = compute_edition(store, rules, as_of=as_of)
    publish_edition(store, edition, label="edition-1", at=as_of)
    assert {SCRIPT, IMG, RTL} <= set(edition.ranking["name"])
    site = tmp_path / "site"
    build_site(store, site)
    for path in (site / "ranking").glob("*.html"):
        html = path.read_text(encoding="utf-8")
        assert "<script>" not in html and "<img src=x" not in html, path.name
    names = [r[1] for r in _body(_read(site / "ranking" / "index.html").tables["ranking"])]  # no movement column
    assert {SCRIPT, IMG, RTL} <= set(names)
    for player_id in ("1011", "1012", "1071"):
        seen = visit(browser, site, f"ranking/{player_page(player_id)}")
        assert seen.texts("h1")[0] in {SCRIPT, IMG, RTL}
        seen.assert_clean(site)
        seen.close()
    shutil.rmtree(site)


@pytest.mark.browser
def test_the_ranking_page_in_a_browser(ranked_site: RankedSite, browser: Any) -> None:
    seen = visit(browser, ranked_site.site, "ranking/index.html", screenshot="ranking-desktop")
    ranking = ranked_site.new.ranking.sort(["place", "player_id"])
    assert seen.texts("table.ranking tbody th") == ranking["name"].to_list()
    assert seen.page.locator("table.ranking tbody tr").first.is_visible()
    assert seen.texts("table.ranking tbody td.points") == [fmt(p) for p in ranking["points"]]
    assert seen.texts("table.ranking tbody td.move.new .arrow") == ["new"] * 4
    seen.assert_clean(ranked_site.site)
    seen.page.click("text=Rosa Ahmed")
    assert seen.texts("h1") == ["Rosa Ahmed"] and seen.texts("strong.player-place") == ["2"]
    assert seen.page.locator("figure.plot img").evaluate("img => img.complete && img.naturalWidth > 0")
    seen.close()


def test_a_correction_moves_players_and_drops_a_page_that_a_rebuilt_history_repeats(tmp_path: Path) -> None:
    from tests.ranking.test_editions import correct_table_four

    store = EventStore(tmp_path / "events.duckdb")
    build_session(store, tmp_path)
    rules, as_of = load_rules("sbu"), datetime(2026, 11, 22, 12, 0, tzinfo=CET)
    publish_edition(store, compute_edition(store, rules, as_of=as_of), label="edition-1", at=as_of)
    site = tmp_path / "site"
    build_site(store, site)
    assert (site / "ranking" / player_page("1101")).is_file()  # NS pair 10: 17th in edition 1
    correct_table_four(store)
    publish_edition(store, compute_edition(store, rules, as_of=as_of), label="edition-2", at=as_of)
    report = build_site(store, site)
    assert report.removed == [f"ranking/{kind}-{p}.{ext}" for kind, ext in (("player", "html"), ("plots/player", "svg"))
                              for p in ("1101", "1102")]  # pair NS 10 falls out of the ranking
    assert not (site / "ranking" / player_page("1101")).exists()
    moves = {r[2]: r[1] for r in _body(_read(site / "ranking" / "index.html").tables["ranking"])}
    moved = {name: move for name, move in moves.items() if move != "same place"}
    assert moved == {  # exactly the players whose awards the correction changed (tests/ranking/test_editions.py)
        "Nowak Anna 4": "new in the ranking", "Nowak Jan 4": "new in the ranking",  # 7th (no points) -> 4th
        "Zieliński Anna 1": "up 2 places", "Zieliński Jan 1": "up 2 places",
        "Zieliński Anna 11": "down 2 places", "Zieliński Jan 11": "down 2 places",
        "Nowak Anna 9": "down 6 places", "Nowak Jan 9": "down 6 places"}
    history = _body(_read(site / "ranking" / player_page("1041")).tables["history"])
    assert history == [["edition-1", "not ranked"], ["edition-2", "24.00"]]
    # The history read from the `ranking` table equals the one rebuilt from the log without it.
    with store.writer() as con:
        con.execute("DROP TABLE projection_ranking CASCADE")
    build_site(store, tmp_path / "rebuilt")
    for page in sorted((site / "ranking").rglob("*.*")):
        assert page.read_bytes() == (tmp_path / "rebuilt" / page.relative_to(site)).read_bytes(), page.name


def test_an_edition_that_does_not_rebuild_leaves_the_results_and_the_last_ranking_pages(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    from pipelines.ranking import publish
    from pipelines.ranking.publish import EditionMismatch

    store = EventStore(tmp_path / "events.duckdb")
    build_session(store, tmp_path)
    rules, as_of = load_rules("sbu"), datetime(2026, 11, 22, 12, 0, tzinfo=CET)
    publish_edition(store, compute_edition(store, rules, as_of=as_of), label="edition-1", at=as_of)
    site = tmp_path / "site"
    build_site(store, site)
    before = (site / "ranking" / "index.html").read_bytes()
    publish_edition(store, compute_edition(store, rules, as_of=as_of), label="edition-2", at=as_of)

    def mismatch(store: EventStore, label: str) -> RankingEdition:
        raise EditionMismatch(f"edition {label!r} rebuilt to something else")

    # The site imports the ranking's package when a log has an edition, and calls it from there.
    monkeypatch.setattr(publish, "rebuild_edition", mismatch)
    report = build_site(store, site)
    assert "ranking pages not written: edition 'edition-2' rebuilt to something else" in caplog.text
    assert (site / "ranking" / "index.html").read_bytes() == before and "ranking/index.html" not in report.written
    assert "ranking/index.html" in _read(site / "index.html").links
    fresh = build_site(store, tmp_path / "fresh")  # a new folder has no ranking to keep: no link
    assert not (tmp_path / "fresh" / "ranking").exists() and fresh.written
    assert not any("ranking" in link for link in _read(tmp_path / "fresh" / "index.html").links)
