"""The bridge engine's one-rule pieces and the one position helper, each against values worked by hand."""

from __future__ import annotations

import pytest

from models.cards import Seat
from parsers.bridge.auction import read_auction, summarise_auction
from parsers.bridge.calls import CALL_DRIFT, CALL_SPELLINGS, CALLS
from parsers.bridge.play import claim_fits
from parsers.positions import LineIndex, locate


def test_both_auction_readers_apply_the_engines_rule_with_their_own_codes() -> None:
    # 1C by North, then South doubles partner's bid: the engine (`auction_arrays`) refuses it, and
    # LIN's summary and PBN's section both say so.
    summary = summarise_auction(["1C", "Pass", "X"], Seat.N)
    assert summary.problems == ((2, "illegal-double", "a double is only allowed of an opponent's undoubled bid"),)
    facts = read_auction(Seat.N, Seat.N, ("1C", "Pass", "X", "Pass", "Pass", "Pass"))
    assert [(p.code, p.token) for p in facts.problems] == [("pbn.auction.double", 2)]


def test_the_spelling_tables_share_one_vocabulary() -> None:
    assert set(CALLS.values()) == set(CALL_SPELLINGS.values()) == set(CALL_DRIFT.values())
    assert (CALLS.get("1N"), CALL_DRIFT["1N"], CALL_SPELLINGS["1n!"]) == (None, "1NT", "1NT")


@pytest.mark.parametrize(("claimed", "won", "complete", "fits"), [
    (9, 4, 6, True), (11, 4, 6, True), (12, 4, 6, False), (3, 4, 6, False), (13, 13, 13, True), (0, 0, 0, True),
])
def test_a_claim_fits_the_tricks_still_to_play(claimed: int, won: int, complete: int, fits: bool) -> None:
    assert claim_fits(claimed, won, complete) is fits


def test_positions_count_every_kind_of_line_end() -> None:
    text = "ab\r\ncd\ref\ngh"
    index = LineIndex(text)
    assert [index.position(text.index(c)) for c in "acegh"] == [(1, 1), (2, 1), (3, 1), (4, 1), (4, 2)]
    assert index.position(2) == (1, 3)  # the CR of a CRLF still belongs to its line
    assert LineIndex(text, first_line=10).line(text.index("e")) == 12


def test_locate_keeps_the_offset_within_the_text() -> None:
    assert locate("one\ntwo", 100, first_line=5) == (6, 4)
    assert locate("one\ntwo", -3) == (1, 1)
