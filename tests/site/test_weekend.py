"""The weekend's site against the store's views (issue #34): every traveller row, standings row and
ranking row the pages show holds the views' numbers, none left out and none added; the event pages
name their pairs."""

from __future__ import annotations

import re
from collections import defaultdict
from html import unescape
from typing import Any

import polars as pl
import pytest

from pipelines.site.paths import board_page, session_dir, table_anchor
from tests.site.conftest import SampleSite
from tests.site.tables import Row, table_rows


def _view(site: SampleSite, sql: str) -> pl.DataFrame:
    with site.store.reader() as con:
        return con.sql(sql).pl()


def _number(text: str) -> float | None:
    return None if text == "" else float(text.rstrip("%").replace("=", ""))


def _same(shown: list[str], expected: list[Any]) -> bool:
    values = [_number(t) for t in shown]
    return len(values) == len(expected) and all(
        (v is None and e is None) or (v is not None and e is not None and v == pytest.approx(e, abs=0.005))
        for v, e in zip(values, expected, strict=True))


def _units(scores: pl.DataFrame) -> dict[tuple[str, str], str]:
    units = {}
    for (event, session), rows in scores.group_by("event_id", "session_id"):
        units[(str(event), str(session))] = "mp" if rows["mp_ns"].is_not_null().any() else \
            "imp" if rows["imp_ns"].is_not_null().any() else "points"
    return units


def test_every_traveller_row_is_the_views(weekend_site: SampleSite) -> None:
    scores = _view(weekend_site, "SELECT * FROM board_scores")
    units = _units(scores)
    boards: dict[tuple[str, str, str, int], list[dict[str, Any]]] = defaultdict(list)
    for row in scores.iter_rows(named=True):
        boards[(row["event_id"], row["session_id"], row["section"], row["board"])].append(row)
    compared = 0
    for (event, session, section, board), expected in boards.items():
        page = weekend_site.site / session_dir(event, session) / board_page(section, board)
        shown = [r for r in table_rows(page.read_text(), "traveller") if "note" not in r.attrs.get("class", "")]
        by_table = {r.attrs["id"]: r for r in shown}  # each row anchored by its table (`paths.table_anchor`)
        assert sorted(by_table) == sorted(table_anchor(r["table_id"]) for r in expected), page
        for row in expected:
            seen = by_table[table_anchor(row["table_id"])]
            assert seen.cells[0].text in (row["table_id"], "")
            assert _row_matches(seen, row, units[(event, session)]), (page, row["table_id"])
            compared += 1
    assert compared == scores.height == 757  # every row of the weekend's board_scores, none twice
    shown_pages = sum(1 for _ in weekend_site.site.rglob("board-*.html"))
    assert shown_pages == len(boards)  # and no traveller that the view does not have


def _row_matches(seen: Row, row: dict[str, Any], unit: str) -> bool:
    score = row["score_ns"]
    values = [c.text for c in seen.cells if "value" in c.classes]
    who = [c.key for c in seen.cells if "who" in c.classes]
    expected = {"mp": [row["pct_ns"], row["pct_ew"]], "imp": [row["imp_ns"], row["imp_ew"]],
                "points": [row["points_ns"], row["points_ew"]]}[unit]
    mps = [c.text for c in seen.cells if "mp" in c.classes]
    return (who == [row["ns_id"], row["ew_id"]]
            and _same([seen.first("score").text], [score])
            and _same([seen.first("score-ns").text, seen.first("score-ew").text],
                      [score if score is not None and score >= 0 else None,
                       -score if score is not None and score < 0 else None])
            and _same(values, expected)
            and (unit != "mp" or _same(mps, [row["mp_ns"], row["mp_ew"]])))


