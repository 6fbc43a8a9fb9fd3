"""Malformed input: diagnostics, never a traceback; the bad board is quarantined, the others survive."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import parsers.pbn as pbn
from models.diagnostics import Severity
from parsers.records import ParsedFile
from tests.conftest import examples
from tests.parsers.conftest import PBN

DEAL = "N:AKQJ.T98.765.432 T98.765.432.AKQJ 765.432.AKQJ.T98 432.AKQJ.T98.765"


def game(board: int, deal: str = DEAL, rows: str = "1 1 2 3NT N 9\n2 3 4 4S S 10") -> str:
    return (f'[Board "{board}"]\n[Dealer "N"]\n[Vulnerable "None"]\n[Deal "{deal}"]\n'
            f'[ScoreTable "Table;PairId_NS;PairId_EW;Contract;Declarer;Result"]\n{rows}\n')


def sound(parsed: ParsedFile) -> None:
    """No reader bug, and every diagnostic points into the file."""
    assert not [d for d in parsed.diagnostics if d.code == "pbn.internal"]
    assert all(d.line >= 0 and d.column >= 0 for d in parsed.diagnostics)


def test_duplicated_card_quarantines_its_board_only() -> None:
    bad = DEAL.replace("N:AKQJ", "N:AKQT", 1)  # the spade ten twice, no spade jack
    parsed = pbn.loads(game(1) + "\n" + game(2, bad) + "\n" + game(3), source="three.pbn")
    assert [b.board for b in parsed.boards] == [1, 3] and {r.board for r in parsed.results} == {1, 3}
    (error,) = parsed.errors
    assert (error.code, error.line, error.column, error.record) == ("pbn.deal.duplicate-card", 12, 8, 1)
    assert error.message.startswith("Card ST is dealt twice.") and error.source == "three.pbn"
    assert parsed.quarantined == 3  # the board and its two traveller lines


def test_a_deal_with_51_cards() -> None:
    short = DEAL.replace("T98.765.432.AKQJ", "T98.765.432.AKQ", 1)
    parsed = pbn.loads(game(1, short) + "\n" + game(2))
    assert [b.board for b in parsed.boards] == [2]
    (error,) = parsed.errors
    assert error.code == "pbn.deal.hand-size" and "51 cards" in error.message and error.line == 4


def test_truncated_files_keep_the_complete_games() -> None:
    text = (PBN / "pbntools_jfrpary_wb120802.pbn").read_text(encoding="utf-8")
    full = pbn.loads(text)
    for cut in range(1, len(text), len(text) // 37):
        parsed = pbn.loads(text[:cut])
        sound(parsed)
        complete = text[:cut].count("\r\n\r\n")  # games whose closing empty line is still there
        assert parsed.boards[:complete // 8] == full.boards[:complete // 8]
        assert parsed.results[:complete] == full.results[:complete]


def test_binary_garbage() -> None:
    rnd = random.Random(7)
    garbage = bytes(rnd.randrange(256) for _ in range(200_000))
    parsed = pbn.loads(garbage)
    sound(parsed)
    assert parsed.boards == () and parsed.errors
    mixed = pbn.loads(game(1).encode() + b"\n" + garbage[:5000].replace(b"\n", b" ") + b"\n\n" + game(2).encode())
    sound(mixed)
    assert 2 in {b.board for b in mixed.boards}


def test_ten_megabyte_lines_give_diagnostics() -> None:
    for text, code in (("x" * 10_000_000, "pbn.syntax.stray-text"), ('""' * 5_000_000, "pbn.syntax.stray-text"),
                       ("[" * 10_000_000, "pbn.syntax.tag"), ("{" * 10_000_000, "pbn.syntax.comment")):
        parsed = pbn.loads(text)
        sound(parsed)
        assert parsed.boards == () and [(d.code, d.line, d.column) for d in parsed.errors] == [(code, 1, 1)]
    parsed = pbn.loads(game(1) + '[Play "W"]\n' + "ZZ " * 3_000_000)
    sound(parsed)
    assert [(r.board, r.table_id) for r in parsed.results] == [(1, "1"), (1, "2")]


def test_unbalanced_quotes_and_braces() -> None:
    parsed = pbn.loads('[Event "no end]\n' + game(1) + "\n" + game(2) + "\n{ open comment\n\n" + game(3))
    sound(parsed)
    assert [d.code for d in parsed.errors] == ["pbn.syntax.tag", "pbn.syntax.comment"]
    assert [b.board for b in parsed.boards] == [2]  # board 1 has a broken tag; board 3 is inside the comment
    assert parsed.errors[0].line == 1 and parsed.errors[1].line == 18


def test_lenient_keeps_going_strict_reports() -> None:
    text = game(1, rows='1 1 2 3N N 9\n2 3 4 4Sx S 10\n3 5 6 - - -\n4 7 8 "A+" - -')
    lenient = pbn.loads(text)
    assert [str(r.contract) for r in lenient.results] == ["3NT", "4SX"]
    assert [(d.code, d.severity) for d in lenient.diagnostics] == [
        ("pbn.contract.spelling", Severity.INFO), ("pbn.scoretable.no-result", Severity.WARNING),
        ("pbn.scoretable.contract", Severity.ERROR)]
    assert lenient.quarantined == 2  # a row without contract or awards, and one with "A+" as contract
    strict = pbn.loads(text, strict=True)
    assert {d.code for d in strict.errors} >= {"pbn.contract.spelling", "pbn.scoretable.no-result"}


@settings(max_examples=examples(150), deadline=None)
@given(st.lists(st.tuples(st.integers(0, 2000), st.sampled_from(list('[]{}";%\n =$!?^*+-#\\\t\x00AKQ10')),
                          st.booleans()), max_size=12))
def test_mutated_files_never_break_the_reader(edits: list[tuple[int, str, bool]]) -> None:
    text = list((PBN / "schiphol_1995.pbn").read_text() + "\n" + game(2))
    for where, char, insert in edits:
        where %= len(text) + 1
        if insert or where == len(text):
            text.insert(where, char)
        else:
            text[where] = char
    for strict in (False, True):
        parsed = pbn.loads("".join(text), strict=strict)
        sound(parsed)
        assert max((d.line for d in parsed.diagnostics), default=0) <= "".join(text).count("\n") + 1


_HAND = f'[Board "1"]\n[Deal "{DEAL}"]\n'


@pytest.mark.parametrize(("text", "results", "line"), [
    (game(1) + '[Play "W"]\nSA S2 S3 S4\n', 2, 8),  # a traveller's game: the rows have no play
    (_HAND + '[Play "W"]\nSA S2 S3 S4\n', 0, 3),  # no contract at all
    (_HAND + '[Contract "?"]\n[Declarer "?"]\n[Play "W"]\nSA S2 S3 S4\n', 0, 5),
    (_HAND + '[Contract "Pass"]\n[Declarer ""]\n[Result ""]\n[Play "W"]\nSA S2 S3 S4\n', 1, 6),
])
def test_a_play_without_a_contract_to_follow_is_reported_as_dropped(text: str, results: int, line: int) -> None:
    parsed = pbn.loads(text, source="play.pbn")
    assert len(parsed.results) == results and all(r.play == () for r in parsed.results)
    (warning,) = parsed.diagnostics
    assert (warning.severity, warning.code, warning.line, warning.column) == (
        Severity.WARNING, "pbn.play.no-contract", line, 1)
    assert "the play was not recorded" in warning.message
    strict = pbn.loads(text, strict=True)
    assert {d.code for d in strict.errors} >= {"pbn.play.needs"} and not any(
        d.code == "pbn.play.no-contract" for d in strict.diagnostics)  # strict mode has its own error


@pytest.mark.parametrize("text", [game(1) + '[Play "W"]\n*\n', _HAND + '[Contract "Pass"]\n[Play "W"]\n*\n'])
def test_an_empty_play_section_without_a_contract_drops_nothing(text: str) -> None:
    assert pbn.loads(text).diagnostics == ()


def test_an_unclosed_string_in_a_traveller_row_is_positioned_and_the_rows_after_it_are_kept() -> None:
    """Found by scripts/fuzz_readers.py (seed 101): an unclosed string is a table element with an
    error; every place that counts elements must count it, or later rows point past the file."""
    rows = '1 1 2 3NT N 9\n2 3 4 4S S "10\n3 5 6 2H S 8\n4 7 8 1NT N 7'
    text = (f'[Board "1"]\n[Dealer "N"]\n[Vulnerable "None"]\n[Deal "{DEAL}"]\n'
            f'[ScoreTable "Table;PairId_NS;PairId_EW;Contract;Declarer;Result"]\n{rows}\n')
    for parsed in (pbn.loads(text, source="open.pbn"), pbn.loads(text, source="open.pbn", strict=True)):
        sound(parsed)
        element = [d for d in parsed.diagnostics if d.code == "pbn.table.element"]
        assert [(d.line, d.column) for d in element] == [(7, 12)]
    lenient = pbn.loads(text, source="open.pbn")
    assert [(r.table_id, r.at.line) for r in lenient.results] == [("1", 6), ("3", 8), ("4", 9)]
