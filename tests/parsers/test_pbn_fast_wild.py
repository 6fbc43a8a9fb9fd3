"""The fast path on what PBN 2.1 and real programs allow: the second generator's files, comments,
escape lines, annotations, and every corpus and sample file the careful reader reads without an
error or a warning. Each accepted file must give exactly the careful reader's frames.
"""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pytest
from endplay.parsers import pbn as endplay_pbn
from hypothesis import given, settings
from hypothesis import strategies as st

import parsers.pbn as pbn
from benchmarks.wild_pbn import text
from parsers.columnar import ColumnarFile, assert_same, columnar_from_parsed
from parsers.pbn.fast_bytes import Declined, Source
from parsers.pbn.fast_clean import _comment_spans, _plain_spans
from tests.conftest import examples
from tests.parsers.conftest import Declines, pbn_files

SAMPLE = Path(__file__).resolve().parents[2] / "sample_data"
STILL_DECLINED = {
    # file: why the fast path still leaves it to the careful reader (which has nothing to say of it)
    "pbnref_errors_21.pbn": "a Board that is not a positive number",
    # Double-dummy tricks published only as an OptimumResultTable: the careful reader reads its rows.
    "bbohelper_daylong_2024-06-02.pbn": "an OptimumResultTable without DoubleDummyTricks",
    "pbnref_correct_21.pbn": "an OptimumResultTable without DoubleDummyTricks",
    "schiphol_1995.pbn": "a play token that is not a card written the standard way",
    "national_pairs_s1_A.pbn": "does not know",
    "national_pairs_s1_B.pbn": "does not know",
    "national_pairs_s2_A.pbn": "does not know",
    "national_pairs_s2_B.pbn": "does not know",
}
"""ScoreTable travellers (the national_pairs files), `-` cards in a play and games without a board
are not read by the fast path yet."""


def agreed(data: str | bytes) -> ColumnarFile | None:
    """The fast reading, checked equal to the careful reader's when there is one."""
    found = pbn.loads_columnar(data, source="w.pbn")
    if found is not None:
        assert_same(found, columnar_from_parsed(pbn.loads(data, source="w.pbn")))
    return found


# The second generator ----------------------------------------------------------------------------


@pytest.mark.parametrize("seed", [1, 17, 23, 404])
@pytest.mark.parametrize(("crlf", "section_comments"), [(False, False), (True, False), (False, True), (True, True)])
def test_wild_files_are_read_exactly_as_the_careful_reader_does(seed: int, crlf: bool, section_comments: bool,
                                                                declines: Declines) -> None:
    written = text(150, seed, crlf=crlf, section_comments=section_comments)
    for data in (written, written.encode()):
        found = agreed(data)
        assert found is not None, declines.reasons
        assert found.boards.height == 150 and found.results.height == 150
    assert declines.failures == []


def test_the_wild_generator_writes_well_formed_files_endplay_reads() -> None:
    written = text(300, 5)
    parsed = pbn.loads(written, source="w.pbn")
    assert parsed.diagnostics == () and len(parsed.boards) == 300 and len(parsed.results) == 300
    assert len(endplay_pbn.load(io.StringIO(written))) == 300
    with_comments = pbn.loads(text(300, 5, section_comments=True), source="w.pbn")
    assert with_comments.diagnostics == () and len(with_comments.results) == 300


def test_the_wild_generator_varies_what_the_standard_allows() -> None:
    written = text(400, 9, section_comments=True)
    for feature in ("\n{", " }\n", ";", "\n\n  a blank line inside", '[Note "', "=1=", "!", "?", "\n*\n", "\t",
                    " AP", "\n[Event", '[Room "', '[Score "', '[Result ""]'):
        assert feature in written, feature
    games = written.split("\n[Event")[1:]
    assert any(not game.split("\n", 2)[1].startswith("[Site") for game in games)  # tags in another order
    found = agreed(written)
    assert found is not None
    played = found.results.filter(found.results["contract"] != "PASS")
    tricks = played.filter(played["play"].list.len() < 52)
    assert tricks.height > 50 and tricks["tricks"].null_count() == 0  # claims: Result gives the tricks
    assert (found.results["contract"] == "PASS").any()
    crlf = text(20, 9, crlf=True)
    assert crlf.count("\r\n") == crlf.count("\n")


# Comments, escapes and annotations --------------------------------------------------------------


def _game(extra: str = "", auction: str = "1NT Pass 3NT AP", event: str = "Club") -> str:
    return (f'[Event "{event}"]\n[Board "1"]\n[Dealer "N"]\n[Vulnerable "None"]\n'
            '[Deal "N:AKQJ.T98.765.432 T98.765.432.AKQJ 765.432.AKQJ.T98 432.AKQJ.T98.765"]\n'
            f'[Declarer "N"]\n[Contract "3NT"]\n[Result "9"]{extra}\n[Auction "N"]\n{auction}\n')