def test_every_standings_row_is_the_views(weekend_site: SampleSite) -> None:
    standings = _view(weekend_site, "SELECT * FROM standings")
    compared = 0
    for (event, session), expected in standings.group_by("event_id", "session_id"):
        page = weekend_site.site / session_dir(str(event), str(session)) / "index.html"
        shown = {(r.table["data-section"], r.table["data-direction"], r.cells[1].key): r
                 for r in table_rows(page.read_text(), "standings")}
        assert len(shown) == expected.height, page
        for row in expected.iter_rows(named=True):
            seen = shown[(row["section"], row["direction"], row["contestant_id"])]
            place = f"{row['rank']}=" if row["tied"] else str(row["rank"])
            assert seen.first("place").text == place
            assert _same([seen.first("score").text, seen.first("boards").text], [row["score"], row["boards"]])
            for css, column in (("pct", "percentage"), ("vp", "vp"), ("cumulative", "cumulative_score")):
                if seen.has(css) or row[column] is not None:
                    assert _same([seen.first(css).text], [row[column]]), (page, css, row)
            compared += 1
    assert compared == standings.height == 88


def test_every_ranking_row_is_the_views(weekend_site: SampleSite) -> None:
    html = (weekend_site.site / "ranking" / "index.html").read_text()
    found = re.search(r'<strong class="edition"><bdi>([^<]+)</bdi>', html)
    assert found is not None
    ranking = _view(weekend_site, f"SELECT * FROM ranking WHERE edition = '{found[1]}' ORDER BY place, player_id")
    shown = table_rows(html, "ranking")
    assert ranking.height == len(shown) == 41
    places = ranking["place"].to_list()
    for seen, row in zip(shown, ranking.iter_rows(named=True), strict=True):
        shared = places.count(row["place"]) > 1  # a place two players share is written `5=`
        assert seen.first("place").text == (f"{row['place']}=" if shared else str(row["place"]))
        assert next(c.key for c in seen.cells if c.key is not None) == (row["name"] or row["player_id"])
        assert _same([seen.first("points").text], [row["points"]])


def test_overall_standings_name_link_and_rate_every_pair(weekend_site: SampleSite) -> None:
    event = weekend_site.site / "e-national-pairs-2026"
    html = (event / "index.html").read_text()
    assert '<th scope="col" class="num opt"><bdi>Session 1</bdi></th>' in html  # a session's column says so
    standings = _view(weekend_site, "SELECT * FROM standings WHERE event_id = 'national-pairs-2026'")
    rows = table_rows(html, "overall")
    assert len(rows) == standings.filter(pl.col("session_id") == "2").height == 28
    for seen in rows:
        who = seen.first("who")
        assert who.key and who.text != who.key  # its players beside the pair's number
        link = re.search(rf'<a href="([^"]+)"><bdi>{re.escape(who.key)}</bdi></a> <span class="names">', html)
        assert link is not None
    hrefs = re.findall(r'<th scope="row" class="who"><a href="([^"]+)">', html)
    assert len(hrefs) == 28 and all((event / h).is_file() for h in hrefs)
    # A pair's % over both sessions: its total matchpoints over the tops it played for.
    pair = standings.filter((pl.col("section") == "A") & (pl.col("direction") == "NS")
                            & (pl.col("contestant_id") == "3")).sort("session_id")
    scores, percents = pair["score"].to_list(), pair["percentage"].to_list()
    tops = [s * 100 / p for s, p in zip(scores, percents, strict=True)]
    three = next(r for r in rows if r.table.get("class") == "standings overall" and r.first("who").key == "3")
    assert _same([three.first("total").text, three.first("pct").text], [sum(scores), 100 * sum(scores) / sum(tops)])


def test_a_one_session_events_page_names_its_winners(weekend_site: SampleSite) -> None:
    html = (weekend_site.site / "e-hillside-pairs-2026-11-20" / "index.html").read_text()
    winners = _view(weekend_site, "SELECT * FROM standings WHERE event_id = 'hillside-pairs-2026-11-20' "
                                  "AND rank = 1 ORDER BY direction DESC")
    shown = re.findall(r'<li>(NS|EW): <a href="(s-1/card-[^"]+)"><bdi>([^<]+)</bdi></a> <bdi>([^<]+)</bdi> · '
                       r'<strong class="winner-score">([^<]+)%</strong></li>', html)
    assert [(d, c, float(p)) for d, _, c, _, p in shown] == [
        (r["direction"], r["contestant_id"], pytest.approx(r["percentage"], abs=0.005))
        for r in winners.iter_rows(named=True)]
    assert all((weekend_site.site / "e-hillside-pairs-2026-11-20" / href).is_file() for _, href, *_ in shown)


