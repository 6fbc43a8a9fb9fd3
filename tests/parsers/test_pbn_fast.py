"""The vectorised PBN fast path: equal to the careful reader whenever it answers, None otherwise.

Every accepted file is compared with `columnar_from_parsed(loads(...))` field by field. Every
mutation that the careful reader reports as an error must make the fast path decline, for the
reason the mutation is about (the debug log line says which check declined).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import parsers.pbn as pbn
from benchmarks.boards import SEATS, Board, boards, to_pbn
from models.diagnostics import Severity
from parsers.arrow import named
from parsers.columnar import ColumnarFile, assert_same, columnar_from_parsed
from parsers.pbn.fast_bytes import (
    Lines,
    Source,
    Vocabulary,
    list_column,
    string_column,
    tokens,
    view_column,
    views,
)
from tests.conftest import examples
from tests.parsers._laws_of_play import trick_winner
from tests.parsers.conftest import Declines, pbn_files, random_file

ACCEPTED_CORPUS = ["bigdeal_pbn10.pbn", "bridgecomposer_hand_trophy_pairs.pbn",
                   "bridgecomposer_latin1.pbn", "endplay_eyc1998_export.pbn",
                   "pbnref_three_records_crlf.pbn",
                   "pbntools_jfrpary_wb120802.pbn"]
"""Corpus files the fast path reads today; the others go to the careful reader (BBO Helper's daylong
and the reference correct file publish double-dummy tricks only as an OptimumResultTable, whose
rows the careful reader reads)."""
HEADER = "% PBN 2.1\n% EXPORT\n\n"


def generated(count: int, seed: int = 7) -> str:
    """A file like the benchmark's: export style, auction and full play in every game."""
    return HEADER + "".join(to_pbn(board) for board in boards(count, seed))


def careful(data: str | bytes, strict: bool = False) -> ColumnarFile:
    return columnar_from_parsed(pbn.loads(data, source="t.pbn", strict=strict))


def fast(data: str | bytes) -> ColumnarFile | None:
    return pbn.loads_columnar(data, source="t.pbn")


def agree(data: str | bytes) -> ColumnarFile | None:
    """The fast reading, after checking it equals the careful one when there is one."""
    found = fast(data)
    if found is not None:
        assert_same(found, careful(data))
    return found


def test_is_exported_by_the_package() -> None:
    from parsers.pbn import loads_columnar

    assert loads_columnar is pbn.loads_columnar


# Generated files -------------------------------------------------------------------------------


@pytest.mark.parametrize(("count", "seed"), [(1, 1), (16, 7), (250, 3), (1000, 11)])
def test_generated_files_are_read_exactly_as_the_careful_reader_does(count: int, seed: int) -> None:
    text = generated(count, seed)
    for data in (text, text.encode(), text.replace("\n", "\r\n").encode()):
        found = agree(data)
        assert found is not None and found.results.height == count and found.boards.height == count
        assert found.results["play"].list.len().to_list() == [52] * count


def test_doubled_contracts_and_deals_from_any_seat() -> None:
    # The test suite's own generator: doubles and redoubles, the Deal from a random seat, fewer tags.
    contracts: set[str] = set()
    for seed in range(4):
        found = agree(random_file(120, seed))
        assert found is not None and found.results.height == 120
        contracts.update(found.results["contract"].to_list())
    assert any(c.endswith("XX") for c in contracts) and any(c.endswith("X") and not c.endswith("XX") for c in contracts)


@settings(max_examples=examples(25), deadline=None)
@given(seed=st.integers(0, 2**32 - 1), count=st.integers(1, 60))
def test_any_generated_file(seed: int, count: int) -> None:
    assert agree(generated(count, seed)) is not None
    assert agree(random_file(count, seed)) is not None


def test_a_result_file_with_teams_rooms_and_scores() -> None:
    games = [to_pbn(board).replace('[Scoring "MP"]', f'[Scoring "IMP"]\n[Room "{room}"]\n[Table "3"]\n'
                                   '[HomeTeam "Lions"]\n[VisitTeam "Tigers"]\n[Score "NS -50"]\n[Round "2"]')
             for board, room in zip(boards(2, 5), ("Open", "Closed"), strict=True)]
    found = agree(HEADER + "".join(games))
    assert found is not None
    assert found.results.select("table_id", "room", "ns_id", "ew_id", "round").rows() == [
        ("3-open", "open", "Lions", "Tigers", 2), ("3-closed", "closed", "Tigers", "Lions", 2)]
    assert [c.contestant_id for c in found.contestants] == ["Lions", "Tigers"]


