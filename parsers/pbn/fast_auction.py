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

from parsers.pbn.fast_deals import IntArray, seat_codes
from parsers.pbn.fast_lines import BoolArray, Declined, rows_of

STRAINS = ("C", "D", "H", "S", "NT")
BIDS = tuple(f"{level}{strain}" for level in range(1, 8) for strain in STRAINS)
CALLS = ("Pass", "X", "XX", *BIDS, "AP", "-")
"""Tokens taken, by code: 0 Pass, 1 X, 2 XX, 3.. the bids in rank order, then AP and -."""
PASS, DOUBLE, REDOUBLE, FIRST_BID = 0, 1, 2, 3
ALL_PASS, DASH = len(CALLS) - 2, len(CALLS) - 1
NONE = -1


def read_auctions(games: pl.DataFrame, tokens: pl.DataFrame) -> pl.DataFrame:
    """Check the auctions of `games` (rows with an Auction tag and a standard Contract) and return
    `record` and `auction`: the calls from the dealer on, `AP` written out as passes."""
    if not games["Dealer"].is_in(list("NESW")).all() or not games["Auction"].is_in(list("NESW")).all():
        raise Declined("an auction without a known dealer, or not naming a seat")
    codes = tokens["token"].cast(pl.Enum(CALLS), strict=False)
    if codes.null_count():
        raise Declined("an auction token that is not a call spelled the standard way")
    table = _table(games["record"].to_numpy(), tokens["record"].to_numpy(), codes.to_physical().to_numpy())
    state = _Auctions(games.height)
    for column in range(table.shape[1]):
        state.add(table[:, column], last=(column == table.shape[1] - 1) | (table[:, min(column + 1,
                                                                                         table.shape[1] - 1)] < 0))
    if (~state.finished & ~state.all_pass).any():
        raise Declined("an auction that is not complete")
    dealer = seat_codes(games["Dealer"])
    if ((seat_codes(games["Auction"]) + state.dashes) % 4 != dealer).any():
        raise Declined("an auction whose first call is not the dealer's")
    _check_contract(games, state, dealer)
    calls = tokens.filter(codes.to_physical() < ALL_PASS).group_by("record", maintain_order=True).agg(
        calls=pl.col("token"))
    passes = np.where(state.all_pass, np.where(state.best < 0, 4, 3) - state.run, 0)
    return games.select("record").with_columns(passes=passes).join(
        calls, on="record", how="left", maintain_order="left").select(
        "record", auction=pl.concat_list(pl.col("calls").fill_null([]), pl.lit("Pass").repeat_by("passes")))


def _table(games: IntArray, records: IntArray, codes: IntArray) -> IntArray:
    """Call codes per game, shape (games, longest auction); -1 after the end of a game's tokens."""
    row = rows_of(games, records, "an auction")
    starts = np.flatnonzero(np.diff(row, prepend=-1))
    position = np.arange(row.size) - np.repeat(starts, np.diff(np.append(starts, row.size)))
    table = np.full((games.size, int(position.max(initial=0)) + 1), NONE, dtype=np.int64)
    table[row, position] = codes
    return table


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
        games = np.flatnonzero(bid)
        named = self.first_namer[games, self.calls[games] % 2, rank[games] % len(STRAINS)]
        self.first_namer[games, self.calls[games] % 2, rank[games] % len(STRAINS)] = np.where(
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
        bad_double = call & (code == DOUBLE) & ~((self.doubling >= FIRST_BID) & (distance % 2 == 1))
        bad_redouble = call & (code == REDOUBLE) & ~((self.doubling == DOUBLE) & (distance % 2 == 0))
        if (insufficient | bad_double | bad_redouble).any():
            raise Declined("an insufficient bid, or a double or redouble that is not allowed")


def _check_contract(games: pl.DataFrame, state: _Auctions, dealer: IntArray) -> None:
    """The auction ends in the Contract and Declarer the tags give."""
    bid = np.array(BIDS)[np.maximum(state.best, 0)]
    doubling = np.where(state.doubling == DOUBLE, "X", np.where(state.doubling == REDOUBLE, "XX", ""))
    said = np.where(state.best < 0, "Pass", np.char.add(bid, doubling))
    if (said != games["Contract"].to_numpy()).any():
        raise Declined("an auction that does not end in the Contract tag")
    bidders = np.flatnonzero(state.best >= 0)
    first = state.first_namer[bidders, state.last_bid[bidders] % 2, state.best[bidders] % len(STRAINS)]
    declarer = np.array(list("NESW"))[(dealer[bidders] + first) % 4]
    if (declarer != games["Declarer"].to_numpy()[bidders]).any():
        raise Declined("an auction whose declarer is not the Declarer tag")
