"""Value objects: Law 2, deals, contracts, the event catalogue."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from models.board import Board, Vulnerability, law2_dealer, law2_vulnerability
from models.cards import Card, Deal, Hand, Seat
from models.contract import Contract, Doubling, Strain, TableResult
from models.events import EVENT_ADAPTER, EVENT_TYPES, ResultRecorded

DEAL = "N:AKQJ.T98.765.432 T98.765.432.AKQJ 765.432.AKQJ.T98 432.AKQJ.T98.765"


@pytest.mark.parametrize(("board", "dealer", "vul"), [
    (1, "N", "None"), (2, "E", "NS"), (3, "S", "EW"), (4, "W", "All"), (5, "N", "NS"), (8, "W", "None"),
    (11, "S", "None"), (13, "N", "All"), (14, "E", "None"), (16, "W", "EW"), (17, "N", "None"), (32, "W", "EW"),
])
def test_law2(board: int, dealer: str, vul: str) -> None:
    assert law2_dealer(board).value == dealer
    assert law2_vulnerability(board).value == vul
    assert Board(number=board).dealer == Seat(dealer)


def test_a_board_marked_differently_keeps_its_marking() -> None:
    board = Board(number=1, dealer=Seat.S, vulnerability=Vulnerability.BOTH)
    assert (board.dealer, board.vulnerability, board.marked_differently) == (Seat.S, Vulnerability.BOTH, True)


@pytest.mark.parametrize(("text", "expected"), [
    ("None", "None"), ("Love", "None"), ("-", "None"), ("o", "None"), ("0", "None"), ("N-S ", "NS"),
    ("n", "NS"), ("E-W", "EW"), ("Both ", "All"), ("b", "All"), ("ALL", "All"),
])
def test_vulnerability_spellings(text: str, expected: str) -> None:
    assert Vulnerability.parse(text).value == expected


def test_deal_round_trips_from_any_first_seat() -> None:
    deal = Deal.from_pbn(DEAL)
    assert deal.is_complete
    assert deal.hand(Seat.E) == Hand.from_pbn("T98.765.432.AKQJ")
    assert Deal.from_pbn(deal.to_pbn(Seat.W)) == deal
    assert deal.to_pbn(Seat.W).startswith("W:432.AKQJ.T98.765 AKQJ")


def test_a_card_dealt_twice_is_refused() -> None:
    with pytest.raises(ValidationError, match="dealt twice"):
        Deal.from_pbn("N:AKQJ.T98.765.432 AKQJ.765.432.T98 - -")


def test_fourth_hand_is_derived_from_three() -> None:
    full = Deal.from_pbn(DEAL)
    three = Deal.from_hands({Seat.N: full.north, Seat.E: full.east, Seat.S: full.south})
    assert three.with_fourth_hand() == full


@pytest.mark.parametrize(("text", "declarer", "expected"), [
    ("4S", "N", (4, Strain.S, Doubling.NONE)), ("3N", "e", (3, Strain.NT, Doubling.NONE)),
    ("2Dx", "S", (2, Strain.D, Doubling.X)), ("6NTXX", "W", (6, Strain.NT, Doubling.XX)),
    ("1C*", "N", (1, Strain.C, Doubling.X)),
])
def test_contract_spellings(text: str, declarer: str, expected: tuple[int, Strain, Doubling]) -> None:
    contract = Contract.parse(text, declarer)
    assert (contract.level, contract.strain, contract.doubling) == expected


@pytest.mark.parametrize("text", ["PASS", "Pass", "p", "AP"])
def test_passed_out_is_a_contract(text: str) -> None:
    assert Contract.parse(text).is_passed_out
    assert str(Contract.parse(text)) == "PASS"


@pytest.mark.parametrize(("text", "declarer", "message"), [
    ("8S", "N", "not a contract"), ("4S", "Q", "declarer must be"), ("4S", None, "needs a declarer"),
])
def test_bad_contracts_say_what_was_expected(text: str, declarer: str | None, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Contract.parse(text, declarer)


@pytest.mark.parametrize(("result", "tricks"), [("=", 10), ("+2", 12), ("-3", 7), ("9", 9), ("0", 0)])
def test_results_become_tricks(result: str, tricks: int) -> None:
    assert TableResult.tricks_from_result(4, result) == tricks


def test_card_reads_suit_first_and_rank_first() -> None:
    assert Card.parse("QH") == Card.parse("HQ") == Card.parse("hq")
    assert str(Card.parse("s10")) == "ST"


def test_models_are_frozen() -> None:
    contract = Contract.parse("4S", "N")
    with pytest.raises(ValidationError):
        contract.level = 5  # type: ignore[misc]


def test_event_catalogue_is_a_discriminated_union_with_schema() -> None:
    event = EVENT_ADAPTER.validate_python({
        "type": "ResultRecorded", "schema_version": 1, "event_id": "e", "session_id": "s", "board": 1,
        "table_id": "1", "ns_id": "1", "ew_id": "2", "contract": "4S", "declarer": "N", "tricks": 10,
    })
    assert isinstance(event, ResultRecorded)
    schema = EVENT_ADAPTER.json_schema()
    assert set(schema["discriminator"]["mapping"]) == set(EVENT_TYPES)
    assert all(name[0].isupper() and name.endswith(("ed", "Dealt")) for name in EVENT_TYPES)
    json.dumps(schema)
