"""Strict mode against the PBN committee's reference verifier files (correct_* and errors_*)."""

from __future__ import annotations

import re
from datetime import date
from pathlib import Path

import pytest

import parsers.pbn as pbn
from models.diagnostics import Severity
from tests.corpus import read
from tests.parsers.conftest import PBN


def game_ranges(path: Path) -> dict[int, range]:
    """Line ranges of the '% ==== game N ====' blocks of a reference file."""
    lines = path.read_bytes().decode("latin-1").split("\n")
    starts = [(int(m.group(1)), i + 1) for i, line in enumerate(lines)
              if (m := re.match(r"% =+ game (\d+) =+", line))]
    ends = [start for _, start in starts[1:]] + [len(lines) + 1]
    return {number: range(start, end) for (number, start), end in zip(starts, ends, strict=True)}


@pytest.mark.parametrize("name", ["pbnref_correct_10.pbn", "pbnref_correct_20.pbn", "pbnref_correct_21.pbn"])
def test_correct_files_have_no_errors_in_strict_mode(name: str) -> None:
    parsed = read(PBN / name, strict=True)
    assert parsed.errors == ()
    assert parsed.quarantined == 0
    # correct_20 reuses board numbers for other deals (a test file): that is worth a warning, no more.
    # correct_10 and _20 repeat a game (the same board, the same four players): the two results claim
    # one table (named by its pairs, as no Table tag names it), which is worth a warning too.
    warned = {d.code for d in parsed.diagnostics if d.severity is Severity.WARNING}
    assert warned <= {"pbn.board.conflict", "pbn.result.duplicate-table"}


# Games without a deliberate error: errors_10 game 61 (Result 13 is possible there); errors_20 games
# 22-23 (clean copies from correct_20) and game 20, whose "}" closes the brace comment opened by game
# 19's "{" - a comment may span semi-empty lines (§3.8), so games 19 and 20 are one game.
CLEAN_GAMES = {"pbnref_errors_10.pbn": {61}, "pbnref_errors_20.pbn": {20, 22, 23}, "pbnref_errors_21.pbn": set()}


@pytest.mark.parametrize("name", sorted(CLEAN_GAMES))
def test_every_deliberate_error_is_reported(name: str) -> None:
    parsed = read(PBN / name, strict=True)
    # A tag the standard does not define is legal PBN (§4.9: skipped, "perhaps" with a warning):
    # errors_10 game 1 ("New tag name") is reported, as that warning.
    lines_with_errors = {d.line for d in parsed.errors} | {d.line for d in parsed.diagnostics
                                                           if d.code == "pbn.tag.unknown"}
    ranges = game_ranges(PBN / name)
    missed = [n for n, lines in ranges.items()
              if n not in CLEAN_GAMES[name] and not lines_with_errors.intersection(lines)]
    assert missed == []
    assert not [n for n in CLEAN_GAMES[name] - {20} if lines_with_errors.intersection(ranges[n])]
    assert all(d.source == name and d.line > 0 for d in parsed.errors)


