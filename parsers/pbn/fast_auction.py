"""Fast path: every auction of a file checked at once, one call position at a time for all games.

Legality is the careful reader's (`bridge._Bidding`): a bid must outrank the last bid, a double
needs an undoubled bid of the other side, a redouble a double of one's own side's bid; the auction
ends after three passes following a bid (four passes: passed out) and nothing may follow. An
auction must be complete and end in the contract and declarer of the Contract and Declarer tags.
Only calls spelled the standard way are taken (`Pass`, `X`, `XX`, `1C`..`7NT`, a final `AP`, `-`
padding up to the dealer); lower case, `*`, `+` and incomplete auctions are left to the careful reader.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import polars as pl

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
    named,
    run_starts,
)
from parsers.pbn.fast_deals import seat_codes
from parsers.pbn.fast_lines import rows_of

STRAINS = ("C", "D", "H", "S", "NT")
BIDS = tuple(f"{level}{strain}" for level in range(1, 8) for strain in STRAINS)
CALLS = ("Pass", "X", "XX", *BIDS, "AP", "-")
"""Tokens taken, by code: 0 Pass, 1 X, 2 XX, 3.. the bids in rank order, then AP and -."""
PASS, DOUBLE, REDOUBLE, FIRST_BID = 0, 1, 2, 3
ALL_PASS, DASH = len(CALLS) - 2, len(CALLS) - 1
NONE = -1
_CALL_WORDS = Vocabulary(CALLS, words=1)
_LONGEST_CALL = max(len(call) for call in CALLS)
CONTRACTS = ("Pass", *(bid + doubling for bid in BIDS for doubling in ("", "X", "XX")))
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
    table = _table(games.height, rows, codes)
    # The last token of each auction: the next place holds none.
    last = np.append(table[1:] < 0, np.ones((1, games.height), dtype=bool), axis=0)
    state = _Auctions(games.height)
    for column, is_last in zip(table, last, strict=True):
        state.add(column, is_last)
    if (~state.finished & ~state.all_pass).any():
        raise Declined("an auction that is not complete")
    dealer = seat_codes(games["Dealer"])
    if ((seat_codes(games["Auction"]) + state.dashes) % 4 != dealer).any():
        raise Declined("an auction whose first call is not the dealer's")
    _check_contract(games, state, dealer)
    passes = np.where(state.all_pass, np.where(state.best < 0, 4, 3) - state.run, 0)
    return games.select("record").with_columns(auction=_call_lists(rows, codes, passes))


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


def _table(games: int, rows: IntArray, codes: IntArray) -> IntArray:
    """Call codes by place in the auction, then game: shape (longest auction, games), -1 after the
    end of a game's tokens (each place is a contiguous row: the replay works on one at a time)."""
    position = _positions(rows)
    table = np.full((int(position.max(initial=0)) + 1, games), NONE, dtype=np.int64)
    table[position, rows] = codes
    return table


def _call_lists(rows: IntArray, codes: IntArray, passes: IntArray) -> pl.Series:
    """Each game's calls (its tokens less `-` and `AP`) and then `passes` passes, as a list column."""
    calls = codes < ALL_PASS
    rows, codes = rows[calls], codes[calls]
    length = np.bincount(rows, minlength=passes.size) + passes
    offsets = np.concatenate(([0], np.cumsum(length)))
    flat = np.full(int(offsets[-1]), PASS, dtype=np.int64)  # the passes for `AP` stay
    flat[offsets[rows] + _positions(rows)] = codes
    return list_column(named(flat, CALLS), offsets)