def test_sides_by_pair_numbers_team_names_and_player_lists() -> None:
    # Each way of naming the sides in one file (the fast path leaves out the ways no game uses),
    # and player lists split on ';' with blanks and '?' dropped.
    games = [to_pbn(board) for board in _games(4)]
    games[0] = games[0].replace('[Scoring "MP"]', '[Scoring "MP"]\n[PairNS "7"]\n[PairEW "12"]')
    games[2] = games[2].replace('[North "N"]', '[North "Ann ; ?;Bob"]').replace('[South "S"]', '[South "Cy;"]')
    games[3] = games[3].replace('[Scoring "MP"]', '[Scoring "MP"]\n[HomeTeam "Lions"]\n[Room "Closed"]')
    found = agree(HEADER + "".join(games))
    assert found is not None
    # Players but no pair numbers: a pair is named by its players, as in LIN (issue #12).
    assert found.results.select("ns_id", "ew_id").rows() == [
        ("7", "12"), ("N/S", "E/W"), ("Ann ; ?;Bob/Cy;", "E/W"), ("", "Lions")]
    assert [player["name"] for player in found.results["ns_players"][2]] == ["Ann", "Bob", "Cy"]


def test_repeated_board_and_partial_play_with_all_pass() -> None:
    text = (HEADER + '[Event "Club"]\n[Board "1"]\n[North "Ann"]\n[South "Ann"]\n[East "Bob"]\n[West "Bob"]\n'
            '[Dealer "N"]\n[Vulnerable "None"]\n'
            '[Deal "N:AKQJ.T98.765.432 T98.765.432.AKQJ 765.432.AKQJ.T98 432.AKQJ.T98.765"]\n'
            '[Declarer "S"]\n[Contract "1S"]\n[Result "7"]\n[Auction "N"]\nPass Pass 1S AP\n'
            '[Play "W"]\nHA H8 H7 H2\n*\n'
            '\n[Event "Club"]\n[Board "1"]\n[Dealer "N"]\n[Contract "Pass"]\n[Auction "N"]\nAP\n')
    found = agree(text)
    assert found is not None and found.boards.height == 1
    assert found.results.select("contract", "tricks", "lead", "table_id").rows() == [
        ("1S", 7, "HA", "1"), ("PASS", None, None, "2")]
    assert found.results["auction"].to_list() == [["Pass", "Pass", "1S", "Pass", "Pass", "Pass"],
                                                  ["Pass", "Pass", "Pass", "Pass"]]


@pytest.mark.parametrize(("auction", "taken"), [
    ("1S AP", ["1S", "Pass", "Pass", "Pass"]),
    ("1S X XX AP", ["1S", "X", "XX", "Pass", "Pass", "Pass"]),
    ("1S Pass Pass AP", ["1S", "Pass", "Pass", "Pass"]),
    ("1S Pass Pass Pass AP", None),  # AP after the end: one call too many
    ("1S 1H AP", None),              # an insufficient bid before AP
])
def test_all_pass_stands_for_the_passes_up_to_the_end(auction: str, taken: list[str] | None) -> None:
    contract = "1SXX" if "XX" in auction else "1S"
    text = (HEADER + '[Event "Club"]\n[Board "1"]\n[Dealer "N"]\n[Vulnerable "None"]\n'
            '[Deal "N:AKQJ.T98.765.432 T98.765.432.AKQJ 765.432.AKQJ.T98 432.AKQJ.T98.765"]\n'
            f'[Declarer "N"]\n[Contract "{contract}"]\n[Result "7"]\n[Auction "N"]\n{auction}\n')
    found = agree(text)
    assert (None if found is None else found.results["auction"].to_list()) == (None if taken is None else [taken])


