"""Fast path: every auction of a file checked at once.

The rules are the bridge engine's (`parsers.bridge.auction_arrays`, the only place they are written,
for every reader): a bid must outrank the last bid, a double needs an undoubled bid of the other
side, a redouble a double of one's own side's bid; the auction ends after three passes following a
bid (four passes: passed out) and nothing may follow. The file is declined on any problem the
engine finds, or any auction that does not end. Here PBN's own spellings are read: only calls
spelled the standard way are taken (`Pass`, `X`, `XX`, `1C`..`7NT`, a final `AP`, `-` padding up to
the dealer); lower case, `*`, `+` and incomplete auctions are left to the careful reader. An auction
must be complete and end in the contract and declarer of the Contract and Declarer tags.
"""

from __future__ import annotations

import numpy as np
import polars as pl

from parsers.arrow import named
from parsers.bridge.auction_arrays import Auctions, Ints
from parsers.bridge.auction_arrays import read_auctions as check_auctions
from parsers.bridge.calls import ALL_PASSES, BIDS, DOUBLE, PASS, PASS_CALL, REDOUBLE
from parsers.pbn.fast_bytes import (
    MASKS,
    BoolArray,
    Declined,
    IntArray,
    Source,
    Tokens,
    Vocabulary,
    WordArray,
    list_column,
    run_starts,
)
from parsers.pbn.fast_deals import seat_codes
from parsers.pbn.fast_lines import rows_of

CALLS = (PASS, DOUBLE, REDOUBLE, *BIDS, "AP", "-")
"""Tokens taken, by code: 0 Pass, 1 X, 2 XX, 3.. the bids in rank order, then AP and -."""
PASS_CODE = 0
ALL_PASS, DASH = len(CALLS) - 2, len(CALLS) - 1
NONE = -1
_CALL_WORDS = Vocabulary(CALLS, words=1)
_LONGEST_CALL = max(len(call) for call in CALLS)
_CALL_NUMBER = np.array([PASS_CALL, PASS_CALL + 1, PASS_CALL + 2, *range(len(BIDS))], dtype=np.int8)
"""PBN code of a call -> its number in the bridge engine's arrays (`auction_arrays.CALL_NAMES`)."""
CONTRACTS = (PASS, *(bid + doubling for bid in BIDS for doubling in ("", "X", "XX")))
"""Contract tags taken (`fast_records` checks them), by code: 0 Pass, then 1 + 3 * bid rank + doubling."""


def read_auctions(games: pl.DataFrame, tokens: Tokens, source: Source) -> pl.DataFrame:
    """Check the auctions of `games` (rows with an Auction tag and a standard Contract) and return
    `record` and `auction`: the calls from the dealer on, `AP` written out as passes."""
    if not games["Dealer"].is_in(list("NESW")).all() or not games["Auction"].is_in(list("NESW")).all():
        raise Declined("an auction without a known dealer, or not naming a seat")
    codes = np.where(tokens.length <= _LONGEST_CALL, _CALL_WORDS.find(_call_words(source, tokens)), NONE)
    if (codes < 0).any():
        raise Declined("an auction token that is not a call spelled the standard way")
    rows = rows_of(games["record"].to_numpy(), tokens.record, "an auction")
    call = codes < ALL_PASS
    dash, all_pass = codes == DASH, codes == ALL_PASS
    if (dash & (_calls_before(rows, call) > 0)).any():
        raise Declined("'-' after a call")
    if (all_pass & ~_last_of_row(rows)).any():
        raise Declined("'AP' before the last token")
    dealer = seat_codes(games["Dealer"])
    dashes = np.bincount(rows[dash], minlength=games.height)
    if ((seat_codes(games["Auction"]) + dashes) % 4 != dealer).any():
        raise Declined("an auction whose first call is not the dealer's")
    written = np.bincount(rows[call], minlength=games.height)
    added = np.zeros(games.height, dtype=np.int64)
    added[rows[all_pass]] = ALL_PASSES
    contracts = check_auctions(_call_table(games.height, rows[call], codes[call], added), dealer, written)
    if (contracts.calls == 0).any():
        raise Declined("an auction that is not complete")
    _check_contract(games, contracts)
    passes = np.where(added > 0, contracts.end + 1 - written, 0)  # the passes `AP` stands for, up to the end
    return games.select("record").with_columns(auction=_call_lists(rows, codes, passes))