@dataclass
class _Auctions:
    """The running state of every auction, advanced one call position at a time (`bridge._Bidding`)."""

    games: int
    calls: IntArray = field(init=False)
    """Calls so far (dashes and AP not counted); the parity of a call's number is its side."""
    dashes: IntArray = field(init=False)
    best: IntArray = field(init=False)
    """Rank of the last bid (bids only go up), NONE before the first."""
    last_bid: IntArray = field(init=False)
    """Number of the call that made the last bid."""
    doubling: IntArray = field(init=False)
    """The last call other than a pass: a bid's code (undoubled), DOUBLE or REDOUBLE; NONE at first."""
    run: IntArray = field(init=False)
    """Passes in a row."""
    first_namer: IntArray = field(init=False)
    """For each side and strain, the number of the first call naming it (declarer is the first)."""
    finished: BoolArray = field(init=False)
    all_pass: BoolArray = field(init=False)

    def __post_init__(self) -> None:
        zeros = np.zeros(self.games, dtype=np.int64)
        self.calls, self.dashes, self.run = zeros.copy(), zeros.copy(), zeros.copy()
        self.best, self.last_bid, self.doubling = zeros - 1, zeros - 1, zeros - 1
        self.first_namer = np.full((self.games, 2, len(STRAINS)), NONE, dtype=np.int64)
        self.finished, self.all_pass = np.zeros(self.games, dtype=bool), np.zeros(self.games, dtype=bool)

    def add(self, code: IntArray, last: BoolArray) -> None:
        """The next token of every game (NONE where its auction has no more tokens)."""
        dash, all_pass = code == DASH, code == ALL_PASS
        call = (code >= 0) & ~dash & ~all_pass
        if (dash & (self.calls > 0)).any():
            raise Declined("'-' after a call")
        if (all_pass & ~last).any():
            raise Declined("'AP' before the last token")
        if ((call | all_pass) & self.finished).any():
            raise Declined("a call after the end of the auction")
        self._check(code, call)
        self.dashes += dash
        self.all_pass |= all_pass
        bid, passed = call & (code >= FIRST_BID), call & (code == PASS)
        rank = code - FIRST_BID
        games = np.flatnonzero(bid)  # (`& 1` is `% 2` on these counts, and much faster)
        named = self.first_namer[games, self.calls[games] & 1, rank[games] % len(STRAINS)]
        self.first_namer[games, self.calls[games] & 1, rank[games] % len(STRAINS)] = np.where(
            named < 0, self.calls[games], named)
        self.best = np.where(bid, rank, self.best)
        self.last_bid = np.where(bid, self.calls, self.last_bid)
        self.doubling = np.where(call & ~passed, code, self.doubling)
        self.run = np.where(passed, self.run + 1, np.where(call, 0, self.run))
        self.calls += call
        self.finished |= (self.run >= 4) | ((self.best >= 0) & (self.run >= 3))

    def _check(self, code: IntArray, call: BoolArray) -> None:
        distance = self.calls - self.last_bid  # odd: the last bid was the other side's
        insufficient = call & (code >= FIRST_BID) & (code - FIRST_BID <= self.best)
        bad_double = call & (code == DOUBLE) & ~((self.doubling >= FIRST_BID) & ((distance & 1) == 1))
        bad_redouble = call & (code == REDOUBLE) & ~((self.doubling == DOUBLE) & ((distance & 1) == 0))
        if (insufficient | bad_double | bad_redouble).any():
            raise Declined("an insufficient bid, or a double or redouble that is not allowed")


def _check_contract(games: pl.DataFrame, state: _Auctions, dealer: IntArray) -> None:
    """The auction ends in the Contract and Declarer the tags give."""
    doubling = np.where(state.doubling == DOUBLE, 1, np.where(state.doubling == REDOUBLE, 2, 0))
    said = np.where(state.best < 0, 0, 1 + 3 * state.best + doubling)  # the code in CONTRACTS
    written = games["Contract"].cast(pl.Enum(CONTRACTS), strict=False).to_physical().fill_null(-1).to_numpy()
    if (said != written).any():
        raise Declined("an auction that does not end in the Contract tag")
    bidders = np.flatnonzero(state.best >= 0)
    first = state.first_namer[bidders, state.last_bid[bidders] & 1, state.best[bidders] % len(STRAINS)]
    if ((dealer[bidders] + first) % 4 != seat_codes(games["Declarer"].gather(bidders))).any():
        raise Declined("an auction whose declarer is not the Declarer tag")
