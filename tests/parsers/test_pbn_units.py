"""The building blocks: chunks, scanning, sections, inheritance, tables, tag values, encodings, bridge logic."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

import parsers.pbn as pbn
from models.board import Vulnerability
from models.cards import Seat
from models.contract import Doubling, Strain
from parsers.bridge.auction import read_auction
from parsers.bridge.play import read_play
from parsers.pbn.encoding import decode
from parsers.pbn.games import parse_call_section, token_offsets
from parsers.pbn.lexer import fast_layout, fast_tags, iter_chunks, scan_chunk, unescape
from parsers.pbn.tables import parse_columns, parse_table
from parsers.pbn.values import (
    ParsedContract,
    ParsedResult,
    parse_contract,
    parse_date,
    parse_deal,
    parse_result,
    parse_sided,
    parse_vulnerable,
)
from tests.parsers._laws_of_play import trick_winner
from tests.parsers.conftest import pbn_files


def test_games_split_at_semi_empty_lines_but_not_inside_brace_comments() -> None:
    text = '[Event "a"]\n{ a comment\n\n   \nstill the comment }\n[Board "1"]\n \t\n[Event "b"]\n'
    chunks = list(iter_chunks(text))
    assert [c.line for c in chunks] == [1, 8]
    assert "still the comment" in chunks[0].text and chunks[1].text.strip() == '[Event "b"]'


def test_a_brace_inside_a_string_or_line_comment_does_not_open_a_comment() -> None:
    text = '[Event "{x"] ; {y\n\n[Board "2"]'
    assert len(list(iter_chunks(text))) == 2


def test_unclosed_brace_runs_to_the_end_and_is_reported() -> None:
    parsed = pbn.loads('[Board "1"]\n{ never closed\n\n[Board "2"]\n')
    assert [d.code for d in parsed.errors] == ["pbn.syntax.comment"] and parsed.boards == ()


@pytest.mark.parametrize("path", pbn_files(), ids=lambda p: p.name)
def test_fast_scan_agrees_with_careful_scan(path: Path) -> None:
    """Every chunk the one-findall fast path accepts gives exactly what the careful scanner gives."""
    text = decode(path.read_bytes()).text
    for chunk in iter_chunks(text):
        fast = fast_tags(chunk.text)
        if fast is None:
            continue
        careful = scan_chunk(chunk.text)
        assert fast == careful.tags and careful.issues == ()
        assert fast_layout(chunk.text, fast) == careful.layout


def test_tag_pairs_in_import_format() -> None:
    scan = scan_chunk('[   Event"x"   ] [Site "a \\"b\\" \\\\ c"]\n [\n Board\n "7"\n ]')
    assert [(n, v) for n, v, _ in scan.tags] == [("Event", "x"), ("Site", 'a "b" \\ c'), ("Board", "7")]
    assert unescape('\\\\\\"\\a') == '\\"\\a'


def test_malformed_tags_are_positioned() -> None:
    scan = scan_chunk('[Event "ok"]\n[Site]\n[Date "1999.01.01"]')
    assert [n for n, _, _ in scan.tags] == ["Event", "Date"]
    assert [(i.code, i.anchor) for i in scan.issues] == [("pbn.syntax.tag", ("offset", 13, 0))]


def test_call_sections_fast_and_annotated() -> None:
    plain = parse_call_section("N", "\n1D 1S 3H 4S\nPass Pass Pass\n")
    assert plain.tokens == ("1D", "1S", "3H", "4S", "Pass", "Pass", "Pass") and not plain.annotations
    noted = parse_call_section("W", "\n- ^S 1D ^I 1C =1= $13 {why} X!? AP")
    assert noted.tokens == ("-", "^S", "1D", "1C", "X", "AP")
    assert noted.annotations[3].prefix == "^I" and noted.annotations[3].note == 1
    assert noted.annotations[3].nags == (13,) and noted.annotations[3].comments == ("{why}",)
    assert noted.annotations[4].suffix == "!?"
    assert token_offsets("\n- ^S 1D ^I 1C") == [1, 3, 6, 12]


def test_inheritance_hash_and_double_hash() -> None:
    text = ('[Event "##Autumn"]\n[Site "Here"]\n[Board "1"]\n\n'
            '[Site "#"]\n[Board "2"]\n\n'
            '[Event "Winter"]\n[Board "3"]\n\n'
            '[Board "4"]\n\n'
            '[Hidden "##NE"]\n[Board "5"]\n\n'
            '[Hidden "#"]\n[Board "6"]\n\n'
            '[Board "7"]\n')
    games = list(pbn.iter_games(text, resolve_inheritance=True))
    assert [g.get("Event") for g in games] == ["Autumn", "Autumn", "Winter", None, None, None, None]
    assert games[1].get("Site") == "Here" and games[1].inherited == frozenset({"Event"})
    # "#" takes the nearest previous value and, being a plain value, ends the ## propagation.
    assert [g.get("Hidden") for g in games[4:]] == ["NE", "NE", None]


def test_table_header_reuse_with_hash() -> None:
    text = ('[Board "1"]\n[Deal "N:AKQJ.T98.765.432 T98.765.432.AKQJ 765.432.AKQJ.T98 432.AKQJ.T98.765"]\n'
            '[ScoreTable "Table;PairId_NS;PairId_EW;Contract;Declarer;Result"]\n1 1 2 3NT N 9\n\n'
            '[Board "2"]\n[ScoreTable "#"]\n1 1 2 4S S 10\n')
    parsed = pbn.loads(text)
    assert [(r.board, str(r.contract), r.tricks) for r in parsed.results] == [(1, "3NT", 9), (2, "4S", 10)]


def test_table_columns() -> None:
    columns, issues = parse_columns(r"-Rank\3R;+Percentage_NS\4R;Names\45;Multiplicity\2L")
    assert [(c.name, c.order, c.width, c.align) for c in columns] == [
        ("Rank", "-", 3, "R"), ("Percentage_NS", "+", 4, "R"), ("Names", "", 45, ""), ("Multiplicity", "", 2, "L")]
    assert issues == () and columns[0].to_pbn() == r"-Rank\3R"
    for bad in (r"Rank;Call\L", r"Rank;Call\ ", "Rank;Call\\"):
        assert [i.code for i in parse_columns(bad)[1]] == ["pbn.table.column"]


def test_table_rows_wrap_and_keep_quoted_cells() -> None:
    table = parse_table("TotalScoreTable", "PairId;Names;Total", '\n1 "A B ;C D"\n 60\n2 "E F - G H" 40\n')
    assert [row for row, _ in table.rows()] == [("1", '"A B ;C D"', "60"), ("2", '"E F - G H"', "40")]
    broken = parse_table("ScoreTable", "A;B", "\n1 2\n3\n4 5\n")
    assert [row for row, _ in broken.rows()] == [("1", "2"), ("4", "5")]
    assert [i.code for i in broken.issues] == ["pbn.table.row"]


def contract(text: str) -> ParsedContract:
    found = parse_contract(text)
    assert found is not None, text
    return found


def result(text: str) -> ParsedResult:
    found = parse_result(text)
    assert found is not None, text
    return found


def test_contract_spellings() -> None:
    assert contract("4SX")[:4] == (4, Strain.S, Doubling.X, "")
    assert contract("3N")[:3] == (3, Strain.NT, Doubling.NONE) and contract("3N").drift
    assert contract("2Dx").lower and not contract("2Dx").drift  # lower case is allowed in import format
    assert contract("3NR")[:3] == (3, Strain.NT, Doubling.XX)  # rpbridge writes R for redoubled
    assert contract("PASS").drift and contract("Pass").drift == ""
    assert contract("H")[:2] == (0, Strain.H)  # an end position names the trump only
    assert parse_contract("5Hearts") is None and parse_contract("8S") is None


def test_results_scores_dates_vulnerability() -> None:
    assert result("NS 9 EW 4").for_declarer(Seat.E) == 4
    assert result("EW 4").for_declarer(Seat.N) == 9
    assert result("^9").irregular and parse_result("14") is None
    assert parse_sided("NS 90 EW -90") == {"NS": 90.0, "EW": -90.0} and parse_sided("NS +550") == {"NS": 550.0}
    assert parse_sided("10. 10") is None
    assert parse_date("2012.08.??") == (None, "partial") and parse_date("20151006") == (date(2015, 10, 6), "drift")
    assert parse_date("2021-04-03 05:06") == (date(2021, 4, 3), "drift") and parse_date("14:12") == (None, "bad")
    assert parse_vulnerable("Both ") == (Vulnerability.BOTH, "'Both '") and parse_vulnerable("love")[1] == ""


def test_deals_any_first_seat_partial_and_broken() -> None:
    full = parse_deal("E:A86432.T98.A4.74 JT95.64.K93.AKQJ K7.KQ2.JT72.T982 Q.AJ753.Q865.653")
    assert full.hands is not None and full.hands[1] == ("A86432", "T98", "A4", "74")  # East
    unsorted = parse_deal("e:a68432.t98.4a.74 JT95.64.K93.AKQJ K7.KQ2.JT72.T982 Q.AJ753.Q865.653")
    assert unsorted.hands == full.hands and unsorted.problem == ("", "")
    assert parse_deal("S:AQT732.KQ86.K82. - - -").problem == ("", "")
    assert parse_deal("N:AK.QJ.T9.8765432 - - -").problem[0] == ""
    assert parse_deal("N:AKQ.J.T.98765432 AKQ.J.T.98765432 - -").problem[0] == "pbn.deal.duplicate-card"
    assert parse_deal("N:xyz").problem[0] == "pbn.deal.syntax"


def test_encodings() -> None:
    assert decode("é\r\nx\ry".encode()).text == "é\nx\ny"
    assert decode(b"\xef\xbb\xbf[Event \"\xc3\xa9\"]").encoding == "utf-8-sig"
    latin = decode(b'[Event "\xe9t\xe9 \x85 \x81"]')
    assert latin.encoding == "cp1252" and latin.text == '[Event "été \u2026 \x81"]'
    assert decode('[Event "x"]'.encode("utf-16")).text == '[Event "x"]'


def test_an_annotated_section_is_parsed_once() -> None:
    text = "1C =1= Pass $2 ^I 1H ! {a comment} Pass Pass Pass"
    first = parse_call_section("N", text, 3)
    assert parse_call_section("N", text, 3) is first  # kept: sections are read several times
    assert first.tokens == ("1C", "Pass", "1H", "Pass", "Pass", "Pass") and first.annotations[2].prefix == "^I"
    assert parse_call_section("N", text, 4) is not first  # positions of its issues name the tag
    long = text + " {" + "x" * 5000 + "}"
    assert parse_call_section("N", long, 3) is not parse_call_section("N", long, 3)
    assert parse_call_section("N", long, 3) == parse_call_section("N", long, 3)


def test_auction_reading() -> None:
    facts = read_auction(Seat.W, Seat.N, ("-", "1D", "1S", "3H", "4S", "4NT", "X", "Pass", "Pass", "5C", "X",
                                         "5H", "X", "AP"))
    assert facts.complete and facts.contract == (5, "H", "X", Seat.S) and facts.problems == ()
    assert facts.calls[:2] == ("1D", "1S") and facts.calls[-3:] == ("Pass", "Pass", "Pass")
    passed = read_auction(Seat.N, Seat.N, ("PASS", "p", "Pass", "pass"))
    assert passed.complete and passed.contract is None and len(passed.drift) == 2 and passed.lower
    assert read_auction(Seat.N, Seat.N, ("1C", "Pass", "1C")).problems[0].code == "pbn.auction.insufficient"


def test_trick_winners_and_irregular_leads() -> None:
    assert trick_winner(["SK", "H3", "S4", "S3"], "H") == 1
    assert trick_winner(["SK", "H3", "S4", "S3"], None) == 0
    assert trick_winner(["D2", "DA", "C2", "DK"], "S") == 1
    # ^L: North leads out of turn, the others follow clockwise from North (errors_10 game 49 trick 2).
    tokens = ("SQ", "D7", "DT", "D3", "SK", "DA", "HK", "C4")
    facts = read_play(Seat.W, Seat.S, "H", tokens, {1: "^R", 2: "^R", 3: "^R", 4: "^R", 5: "^L"})
    assert facts.played[4:] == ("DA", "HK", "C4", "SK")
