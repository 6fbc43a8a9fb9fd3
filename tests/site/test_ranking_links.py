"""The results pages and the ranking the site shows (issue #34 item 10): a ranked player's name links
to their ranking page, the standings show the ranking points each result earned, and a new edition
renders again the pages whose part of it moved, though no event of theirs was appended."""

from __future__ import annotations

import re
from collections import defaultdict
from datetime import UTC, datetime
from pathlib import Path

import polars as pl
import pytest

from pipelines.log.store import EventStore
from pipelines.site import build_site
from pipelines.site.paths import session_dir
from tests.site.conftest import SampleSite
from tests.site.tables import table_rows
from tests.store_files import copy_store

WEEKEND_RULES = Path(__file__).resolve().parents[2] / "sample_data" / "weekend" / "ranking_rules.toml"
LINK = re.compile(r'<a href="((?:\.\./)+)ranking/player-([^".]+)\.html">([^<]+)</a>')


def _awards(store: EventStore, label: str | None = None) -> pl.DataFrame:
    """The award rows of an edition (default: the newest), as the analysts' view holds them."""
    with store.reader() as con:
        frame: pl.DataFrame = con.sql(
            "SELECT a.*, a.player_id IN (SELECT player_id FROM ranking r WHERE r.edition = a.edition) AS ranked "
            "FROM awards a WHERE edition = coalesce(?, (SELECT max(edition) FROM awards))", params=[label]).pl()
    return frame


def _result_pages(site: Path) -> list[Path]:
    return [p for p in sorted(site.rglob("*.html")) if p.relative_to(site).parts[0] != "ranking"]


def test_every_ranked_players_name_links_to_their_ranking_page(weekend_site: SampleSite) -> None:
    awards = _awards(weekend_site.store)
    linked: dict[str, set[str]] = defaultdict(set)
    for page in _result_pages(weekend_site.site):
        for root, player, name in LINK.findall(page.read_text()):
            target = (page.parent / f"{root}ranking/player-{player}.html").resolve()
            assert target.is_file(), (page, player)  # no dead link
            assert name in target.read_text()  # the page is that player's
            linked[page.relative_to(weekend_site.site).parts[0]].add(player)
    # On each event's pages: exactly the players its awards rank (a player with no points has no page).
    for event, rows in awards.group_by("event_id"):
        ranked = set(rows.filter(pl.col("ranked"))["player_id"])
        assert linked[f"e-{event[0]}"] == ranked and ranked
    assert sum(len(v) for v in linked.values()) == awards.filter(pl.col("ranked")).height == 87
    # A pair's row of the standings names both players, each linked to their own page.
    html = (weekend_site.site / "e-national-pairs-2026" / "s-1" / "index.html").read_text()
    assert ('<span class="names"><bdi><a href="../../ranking/player-NBF10044.html">Felix Fischer</a> – '
            '<a href="../../ranking/player-NBF10022.html">Emil Hansen</a></bdi></span>') in html


def _points_shown(html: str, table: str) -> dict[tuple[str, str, str], str]:
    return {(r.table["data-section"], r.table["data-direction"], r.first("who").key or ""):
            r.first("ranking-points").text for r in table_rows(html, table) if r.has("ranking-points")}


def _expected(awards: pl.DataFrame, event: str, session: str) -> dict[tuple[str, str, str], float]:
    mine = awards.filter((pl.col("event_id") == event) & (pl.col("session_id").fill_null("") == session))
    return {(s or "", d, c): a for s, d, c, a in mine.group_by("section", "direction", "contestant_id")
            .agg(pl.col("award").max()).iter_rows()}


@pytest.mark.parametrize(("event", "session"), [("hillside-pairs-2026-11-20", "1"),
                                                ("riverside-pairs-2026-11-20", "1"), ("swiss-teams-2026", "1")])
def test_a_one_session_events_standings_show_the_points_each_result_earned(weekend_site: SampleSite, event: str,
                                                                           session: str) -> None:
    html = (weekend_site.site / session_dir(event, session) / "index.html").read_text()
    assert '<abbr title="Ranking points this result earned">Ranking pts</abbr></th>' in html
    shown = _points_shown(html, "standings")
    expected = _expected(_awards(weekend_site.store), event, session)
    assert len(shown) == len(expected) == len(table_rows(html, "standings"))  # every row has its points
    assert {k: float(v) for k, v in shown.items()} == pytest.approx(expected, abs=0.005)
    assert max(expected.values()) > 0


