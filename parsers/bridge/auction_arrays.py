"""The rules of the auction, written once, over arrays: every auction of a batch judged at once.

This module is the only place they are written, for every reader:

- a bid must outrank the last bid (Law 18);
- a double is only allowed of an opponent's bid not yet doubled, a redouble only of a double of
  one's own side's bid (Law 19);
- the auction ends after three passes in a row following a bid, or after four passes when nobody
  bid (Law 22); no call may follow its end;
- declarer is the player of the declaring side who first named the final strain (the Laws' term).

`judge_auctions` reports, it does not decide: for each call, what is wrong with it (`INSUFFICIENT`,
`BAD_DOUBLE`, `BAD_REDOUBLE`, `AFTER_END`); for each auction, whether and where it ended, its final
bid, doubling and declarer. A call is judged against the state the calls before it made, illegal
ones included (a reader that goes on after a problem sees each later call as the table did); the
first problem of an auction is judged against legal calls only. The careful readers call it
through `parsers.bridge.auction` (a batch of one auction, or of a file's); both vectorised fast
paths through `read_auctions`, which declines (`parsers.declined`) unless every auction is legal
and complete.

An auction is a row of call numbers, dealer first, padded with -1: 0-34 the bids 1C..7NT (`BIDS`
order), 35 Pass, 36 X, 37 XX (`CALL_NAMES`). The state before a call is two running maxima along
the auction, of the last bid and of the last bid, double or redouble. Each is kept as a key that
grows with the call's place and carries the call in its low byte, so one `maximum.accumulate` finds
both and no call is visited in Python.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt

from parsers.bridge.calls import (
    AFTER_END,
    BAD_DOUBLE,
    BAD_REDOUBLE,
    DOUBLE_CALL,
    INSUFFICIENT,
    LEGAL,
    PASS_CALL,
    REDOUBLE_CALL,
)
from parsers.declined import Declined, require

Ints = npt.NDArray[np.integer[Any]]
Bools = npt.NDArray[np.bool_]

_NO_CALL = 255
"""-1 (no call) read as an unsigned byte."""
_NO_ACTION = 255
"""The key of the last bid, double or redouble before the first one: no place, and no call
(`_DOUBLED` reads it as undoubled; it equals no key of a bid)."""


def _table(size: int, values: dict[int, int], default: int) -> Ints:
    table = np.full(size, default, dtype=np.int8)
    table[list(values)] = list(values.values())
    return table


_ACTION = _table(256, {call: 1 for call in (*range(PASS_CALL), DOUBLE_CALL, REDOUBLE_CALL)}, 0).view(np.bool_)
"""Call number (as an unsigned byte) -> whether it is a bid, a double or a redouble."""
_DOUBLED = _table(256, {DOUBLE_CALL + 1: 1, REDOUBLE_CALL + 1: 2}, 0)
"""Low byte of a key of the last bid, double or redouble -> how doubled the last bid is (0, 1, 2)."""
_NAMED = _table(256, {rank: 2 * (rank % 5) for rank in range(PASS_CALL)}, -2).astype(np.int16)
"""Call number (as an unsigned byte) -> twice the strain (0 clubs .. 8 notrump) of a bid, -2 for
the other calls; with the caller's side (`_Places.parity`) in the low bit, it says which side
named which strain."""
_FINAL_NAMED = _table(512, {parity << 8 | (rank + 1): 2 * (rank % 5) | parity
                            for parity in (0, 1) for rank in range(PASS_CALL)}, -3).astype(np.int16)
"""The low nine bits of a bid's key (the parity of its count, its call number + 1) -> `_NAMED` of
the bid, with that parity; -3 (no call) for the key of no bid."""


@dataclass(frozen=True)
class Auctions:
    """What the rules say of every call and every auction of a batch."""

    problem: Ints
    """(auctions, width): what is wrong with each call (`LEGAL` ... `AFTER_END`); `LEGAL` past the
    last call. Every call after the end is `AFTER_END`, whatever else it breaks."""
    calls: Ints
    """Number of calls made."""
    complete: Bools
    """Whether the auction ended (whatever its calls broke)."""
    end: Ints
    """Place of the call that ended the auction; -1 while it has not ended."""
    bid: Ints
    """Call number of the final bid (0-34); -1 when passed out or not ended."""
    doubling: Ints
    """How the final bid is doubled at the end: 0 undoubled (or no final bid), 1 doubled, 2 redoubled."""
    declarer: Ints
    """Seat number of declarer (in the numbering the dealers were given in); -1 without a contract."""
    bid_keys: Ints
    """(width, auctions): the last bid before each call, as `_state_before` keys."""

    @property
    def first_problem(self) -> Ints:
        """Place of the first call with a problem in each auction; -1 when there is none."""
        wrong = self.problem != LEGAL
        first: Ints = np.where(wrong.any(axis=1), wrong.argmax(axis=1), -1)
        return first

    @property
    def last_bid(self) -> Ints:
        """(auctions, width): the call number of the last bid before each call, -1 before any bid
        (what an insufficient bid failed to outrank; calls after the end count too)."""
        before: Ints = ((self.bid_keys & 0xFF).astype(np.int8) - 1).T
        return before


def judge_auctions(calls: Ints, dealer: Ints) -> Auctions:
    """Judge every call of every auction (rows of call numbers, dealer first, padded with -1).

    Seats are numbered clockwise, so declarer is the dealer plus the place of the call that first
    named the strain, modulo 4.
    """
    # One row per place and one column per auction: auctions are short, and numpy is slow along short rows.
    code = np.ascontiguousarray(calls.T, dtype=np.int8).view(np.uint8)  # no call (-1) reads 255, above every call
    places = _places(code.shape[0])
    state = _state_before(code, places)
    last_bid, last_action = state[0, :-1], state[1, :-1]
    problem = _problems(code, places, last_bid, last_action)
    complete, end = _ends(code, places, last_bid, last_action)
    made = code != _NO_CALL
    problem[made & (places.calls > end + 1)] = AFTER_END
    final, action = state[:, end, np.arange(end.size)] * complete  # the state at the end; 0 if it did not end
    return Auctions(problem=problem.T, calls=np.add.reduce(made, axis=0), complete=complete,
                    end=np.where(complete, end, -1), bid=(final & 0xFF).astype(np.int8) - 1,
                    doubling=np.where(final > 0, _DOUBLED[action & 0xFF], 0),
                    declarer=_declarer(code, places, dealer, final), bid_keys=last_bid)


class _Places(NamedTuple):
    """Constants of each place of an auction (one row each), in the type of the keys: the smallest
    that holds them, for the running maxima are the bulk of the work."""

    calls: Ints
    """The number of calls up to the place (place + 1)."""
    key: Ints
    """The key of call number 0 at the place: calls * 256 + 1."""
    parity: Ints
    """calls & 1: which side calls there (1 the dealer's side)."""


@functools.lru_cache(maxsize=64)
def _places(width: int) -> _Places:
    kind: type[np.signedinteger[Any]] = np.int16 if width < 127 else np.int32 if width < 1 << 23 else np.int64
    calls: Ints = np.arange(1, width + 1, dtype=kind)[:, None]
    places = _Places(calls=calls, key=calls * 256 + 1, parity=calls & 1)
    for constant in places:
        constant.flags.writeable = False
    return places


def _state_before(code: Ints, places: _Places) -> Ints:
    """(2, width + 1, auctions): the last bid, and the last bid, double or redouble, before each
    place (and after the last), as keys: the number of calls up to that call times 256, plus its
    call number + 1. No bid is 0, no bid, double or redouble `_NO_ACTION`.

    The keys grow along the auction, so the last is a running maximum (one for both).
    """
    keys = places.key + code.astype(places.key.dtype)
    state = np.zeros((2, code.shape[0] + 1, code.shape[1]), dtype=keys.dtype)
    state[1, 0] = _NO_ACTION
    np.copyto(state[0, 1:], keys, where=code < PASS_CALL)
    np.copyto(state[1, 1:], keys, where=_ACTION[code])
    np.maximum.accumulate(state, axis=1, out=state)
    return state


def _problems(code: Ints, places: _Places, last_bid: Ints, last_action: Ints) -> Ints:
    """What is wrong with each call in the state before it (Laws 18 and 19), after-end aside."""
    ours = ((last_bid ^ places.key) & 256) == 0  # the last bid was made by the caller's side
    last = last_action & 0xFF  # the last bid, double or redouble: its call number + 1 (255: none)
    # A bid must outrank the last bid (call number + 1 in the low byte of its key; 0 before any).
    problem = (code.astype(last.dtype) < (last_bid & 0xFF)).view(np.int8)  # INSUFFICIENT where true
    # A double only of the other side's bid, not doubled: the last bid, double or redouble is that
    # bid (a call number + 1 up to 35).
    problem[(code == DOUBLE_CALL) & ~((last <= PASS_CALL) & ~ours)] = BAD_DOUBLE
    # A redouble only of a double of our side's bid: the last bid, double or redouble is that double.
    problem[(code == REDOUBLE_CALL) & ~((last == DOUBLE_CALL + 1) & ours & (last_bid > 0))] = BAD_REDOUBLE
    return problem


def _ends(code: Ints, places: _Places, last_bid: Ints, last_action: Ints) -> tuple[Bools, Ints]:
    """Whether each auction ended, and at which place (the width when it did not): at the first
    pass that is the third in a row after a bid, or the fourth (Law 22)."""
    passes = places.calls - (last_action >> 8)  # in a row, up to each call (when it is a pass)
    ends = (code == PASS_CALL) & ((passes == 4) | (passes == 3) & (last_bid > 0))
    complete: Bools = np.logical_or.reduce(ends, axis=0)
    return complete, np.where(complete, ends.argmax(axis=0), code.shape[0])


def _declarer(code: Ints, places: _Places, dealer: Ints, final: Ints) -> Ints:
    """The first player of the side that made the final bid (a key) to name its strain; -1 when
    there is no final bid."""
    first = ((_NAMED[code] | places.parity) == _FINAL_NAMED[final & 0x1FF]).argmax(axis=0)
    declarer: Ints = np.where(final > 0, (dealer + first) & 3, -1).astype(np.int8)
    return declarer


def read_auctions(calls: Ints, dealer: Ints, written: Ints | None = None) -> Auctions:
    """`judge_auctions` for the fast paths: declines unless each auction is empty, or legal and
    complete (so it ends with its last call).

    `written`, for PBN's `AP` (all pass): the calls of each auction before the `ALL_PASSES` passes
    its reader put after them. The auction must end among those passes; the ones after its end are
    not written, so not calls too many.
    """
    auctions = judge_auctions(calls, dealer)
    problem = auctions.problem
    if written is not None:
        require(bool((auctions.end >= written)[auctions.calls > written].all()), "a call after the end of the auction")
        problem = np.where(np.arange(problem.shape[1]) < written[:, None], problem, LEGAL)
    if problem.any():
        raise Declined(_DECLINED[int(problem.flat[np.flatnonzero(problem)[0]])])
    require(bool(((auctions.calls == 0) | auctions.complete).all()), "an auction that is not complete")
    return auctions


_DECLINED = {INSUFFICIENT: "an insufficient bid", BAD_DOUBLE: "a double of no undoubled bid of the other side",
             BAD_REDOUBLE: "a redouble of no double of one's own side's bid",
             AFTER_END: "a call after the end of the auction"}
