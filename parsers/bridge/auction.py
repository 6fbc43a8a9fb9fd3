"""Auctions: legality, completion and the final contract, for calls as records store them and for
auction sections as PBN writes them.

`summarise_auction` walks normalised calls (dealer first); `read_auction` reads a PBN auction
section's tokens (`-` pads up to the dealer, `AP` ends it with passes, `^I` marks an accepted
insufficient bid). Both apply the rules of `calls.call_problem`. They raise nothing on bad input:
problems come back as values that the reader turns into positioned diagnostics, with its own codes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from models.cards import Seat
from models.contract import Contract, Doubling, Strain
from parsers.bridge.calls import (
    BID_RANK,
    BIDS,
    CALL_DRIFT,
    CALLS,
    DOUBLE,
    PASS,
    REDOUBLE,
    call_problem,
)
from parsers.bridge.cards import SEAT_INDEX, SEATS

Problem = tuple[int, str, str]
"""(index of the call or card, stable code suffix, message) — the caller adds position and prefix."""


class AuctionSummary(NamedTuple):
    """What an auction established, and what was wrong with it."""

    complete: bool
    """True when the auction ended (three passes after a bid, or four passes)."""
    contract: Contract | None
    """The final contract (passed out = level 0); None while the auction is incomplete or illegal."""
    problems: tuple[Problem, ...]
    """The first illegal call (insufficient bid, double of partner, ...) or call after the end."""


_SUMMARY_PROBLEMS = {
    "double": ("illegal-double", "a double is only allowed of an opponent's undoubled bid"),
    "redouble": ("illegal-redouble", "a redouble is only allowed after an opponent doubled your side's bid"),
}


def summarise_auction(calls: Sequence[str], dealer: Seat) -> AuctionSummary:
    """Walk normalised `calls` (dealer first): legality, completion and the final contract.

    Declarer is the first player of the declaring side who named the final strain (Law 20 term
    "declarer"), not the player who made the last bid.
    """
    last_rank, bid_side, doubling, passes = -1, -1, 0, 0
    ended = False
    for index, call in enumerate(calls):
        if ended:
            late = (index, "call-after-end", f"call {call} comes after the auction ended")
            return AuctionSummary(True, None, (late,))
        side = index & 1
        if call == PASS:
            passes += 1
            ended = passes == 4 or (passes == 3 and last_rank >= 0)
            continue
        problem = call_problem(call, last_rank, bid_side, doubling, side)
        if problem is not None:
            code, message = _SUMMARY_PROBLEMS.get(problem) or (
                "insufficient-bid", f"{call} does not outrank the previous bid {BIDS[last_rank]}")
            return AuctionSummary(False, None, ((index, code, message),))
        passes = 0
        if call == DOUBLE:
            doubling = 1
        elif call == REDOUBLE:
            doubling = 2
        else:
            last_rank, bid_side, doubling = BID_RANK[call], side, 0
    if not ended:
        return AuctionSummary(False, None, ())
    if last_rank < 0:
        return AuctionSummary(True, Contract.passed_out(), ())
    return AuctionSummary(True, _final_contract(calls, dealer, last_rank, bid_side, doubling), ())


def _final_contract(calls: Sequence[str], dealer: Seat, last_rank: int, bid_side: int, doubling: int) -> Contract:
    bid = BIDS[last_rank]
    strain_text = bid[1:]
    first = next(i for i, call in enumerate(calls)
                 if i & 1 == bid_side and call in BID_RANK and call[1:] == strain_text)
    return Contract(level=int(bid[0]), strain=Strain(strain_text), doubling=_DOUBLINGS[doubling],
                    declarer=SEATS[(SEAT_INDEX[dealer] + first) & 3])


_DOUBLINGS = (Doubling.NONE, Doubling.X, Doubling.XX)


def contract_from_auction(calls: Sequence[str], dealer: Seat) -> Contract | None:
    """Final contract of a complete, legal auction (passed out = level 0); None otherwise."""
    return summarise_auction(calls, dealer).contract


def declarer_from_auction(calls: Sequence[str], dealer: Seat) -> Seat | None:
    """Declarer of a complete, legal auction; None when passed out, incomplete or illegal."""
    contract = contract_from_auction(calls, dealer)
    return None if contract is None else contract.declarer


class TokenProblem(NamedTuple):
    """A problem found in a section's tokens (PBN), tied to the token."""

    code: str
    message: str
    token: int


class AuctionFacts(NamedTuple):
    """What an auction section says."""

    calls: tuple[str, ...]
    """Canonical calls from the dealer on (AP expanded, ^S read as Pass)."""
    complete: bool
    """True when the auction ended (three passes after a call, or four passes)."""
    contract: tuple[int, str, str, Seat] | None
    """(level, strain, doubling, declarer) when complete and not passed out."""
    problems: tuple[TokenProblem, ...]
    drift: tuple[tuple[int, str, str], ...]
    """(token index, as written, canonical) for drift spellings such as PASS or 1N."""
    lower: bool
    """Some calls were written in lower case (allowed by import format)."""


_AUCTIONS: dict[tuple[int, int, tuple[str, ...]], AuctionFacts] = {}