def test_the_national_pairs_points_are_on_its_overall_standings(weekend_site: SampleSite) -> None:
    """A multi-session event is ranked on its overall standings (the award's session is ''): the
    points are there, not on either session's standings."""
    event = weekend_site.site / "e-national-pairs-2026"
    html = (event / "index.html").read_text()
    shown = {}
    for table in html.split('<table class="standings overall">')[1:]:  # one per section and direction
        found = re.search(r"<caption>Section <bdi>(\w+)</bdi> · (NS|EW)</caption>", table)
        assert found is not None
        for row in table_rows('<table class="overall">' + table, "overall"):
            shown[(found[1], found[2], row.first("who").key)] = float(row.first("ranking-points").text)
    expected = _expected(_awards(weekend_site.store), "national-pairs-2026", "")
    assert len(shown) == len(expected) == len(table_rows(html, "overall")) == 28
    assert shown == pytest.approx(expected, abs=0.005)
    assert shown[("A", "NS", "3")] == 83.33
    for session in ("s-1", "s-2"):
        assert 'class="num ranking-points"' not in (event / session / "index.html").read_text()


def _publish(store: EventStore, label: str, at: datetime, *, club_base: float | None = None) -> None:
    """Another edition of the weekend's rule set, as of `at` (with the club events' base award changed)."""
    from pipelines.ranking.edition import compute_edition
    from pipelines.ranking.publish import publish_edition
    from pipelines.ranking.rules import load_rules

    rules = load_rules(WEEKEND_RULES)
    if club_base is not None:
        club = rules.categories["club"].model_copy(update={"base": float(club_base)})
        rules = rules.model_copy(update={"version": f"2026-club-{club_base:g}",
                                         "categories": {**rules.categories, "club": club}})
    publish_edition(store, compute_edition(store, rules, as_of=at), label=label, at=at)


def test_a_new_edition_renders_again_only_the_pages_whose_part_of_it_moved(weekend_site: SampleSite,
                                                                          tmp_path: Path) -> None:
    store, site = copy_store(weekend_site.store.path, tmp_path / "events.duckdb"), tmp_path / "site"
    assert build_site(store, site).rendered == 5
    assert build_site(store, site).rendered == 0
    riverside = site / session_dir("riverside-pairs-2026-11-20", "1") / "index.html"
    before = _points_shown(riverside.read_text(), "standings")
    # The club events' base award goes from 20 to 30: their sessions' points move; the national
    # events' do not, nor does who is ranked. No session's log has a new event.
    _publish(store, "nbf-2026-11-30", datetime(2026, 11, 30, 9, 0, tzinfo=UTC), club_base=30)
    report = build_site(store, site)
    assert report.rendered == 2
    # Their standings, the only pages that show an award; every other file as it was.
    assert sorted(f for f in report.written if not f.startswith("ranking/")) == [
        "e-hillside-pairs-2026-11-20/s-1/index.html", "e-riverside-pairs-2026-11-20/s-1/index.html",
        "site-manifest.json"]
    after = _points_shown(riverside.read_text(), "standings")
    assert before.keys() == after.keys()
    assert sorted(set(before.values())) == ["0.00", "13.33", "20.00", "6.67"]
    assert sorted(set(after.values())) == ["0.00", "10.00", "20.00", "30.00"]
    assert [k for k in before if (float(before[k]) > 0) != (float(after[k]) > 0)] == []  # the same pairs score
    assert {k: float(v) for k, v in after.items()} == pytest.approx(
        _expected(_awards(store, "nbf-2026-11-30"), "riverside-pairs-2026-11-20", "1"))
    # An edition that gives every result the same awards and ranks the same players renders nothing.
    _publish(store, "nbf-2026-12-07", datetime(2026, 12, 7, 9, 0, tzinfo=UTC), club_base=30)
    again = build_site(store, site)
    assert again.rendered == 0
    assert [f for f in again.written if not f.startswith("ranking/")] == ["site-manifest.json"]


def test_a_store_without_the_editions_rows_rebuilds_the_edition_for_them(weekend_site: SampleSite,
                                                                        tmp_path: Path) -> None:
    """The ranking's tables are derived data: a store that lacks the shown edition's rows (written
    elsewhere, or cleared) gets the same links and points from the edition rebuilt from the log."""
    store, site = copy_store(weekend_site.store.path, tmp_path / "events.duckdb"), tmp_path / "site"
    with store.writer() as con:  # derived rows only; the log is untouched
        con.execute("DELETE FROM projection_ranking_awards")
        con.execute("DELETE FROM projection_ranking")
    build_site(store, site)
    for page in ("e-swiss-teams-2026/s-1/index.html", "e-national-pairs-2026/index.html",
                 "e-national-pairs-2026/s-2/board-B-21.html"):
        rebuilt, published = (site / page).read_text(), (weekend_site.site / page).read_text()
        assert LINK.findall(rebuilt) == LINK.findall(published) != []
        assert re.findall(r'ranking-points">([^<]*)<', rebuilt) == re.findall(r'ranking-points">([^<]*)<', published)
