"""Every auction of a file checked at once, for the vectorised fast paths (PBN and LIN).

The rules are `parsers.bridge.auction`'s, over arrays: an auction is a row of call numbers, dealer
first, padded with -1. Calls are numbered 0-34 for the bids 1C..7NT (`BIDS` order), then 35 Pass,
36 X, 37 XX (`CALL_NAMES`). Each rule becomes a comparison between a call and "the state before
it", and that state (the last bid, the last bid or double) is a running maximum of column indices
along the rows, so no call is visited in Python.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from parsers.bridge.calls import BIDS, DOUBLE, PASS, REDOUBLE
from parsers.declined import require

Ints = npt.NDArray[np.integer[Any]]
Bools = npt.NDArray[np.bool_]

CALL_NAMES: tuple[str, ...] = (*BIDS, PASS, DOUBLE, REDOUBLE)
"""Normalised calls (`ResultRecord.auction` spelling) by call number."""
PASS_CALL, DOUBLE_CALL, REDOUBLE_CALL = 35, 36, 37


@dataclass(frozen=True)
class Contracts:
    """The outcome of every auction."""

    bid: Ints
    """Call number of the final bid (0-34); -1 when passed out or there is no auction."""
    doubling: Ints
    """0 undoubled, 1 doubled, 2 redoubled."""
    declarer: Ints
    """Seat number of declarer (in the numbering the dealers were given in); -1 without a contract."""
    calls: Ints
    """Number of calls made."""


def read_auctions(calls: Ints, dealer: Ints) -> Contracts:
    """Check every auction (rows of call numbers, dealer first) and find its contract and declarer.

    Declines unless each auction is empty or legal and complete, ending with its last call: no
    insufficient bid, no double but of an opponent's undoubled bid, no redouble but of a double of
    one's own side's bid (Laws 18, 19), three passes after a bid or four passes in all. Declarer
    is the first player of the declaring side who named the final strain. Seats are numbered
    clockwise (declarer = dealer + the call's place, modulo 4).
    """
    # One row per call and one column per auction: auctions are short, and numpy is slow along short rows.
    calls = np.ascontiguousarray(calls.T)
    width = calls.shape[0]
    index = _index_type(width)
    made = calls >= 0
    bid = made & (calls < PASS_CALL)
    last_bid, last_action = _last(bid, index), _last(made & (calls != PASS_CALL), index)
    bid_before, action_before = _before(last_bid), _before(last_action)
    any_bid = bid_before >= 0
    rank_before = np.where(any_bid, _at(calls, bid_before), -1)
    doubled_before = np.where(action_before > bid_before, _at(calls, action_before) - PASS_CALL, 0)
    theirs = (bid_before & 1) != (np.arange(width, dtype=index) & 1)[:, None]  # the last bid was the other side's
    require(bool((~bid | (calls > rank_before)).all()), "an insufficient bid")
    require(bool(((calls != DOUBLE_CALL) | (any_bid & theirs & (doubled_before == 0))).all()),
            "a double of no undoubled bid of the other side")
    require(bool(((calls != REDOUBLE_CALL) | (any_bid & ~theirs & (doubled_before == 1))).all()),
            "a redouble of no double of one's own side's bid")
    count = np.count_nonzero(made, axis=0)
    _require_ends_last(calls, last_bid, last_action, count)
    return _contracts(calls, dealer, last_bid[-1].astype(np.int64), last_action[-1].astype(np.int64), count)


def _index_type(width: int) -> type[np.signedinteger[Any]]:
    """The smallest integer type that holds a place in an auction of `width` calls (and -1): the
    running maxima are the bulk of the work, and they go as fast as their arrays are small."""
    return np.int8 if width < 127 else np.int16 if width < 32_767 else np.int64


def _last(mask: Bools, index: type[np.signedinteger[Any]]) -> Ints:
    """For each call, the last call at or before it where `mask` holds (-1: none)."""
    places = np.arange(mask.shape[0], dtype=index)[:, None]
    return np.maximum.accumulate(np.where(mask, places, index(-1)), axis=0)


def _before(last: Ints) -> Ints:
    """`_last` shifted one call on: the last call strictly before each call."""
    shifted = np.empty_like(last)
    shifted[0] = -1
    shifted[1:] = last[:-1]
    return shifted


def _at(calls: Ints, index: Ints) -> Ints:
    """`calls[index[i, b], b]` for each auction b (index -1 reads call 0: the caller masks it)."""
    boards = calls.shape[1]
    flat = np.maximum(index, 0).astype(np.int64) * boards + np.arange(boards)
    picked: Ints = np.take(calls.ravel(), flat)
    return picked


def _require_ends_last(calls: Ints, last_bid: Ints, last_action: Ints, count: Ints) -> None:
    """Each auction ends, and its first end is its last call."""
    passes = np.arange(calls.shape[0])[:, None] - last_action  # passes in a row up to each pass
    ends = (calls == PASS_CALL) & (((last_bid >= 0) & (passes == 3)) | (passes == 4))
    require(bool(((count == 0) | ends.any(axis=0)).all()), "an auction that is not complete")
    require(bool(((count == 0) | (np.argmax(ends, axis=0) == count - 1)).all()),
            "a call after the end of the auction")


def _contracts(calls: Ints, dealer: Ints, final: Ints, final_action: Ints, count: Ints) -> Contracts:
    bid = np.where(final >= 0, _at(calls, final[None, :])[0], -1)
    doubling = np.where(final_action > final, _at(calls, final_action[None, :])[0] - PASS_CALL, 0)
    side = (np.arange(calls.shape[0]) & 1)[:, None]
    named = (calls >= 0) & (calls < PASS_CALL) & (calls % 5 == bid % 5) & (side == (final & 1))
    declarer = np.where(bid >= 0, (dealer + np.argmax(named, axis=0)) % 4, -1).astype(np.int8)
    return Contracts(bid=bid, doubling=doubling, declarer=declarer, calls=count)