ERRORS_10 = [
    (11, "pbn.syntax.tag"), (15, "pbn.syntax.tag"), (19, "pbn.string.tab"),
    (23, "pbn.value.round"), (27, "pbn.value.round"), (31, "pbn.value.date"), (35, "pbn.value.date"),
    (39, "pbn.value.dealer"), (43, "pbn.value.vulnerable"), (47, "pbn.value.deal"), (51, "pbn.value.deal"),
    (55, "pbn.value.deal"), (59, "pbn.value.deal"), (63, "pbn.value.deal"), (67, "pbn.value.deal"),
    (75, "pbn.value.deal"), (79, "pbn.value.declarer"), (83, "pbn.value.contract"), (87, "pbn.value.contract"),
    (91, "pbn.value.result"), (95, "pbn.syntax.stray-text"), (98, "pbn.note.section"), (102, "pbn.auction.dealer"),
    (108, "pbn.play.needs"), (114, "pbn.play.needs"), (120, "pbn.play.needs"), (127, "pbn.tag.duplicate"),
    (159, "pbn.auction.first-call"), (168, "pbn.auction.first-call"), (177, "pbn.auction.call"),
    (186, "pbn.auction.spelling"), (195, "pbn.auction.insufficient"), (204, "pbn.auction.double"),
    (214, "pbn.auction.redouble"), (223, "pbn.annotation"), (226, "pbn.annotation"), (229, "pbn.nag.double"),
    (232, "pbn.nag.double"), (235, "pbn.nag.kind"), (238, "pbn.annotation"), (241, "pbn.annotation"),
    (244, "pbn.annotation"), (247, "pbn.annotation"), (250, "pbn.annotation"), (250, "pbn.note.missing"),
    (258, "pbn.declarer.auction"), (266, "pbn.declarer.auction"), (274, "pbn.declarer.auction"),
    (283, "pbn.contract.auction"), (290, "pbn.contract.auction"), (306, "pbn.contract.auction"),
    (314, "pbn.contract.auction"), (328, "pbn.play.revoke"), (361, "pbn.nag.kind"), (363, "pbn.annotation"),
    (381, "pbn.annotation"), (387, "pbn.play.card-not-held"), (390, "pbn.play.card-not-held"),
    (405, "pbn.play.card"), (408, "pbn.play.card"), (411, "pbn.play.card"), (423, "pbn.play.irregularity"),
    (429, "pbn.irregularity.double"), (438, "pbn.play.irregularity"), (450, "pbn.play.irregularity"),
    (462, "pbn.play.irregularity"), (474, "pbn.play.irregularity"), (486, "pbn.play.irregularity"),
    (495, "pbn.pass.extra"), (504, "pbn.result.declarer"), (529, "pbn.note.number"), (531, "pbn.note.number"),
    (534, "pbn.note.unused"), (564, "pbn.note.missing"), (569, "pbn.note.unused"),
    (601, "pbn.auction.irregularity"), (636, "pbn.value.result"), (654, "pbn.nag.double"),
    (663, "pbn.nag.kind"), (690, "pbn.result.play"), (772, "pbn.inherit.forbidden"),
    (774, "pbn.inherit.forbidden"), (779, "pbn.inherit.forbidden"), (784, "pbn.value.score"),
    (785, "pbn.value.scoreimp"), (786, "pbn.value.scorepercentage"), (787, "pbn.value.scorerubber"),
    (798, "pbn.value.score"), (808, "pbn.value.scorerubber"), (812, "pbn.value.scorepercentage"),
    (817, "pbn.line.length"), (820, "pbn.line.length"), (825, "pbn.line.length"), (828, "pbn.char"),
    (831, "pbn.value.westtype"), (832, "pbn.value.competition"), (833, "pbn.value.scoring"),
    (834, "pbn.value.mode"), (839, "pbn.export.tag-line"), (854, "pbn.export.line"), (863, "pbn.export.line"),
    (866, "pbn.export.tag-line"), (867, "pbn.export.tag-line"), (875, "pbn.note.number"),
    (883, "pbn.note.number"), (912, "pbn.play.card"), (914, "pbn.play.card"), (916, "pbn.play.card"),
    (955, "pbn.syntax.tag"), (955, "pbn.line.length"), (955, "pbn.char"), (957, "pbn.syntax.tag"),
]
ERRORS_20 = [
    (7, "pbn.value.scoring"), (10, "pbn.value.scoring"), (15, "pbn.value.scorerubberhistory"),
    (18, "pbn.value.scorerubberhistory"), (23, "pbn.value.scorerubberhistory"),
    (26, "pbn.value.scorerubberhistory"), (40, "pbn.play.continue"), (53, "pbn.play.continue"),
    (66, "pbn.auction.after-end"), (79, "pbn.auction.after-end"), (92, "pbn.auction.after-end"),
    (97, "pbn.syntax.tag"), (100, "pbn.syntax.tag"), (103, "pbn.table.column"), (108, "pbn.table.comment"),
    (113, "pbn.table.element"), (117, "pbn.syntax.tag"), (121, "pbn.table.element"), (125, "pbn.table.comment"),
    (143, "pbn.table.row"),
]


@pytest.mark.parametrize(("name", "expected"), [("pbnref_errors_10.pbn", ERRORS_10),
                                                ("pbnref_errors_20.pbn", ERRORS_20),
                                                ("pbnref_errors_21.pbn", [(7, "pbn.value.optimumscore"),
                                                                          (11, "pbn.value.optimumscore")])])
def test_errors_are_positioned(name: str, expected: list[tuple[int, str]]) -> None:
    found = {(d.line, d.code) for d in read(PBN / name, strict=True).errors}
    assert [e for e in expected if e not in found] == []


def test_error_columns_point_at_the_problem() -> None:
    errors = read(PBN / "pbnref_errors_10.pbn", strict=True).errors
    where = {(d.line, d.code): d.column for d in errors}
    assert where[(31, "pbn.value.date")] == 8  # [Date "1995.o6.10"]: the value starts in column 8
    assert where[(328, "pbn.play.revoke")] == 10  # SA HA DA CA: South's CA is the fourth card
    assert where[(195, "pbn.auction.insufficient")] == 6  # - 1D 1C
    assert where[(636, "pbn.value.result")] == 10