def _calls_before(rows: IntArray, call: BoolArray) -> IntArray:
    """For each token (sorted by game), the calls (not `-` or `AP`) before it in its game."""
    counted: IntArray = np.cumsum(call, dtype=np.int64) - call  # before it in the file
    starts = run_starts(rows)
    return counted - np.repeat(counted[starts], np.diff(np.append(starts, rows.size)))


def _last_of_row(rows: IntArray) -> BoolArray:
    """Whether each token is the last of its game's auction."""
    return np.append(rows[1:] != rows[:-1], True) if rows.size else np.zeros(0, dtype=bool)


def _call_table(games: int, rows: IntArray, codes: IntArray, passes: IntArray) -> Ints:
    """Each game's calls as the engine's call numbers, dealer first, then `passes` passes; -1 after."""
    calls = np.bincount(rows, minlength=games)
    width = int((calls + passes).max(initial=0))
    table = np.full((games, max(width, 1)), -1, dtype=np.int8)
    table[rows, _positions(rows)] = _CALL_NUMBER[codes]
    added = np.repeat(np.arange(games), passes)
    table[added, calls[added] + _positions(added)] = PASS_CALL
    return table


def _call_words(source: Source, tokens: Tokens) -> WordArray:
    """The bytes of each token as a word (shape (n, 1)), up to the longest call's length: enough to
    tell the calls from each other and from anything else (longer tokens are no call). Read byte by
    byte: gathers from `data` are several times faster than from the unaligned `Source.words`."""
    found = np.zeros(tokens.start.size, dtype=np.uint64)
    for place in range(_LONGEST_CALL):
        found |= source.data[tokens.start + place].astype(np.uint64) << np.uint64(8 * place)
    return (found & np.take(MASKS, tokens.length, mode="clip"))[:, None]


def _positions(rows: IntArray) -> IntArray:
    """Place of each item in its row's run, for items sorted by row: 0, 1, ... from each new row."""
    starts = run_starts(rows)
    return np.arange(rows.size) - np.repeat(starts, np.diff(np.append(starts, rows.size)))


def _call_lists(rows: IntArray, codes: IntArray, passes: IntArray) -> pl.Series:
    """Each game's calls (its tokens less `-` and `AP`) and then `passes` passes, as a list column."""
    calls = codes < ALL_PASS
    rows, codes = rows[calls], codes[calls]
    length = np.bincount(rows, minlength=passes.size) + passes
    offsets = np.concatenate(([0], np.cumsum(length)))
    flat = np.full(int(offsets[-1]), PASS_CODE, dtype=np.int64)  # the passes for `AP` stay
    flat[offsets[rows] + _positions(rows)] = codes
    return list_column(named(flat, CALLS), offsets)


def _check_contract(games: pl.DataFrame, contracts: Auctions) -> None:
    """The auction ends in the Contract and Declarer the tags give."""
    said = np.where(contracts.bid < 0, 0, 1 + 3 * contracts.bid + contracts.doubling)  # the code in CONTRACTS
    written = games["Contract"].cast(pl.Enum(CONTRACTS), strict=False).to_physical().fill_null(-1).to_numpy()
    if (said != written).any():
        raise Declined("an auction that does not end in the Contract tag")
    bidders = np.flatnonzero(contracts.bid >= 0)
    if (contracts.declarer[bidders] != seat_codes(games["Declarer"].gather(bidders))).any():
        raise Declined("an auction whose declarer is not the Declarer tag")