def test_each_award_on_a_players_page_links_the_result_it_was_earned_for(weekend_site: SampleSite) -> None:
    ranking = weekend_site.site / "ranking"
    awards = _view(weekend_site, "SELECT a.* FROM awards a JOIN (SELECT max(edition) AS edition FROM awards) "
                                 "USING (edition) WHERE player_id = 'NBF10027'")
    html = (ranking / "player-NBF10027.html").read_text()
    links = re.findall(r'<th scope="row"><a href="([^"]+)"><bdi>', html)
    assert len(links) == awards.height > 0
    for href in links:
        target = (ranking / href).resolve()
        assert target.is_file(), href
        if "/card-" in href:  # the player's own pair's card: their name is on it
            assert "Elena Hansen" in target.read_text()


def test_a_fouled_board_marks_each_group_and_its_factoring(weekend_site: SampleSite) -> None:
    """National Pairs B-21: the director ruled the board fouled (Law 87), tables 1-3 against 4-7."""
    html = (weekend_site.site / "e-national-pairs-2026" / "s-2" / "board-B-21.html").read_text()
    rows = re.findall(r'<tr id="t-(\d)" class="fouled">.*?</tr>\n<tr class="note fouled"><td></td>'
                      r'<td colspan="\d+">([^<]*)</td></tr>', html, re.S)
    notes = {table: unescape(note) for table, note in rows}
    original = ("fouled board (Law 87): the original deal, tables 1, 2, 3; scored among these 3 tables and "
                "factored (Neuberg) to the board's 7 tables")
    fouled = ("fouled board (Law 87): the fouled deal, tables 4, 5, 6, 7; scored among these 4 tables and "
              "factored (Neuberg) to the board's 7 tables")
    assert notes == {"1": original, "2": original, "3": original, "4": fouled, "5": fouled, "6": fouled, "7": fouled}
    assert sorted(t for t, _ in rows[:3]) == ["1", "2", "3"]  # the groups one after the other, original first
    assert sorted(t for t, _ in rows[3:]) == ["4", "5", "6", "7"]
    assert '<span class="swatch fouled" aria-hidden="true"></span> a fouled board (Law 87)' in html
    # Table 4's 0 of 6 in its group of four, factored to seven tables: (0 + 1) × 7/4 − 1 = 0.75 of 12.
    scores = _view(weekend_site, "SELECT * FROM board_scores WHERE event_id = 'national-pairs-2026' "
                                 "AND section = 'B' AND board = 21 AND table_id = '4'")
    assert scores["mp_ns"].to_list() == [0.75]


def test_the_swiss_match_list_says_why_a_matchs_vps_do_not_add_up(weekend_site: SampleSite) -> None:
    """R3 Northern Lights v Westerly Winds, board 15 fouled between the rooms: each team +3 IMPs, so the
    match reads 7 against 12 IMPs, 9.01 and 13.53 VPs: 22.54 VPs for one match."""
    html = (weekend_site.site / "e-swiss-teams-2026" / "s-1" / "index.html").read_text()
    assert html.index('<table class="standings"') < html.index('<table class="matches"')  # standings first
    assert re.findall(r'<table class="matches" data-round="(\d+)">', html) == ["1", "2", "3", "4"]
    rows = table_rows(html, "matches")
    assert len([r for r in rows if r.has("imps")]) == 16  # 8 teams, 4 rounds: every match once
    at = next(i for i, r in enumerate(rows) if r.has("imps") and r.cells[0].key == "Northern Lights"
              and r.first("team").key and r.cells[3].key == "Westerly Winds")
    match, note = rows[at], rows[at + 1]
    assert (match.first("imps").text, match.first("vps").text) == ("7–12", "9.01–13.53")
    assert note.attrs == {"class": "note"} and note.cells[0].text == (
        "The VPs of this match add up to 22.54, the usual total is 20.00: Board 15: Law 87C, 86B2(a): fouled "
        "board, the rooms played different forms; cancelled, average-plus (+3 IMPs) to both teams")
    notes = [r for r in rows if r.attrs.get("class") == "note"]
    assert len(notes) == 1  # every other match's VPs add up to 20


