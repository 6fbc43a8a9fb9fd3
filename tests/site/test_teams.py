"""A teams session's pages: every match and the table of teams against teams (a RealBridge round)."""

from __future__ import annotations

import re
import shutil
from datetime import UTC, datetime
from pathlib import Path

import pytest

from pipelines.director import record_fouled_board
from pipelines.ingest import ingest_file
from pipelines.site import build_site
from pipelines.store import EventStore
from tests.conftest import CORPUS


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
    body = html.split(f'<table class="{table}">', 1)[1].split("</table>", 1)[0].split("<tbody>", 1)[1]
    rows = re.findall(r"<tr>(.*?)</tr>", body, re.S)
    cells = [re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", r, re.S) for r in rows]
    # A team's cell is its name, then the players who sat for it (span.names); the name is the key.
    return [[re.sub(r"<[^>]+>", "", re.sub(r'<span class="names">.*?</span>', "", c, flags=re.S)).strip()
             for c in row] for row in cells]


def test_every_match_from_both_sides(teams_site: Path) -> None:
    html = teams_site.read_text()
    matches = _cells(html, "matches")
    assert len(matches) == 30  # 15 matches, each team's line
    by_team = {row[0]: row for row in matches}
    assert by_team["SWEDEN"][1:] == ["CROATIA", "10", "36.00", "4.00"]  # the file's own ScoreIMPs (oracle tests)
    assert by_team["CROATIA"][1:] == ["SWEDEN", "10", "4.00", "36.00"]
    body = html.split('<table class="matches">', 1)[1].split("</table>", 1)[0]
    team_cells = [row.split("</th>")[0] for row in re.findall(r"<tr>(.*?)</tr>", body, re.S) if "</th>" in row]
    [sweden] = [cell for cell in team_cells if '<bdi>SWEDEN</bdi></a>' in cell]
    assert "Ola Rimstedt" in sweden  # a team shows the players who sat for it
    for team, opponent, _, imps_for, imps_against in matches:
        assert by_team[team][1] == opponent
        assert by_team[opponent][3:5] == [imps_against, imps_for]


def test_cross_table_without_vps_shows_imp_margins(teams_site: Path) -> None:
    html = teams_site.read_text()
    assert "IMP margins, team against team" in html and ">VP<" not in html
    rows = {row[0]: row[1:] for row in _cells(html, "vp-table")}
    teams = sorted(rows)
    assert rows["SWEDEN"][teams.index("CROATIA")] == "32.00"
    assert rows["CROATIA"][teams.index("SWEDEN")] == "-32.00"
    assert rows["SWEDEN"][teams.index("SWEDEN")] == "—"


def test_a_teams_score_card_counts_each_board_once(teams_site: Path) -> None:
    card = (teams_site.parent / "card-all-SWEDEN.html").read_text()
    running = re.findall(r'<td class="num running opt">([^<]*)</td>', card)
    assert running[-1] == "32.00"  # 36 - 4: both rooms of a board carry the same IMPs, counted once


def test_a_fouled_board_between_the_rooms_is_shown_with_its_law(teams_site: Path, tmp_path: Path) -> None:
    """SWEDEN v CROATIA board 12: +620 at table 13 against -200 at table 5 gave SWEDEN IMP(820) = 13.
    Ruled fouled between the rooms, it is cancelled with +3 IMPs to each team (Laws 87C, 86B2(a)):
    SWEDEN 36 - 13 + 3 = 26 for, 4 against; CROATIA 4 + 3 = 7 for, 36 - 13 = 23 against."""
    shutil.copy(teams_site.parents[3] / "events.duckdb", tmp_path / "events.duckdb")  # its deals solved once
    store = EventStore(tmp_path / "events.duckdb")
    record_fouled_board(store, "2021-online-qual-open-r2", "1", 12, at=datetime(2026, 11, 22, 1, tzinfo=UTC),
                        groups={"original": ["13"], "fouled": ["5"]}, reason="a card moved between the rooms")
    build_site(store, tmp_path / "site")
    [session] = (tmp_path / "site").glob("e-*/s-*/index.html")
    by_team = {row[0]: row for row in _cells(session.read_text(), "matches")}
    assert by_team["SWEDEN"][1:] == ["CROATIA", "10", "26.00", "4.00"]
    assert by_team["CROATIA"][1:] == ["SWEDEN", "10", "7.00", "23.00"]
    board = (session.parent / "board-12.html").read_text()
    rule = "Law 87C, 86B2(a): fouled board, the rooms played different forms; cancelled, average-plus"
    assert board.count(rule) == 2  # the note on both rooms' rows