def test_sections_in_any_line_layout() -> None:
    # Import format lets calls and cards run over lines in any way; tabs separate them too.
    def relaid(game: str) -> str:
        head, play = game.split("[Play", 1)
        tags, auction = head.split("[Auction", 1)
        seat, calls = auction.split("\n", 1)
        first, cards = play.split("\n", 1)
        return (f"{tags}[Auction{seat}\n" + "\n".join(calls.split()) + f"\n[Play{first}\n"
                + "\t".join(cards.split()) + " *\n\n")

    found = agree(HEADER + "".join(relaid(to_pbn(board)) for board in boards(30, 4)))
    assert found is not None and found.results["play"].list.len().to_list() == [52] * 30


# The corpus ------------------------------------------------------------------------------------


def test_corpus_files_are_declined_or_read_exactly() -> None:
    accepted = [path.name for path in pbn_files() if agree(path.read_bytes()) is not None]
    assert accepted == ACCEPTED_CORPUS


# Mutations the careful reader reports as errors ---------------------------------------------


def _games(count: int = 6, seed: int = 7) -> list[Board]:
    return list(boards(count, seed))


def _with(board_text: str, index: int = 2, count: int = 6) -> str:
    """A generated file with game `index` replaced."""
    games = [to_pbn(board) for board in _games(count)]
    games[index] = board_text
    return HEADER + "".join(games)


def _tag(name: str, value: str, board: Board | None = None) -> str:
    text = to_pbn(board or _games()[2])
    return re.sub(rf'^\[{name} "[^"]*"\]', f'[{name} "{value}"]', text, count=1, flags=re.MULTILINE)


def _auction(change: Callable[[list[str]], list[str]]) -> str:
    board = _games()[2]
    text = to_pbn(board)
    start, end = text.index("[Auction"), text.index("[Play")
    head = text[start:text.index("\n", start) + 1]
    return text[:start] + head + " ".join(change(list(board.auction))) + "\n" + text[end:]


def _leaders(board: Board) -> list[int]:
    trump = None if board.contract.endswith("NT") else board.contract[-1]
    leader, leaders = (SEATS.index(board.declarer) + 1) % 4, []
    for trick in range(13):
        leaders.append(leader)
        leader = (leader + trick_winner(board.play[4 * trick:4 * trick + 4], trump)) % 4
    return leaders


def _rows(text: str) -> tuple[str, list[list[str]], int]:
    """The text before the play rows, the rows (columns in seat order from the opening leader), and
    the opening leader's seat."""
    start = text.index("[Play")
    head_end = text.index("\n", start) + 1
    rows = [line.split() for line in text[head_end:].strip().split("\n")]
    return text[:head_end], rows, SEATS.index(text[start + 7])


def _play(change: Callable[[Board, list[list[str]], int], None]) -> str:
    board = _games()[2]
    head, rows, first = _rows(to_pbn(board))
    change(board, rows, first)
    return head + "\n".join(" ".join(row) for row in rows) + "\n\n"


def _revoke(board: Board, rows: list[list[str]], first: int) -> None:
    """Swap, in one seat's column, a card that followed suit with a later card of another suit."""
    leaders = _leaders(board)
    for trick in range(13):
        led = board.play[4 * trick][0]
        for position in (1, 2, 3):
            seat = (leaders[trick] + position) % 4
            column = (seat - first) % 4
            if rows[trick][column][0] != led:
                continue
            for later in range(trick + 1, 13):
                if rows[later][column][0] != led:
                    rows[trick][column], rows[later][column] = rows[later][column], rows[trick][column]
                    return
    raise AssertionError("no revoke to make")


def _wrong_seat(board: Board, rows: list[list[str]], first: int) -> None:
    rows[4][0], rows[4][1] = rows[4][1], rows[4][0]


def _played_twice(board: Board, rows: list[list[str]], first: int) -> None:
    rows[9][2] = rows[3][2]


def _not_a_card(board: Board, rows: list[list[str]], first: int) -> None:
    rows[5][3] = "SX"


def _deal(change: Callable[[list[list[str]]], None]) -> str:
    """Game 2 with its Deal hands (written order, as card lists) changed."""
    text = to_pbn(_games()[2])
    deal = re.search(r'\[Deal "(.):([^"]*)"\]', text)
    assert deal is not None
    hands = [[suit + rank for suit, ranks in zip("SHDC", hand.split("."), strict=True) for rank in ranks]
             for hand in deal.group(2).split(" ")]
    change(hands)
    order = "AKQJT98765432"
    written = " ".join(".".join("".join(sorted((c[1] for c in hand if c[0] == suit), key=order.index))
                                for suit in "SHDC") for hand in hands)
    return text.replace(deal.group(0), f'[Deal "{deal.group(1)}:{written}"]')