def read_auction(first: Seat, dealer: Seat | None, tokens: tuple[str, ...],
                 prefixes: dict[int, str] | None = None) -> AuctionFacts:
    """Interpret PBN auction tokens whose first column is `first` (`-` pads up to the dealer)."""
    if prefixes:
        return _read_auction(first, dealer, tokens, prefixes)
    key = (id(first), id(dealer), tokens)  # seats are singletons; id() avoids Enum's Python-level hash
    found = _AUCTIONS.get(key)
    if found is None:
        found = _read_auction(first, dealer, tokens, None)
        if len(_AUCTIONS) < 20_000:  # auctions repeat a lot; the cache stays small
            _AUCTIONS[key] = found
    return found


def _read_auction(first: Seat, dealer: Seat | None, tokens: tuple[str, ...],
                  prefixes: dict[int, str] | None) -> AuctionFacts:
    problems: list[TokenProblem] = []
    drift: list[tuple[int, str, str]] = []
    lower = False
    dashes = 0
    while dashes < len(tokens) and tokens[dashes] == "-":
        dashes += 1
    actual = (SEAT_INDEX[first] + dashes) % 4
    if dealer is not None and actual != SEAT_INDEX[dealer]:
        problems.append(TokenProblem("pbn.auction.first-call", f"The first call is by {SEATS[actual].value} but "
                                     f"the dealer is {dealer.value}; pad with '-' up to the dealer.", dashes))
    state = _Bidding(actual)
    ended_at: int | None = None
    for i in range(dashes, len(tokens)):
        token = tokens[i]
        if ended_at is not None:
            problems.append(TokenProblem("pbn.auction.after-end", f"{token!r} comes after the end of the auction.",
                                         i))
            break
        if token in ("*", "+"):
            ended_at = i
            continue
        if token in ("AP", "ap"):
            state.all_pass()
            ended_at = i
            continue
        call = CALLS.get(token)
        if call is None:
            call = PASS if token == "^S" else CALL_DRIFT.get(token)
            if call is None:
                problems.append(TokenProblem("pbn.auction.call", f"{token!r} is not a call (Pass, X, XX, 1C..7NT).",
                                             i))
                return AuctionFacts((), False, None, tuple(problems), tuple(drift), lower)
            if token != "^S":
                drift.append((i, token, call))
        elif call != token:
            lower = True
        problem = state.add(call, prefixes.get(i, "") if prefixes else "", i)
        if problem is not None:
            problems.append(problem)
        if state.finished:
            ended_at = i
    return AuctionFacts(tuple(state.calls), state.finished, state.contract() if state.finished else None,
                        tuple(problems), tuple(drift), lower)


class _Bidding:
    """Running state of an auction read from tokens; `calls.call_problem` decides what is legal."""

    def __init__(self, first: int) -> None:
        self.turn = first
        self.calls: list[str] = []
        self.last_bid: str | None = None
        self.last_bidder = -1
        self.doubling = ""
        self.passes = 0
        self.first_namer: dict[tuple[int, str], int] = {}

    @property
    def finished(self) -> bool:
        return self.passes >= 4 or (self.last_bid is not None and self.passes >= 3)

    def all_pass(self) -> None:
        while not self.finished:
            self.add(PASS, "", -1)

    def add(self, call: str, prefix: str, index: int) -> TokenProblem | None:
        problem = None if call == PASS else self._check(call, prefix, index)
        seat = self.turn
        if call == PASS:
            self.passes += 1
        else:
            self.passes = 0
            if call in (DOUBLE, REDOUBLE):
                self.doubling = call
            else:
                self.last_bid, self.last_bidder, self.doubling = call, seat, ""
                self.first_namer.setdefault((seat % 2, call[1:]), seat)
        self.calls.append(call)
        self.turn = (seat + 1) % 4
        return problem

    def _check(self, call: str, prefix: str, index: int) -> TokenProblem | None:
        seat = self.turn
        name = SEATS[seat].value
        last_rank = -1 if self.last_bid is None else BID_RANK[self.last_bid]
        doubling = {"": 0, DOUBLE: 1, REDOUBLE: 2}[self.doubling]
        problem = call_problem(call, last_rank, self.last_bidder % 2, doubling, seat % 2)
        if problem == "double":
            return TokenProblem("pbn.auction.double", f"{name} cannot double here.", index)
        if problem == "redouble":
            return TokenProblem("pbn.auction.redouble", f"{name} cannot redouble here.", index)
        if problem == "insufficient" and prefix != "^I":
            return TokenProblem("pbn.auction.insufficient", f"{call} after {self.last_bid} is insufficient "
                                "(mark an accepted insufficient bid with ^I).", index)
        if problem is None and call in BID_RANK and prefix == "^I":
            return TokenProblem("pbn.auction.irregularity", f"{call} is marked insufficient (^I) but it is "
                                "sufficient.", index)
        return None

    def contract(self) -> tuple[int, str, str, Seat] | None:
        if self.last_bid is None:
            return None
        strain = self.last_bid[1:]
        declarer = self.first_namer[(self.last_bidder % 2, strain)]
        return int(self.last_bid[0]), strain, self.doubling, SEATS[declarer]
