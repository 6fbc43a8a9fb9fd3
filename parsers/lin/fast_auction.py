"""Auctions for the vectorised LIN reader: legality, end and final contract of every auction at once.

Calls are numbered 0-34 for the bids 1C..7NT (`parsers.bridge.calls.BIDS` order), then Pass, X, XX; an
auction is a row of call numbers padded with -1. Each rule of `parsers.bridge.auction.summarise_auction`
becomes a comparison between a call and "the state before it", and that state (last bid, last bid
or double) is a running maximum of column indices along the row, so no call is visited in Python.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from parsers.bridge.calls import BIDS, CALL_SPELLINGS, DOUBLE, PASS, REDOUBLE
from parsers.lin.fast_bytes import Bools, Ints, require

CALL_NAMES: tuple[str, ...] = (*BIDS, PASS, DOUBLE, REDOUBLE)
"""Normalised calls (`ResultRecord.auction` spelling) by call number."""
PASS_CALL, DOUBLE_CALL, REDOUBLE_CALL = 35, 36, 37
SPELLING_WIDTH = 5
"""The longest call spelling read (the grammar allows four characters and an alert mark)."""


def _spelling_table() -> tuple[Ints, Ints]:
    """Every spelling `CALL_SPELLINGS` knows (up to five bytes), packed into a number, sorted; and its call."""
    number = {call: i for i, call in enumerate(CALL_NAMES)}
    packed = {sum(byte << 8 * i for i, byte in enumerate(text.encode())): number[call]
              for text, call in CALL_SPELLINGS.items() if text.isascii() and len(text) <= SPELLING_WIDTH}
    keys = np.array(sorted(packed), dtype=np.uint64)
    return keys, np.array([packed[int(key)] for key in keys], dtype=np.int8)


_SPELLINGS, _SPELLED = _spelling_table()


def call_numbers(packed: Ints) -> Ints:
    """Call numbers of `mb` values packed by `Tokens.packed`; declines an unknown spelling.

    Only the spellings the careful reader looks up directly are accepted (`p`, `1N`, `2S!` ...);
    the others it normalises first, and the fast path leaves those files to it.
    """
    at = np.minimum(np.searchsorted(_SPELLINGS, packed), _SPELLINGS.size - 1)
    require(bool((_SPELLINGS[at] == packed).all()), "a call spelled in an unusual way")
    return _SPELLED[at]


@dataclass(frozen=True)
class Contracts:
    """The outcome of every board's auction."""

    bid: Ints
    """Call number of the final bid (0-34); -1 when passed out or there is no auction."""
    doubling: Ints
    """0 undoubled, 1 doubled, 2 redoubled."""
    declarer: Ints
    """Seat number of declarer; -1 when there is no contract."""
    calls: Ints
    """Number of calls made."""


def _last(mask: Bools) -> Ints:
    """For each call, the last call at or before it where `mask` holds (-1: none)."""
    return np.maximum.accumulate(np.where(mask, np.arange(mask.shape[0])[:, None], -1), axis=0)


def _before(last: Ints) -> Ints:
    """`_last` shifted one call on: the last call strictly before each call."""
    return np.concatenate([np.full((1, last.shape[1]), -1), last[:-1]], axis=0)


def _at(calls: Ints, index: Ints) -> Ints:
    """`calls[index[i, b], b]` for each board b (index -1 reads call 0: the caller masks it)."""
    boards = calls.shape[1]
    picked: Ints = np.take(calls.ravel(), np.maximum(index, 0) * boards + np.arange(boards))
    return picked


def read_auctions(calls: Ints, dealer: Ints) -> Contracts:
    """Check every auction (rows of call numbers, dealer first) and find its contract and declarer.

    Declines unless each auction is empty or legal and complete, ending with its last call: no
    insufficient bid, no double but of an opponent's undoubled bid, no redouble but of a double of
    one's own side's bid (Laws 18, 19), three passes after a bid or four passes in all. Declarer
    is the first player of the declaring side who named the final strain.
    """
    # One row per call and one column per board: auctions are short, and numpy is slow along short rows.
    calls = np.ascontiguousarray(calls.T)
    width = calls.shape[0]
    made = calls >= 0
    bid = made & (calls < PASS_CALL)
    last_bid, last_action = _last(bid), _last(made & (calls != PASS_CALL))
    bid_before, action_before = _before(last_bid), _before(last_action)
    rank_before = np.where(bid_before >= 0, _at(calls, bid_before), -1)
    doubled_before = np.where(action_before > bid_before, _at(calls, action_before) - PASS_CALL, 0)
    side = (np.arange(width) & 1)[:, None]
    opponents_bid = (bid_before >= 0) & ((bid_before & 1) != side)
    own_bid = (bid_before >= 0) & ((bid_before & 1) == side)
    legal = np.where(bid, calls > rank_before, True)
    legal &= np.where(calls == DOUBLE_CALL, opponents_bid & (doubled_before == 0), True)
    legal &= np.where(calls == REDOUBLE_CALL, own_bid & (doubled_before == 1), True)
    require(bool(legal.all()), "an illegal call")
    count = np.count_nonzero(made, axis=0)
    _require_ends_last(calls, last_bid, last_action, count)
    return _contracts(calls, dealer, last_bid[-1], last_action[-1], count)


def _require_ends_last(calls: Ints, last_bid: Ints, last_action: Ints, count: Ints) -> None:
    """Each auction ends exactly at its last call (never before it, and it does end)."""
    passes = np.arange(calls.shape[0])[:, None] - last_action  # passes in a row up to each pass
    ends = (calls == PASS_CALL) & (((last_bid >= 0) & (passes == 3)) | (passes == 4))
    at_last = _at(ends, (count - 1)[None, :])[0]
    require(bool(((count == 0) | ((np.count_nonzero(ends, axis=0) == 1) & at_last)).all()),
            "an auction that does not end, or goes on after its end")


def _contracts(calls: Ints, dealer: Ints, final: Ints, final_action: Ints, count: Ints) -> Contracts:
    bid = np.where(final >= 0, _at(calls, final[None, :])[0], -1)
    doubling = np.where(final_action > final, _at(calls, final_action[None, :])[0] - PASS_CALL, 0)
    side = (np.arange(calls.shape[0]) & 1)[:, None]
    named = (calls >= 0) & (calls < PASS_CALL) & (calls % 5 == bid % 5) & (side == (final & 1))
    declarer = np.where(bid >= 0, (dealer + np.argmax(named, axis=0)) % 4, -1).astype(np.int8)
    return Contracts(bid=bid, doubling=doubling, declarer=declarer, calls=count)