@pytest.mark.parametrize("layout", [
    _game(" { after a tag }"),
    _game("\n{ a comment\n\nover a blank line }"),
    _game("\n; to the end of the line { not a brace"),
    _game(auction="1NT=1= Pass! 3NT? {why not} AP\n[Note \"1:strong\"]"),
    _game(auction="1NT\t\tPass ; a comment\n3NT  AP  "),
    "{ before the first game }\n\n" + _game(),
    "% PBN 2.1\n" + _game() + "% between games {\n\n" + _game().replace('"1"', '"2"'),
    _game(event="Club {A}; room 2"),
    "  " + _game().replace("\n[Board", "\n\t[Board"),
])
def test_what_the_standard_allows_around_the_data(layout: str, declines: Declines) -> None:
    found = agreed(layout)
    assert found is not None, declines.reasons
    assert found.results["auction"][0].to_list() == ["1NT", "Pass", "3NT", "Pass", "Pass", "Pass"]


def test_a_comment_over_a_blank_line_keeps_one_game() -> None:
    found = agreed(_game("\n{ one\n\n[Board \"2\"] is in the comment }") + "\n" + _game().replace('"1"', '"3"'))
    assert found is not None and found.boards["board"].to_list() == [1, 3]
    assert found.results["line"].to_list() == [1, 15]


@pytest.mark.parametrize(("result", "tricks"), [("NS 9", 9), ("EW 4", 9), ("NS 09", 9), ("EW 0", 13)])
def test_a_result_given_as_a_sides_tricks(result: str, tricks: int) -> None:
    found = agreed(_game().replace('[Result "9"]', f'[Result "{result}"]'))
    assert found is not None and found.results["tricks"].to_list() == [tricks]


def test_escape_lines_name_the_program() -> None:
    found = agreed(_game() + "\n% Creator: Someone\n" + _game().replace('"1"', '"2"'))
    assert found is not None and found.metadata.program == "Someone"


@pytest.mark.parametrize(("layout", "why"), [
    (_game("\n{ never closed"), "never closed"),
    (_game(auction="1NT =1 Pass 3NT AP"), "note reference"),
    (_game(auction="1NT $12 Pass 3NT AP"), "NAG"),
])
def test_what_the_careful_reader_remarks_on_is_declined(layout: str, why: str, declines: Declines) -> None:
    assert pbn.loads_columnar(layout, source="w.pbn") is None
    assert any(why in reason for reason in declines.reasons), declines.reasons
    assert declines.failures == []


# Every corpus and sample file ----------------------------------------------------------------------


def _files() -> list[Path]:
    return pbn_files() + sorted(SAMPLE.rglob("*.pbn"))


def test_every_file_the_careful_reader_reads_cleanly_is_taken(declines: Declines) -> None:
    clean, declined = 0, {}
    for path in _files():
        data = path.read_bytes()
        parsed = pbn.loads(data, source=path.name)
        declines.reasons.clear()
        found = pbn.loads_columnar(data, source=path.name)
        if found is not None:
            assert_same(found, columnar_from_parsed(parsed))
        if parsed.diagnostics:
            # A file with anything to say (a note included: `Contract "3N"`, a carried-over tag) goes
            # to the careful reader, which says it.
            assert found is None, path.name
            continue
        clean += 1
        if found is None:
            declined[path.name] = declines.reasons[-1]
    assert declines.failures == []
    assert sorted(declined) == sorted(STILL_DECLINED)
    assert all(STILL_DECLINED[name] in why for name, why in declined.items()), declined
    assert clean >= 30


# The two ways of finding comments agree -------------------------------------------------------------

_BITS = ['"} x ; y', '[Event "a;b"]', '[Site "x{y"]', "{c}", "{ open", "close }", "; semi", '"', "\\", "%", " ",
         "\t", "x", '"q;"', "{ a ; b }", "} [Board \"1\"] ;", "{a}{b}", "{\n\n}"]


@settings(max_examples=examples(300), deadline=None)
@given(st.lists(st.lists(st.sampled_from(_BITS), max_size=5).map("".join), min_size=1, max_size=12))
def test_comments_found_at_once_are_those_found_line_by_line(lines: list[str]) -> None:
    source = Source.of("\n".join(lines))
    data = source.data[:source.size]
    opening = np.flatnonzero((data == ord("{")) | (data == ord(";")))
    try:
        quick = _plain_spans(source, opening)
    except Declined:
        with pytest.raises(Declined):
            _comment_spans(source, opening)
        return
    if quick is not None:
        assert list(zip(quick[0].tolist(), quick[1].tolist(), strict=True)) == _comment_spans(source, opening)
