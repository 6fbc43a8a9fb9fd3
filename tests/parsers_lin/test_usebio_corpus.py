"""The USEBIO reader on every USEBIO file of the shared corpus."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from models.board import law2_vulnerability
from models.cards import Card, Hand, Seat
from models.contract import Contract, Doubling, Strain
from models.diagnostics import Severity
from models.events import Player
from parsers.records import ParsedFile
from tests.corpus import read

from ._law77 import score_ns
from .conftest import CORPUS

USEBIO_DIR = CORPUS / "usebio"

# file -> (boards, results, artificial, contestants). Traveller lines = results + artificial:
# SOURCES.md gives 512 lines for abf_mp_pairs_mitchell, 567 for _02 and _adjusted_02, 245 for the
# Butler Mitchell, 161 for the MP Howell (one artificial), 108 cross-IMP lines, 126 and 134.
EXPECTED = {
    "abf_butler_howell.xml": (35, 140, 0, 8),
    "abf_butler_mitchell.xml": (35, 244, 1, 14),
    "abf_cross_imp_howell.xml": (27, 108, 0, 9),
    "abf_mp_pairs_howell.xml": (27, 160, 1, 12),
    "abf_mp_pairs_mitchell.xml": (27, 512, 0, 38),
    "abf_mp_pairs_mitchell_02.xml": (27, 565, 2, 42),
    "abf_mp_pairs_mitchell_03.xml": (21, 126, 0, 13),
    "abf_mp_pairs_mitchell_04.xml": (24, 134, 0, 16),
    "abf_mp_pairs_mitchell_adjusted_02.xml": (27, 563, 4, 42),
    "abf_notsupported_eventtype.xml": (0, 0, 0, 0),  # refused: see the test below
}
LAYOUT = {"abf_butler_howell.xml": "one_field", "abf_cross_imp_howell.xml": "one_field",
          "abf_mp_pairs_howell.xml": "one_field"}


def _load(name: str, strict: bool = False) -> ParsedFile:
    return read(USEBIO_DIR / name, strict=strict)


def test_the_corpus_list_is_complete(corpus: Path) -> None:
    assert sorted(p.name for p in (corpus / "usebio").glob("*.xml")) == sorted(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_every_corpus_file_loads_with_the_expected_counts(name: str) -> None:
    parsed = _load(name)
    counts = (len(parsed.boards), len(parsed.results), len(parsed.artificial), len(parsed.contestants))
    assert counts == EXPECTED[name]
    refused = name == "abf_notsupported_eventtype.xml"
    assert parsed.quarantined == (35 + 244 + 1 + 14 if refused else 0) and parsed.format == "usebio"
    assert parsed.metadata.field_layout == LAYOUT.get(name, "two_field")
    assert all(board.deal is not None and board.deal.is_complete for board in parsed.boards)
    expected_codes = ["usebio.event.unsupported-type"] if refused else []
    assert [d.code for d in parsed.diagnostics] == expected_codes


def test_unsupported_event_type_is_a_clear_error() -> None:
    parsed = _load("abf_notsupported_eventtype.xml")
    (error,) = parsed.errors
    assert (error.severity, error.line, error.record) == (Severity.ERROR, 8, None)
    assert "'NOTSUP'" in error.message and "MP_PAIRS" in error.message and "BUTLER_PAIRS" in error.message
    assert parsed.metadata.scoring == "NOTSUP" and parsed.metadata.event_id == "11316"
    # The same file with its declared type is read in full, so the refusal is about the type alone.
    butler = _load("abf_butler_mitchell.xml")
    assert (len(butler.results), butler.quarantined) == (244, 0)
    assert parsed.quarantined == len(butler.boards) + len(butler.results) + len(butler.artificial) \
        + len(butler.contestants)


def test_metadata_of_the_mitchell_pairs() -> None:
    meta = _load("abf_mp_pairs_mitchell.xml").metadata
    assert meta.event_name == "EL Mon 1:00pm Open (11-Jul-22)" and meta.event_id == "3212"
    assert meta.event_date == date(2022, 7, 11) and meta.site == "NSBC@Lindfield"
    assert meta.scoring == "MP_PAIRS" and meta.program == "Compscore3 26-Jul-22"


def test_first_traveller_line_of_the_mitchell_pairs() -> None:
    parsed = _load("abf_mp_pairs_mitchell.xml")
    first = parsed.results[0]
    assert (first.board, first.ns_id, first.ew_id, first.table_id) == (1, "1NS", "1EW", "1NS-1EW")
    assert first.contract == Contract(level=1, strain=Strain.NT, declarer=Seat.E)
    assert first.tricks == 5 and first.lead == Card.parse("D2")
    assert first.published == {"score_ns": 100.0, "mp_ns": 30.0, "mp_ew": 6.0}
    assert first.at.line == 755


def test_passed_out_lines_with_and_without_tricks() -> None:
    mitchell = _load("abf_mp_pairs_mitchell.xml")
    (passed,) = [r for r in mitchell.results if r.contract.is_passed_out]
    assert (passed.ns_id, passed.ew_id, passed.tricks, passed.published["score_ns"]) == ("12NS", "6EW", None, 0.0)
    cross = _load("abf_cross_imp_howell.xml")  # these two write an empty <TRICKS></TRICKS>
    passes = [r for r in cross.results if r.contract.is_passed_out]
    assert [(r.board, r.ns_id, r.ew_id, r.published["cross_imp_ns"]) for r in passes] == [
        (17, "2", "1", -0.33), (17, "8", "3", -0.33)]


def test_artificial_scores() -> None:
    parsed = _load("abf_mp_pairs_mitchell_adjusted_02.xml")
    awards = [(a.board, a.ns_id, a.ew_id, a.ns_award, a.ew_award, a.published["score"]) for a in parsed.artificial]
    assert awards[:2] == [(1, "1NS", "1EW", "A", "A", "A5050"), (1, "2NS", "15EW", "A+", "A-", "A6040")]
    assert ("A+", "A+", "A6060") in [(a[3], a[4], a[5]) for a in awards]
    assert parsed.artificial[0].published["mp_ns"] == 20.0 and parsed.artificial[0].at.line == 831


def test_butler_datum_and_points() -> None:
    parsed = _load("abf_butler_howell.xml")
    first = parsed.results[0]
    assert (first.board, first.ns_id, first.ew_id) == (1, "2", "7")
    assert first.published == {"datum": 160.0, "imp_ns": 0.0, "imp_ew": 0.0, "score_ns": 170.0}


def test_contestants_of_a_mitchell_and_a_howell() -> None:
    mitchell = _load("abf_mp_pairs_mitchell.xml").contestants
    first = mitchell[0]
    assert (first.contestant_id, first.kind, first.direction) == ("1NS", "pair", "NS")
    assert first.players == (Player(name="PIETER KLIFFEN", federation_id="313416"),
                             Player(name="PETER JONKER", federation_id="631604"))
    assert first.published == {"total": 442.22, "percentage": 45.5, "rank": 15.0, "master_points": 0.0}
    assert first.name == "PIETER KLIFFEN & PETER JONKER"
    howell = _load("abf_mp_pairs_howell.xml").contestants
    assert (howell[0].contestant_id, howell[0].direction) == ("1", None)


def test_mitchell_ns_and_ew_pairs_stay_apart() -> None:
    for name in ("abf_mp_pairs_mitchell.xml", "abf_butler_mitchell.xml", "abf_mp_pairs_mitchell_04.xml"):
        parsed = _load(name)
        direction = {c.contestant_id: c.direction for c in parsed.contestants}
        assert "1NS" in direction and "1EW" in direction
        pairs = [(r.ns_id, r.ew_id) for r in parsed.results] + [(a.ns_id, a.ew_id) for a in parsed.artificial]
        assert all((direction[ns], direction[ew]) == ("NS", "EW") for ns, ew in pairs)


def test_howell_pairs_are_the_participants() -> None:
    parsed = _load("abf_mp_pairs_howell.xml")
    ids = {c.contestant_id for c in parsed.contestants}
    assert all({r.ns_id, r.ew_id} <= ids for r in parsed.results)


def test_hand_record() -> None:
    board = _load("abf_mp_pairs_mitchell.xml").boards[0]
    assert (board.board, board.dealer, board.vulnerability, board.at.line) == (1, None, None, 6467)
    assert board.deal is not None
    assert board.deal.east == Hand(spades="Q83", hearts="A7542", diamonds="A", clubs="KJ86")
    assert board.deal.north == Hand(spades="AJ9", hearts="K863", diamonds="8", clubs="A9532")


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_published_scores_agree_with_law_77(name: str) -> None:
    """Every line with a SCORE: our contract and tricks score the same (side, sign and value)."""
    parsed = _load(name)
    checked = 0
    for result in parsed.results:
        published = result.published.get("score_ns")
        assert isinstance(published, float)
        ours = score_ns(result.contract, result.tricks, law2_vulnerability(result.board))
        assert (ours > 0, ours < 0) == (published > 0, published < 0)
        assert ours == published
        checked += 1
    assert checked == EXPECTED[name][1]


def test_doubled_contracts_are_read() -> None:
    parsed = _load("abf_mp_pairs_mitchell.xml")
    doubled = [r for r in parsed.results if r.contract.doubling is Doubling.X]
    assert doubled and all(r.contract.declarer is not None for r in doubled)


def test_strict_mode_on_a_clean_file_changes_nothing() -> None:
    lenient, strict = _load("abf_mp_pairs_mitchell_03.xml"), _load("abf_mp_pairs_mitchell_03.xml", strict=True)
    assert strict == lenient