def _twice(hands: list[list[str]]) -> None:
    """A card of the first hand replaces a card of the same suit in the second."""
    for card in hands[0]:
        same_suit = [index for index, other in enumerate(hands[1]) if other[0] == card[0]]
        if same_suit:
            hands[1][same_suit[0]] = card
            return


def _short(hands: list[list[str]]) -> None:
    hands[3].pop()


def _bad_rank() -> str:
    return re.sub(r'(\[Deal "[NESW]:[^AKQJT2-9"]*)[AKQJT2-9]', r"\1X", to_pbn(_games()[2]), count=1)


def _result(board: Board) -> str:
    result = re.search(r'\[Result "(\d+)"\]', to_pbn(board))
    assert result is not None
    tricks = int(result.group(1))
    return _tag("Result", str(tricks + 1 if tricks < 13 else 12), board)


def _partner() -> str:
    board = _games()[2]
    return _tag("Declarer", SEATS[(SEATS.index(board.declarer) + 2) % 4], board)


def _higher() -> str:
    board = _games()[2]
    return _tag("Contract", str(int(board.contract[0]) + 1) + board.contract[1:], board)


def _truncated() -> str:
    text = generated(6)
    return text[:text.rindex('[Deal "') + 20]


MUTATIONS: list[tuple[str, Callable[[], str], bool, str, str]] = [
    # (what, file, strict, the careful reader's error code, why the fast path declines)
    ("duplicated card", lambda: _with(_deal(_twice)), False, "pbn.deal.duplicate-card", "dealt twice"),
    ("51 cards", lambda: _with(_deal(_short)), False, "pbn.deal.hand-size", "13 cards"),
    ("a rank that is not one", lambda: _with(_bad_rank()), False, "pbn.deal.rank", "Deal"),
    ("revoke", lambda: _with(_play(_revoke)), True, "pbn.play.revoke", "revoke"),
    ("card played by the wrong seat", lambda: _with(_play(_wrong_seat)), True, "pbn.play.card-not-held",
     "not dealt"),
    ("card played twice", lambda: _with(_play(_played_twice)), True, "pbn.play.card-not-held", "played twice"),
    ("not a card", lambda: _with(_play(_not_a_card)), True, "pbn.play.card", "not a card"),
    ("wrong Result for a complete play", lambda: _with(_result(_games()[2])), True, "pbn.result.play",
     "Result that the play contradicts"),
    ("insufficient bid", lambda: _with(_auction(lambda calls: [*calls[:-3], "1C", *calls[-3:]])), True,
     "pbn.auction.insufficient", "insufficient"),
    ("partner doubles", lambda: _with(_auction(lambda calls: [*calls[:-3], "Pass", "X", *calls[-3:]])), True,
     "pbn.auction.double", "double"),
    ("call after the end", lambda: _with(_auction(lambda calls: [*calls, "Pass"])), True,
     "pbn.auction.after-end", "after the end"),
    ("incomplete auction", lambda: _with(_auction(lambda calls: calls[:-1])), True, "pbn.auction.incomplete",
     "not complete"),
    ("not a call", lambda: _with(_auction(lambda calls: ["1Z", *calls[1:]])), True, "pbn.auction.call",
     "not a call"),
    ("first call not the dealer's", lambda: _with(_tag("Auction", SEATS[(SEATS.index(_games()[2].dealer) + 1) % 4])),
     True, "pbn.auction.first-call", "not the dealer's"),
    ("Contract disagrees with the auction", lambda: _with(_higher()), True, "pbn.contract.auction",
     "Contract tag"),
    ("Declarer disagrees with the auction", lambda: _with(_partner()), True, "pbn.declarer.auction",
     "Declarer tag"),
    ("unbalanced quote", lambda: _with(to_pbn(_games()[2]).replace('[Site "-"]', '[Site "-]')), False,
     "pbn.syntax.tag", "not one tag pair"),
    ("unbalanced bracket", lambda: _with(to_pbn(_games()[2]).replace('[Site "-"]', '[Site "-"')), False,
     "pbn.syntax.tag", "not one tag pair"),
    ("truncated file", _truncated, False, "pbn.syntax.tag", "not one tag pair"),
    ("unknown tag", lambda: _with(to_pbn(_games()[2]).replace('[Site "-"]', '[Site "-"]\n[Wrong "x"]')), True,
     "pbn.tag.unknown", "does not know"),
    ("repeated tag", lambda: _with(to_pbn(_games()[2]).replace('[Site "-"]', '[Site "-"]\n[Event "Again"]')), True,
     "pbn.tag.duplicate", "repeated"),
    ("board number zero", lambda: _with(_tag("Board", "0")), False, "pbn.board.number", "Board"),
    ("dealer that is not a seat", lambda: _with(_tag("Dealer", "Q")), False, "pbn.dealer", "Dealer"),
    ("vulnerability that is not one", lambda: _with(_tag("Vulnerable", "Sometimes")), False, "pbn.vulnerable",
     "Vulnerable"),
    ("contract that is not one", lambda: _with(_tag("Contract", "4Z")), False, "pbn.contract", "Contract"),
    ("result that is not one", lambda: _with(_tag("Result", "14")), False, "pbn.result", "Result"),
    ("declarer that is not a seat", lambda: _with(_tag("Declarer", "Q")), False, "pbn.declarer", "declarer"),
    ("date not written YYYY.MM.DD", lambda: _with(_tag("Date", "2026-11-21")), True, "pbn.date.spelling", "date"),
]
WARNED = {"pbn.tag.unknown", "pbn.date.spelling"}
"""Legal PBN (§4.9), or normalised without loss: strict mode warns of these, and the fast path still
declines them (the careful reader's diagnostic is part of what ingest records)."""