def test_error_messages_and_records() -> None:
    errors = read(PBN / "pbnref_errors_10.pbn", strict=True).errors
    duplicate = next(d for d in errors if d.line == 51)
    assert duplicate.message.endswith("Card SK is dealt twice. (PBN 2.1 §3.4.11)") and duplicate.record == 9
    assert next(d for d in errors if d.line == 11).record is None  # a lone malformed tag is no game


def test_strict_quarantines_games_with_errors() -> None:
    lenient = read(PBN / "pbnref_errors_10.pbn")
    strict = read(PBN / "pbnref_errors_10.pbn", strict=True)
    assert len(strict.results) < len(lenient.results)
    assert strict.quarantined > lenient.quarantined


def test_lenient_mode_on_error_files_keeps_sound_games() -> None:
    parsed = read(PBN / "pbnref_errors_10.pbn")
    codes = {d.code for d in parsed.errors}
    assert {"pbn.deal.duplicate-card", "pbn.deal.hand-size", "pbn.deal.rank", "pbn.contract", "pbn.dealer",
            "pbn.declarer", "pbn.syntax.tag", "pbn.syntax.stray-text"} == codes
    assert parsed.quarantined == 12 and len(parsed.boards) == 3
    assert not {d.code for d in parsed.errors} & {"pbn.tag.unknown", "pbn.line.length", "pbn.char"}


def test_an_unknown_tag_is_a_warning_that_names_the_clause() -> None:
    [unknown] = [d for d in read(PBN / "pbnref_errors_10.pbn", strict=True).diagnostics if d.line == 7]
    assert (unknown.severity, unknown.code) == (Severity.WARNING, "pbn.tag.unknown")
    assert unknown.message == "Tag name 'Wrong' is not a PBN 2.1 tag; it was skipped. (PBN 2.1 §4.9)"


WILD = """[Event "Club"]
[Site "Here"]
[Date "2024-06-02 19:30"]
[Board "1"]
[West "a"]
[North "b"]
[East "c"]
[South "d"]
[Dealer "N"]
[Vulnerable "None"]
[Deal "N:AKQJ.T98.765.432 T98.765.432.AKQJ 765.432.AKQJ.T98 432.AKQJ.T98.765"]
[Scoring "MP"]
[Declarer "N"]
[Contract "Pass"]
[Result "0"]
[BCFlags "1f"]
[DoubleDummyTricks "0123456789abcdef0123"]
[ParContract "EW 0"]
[OptimumOpeningLeadTable "Declarer;Denomination;Lead"]
N NT SA
"""


def test_what_real_programs_write_is_read_in_strict_mode_with_warnings() -> None:
    parsed = pbn.loads(WILD, source="wild.pbn", strict=True)
    assert parsed.errors == () and parsed.quarantined == 0
    [result] = parsed.results
    assert (str(result.contract), result.tricks) == ("PASS", None)
    assert parsed.metadata.event_date == date(2024, 6, 2)
    assert sorted((d.line, d.code) for d in parsed.diagnostics) == [
        (3, "pbn.date.spelling"), (13, "pbn.pass.extra"), (15, "pbn.pass.extra"), (16, "pbn.tag.unknown"),
        (17, "pbn.double-dummy.bad-value"), (17, "pbn.tag.unknown"), (18, "pbn.tag.unknown"), (19, "pbn.tag.unknown")]
    assert all(d.severity is Severity.WARNING for d in parsed.diagnostics)
    # Strict's own findings name their clause; a finding about the data (a DoubleDummyTricks value
    # with tricks above 13, not kept) is reported in both modes in its own words.
    about_data = [d for d in parsed.diagnostics if d.code == "pbn.double-dummy.bad-value"]
    assert len(about_data) == 1 and "it was not kept" in about_data[0].message
    assert all("(PBN 2.1 §" in d.message for d in parsed.diagnostics if d not in about_data)


def test_a_passed_out_board_with_tricks_is_still_an_error() -> None:
    parsed = pbn.loads(WILD.replace('[Result "0"]', '[Result "1"]'), source="wild.pbn", strict=True)
    assert [(d.line, d.code, d.message) for d in parsed.errors] == [
        (13, "pbn.pass.extra", "A passed-out game has an empty Declarer. (PBN 2.1 §3.4.13)"),
        (15, "pbn.pass.extra", "A passed-out game has an empty Result. (PBN 2.1 §3.4.13)")]


@pytest.mark.parametrize("path", sorted(PBN.glob("*.pbn")), ids=lambda p: p.name)
def test_every_strict_refusal_names_the_clause_it_breaks(path: Path) -> None:
    refusals = read(path, strict=True).errors
    assert [str(d) for d in refusals if not re.search(r"\(PBN 2\.1 §\d+(\.\d+)*\)$", d.message)] == []