def test_every_time_is_written_one_way_in_the_events_zone(weekend_site: SampleSite) -> None:
    """The weekend's conditions name Europe/Oslo (the timeline runs at +01:00): no page says UTC, and
    every time reads `YYYY-MM-DD HH:MM ZONE`, never raw ISO."""
    session = (weekend_site.site / "e-national-pairs-2026" / "s-2" / "index.html").read_text()
    assert '<time datetime="2026-11-21T19:00+01:00">2026-11-21 19:00 CET</time>' in session  # published
    audit = (weekend_site.site / "e-national-pairs-2026" / "s-2" / "audit.html").read_text()
    assert '<time datetime="2026-11-21T19:50+01:00">2026-11-21 19:50 CET</time>' in audit  # nat-s2-1 raised
    ranking = (weekend_site.site / "ranking" / "index.html").read_text()
    assert '<time datetime="2026-11-23T09:00+01:00">2026-11-23 09:00 UTC+01:00</time>' in ranking
    for page in weekend_site.site.rglob("*.html"):
        shown = re.findall(r"<time [^>]*>([^<]*)</time>", page.read_text())
        assert all(re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d (CET|UTC\+01:00)|\d\d:\d\d CET", t) for t in shown), page


def test_a_teams_card_closes_each_match_with_its_imps_and_vps(weekend_site: SampleSite) -> None:
    folder = weekend_site.site / "e-swiss-teams-2026" / "s-1"
    standings = _view(weekend_site, "SELECT * FROM standings WHERE event_id = 'swiss-teams-2026'")
    for team in standings.iter_rows(named=True):
        [card] = folder.glob(f"card-all-{team['contestant_id'].replace(' ', '_')}~*.html")
        html = card.read_text()
        matches = re.findall(r'<tr class="subtotal"><td colspan="10">Match against <bdi>([^<]+)</bdi>: '
                             r'<strong class="match-imps">(\d+)–(\d+)</strong> IMP · '
                             r'<strong class="match-vp">([\d.]+)</strong> VP</td></tr>', html)
        assert len(matches) == 4 and len({m[0] for m in matches}) == 4  # four rounds, four opponents
        # The matches add up to the team's line of the standings.
        assert sum(int(m[1]) for m in matches) == team["imps_for"]
        assert sum(int(m[2]) for m in matches) == team["imps_against"]
        assert sum(float(m[3]) for m in matches) == pytest.approx(team["vp"], abs=0.011)
    northern = next(folder.glob("card-all-Northern_Lights~*.html")).read_text()
    # Its own IMPs for and against (the +3 of the fouled board to each team: 7 for, 9 against).
    assert "Match against <bdi>Westerly Winds</bdi>: <strong class=\"match-imps\">7–9</strong> IMP · " \
           "<strong class=\"match-vp\">9.01</strong> VP" in northern


def test_the_audit_lists_every_fouled_board_ruling(weekend_site: SampleSite) -> None:
    """Every `BoardFouled` of the weekend (Law 87; between a match's rooms, Laws 87C and 86B2) is on
    its session's audit page, linked to its board, with its groups, reason and Law."""
    with weekend_site.store.reader() as con:
        fouled = con.sql("SELECT stream_id, payload->>'$.board' AS board, payload->>'$.reason' AS reason "
                         "FROM events WHERE type = 'BoardFouled'").fetchall()
    assert len(fouled) == 2
    pages = {"session:national-pairs-2026/2": ("e-national-pairs-2026/s-2", "board-B-21.html",
                                               "Law 87: fouled board; each group scored on its own",
                                               "original: 1, 2, 3; fouled: 4, 5, 6, 7"),
             "session:swiss-teams-2026/1": ("e-swiss-teams-2026/s-1", "board-15.html",
                                            "Law 87C, 86B2(a): fouled board, the rooms played different forms; "
                                            "cancelled, average-plus (+3 IMPs) to both teams",
                                            "original: 1-open, 1-closed, 2-open; fouled: 2-closed, 3-open, "
                                            "3-closed, 4-open, 4-closed")}
    for stream, board, reason in fouled:
        folder, page, rule, groups = pages[stream]
        html = unescape((weekend_site.site / folder / "audit.html").read_text())
        entry = html.split(f'<a href="{page}">Board {board}</a>', 1)[1].split("</tr>", 1)[0]
        assert f'<span class="why">Groups of tables: <bdi>{groups}</bdi></span>' in entry
        assert "ruling: applied" in entry and f'<span class="why rule">{rule}</span>' in entry
        assert f"<bdi>{reason}</bdi>" in entry and "<time datetime=" in entry


def _hands(html: str, version: str | None) -> dict[str, list[str]]:
    """The four hands of one deal figure of a traveller (`version`: a fouled group's figure; None:
    the hand record's), seat -> the suits' ranks as shown (S, H, D, C)."""
    mark = f'<figure class="deal" data-version="{version}"' if version else '<figure class="deal" aria-label'
    figure = html[html.index(mark):]
    figure = figure[:figure.index("</figure>")]
    return {seat: [line.rsplit(" ", 1)[1] for line in re.findall(r'<div class="line">(.*?)</div>', hand)]
            for seat, hand in re.findall(r'data-seat="(\w)">(.*?</div>)</div>\n', figure, re.S)}


def test_a_fouled_board_shows_both_deals(weekend_site: SampleSite) -> None:
    """National Pairs B-21 (Law 87): the hand record's deal for tables 1-3, and beside it the fouled
    form the director recorded (an East and a West card changed pockets) for tables 4-7."""
    html = (weekend_site.site / "e-national-pairs-2026" / "s-2" / "board-B-21.html").read_text()
    assert "The hand record&#39;s deal, played at tables 1, 2, 3" in html
    assert "The fouled deal, played at tables 4, 5, 6, 7" in html
    assert "Double-dummy tricks: the hand record&#39;s deal" in html
    record, fouled = _hands(html, None), _hands(html, "fouled")
    assert record["N"] == fouled["N"] and record["S"] == fouled["S"]  # only East and West differ
    changed = [(seat, suit) for seat in "EW" for suit in range(4) if record[seat][suit] != fouled[seat][suit]]
    assert 1 <= len(changed) <= 4 and {seat for seat, _ in changed} == {"E", "W"}
    with weekend_site.store.reader() as con:
        [(deals,)] = con.sql("SELECT payload->>'$.deals.fouled' FROM events WHERE type = 'BoardFouled' "
                             "AND payload->>'$.board' = '21'").fetchall()
    from models.cards import Deal, Seat, Suit
    stored = Deal.from_pbn(deals)
    assert fouled == {seat.value: [(h.ranks(s).replace("T", "10") or "—")
                                   for s in (Suit.S, Suit.H, Suit.D, Suit.C)]
                      for seat in Seat if (h := stored.hand(seat)) is not None}
    # A board that was not fouled shows one deal, without a caption.
    plain = (weekend_site.site / "e-national-pairs-2026" / "s-2" / "board-B-20.html").read_text()
    assert plain.count('<figure class="deal"') == 1 and 'class="version"' not in plain


def test_the_swiss_fouled_board_shows_the_fouled_form(weekend_site: SampleSite) -> None:
    """Swiss board 15: North's ace of spades and East's three changed pockets for the rooms after
    match 2's open room."""
    html = (weekend_site.site / "e-swiss-teams-2026" / "s-1" / "board-15.html").read_text()
    assert html.count('<figure class="deal"') == 2
    assert "The fouled deal, played at tables 2-closed, 3-closed, 3-open, 4-closed, 4-open" in html
    record, fouled = _hands(html, None), _hands(html, "fouled")
    assert record["S"] == fouled["S"] and record["W"] == fouled["W"]
    assert record["N"][0].startswith("A") and not fouled["N"][0].startswith("A")
    assert fouled["E"][0].startswith("A")


def test_a_fouled_imp_board_is_compared_within_its_group_not_factored(weekend_site: SampleSite) -> None:
    """Swiss board 15 is scored in IMPs: its groups are compared within themselves; Neuberg's
    factoring is a matchpoint formula and is not named there."""
    html = unescape((weekend_site.site / "e-swiss-teams-2026" / "s-1" / "board-15.html").read_text())
    notes = re.findall(r'<tr class="note fouled"><td></td><td colspan="\d+">([^<]*)</td></tr>', html)
    assert notes and "Neuberg" not in html
    assert all(re.match(r"fouled board \(Law 87\): the (original|fouled) deal, tables [\w, -]+; "
                        r"compared only among these \d+ tables(;|$)", note) for note in notes), notes
