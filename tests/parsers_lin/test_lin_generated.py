"""Generated boards: random deals, legal auctions and suit-following play, written as LIN by hand.

The LIN text here is composed by the test (not by `parsers.lin.writer`) with the irregularities real
files have: ranks in any order, `10` for T, upper-case vulnerability, alerts, newlines before `|`,
three or four hands.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from endplay.parsers import lin as endplay_lin
from hypothesis import given, settings
from hypothesis import strategies as st

from models.board import Vulnerability
from models.cards import Card, Deal, Seat
from models.contract import Contract, Doubling, Strain
from parsers import lin
from parsers.lin import writer as lin_writer
from tests.conftest import examples

from .conftest import (
    auctions,
    deal_from_permutation,
    expected_declarer,
    independent_tricks,
    legal_play,
    without_position,
)

_LIN_SEAT_ORDER = (Seat.S, Seat.W, Seat.N, Seat.E)
_DIGIT = {Seat.S: "1", Seat.W: "2", Seat.N: "3", Seat.E: "4"}
_SV = {Vulnerability.NONE: ["o", "O", "0"], Vulnerability.NS: ["n", "N"], Vulnerability.EW: ["e", "E"],
       Vulnerability.BOTH: ["b", "B"]}
_MB = {"Pass": ["p", "P"], "X": ["d", "D"], "XX": ["r", "R"]}


@dataclass
class Generated:
    """A generated board and what the reader must find in its LIN text."""

    number: int
    dealer: Seat
    vulnerability: Vulnerability
    deal: Deal
    calls: list[str]
    play: list[Card]
    claim: int | None
    text: str


def _hand_text(deal: Deal, seat: Seat, rng: random.Random) -> str:
    hand = deal.hand(seat)
    assert hand is not None
    parts = []
    for suit, ranks in (("S", hand.spades), ("H", hand.hearts), ("D", hand.diamonds), ("C", hand.clubs)):
        shuffled = list(ranks)
        rng.shuffle(shuffled)
        parts.append(suit + "".join("10" if r == "T" and rng.random() < 0.3 else r for r in shuffled))
    return "".join(parts)


def _call_text(call: str, rng: random.Random) -> str:
    text = rng.choice(_MB[call]) if call in _MB else (call[0] + "N" if call.endswith("NT") else call)
    return text + ("!" if rng.random() < 0.1 else "")


def _sep(rng: random.Random) -> str:
    return "\n|" if rng.random() < 0.05 else "|"


@st.composite
def generated_boards(draw: st.DrawFn) -> Generated:
    rng: random.Random = draw(st.randoms(use_true_random=False))
    deal = deal_from_permutation(draw(st.permutations(range(52))))
    number, dealer = draw(st.integers(1, 64)), draw(st.sampled_from(list(Seat)))
    vulnerability = draw(st.sampled_from(list(Vulnerability)))
    calls = draw(auctions())
    contract_bids = [c for c in calls if c not in ("Pass", "X", "XX")]
    play: list[Card] = []
    claim = None
    if contract_bids:
        declarer = expected_declarer(calls, dealer)
        assert declarer is not None
        strain = Strain(contract_bids[-1][1:])
        cards = draw(st.sampled_from([52, 52, draw(st.integers(0, 51))]))
        play = legal_play(deal, declarer, strain, rng, cards)
        if cards < 52:
            won = independent_tricks(deal, play, declarer, strain)
            claim = draw(st.integers(won, won + 13 - cards // 4))
    hands = [_hand_text(deal, seat, rng) for seat in _LIN_SEAT_ORDER]
    if draw(st.booleans()):
        hands[3] = ""
    s = _sep(rng)
    text = (f"pn|south,west,north,east{s}st||md|{_DIGIT[dealer]}{','.join(hands)}{s}rh||ah|Board {number}"
            f"{s}sv|{rng.choice(_SV[vulnerability])}|")
    text += "".join(f"mb|{_call_text(call, rng)}{_sep(rng)}" for call in calls) + "pg||"
    for i, card in enumerate(play):
        text += f"pc|{card}|" + ("pg||" if i % 4 == 3 else "")
    if claim is not None:
        text += f"mc|{claim}|"
    return Generated(number, dealer, vulnerability, deal, calls, play, claim, text)


@settings(max_examples=examples(120), deadline=None)
@given(generated_boards())
def test_generated_board_is_read_exactly(board: Generated) -> None:
    parsed = lin.loads(board.text)
    assert parsed.errors == () and parsed.quarantined == 0
    (record,) = parsed.boards
    assert (record.board, record.dealer, record.vulnerability, record.deal) == (
        board.number, board.dealer, board.vulnerability, board.deal)
    (result,) = parsed.results
    assert list(result.auction) == board.calls
    assert list(result.play) == board.play
    contract = result.contract
    if not [c for c in board.calls if c not in ("Pass", "X", "XX")]:
        assert contract == Contract.passed_out() and result.tricks is None
        return
    assert contract.declarer == expected_declarer(board.calls, board.dealer)
    last_bid = [c for c in board.calls if c not in ("Pass", "X", "XX")][-1]
    assert f"{contract.level}{contract.strain}" == last_bid
    after = board.calls[len(board.calls) - board.calls[::-1].index(last_bid):]
    assert contract.doubling is (Doubling.XX if "XX" in after else Doubling.X if "X" in after else Doubling.NONE)
    assert contract.declarer is not None
    if board.claim is None:
        assert result.tricks == independent_tricks(board.deal, board.play, contract.declarer, contract.strain)
    else:
        assert result.tricks == board.claim


@settings(max_examples=examples(60), deadline=None)
@given(st.lists(generated_boards(), min_size=1, max_size=5))
def test_generated_files_round_trip_and_endplay_agrees(boards: list[Generated]) -> None:
    parsed = lin.loads("\n".join(board.text for board in boards))
    assert len(parsed.results) == len(boards)
    text = lin_writer.dumps(parsed)
    again = lin.loads(text)
    assert [without_position(r) for r in again.results] == [without_position(r) for r in parsed.results]
    assert [without_position(b) for b in again.boards] == [without_position(b) for b in parsed.boards]
    theirs = endplay_lin.loads(text)  # a single-board file, or a vugraph file for several
    assert len(theirs) == len(parsed.results)
    assert {b.deal.to_pbn() for b in theirs} == {b.deal.to_pbn("N") for b in parsed.boards if b.deal is not None}

