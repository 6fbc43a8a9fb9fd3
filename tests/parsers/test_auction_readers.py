"""The careful readers' words for the engine's verdicts (`parsers.bridge.auction`): PBN's token
handling and every problem it reports, in token order; and a file's auctions judged in one call of
the engine, which changes nothing the readers return."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import parsers.lin.reader
import parsers.pbn.reader
from models.cards import Seat
from parsers import lin, pbn
from parsers.bridge import auction, auction_arrays
from parsers.bridge.auction import TokenProblem, judge_calls, read_auction, summarise_auction
from parsers.bridge.calls import INSUFFICIENT

from .conftest import CORPUS


def problems(facts: auction.AuctionFacts) -> list[tuple[str, int, str]]:
    return [(p.code, p.token, p.message) for p in facts.problems]


def test_pbn_reports_every_problem_and_goes_on() -> None:
    # N 1H, E 1C (insufficient), S pass, W doubles partner's 1C, N redoubles the other side's bid.
    facts = read_auction(Seat.N, Seat.N, ("1H", "1C", "Pass", "X", "XX", "Pass", "Pass", "Pass"))
    assert problems(facts) == [
        ("pbn.auction.insufficient", 1, "1C after 1H is insufficient (mark an accepted insufficient bid with ^I)."),
        ("pbn.auction.double", 3, "W cannot double here."),
        ("pbn.auction.redouble", 4, "N cannot redouble here."),
    ]
    assert facts.complete and facts.contract == (1, "C", "XX", Seat.E)


def test_pbn_accepts_an_insufficient_bid_marked_as_such_and_flags_a_sufficient_one() -> None:
    accepted = read_auction(Seat.N, Seat.N, ("1H", "1C", "AP"), {1: "^I"})
    assert accepted.problems == () and accepted.contract == (1, "C", "", Seat.E)
    assert accepted.calls == ("1H", "1C", "Pass", "Pass", "Pass")
    marked = read_auction(Seat.N, Seat.N, ("1C", "1H", "AP"), {1: "^I"})
    assert problems(marked) == [("pbn.auction.irregularity", 1, "1H is marked insufficient (^I) but it is sufficient.")]


@pytest.mark.parametrize(("tokens", "found", "calls", "complete"), [
    (("1C", "Pass", "Pass", "Pass", "AP"), [("pbn.auction.after-end", 4, "'AP' comes after the end of the auction.")],
     ("1C", "Pass", "Pass", "Pass"), True),
    (("1C", "*", "Pass"), [("pbn.auction.after-end", 2, "'Pass' comes after the end of the auction.")],
     ("1C",), False),
    (("1C", "foo", "Pass"), [("pbn.auction.call", 1, "'foo' is not a call (Pass, X, XX, 1C..7NT).")], (), False),
    (("1C", "Pass", "Pass", "Pass", "foo"), [("pbn.auction.after-end", 4, "'foo' comes after the end of the auction.")],
     ("1C", "Pass", "Pass", "Pass"), True),
    (("1C", "+"), [], ("1C",), False),
])
def test_pbn_tokens_that_end_the_section(tokens: tuple[str, ...], found: list[tuple[str, int, str]],
                                         calls: tuple[str, ...], complete: bool) -> None:
    facts = read_auction(Seat.N, Seat.N, tokens)
    assert (problems(facts), facts.calls, facts.complete) == (found, calls, complete)


def test_pbn_pads_up_to_the_dealer_and_counts_seats_from_the_first_call() -> None:
    facts = read_auction(Seat.W, Seat.N, ("-", "-", "1C", "AP"))
    assert facts.problems == (TokenProblem("pbn.auction.first-call", "The first call is by E but the dealer is N; "
                                           "pad with '-' up to the dealer.", 2),)
    assert facts.contract == (1, "C", "", Seat.E)


def test_pbn_notes_spellings_only_up_to_the_end() -> None:
    facts = read_auction(Seat.N, Seat.N, ("PASS", "pass", "Pass", "Pass", "1n", "p"))
    assert facts.drift == ((0, "PASS", "Pass"),) and facts.lower and facts.contract is None
    assert problems(facts) == [("pbn.auction.after-end", 4, "'1n' comes after the end of the auction.")]
    assert read_auction(Seat.N, Seat.N, ("^S", "Pass", "Pass", "Pass")).calls == ("Pass",) * 4


def test_a_batch_gives_each_auction_the_verdict_it_gets_alone() -> None:
    auctions = [["1C", "Pass", "Pass", "Pass"], ["Pass"] * 4, ["1S", "1H"], ["2H", "X", "XX", "Pass", "Pass", "Pass"]]
    auction._VERDICTS.clear()
    together = judge_calls(auctions)
    auction._VERDICTS.clear()
    assert together == [judge_calls([calls])[0] for calls in auctions]
    assert together[3] == auction.Verdict(True, 5, (), 7, 2, 0)  # 2H (call number 7) redoubled, the dealer declares
    assert summarise_auction(auctions[2], Seat.S).problems == (
        (1, "insufficient-bid", "1H does not outrank the previous bid 1S"),)


@pytest.fixture
def engine_calls(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """The number of auctions in each call of the engine (with nothing judged before)."""
    batches: list[int] = []
    judge = auction_arrays.judge_auctions

    def counted(calls: Any, dealer: Any) -> Any:
        batches.append(calls.shape[0])
        return judge(calls, dealer)

    monkeypatch.setattr(auction_arrays, "judge_auctions", counted)
    auction._VERDICTS.clear()
    auction._AUCTIONS.clear()
    yield batches
    auction._VERDICTS.clear()
    auction._AUCTIONS.clear()


@pytest.mark.parametrize(("reader", "module", "path"), [
    (lin.loads, parsers.lin.reader, CORPUS / "lin" / "vugraph_wbtc2015_swe_pol_reexported.lin"),
    (pbn.loads, parsers.pbn.reader, CORPUS / "pbn" / "lintopbn_wbtc2015_swe_pol.pbn"),
])
def test_a_file_s_auctions_are_judged_in_one_engine_call_which_changes_nothing(
        reader: Any, module: Any, path: Path, engine_calls: list[int], monkeypatch: pytest.MonkeyPatch) -> None:
    data = path.read_bytes()
    at_once = reader(data)
    assert len(engine_calls) == 1 and engine_calls[0] >= 20
    for name in ("judge_calls", "judge_sections"):
        if hasattr(module, name):
            monkeypatch.setattr(module, name, lambda auctions: None)
    auction._VERDICTS.clear()
    auction._AUCTIONS.clear()
    assert reader(data) == at_once  # each game judged alone
    assert len(engine_calls) > 20


def test_one_long_auction_does_not_widen_the_table_of_every_short_one(
        engine_calls: list[int], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(auction, "_CELLS", 40)
    short = [["1C", "Pass", "Pass", "Pass"], ["Pass"] * 4, ["1S", "Pass", "2S", "Pass", "Pass", "Pass"]]
    long = ["1C", "X", "XX"] * 20 + ["Pass"] * 3  # 1C over 1C from the fourth call on
    verdicts = judge_calls([long, *short])
    assert engine_calls == [3, 1]  # the short ones together, the long one alone
    auction._VERDICTS.clear()
    assert verdicts == [judge_calls([calls])[0] for calls in [long, *short]]
    assert verdicts[0].problems[0] == (3, INSUFFICIENT, 0) and verdicts[0].complete


def test_a_full_memory_of_verdicts_is_emptied_without_losing_the_batch(
        engine_calls: list[int], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(auction, "_KEPT", 3)
    known = ["1C", "Pass", "Pass", "Pass"]
    judge_calls([known, ["Pass"] * 4])
    verdicts = judge_calls([known, ["1S", "Pass", "Pass", "Pass"], ["1H", "Pass", "Pass", "Pass"]])
    assert engine_calls == [2, 2]  # the first auction was remembered, the memory then emptied
    assert [v.bid for v in verdicts] == [0, 3, 2] and len(auction._VERDICTS) == 2