@pytest.mark.parametrize(("what", "make", "strict", "code", "reason"), MUTATIONS, ids=[m[0] for m in MUTATIONS])
def test_mutations_the_careful_reader_rejects_are_declined(
        what: str, make: Callable[[], str], strict: bool, code: str, reason: str, declines: Declines) -> None:
    text = make()
    wanted = Severity.WARNING if code in WARNED else Severity.ERROR
    errors = {d.code for d in careful(text, strict=strict).diagnostics if d.severity is wanted}
    assert code in errors, f"{what}: the careful reader reports {errors}"
    assert fast(text) is None
    assert declines.failures == []
    assert any(reason.lower() in found.lower() for found in declines.reasons), declines.reasons


def test_the_unmutated_file_is_accepted() -> None:
    # The mutations above start from this file: it must be one the fast path takes.
    assert agree(_with(to_pbn(_games()[2]))) is not None


def test_strict_mode_is_left_to_the_careful_reader() -> None:
    assert pbn.loads_columnar(generated(3), strict=True) is None


# What the fast path leaves to the careful reader although it is not an error ---------------


CAUTIOUS: list[tuple[str, Callable[[], str | bytes]]] = [
    ("tag value inheritance", lambda: generated(3).replace('[Site "-"]', '[Site "#"]')),
    ("a note and its reference", lambda: _with(_auction(lambda calls: [*calls[:-3], calls[-4] + " =1=",
                                                                       *calls[-3:]]).replace(
        "[Play", '[Note "1:strong"]\n[Play'))),
    ("an Event carried over", lambda: _with(to_pbn(_games()[2]).replace('[Event "Benchmark"]\n', ""))),
    ("lower-case calls", lambda: _with(_auction(lambda calls: [call.lower() for call in calls]))),
    ("a table section", lambda: generated(2) + '[Board "3"]\n[OptimumResultTable "Declarer;Result"]\nN 9\n'),
    ("no game at all", lambda: HEADER),
]


@pytest.mark.parametrize(("what", "make"), CAUTIOUS, ids=[c[0] for c in CAUTIOUS])
def test_cautious_declines(what: str, make: Callable[[], str | bytes], declines: Declines) -> None:
    data = make()
    assert fast(data) is None
    assert declines.failures == [] and declines.reasons
    assert not careful(data).errors  # the careful reader reads it (with notes at most)


# What the byte reader must get right -----------------------------------------------------------


def _named(west: str, east: str = "E") -> str:
    return generated(3).replace('[West "W"]', f'[West "{west}"]').replace('[East "E"]', f'[East "{east}"]')


