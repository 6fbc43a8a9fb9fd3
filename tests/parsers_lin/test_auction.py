"""The bridge engine (`parsers.bridge`): declarer, contract, legality, trick winners and the replay checks."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from models.cards import Seat
from models.contract import Contract, Doubling, Strain
from parsers.bridge.auction import contract_from_auction, declarer_from_auction, summarise_auction
from parsers.bridge.calls import normalise_call
from parsers.bridge.play import hand_masks, hands_of, replay
from tests.conftest import examples

from .conftest import auctions, deal_from_permutation, expected_declarer, independent_tricks, legal_play


@pytest.mark.parametrize(("text", "call"), [
    ("p", "Pass"), ("P", "Pass"), ("PASS", "Pass"), ("d", "X"), ("d!", "X"), ("x", "X"), ("r", "XX"),
    ("XX", "XX"), ("1n", "1NT"), ("1N", "1NT"), ("3NT", "3NT"), ("2S!", "2S"), ("7c", "7C"), (" 4h ", "4H"),
])
def test_call_spellings_are_normalised(text: str, call: str) -> None:
    assert normalise_call(text) == call


@pytest.mark.parametrize("text", ["8S", "0C", "1Z", "", "pp", "S"])
def test_non_calls_are_refused(text: str) -> None:
    assert normalise_call(text) is None


def test_declarer_is_first_of_the_side_to_name_the_strain() -> None:
    # N opens 1H, S raises to 4H: N named hearts first, so N declares although S bid last.
    calls = ["1H", "Pass", "4H", "Pass", "Pass", "Pass"]
    assert contract_from_auction(calls, Seat.N) == Contract(level=4, strain=Strain.H, declarer=Seat.N)
    # E opens 1S, W bids 2H, E 3H, W 4S: spades first named by E.
    calls = ["Pass", "1S", "Pass", "2H", "Pass", "3H", "Pass", "4S", "Pass", "Pass", "Pass"]
    assert declarer_from_auction(calls, Seat.N) == Seat.E


def test_doubled_and_redoubled_contracts() -> None:
    assert contract_from_auction(["1C", "X", "XX", "Pass", "Pass", "Pass"], Seat.S) == Contract(
        level=1, strain=Strain.C, doubling=Doubling.XX, declarer=Seat.S)
    # A new bid clears the double.
    assert contract_from_auction(["1C", "X", "1S", "Pass", "Pass", "Pass"], Seat.W) == Contract(
        level=1, strain=Strain.S, declarer=Seat.E)


def test_four_passes_is_passed_out() -> None:
    summary = summarise_auction(["Pass"] * 4, Seat.E)
    assert summary.complete and summary.contract == Contract.passed_out() and summary.problems == ()


@pytest.mark.parametrize(("calls", "code"), [
    (["1S", "1H"], "insufficient-bid"),
    (["1S", "Pass", "X"], "illegal-double"),
    (["X"], "illegal-double"),
    (["1S", "XX"], "illegal-redouble"),
    (["1S", "X", "Pass", "XX"], "illegal-redouble"),
    (["1S", "Pass", "Pass", "Pass", "2C"], "call-after-end"),
])
def test_illegal_calls_are_reported_with_their_index(calls: list[str], code: str) -> None:
    summary = summarise_auction(calls, Seat.N)
    assert summary.contract is None
    assert [(index, c) for index, c, _ in summary.problems] == [(len(calls) - 1, code)]


def test_incomplete_auction_has_no_contract() -> None:
    summary = summarise_auction(["1S", "Pass", "Pass"], Seat.N)
    assert not summary.complete and summary.contract is None and summary.problems == ()


def test_replay_flags_a_card_from_the_wrong_hand_and_stops_counting() -> None:
    deal = deal_from_permutation(list(range(52)))  # N holds all spades, E hearts, S diamonds, W clubs
    hands = hands_of(deal)
    # Declarer N, so E leads: E plays a heart, S a diamond, W a club, then N a *heart* it does not hold.
    outcome = replay(["H2", "D2", "C2", "H3"], Seat.N, Strain.NT, hands)
    assert outcome.complete_tricks == 0
    assert [(i, code) for i, code, _ in outcome.problems] == [(3, "wrong-player")]
    assert "E holds it" in outcome.problems[0][2]


def test_replay_without_a_suit_to_follow_is_no_revoke() -> None:
    deal = deal_from_permutation(list(range(52)))
    hands = hands_of(deal)
    # Each hand is one suit, so nobody can follow: no revoke, and E's lead wins at notrump.
    outcome = replay(["HA", "DA", "CA", "SA"], Seat.N, Strain.NT, hands)
    assert outcome == (0, 1, ())


def test_replay_reports_revoke() -> None:
    # Swap one spade and one heart so that E holds a spade and fails to follow to a spade lead.
    order = list(range(52))
    order[0], order[13] = order[13], order[0]  # N gets HA, E gets SA
    deal = deal_from_permutation(order)
    # W declares, so N leads: N leads a spade and E, holding SA, discards HK.
    outcome = replay(["SK", "HK", "D2", "C2"], Seat.W, Strain.NT, hands_of(deal))
    assert [(i, code) for i, code, _ in outcome.problems] == [(1, "revoke")]
    assert outcome.complete_tricks == 1


def test_replay_refuses_repeated_and_unknown_cards() -> None:
    outcome = replay(["SA", "S2", "S3", "S4", "SA", "S5", "S6", "S7"], Seat.N, Strain.S)
    assert outcome.complete_tricks == 1 and outcome.problems[0][:2] == (4, "card-played-twice")
    outcome = replay(["SA", "S2", "S3", "XX"], Seat.N, Strain.S)
    assert outcome.complete_tricks == 0 and outcome.problems[0][:2] == (3, "bad-card")


def test_hand_masks_need_a_whole_pack() -> None:
    deal = deal_from_permutation(list(range(52)))
    assert hand_masks(hands_of(deal)) is not None
    hands = hands_of(deal)
    hands[Seat.N] = None
    assert hand_masks(hands) is None


@given(auctions(), st.sampled_from(list(Seat)))
def test_generated_auctions_are_legal_and_find_the_book_declarer(calls: list[str], dealer: Seat) -> None:
    summary = summarise_auction(calls, dealer)
    assert summary.problems == () and summary.complete
    assert summary.contract is not None
    assert summary.contract.declarer == expected_declarer(calls, dealer)


@settings(max_examples=examples(150), deadline=None)
@given(st.permutations(range(52)), st.sampled_from(list(Seat)), st.sampled_from([*Strain, None]),
       st.randoms(use_true_random=False))
def test_replay_count_equals_an_independent_count(order: list[int], declarer: Seat, strain: Strain | None,
                                                  rng: object) -> None:
    deal = deal_from_permutation(order)
    play = legal_play(deal, declarer, strain, rng)  # type: ignore[arg-type]
    outcome = replay([str(card) for card in play], declarer, strain, hands_of(deal))
    assert outcome.problems == ()
    assert outcome.complete_tricks == 13
    assert outcome.declarer_tricks == independent_tricks(deal, play, declarer, strain)
