"""A teams session's pages: every match and the table of teams against teams (a RealBridge round)."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import Path

import pytest

from pipelines.commands.director import record_fouled_board
from pipelines.files.ingest import ingest_file
from pipelines.log.store import EventStore
from pipelines.site import build_site
from tests.conftest import CORPUS
from tests.store_files import copy_store


@pytest.fixture(scope="module")
def teams_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("teams")
    store = EventStore(folder / "events.duckdb")
    ingest_file(store, CORPUS / "pbn" / "endplay_realbridge_2021_teams.pbn",
                recorded_at=datetime(2026, 11, 22, tzinfo=UTC))
    build_site(store, folder / "site")
    [session] = (folder / "site").glob("e-*/s-*/index.html")
    return session


def _cells(html: str, table: str) -> list[list[str]]:
    """Every row of every table of that class (the matches: one table a round), cell by cell."""
    rows = []
    for part in html.split(f'<table class="{table}"')[1:]:
        body = part.split("</table>", 1)[0].split("<tbody>", 1)[1]
        rows += re.findall(r"<tr>(.*?)</tr>", body, re.S)
    cells = [re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", r, re.S) for r in rows]
    # A team's cell is its name, then the players who sat for it (span.names); the name is the key.
    return [[re.sub(r"<[^>]+>", "", re.sub(r'<span class="names">.*?</span>', "", c, flags=re.S)).strip()
             for c in row] for row in cells]


def _by_team(html: str) -> dict[tuple[str, str], list[str]]:
    """(team, opponent) -> boards, the team's IMPs, the opponent's, read from the match list's one row a match."""
    seen = {}
    for row in _cells(html, "matches"):
        if len(row) == 1:  # a match's note
            continue
        team, imps, opponent, boards = row
        mine, theirs = imps.split("–")
        seen[(team, opponent)] = [boards, mine, theirs]
        seen[(opponent, team)] = [boards, theirs, mine]
    return seen


def test_every_match_once_by_round(teams_site: Path) -> None:
    html = teams_site.read_text()
    matches = _cells(html, "matches")
    assert len(matches) == 15 and all(len(row) == 4 for row in matches)  # 15 matches, each once, no note
    assert re.findall(r'<table class="matches" data-round="([^"]*)"', html) == [""]  # the file names no round
    by_team = _by_team(html)
    assert by_team[("SWEDEN", "CROATIA")] == ["10", "36", "4"]  # the file's own ScoreIMPs (oracle tests)
    assert by_team[("CROATIA", "SWEDEN")] == ["10", "4", "36"]
    body = html.split('<table class="matches"', 1)[1].split("</table>", 1)[0]
    assert "Ola Rimstedt" in html and "<bdi>SWEDEN</bdi></a>" in html and body  # a team shows its players
    assert html.index('<table class="standings"') < html.index('<table class="matches"')  # standings first


def test_cross_table_without_vps_shows_imp_margins(teams_site: Path) -> None:
    html = teams_site.read_text()
    assert "IMP margins, team against team" in html and ">VP<" not in html
    rows = {row[0]: row[1:] for row in _cells(html, "vp-table")}
    teams = sorted(rows)
    assert rows["SWEDEN"][teams.index("CROATIA")] == "32"  # whole IMPs, as a scorer writes them
    assert rows["CROATIA"][teams.index("SWEDEN")] == "-32"
    assert rows["SWEDEN"][teams.index("SWEDEN")] == "—"


def test_a_teams_score_card_counts_each_board_once(teams_site: Path) -> None:
    card = (teams_site.parent / "card-all-SWEDEN.html").read_text()
    running = re.findall(r'<td class="num running opt">([^<]*)</td>', card)
    assert running[-1] == "32.00"  # 36 - 4: both rooms of a board carry the same IMPs, counted once


def test_a_fouled_board_between_the_rooms_is_shown_with_its_law(teams_site: Path, tmp_path: Path) -> None:
    """SWEDEN v CROATIA board 12: +620 at table 13 against -200 at table 5 gave SWEDEN IMP(820) = 13.
    Ruled fouled between the rooms, it is cancelled with +3 IMPs to each team (Laws 87C, 86B2(a)):
    SWEDEN 36 - 13 + 3 = 26 for, 4 against; CROATIA 4 + 3 = 7 for, 36 - 13 = 23 against."""
    copy_store(teams_site.parents[3] / "events.duckdb", tmp_path / "events.duckdb")  # its deals solved once
    store = EventStore(tmp_path / "events.duckdb")
    record_fouled_board(store, "2021-online-qual-open-r2", "1", 12, at=datetime(2026, 11, 22, 1, tzinfo=UTC),
                        groups={"original": ["13"], "fouled": ["5"]}, reason="a card moved between the rooms")
    build_site(store, tmp_path / "site")
    [session] = (tmp_path / "site").glob("e-*/s-*/index.html")
    html = session.read_text()
    by_team = _by_team(html)
    assert by_team[("SWEDEN", "CROATIA")] == ["10", "26", "7"]  # each team's own IMPs: both got the +3
    assert by_team[("CROATIA", "SWEDEN")] == ["10", "7", "26"]
    # The match list says which board of the match was scored under a Law, and which.
    matches = html.split('<table class="matches"', 1)[1]
    row = matches.split("<bdi>CROATIA</bdi></a>", 1)[1].split("</tr>", 1)[1]  # CROATIA's row lists the match
    assert row.startswith('\n<tr class="note">') and "Board 12: Law 87C, 86B2(a): fouled board" in row.split("</tr>")[0]
    board = (session.parent / "board-12.html").read_text()
    rule = "Law 87C, 86B2(a): fouled board, the rooms played different forms; cancelled, average-plus"
    assert board.count(rule) == 2  # the note on both rooms' rows