@pytest.mark.parametrize("value", ["", "Z", "Zoë", "Anna", "Łukasz", "12345678", "Świątek", "Ann Smith   X",
                                   "Ann Smith abc", "Zoë Ümlaut-Çedille; Björn Öster", "?"])
def test_values_of_any_length_and_alphabet_are_read_in_place(value: str) -> None:
    # Values up to 12 bytes sit in their Arrow view, longer ones point into the text: both, around
    # the edges (4, 8, 12, 13 bytes) and with characters beyond ASCII at either end.
    found = agree(_named(value, east=value[::-1]))
    assert found is not None
    assert found.results["ns_players"].to_list()[0] or value in ("", "?")


def test_tags_that_differ_from_game_to_game() -> None:
    # Games with other tags, in another order, or without some: columns with nulls.
    games = [to_pbn(board) for board in _games(5)]
    games[1] = games[1].replace('[West "W"]\n', "").replace('[Scoring "MP"]', '[Room "Open"]\n[Scoring "MP"]')
    games[2] = games[2].replace('[Site "-"]', '[Section "B"]\n[Site "-"]').replace('[Dealer', '[Table "4"]\n[Dealer')
    games[3] = ('[Event "Benchmark"]\n[Site "-"]\n[Date "2026.11.21"]\n[Scoring "MP"]\n[Description "no result"]\n'
                '[Board "9"]\n[Dealer "S"]\n\n')
    found = agree(HEADER + "".join(games))
    assert found is not None and found.results.height == 4 and found.boards.height == 5


def test_semi_empty_lines_of_spaces_and_tabs_between_games() -> None:
    found = agree(HEADER + " \t \n\t\n".join(to_pbn(board) for board in _games(4)))
    assert found is not None and found.results.height == 4


def test_escape_lines_may_hold_anything() -> None:
    # Brackets, quotes, backslashes and tabs are checked from the first game on, not above it.
    assert agree(generated(3).replace("% EXPORT", '% EXPORT [x] "quoted" \\ \t')) is not None


def test_deals_with_void_suits() -> None:
    deal = "N:AKQJT98765432... .AKQJT98765432.. ..AKQJT98765432. ...AKQJT98765432"
    text = (HEADER + f'[Event "Voids"]\n[Board "1"]\n[Dealer "N"]\n[Vulnerable "All"]\n[Deal "{deal}"]\n'
            '[Declarer "N"]\n[Contract "7S"]\n[Result "13"]\n[Auction "N"]\n7S Pass Pass Pass\n'
            '[Play "E"]\nHA D2 C2 S2\n*\n\n')
    found = agree(text)
    assert found is not None and found.boards["deal"].to_list() == [deal]


def test_frames_outlive_the_text_they_point_into() -> None:
    import gc

    data = generated(40).encode()
    found = fast(data)
    assert found is not None
    gc.collect()
    litter = [bytes([n]) * len(data) for n in range(4)]  # reuse the memory the text was in, if it were free
    assert_same(found, careful(data))
    assert litter


LAYOUTS: list[tuple[str, Callable[[], str], str]] = [
    # (what, file, why the fast path declines): none of them an error, all left to the careful reader.
    ("white space beyond ASCII at the end of a value", lambda: _named("Zoë\u00a0"), "not one tag pair"),
    ("white space beyond ASCII at the start of a value", lambda: _named("\u3000Zoë"), "not one tag pair"),
    ("a space at the end of a value", lambda: _named("Zoë "), "not one tag pair"),
    ("a tab in a value", lambda: _named("Zo\tё"), "not one tag pair"),
    ("a backslash in a value", lambda: _named("Zo\\\\e"), "escaped"),
    ("a bracket in a value", lambda: _named("Zo]e"), "bracket"),
    ("a quote in the auction", lambda: _with(_auction(lambda calls: [*calls, '"x"'])), "section data"),
    ("a bracket in the play", lambda: _with(_play(_bracket)), "bracket"),
    ("a long unknown tag name", lambda: generated(2).replace('[Site "-"]', '[SiteOfTheEventHeld "-"]'),
     "does not know"),
    ("a trick line with a card beyond ASCII", lambda: _with(_play(_not_ascii)), "not a card"),
    ("a Play tag naming no seat", lambda: generated(3).replace('[Play "E"]', '[Play ""]', 1), "Play tag"),
]


def _not_ascii(board: Board, rows: list[list[str]], first: int) -> None:
    rows[5][3] = "Sé"


def _bracket(board: Board, rows: list[list[str]], first: int) -> None:
    rows[5][3] = "S]"


@pytest.mark.parametrize(("what", "make", "reason"), LAYOUTS, ids=[layout[0] for layout in LAYOUTS])
def test_layouts_the_byte_reader_leaves_to_the_careful_reader(
        what: str, make: Callable[[], str], reason: str, declines: Declines) -> None:
    assert fast(make()) is None
    assert declines.failures == []
    assert any(reason in found for found in declines.reasons), declines.reasons


# The byte helpers ------------------------------------------------------------------------------


@settings(max_examples=examples(100), deadline=None)
@given(st.lists(st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\n"),
                        max_size=30), min_size=1, max_size=20))
def test_string_columns_point_at_the_right_bytes(pieces: list[str]) -> None:
    source = Source.of("\n".join(pieces))
    assert source.size == len("\n".join(pieces).encode())
    assert [source.text(int(a), int(b)) for a, b in zip(source.start, source.end, strict=True)] == pieces
    length = source.end - source.start
    assert string_column(source, source.start, length).to_list() == pieces
    given = np.arange(len(pieces)) % 3 != 1
    found = view_column(views(source, source.start, length), source, given).to_list()
    assert found == [piece if keep else None for piece, keep in zip(pieces, given, strict=True)]


def test_tokens_and_names() -> None:
    source = Source.of("1S  Pass\t2NT\n\n XX\n-")
    lines = Lines(np.array([7, 7, 8, 9]), source.start, source.end)
    found = tokens(source, lines)
    words = [source.text(int(a), int(a + n)) for a, n in zip(found.start, found.length, strict=True)]
    assert words == ["1S", "Pass", "2NT", "XX", "-"] and found.record.tolist() == [7, 7, 7, 8, 9]
    calls = Vocabulary(("Pass", "XX", "1S", "ScorePercentage"), words=2)
    keys = np.zeros((len(words), 2), dtype=np.uint64)
    keys[:, 0] = source.word(found.start, found.length)
    assert calls.find(keys).tolist() == [2, 0, -1, 1, -1]
    assert list_column(named(np.array([2, 0, 1]), calls.names[:3]), np.array([0, 2, 2, 3])).to_list() == [
        ["1S", "Pass"], [], ["XX"]]


# Garbage ---------------------------------------------------------------------------------------


_PIECES = ['[Event "x"]', '[Board "1"]', '[Board "0"]', '[Dealer "N"]', '[Contract "3NT"]', '[Declarer "S"]',
           '[Result "9"]', '[Deal "N:AKQJ.T98.765.432 T98.765.432.AKQJ 765.432.AKQJ.T98 432.AKQJ.T98.765"]',
           '[Auction "N"]', '[Play "W"]', "1NT Pass 3NT Pass", "Pass Pass", "AP", "H2 HA HT H4", "*", "-", "",
           "   ", "\t", "%", '"', "[", "]", "{", "}", ";", "\r", "é", "\x00"]


def _never_fails(data: str | bytes) -> None:
    handler = Declines()
    logger = logging.getLogger("parsers.pbn.fast")
    logger.addHandler(handler)
    try:
        agree(data)
    finally:
        logger.removeHandler(handler)
    assert handler.failures == []


@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=600))
def test_binary_garbage_never_raises(data: bytes) -> None:
    _never_fails(data)


@settings(max_examples=examples(150), deadline=None)
@given(st.text(max_size=600))
def test_text_garbage_never_raises(data: str) -> None:
    _never_fails(data)


@settings(max_examples=examples(300), deadline=None)
@given(st.lists(st.sampled_from(_PIECES), max_size=40))
def test_pbn_like_garbage_never_raises_and_agrees(pieces: list[str]) -> None:
    _never_fails("\n".join(pieces))


def test_a_damaged_corpus_file_never_raises() -> None:
    data = Path(pbn_files()[0]).read_bytes()
    for cut in range(0, len(data), max(1, len(data) // 40)):
        _never_fails(data[:cut])
