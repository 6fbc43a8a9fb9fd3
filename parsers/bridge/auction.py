"""Auctions as the careful readers meet them: a record's calls and a PBN auction section's tokens.

No rule of the auction is written here: `parsers.bridge.auction_arrays` judges every call (Laws 18,
19, 22 and declarer), for a batch of auctions at once. This module asks it and words its answers:

- `judge_calls` judges a batch of normalised call sequences in one engine call and remembers each
  `Verdict` (the dealer aside: declarer is a place from the dealer); `judge_sections` does it for
  PBN auction sections. A reader that first hands them every auction of a file (or of a window of
  games) makes one engine call, not one per game: a call costs some 0.1 ms whatever its size.
- `summarise_auction` (LIN, records' calls, dealer first) stops at the first problem, with LIN's
  codes; `contract_from_auction` and `declarer_from_auction` are its contract and declarer.
- `read_auction` reads a PBN auction section, with PBN's token handling (`-` pads up to the dealer,
  `AP` ends the auction with passes, `*` and `+` end the section, `^S` is read as a pass, drift
  spellings such as `PASS` and `1N` are listed, `^I` marks an accepted insufficient bid) and
  reports every problem, with PBN's codes.

They raise nothing on bad input: problems come back as values that the reader turns into
positioned diagnostics.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, NamedTuple

from models.cards import Seat
from models.contract import Contract, Doubling, Strain
from parsers.bridge.calls import (
    AFTER_END,
    ALL_PASSES,
    BAD_DOUBLE,
    BAD_REDOUBLE,
    BID_RANK,
    CALL_DRIFT,
    CALL_NAMES,
    CALL_NUMBERS,
    CALLS,
    INSUFFICIENT,
    PASS,
)
from parsers.bridge.cards import SEAT_INDEX, SEATS

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from parsers.bridge.auction_arrays import Auctions

Problem = tuple[int, str, str]
"""(index of the call or card, stable code suffix, message) — the caller adds position and prefix."""


class Verdict(NamedTuple):
    """What the rules say of one auction (`auction_arrays.judge_auctions` for one row), seat-free."""

    complete: bool
    """True when the auction ended (three passes after a bid, or four passes), whatever it broke."""
    end: int
    """Place of the call that ended the auction; -1 while it has not ended."""
    problems: tuple[tuple[int, int, int], ...]
    """(place, `auction_arrays` problem, call number of the last bid before it or -1) for each call
    that breaks a rule, in order; a call after the end is listed once, for the first."""
    bid: int
    """Call number of the final bid; -1 when passed out or not ended."""
    doubling: int
    """0 undoubled, 1 doubled, 2 redoubled."""
    declarer: int
    """Declarer's place from the dealer (0 the dealer ... 3 the dealer's right); -1 without a contract."""


_VERDICTS: dict[tuple[str, ...], Verdict] = {}
_KEPT = 50_000
"""Verdicts kept at most (a little over when a file's batch is larger); auctions repeat a lot."""


def judge_calls(auctions: Iterable[Sequence[str]]) -> list[Verdict]:
    """The verdict on each auction (normalised calls, dealer first), judging those not judged before
    in one call of the engine, and remembering them for `summarise_auction` and `read_auction`."""
    keys = [tuple(calls) for calls in auctions]
    found = {calls: _VERDICTS[calls] for calls in keys if calls in _VERDICTS}
    new = [calls for calls in dict.fromkeys(keys) if calls not in found]
    if new:
        judged = {calls: verdict for batch in _batches(new)
                  for calls, verdict in zip(batch, _judge(batch), strict=True)}
        if len(_VERDICTS) + len(judged) > _KEPT:
            _VERDICTS.clear()  # simpler than an LRU, and the next file's auctions are judged again at once
        _VERDICTS.update(judged)
        found.update(judged)
    return [found[calls] for calls in keys]


_CELLS = 1 << 20
"""Calls and padding in one table of the engine at most (bar one auction longer than that)."""


def _batches(auctions: list[tuple[str, ...]]) -> Iterator[list[tuple[str, ...]]]:
    """`auctions` shortest first, cut where a table (one row each, as wide as the longest) would
    grow past `_CELLS`: one long auction must not make every short one as wide."""
    batch: list[tuple[str, ...]] = []
    for calls in sorted(auctions, key=len):
        if batch and (len(batch) + 1) * len(calls) > _CELLS:
            yield batch
            batch = []
        batch.append(calls)
    yield batch


def _verdict(calls: tuple[str, ...]) -> Verdict:
    """The verdict on one auction: remembered, or judged alone (kept while there is room)."""
    found = _VERDICTS.get(calls)
    if found is None:
        found = _judge([calls])[0]
        if len(_VERDICTS) < _KEPT:
            _VERDICTS[calls] = found
    return found


def _judge(auctions: list[tuple[str, ...]]) -> list[Verdict]:
    """One engine call for `auctions` (dealer 0, so that declarer is a place from the dealer)."""
    import numpy as np  # with the first auction judged: the results site writes PBN and judges none

    from parsers.bridge.auction_arrays import judge_auctions

    judged = judge_auctions(_table(auctions), np.zeros(len(auctions), dtype=np.int8))
    ends = judged.end.tolist()
    problems = _problems(judged, ends) if judged.problem.any() else [[]] * len(auctions)
    return [Verdict(complete, end, tuple(found), bid, doubling, declarer)
            for complete, end, found, bid, doubling, declarer in zip(
                judged.complete.tolist(), ends, problems, judged.bid.tolist(), judged.doubling.tolist(),
                judged.declarer.tolist(), strict=True)]


def _table(auctions: list[tuple[str, ...]]) -> npt.NDArray[np.int8]:
    """The auctions' call numbers, one auction a row, padded with -1."""
    import numpy as np

    if len(auctions) == 1:  # a one-board file, or an auction not judged ahead: for less
        return np.array([[CALL_NUMBERS[call] for call in auctions[0]] or [-1]], dtype=np.int8)
    lengths = np.fromiter(map(len, auctions), dtype=np.int64, count=len(auctions))
    table = np.full((len(auctions), max(int(lengths.max()), 1)), -1, dtype=np.int8)
    table[np.arange(table.shape[1]) < lengths[:, None]] = np.fromiter(
        (CALL_NUMBERS[call] for calls in auctions for call in calls), dtype=np.int8, count=int(lengths.sum()))
    return table


def _problems(judged: Auctions, ends: list[int]) -> list[list[tuple[int, int, int]]]:
    """Each auction's problems (place, problem, last bid before it), up to the first call after its end."""
    import numpy as np

    problems: list[list[tuple[int, int, int]]] = [[] for _ in ends]
    rows, places = np.nonzero(judged.problem)
    for row, place, problem, last in zip(rows.tolist(), places.tolist(), judged.problem[rows, places].tolist(),
                                         judged.last_bid[rows, places].tolist(), strict=True):
        if problem != AFTER_END or place == ends[row] + 1:
            problems[row].append((place, problem, last))
    return problems


class AuctionSummary(NamedTuple):
    """What an auction established, and what was wrong with it."""

    complete: bool
    """True when the auction ended (three passes after a bid, or four passes)."""
    contract: Contract | None
    """The final contract (passed out = level 0); None while the auction is incomplete or illegal."""
    problems: tuple[Problem, ...]
    """The first illegal call (insufficient bid, double of partner, ...) or call after the end."""


_SUMMARY_PROBLEMS = {
    BAD_DOUBLE: ("illegal-double", "a double is only allowed of an opponent's undoubled bid"),
    BAD_REDOUBLE: ("illegal-redouble", "a redouble is only allowed after an opponent doubled your side's bid"),
}


def summarise_auction(calls: Sequence[str], dealer: Seat) -> AuctionSummary:
    """Legality, completion and the final contract of normalised `calls` (dealer first), up to the
    first problem.

    Declarer is the first player of the declaring side who named the final strain (Law 20 term
    "declarer"), not the player who made the last bid.
    """
    verdict = _verdict(tuple(calls))
    if verdict.problems:
        place, problem, last = verdict.problems[0]
        call = calls[place]
        if problem == AFTER_END:
            late = (place, "call-after-end", f"call {call} comes after the auction ended")
            return AuctionSummary(True, None, (late,))
        code, message = _SUMMARY_PROBLEMS.get(problem) or (
            "insufficient-bid", f"{call} does not outrank the previous bid {CALL_NAMES[last]}")
        return AuctionSummary(False, None, ((place, code, message),))
    if not verdict.complete:
        return AuctionSummary(False, None, ())
    contract = _contract(verdict, SEAT_INDEX[dealer])
    if contract is None:
        return AuctionSummary(True, Contract.passed_out(), ())
    level, strain, doubling, declarer = contract
    return AuctionSummary(True, Contract(level=level, strain=Strain(strain), doubling=Doubling(doubling),
                                         declarer=declarer), ())


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


class _Section(NamedTuple):
    """A PBN auction section's tokens read as calls, before any rule: up to the first token that
    is no call (`*`, `+`, `AP`, or a word that is not a call)."""

    dashes: int
    """The `-` tokens that pad the section up to the dealer."""
    calls: tuple[str, ...]
    """The calls, and `ALL_PASSES` passes more when `AP` stopped the reading (enough to end it)."""
    tokens: tuple[int, ...]
    """Token index of each call read (not of `AP`'s passes)."""
    stop: int
    """Index of the token that stopped the reading; the number of tokens when none did."""
    lower: tuple[int, ...]
    """Tokens of calls written in lower case."""
    drift: tuple[tuple[int, str, str], ...]
    """(token index, as written, canonical) for drift spellings such as PASS or 1N."""


_ALL_PASS = (PASS,) * ALL_PASSES


def _read_section(tokens: tuple[str, ...]) -> _Section:
    dashes = 0
    while dashes < len(tokens) and tokens[dashes] == "-":
        dashes += 1
    calls: list[str] = []
    places: list[int] = []
    lower: list[int] = []
    drift: list[tuple[int, str, str]] = []
    for i in range(dashes, len(tokens)):
        token = tokens[i]
        call = CALLS.get(token)
        if call is None:
            call = PASS if token == "^S" else CALL_DRIFT.get(token)
            if call is None:
                passes = _ALL_PASS if token in ("AP", "ap") else ()
                return _Section(dashes, (*calls, *passes), tuple(places), i, tuple(lower), tuple(drift))
            if token != "^S":
                drift.append((i, token, call))
        elif call != token:
            lower.append(i)
        calls.append(call)
        places.append(i)
    return _Section(dashes, tuple(calls), tuple(places), len(tokens), tuple(lower), tuple(drift))


def judge_sections(sections: Iterable[tuple[str, ...]]) -> None:
    """Judge the auctions of PBN auction sections (their tokens) in one engine call, for
    `read_auction` to find."""
    judge_calls(_read_section(tokens).calls for tokens in sections)


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
    section = _read_section(tokens)
    verdict = _verdict(section.calls)
    actual = (SEAT_INDEX[first] + section.dashes) % 4
    problems: list[TokenProblem] = []
    if dealer is not None and actual != SEAT_INDEX[dealer]:
        problems.append(TokenProblem("pbn.auction.first-call", f"The first call is by {SEATS[actual].value} but "
                                     f"the dealer is {dealer.value}; pad with '-' up to the dealer.", section.dashes))
    problems.extend(_call_problems(section, verdict, actual, prefixes or {}))
    if verdict.complete:  # at a call read, or at a pass of `AP`
        last = section.tokens[verdict.end] if verdict.end < len(section.tokens) else section.stop
    elif section.stop < len(tokens) and tokens[section.stop] not in ("*", "+"):
        problems.append(TokenProblem("pbn.auction.call", f"{tokens[section.stop]!r} is not a call (Pass, X, XX, "
                                     "1C..7NT).", section.stop))
        return AuctionFacts((), False, None, tuple(problems), _until(section.drift, section.stop), bool(section.lower))
    else:
        last = section.stop
    if last + 1 < len(tokens):
        problems.append(TokenProblem("pbn.auction.after-end", f"{tokens[last + 1]!r} comes after the end of the "
                                     "auction.", last + 1))
    calls = section.calls[:verdict.end + 1] if verdict.complete else section.calls
    return AuctionFacts(calls, verdict.complete, _contract(verdict, actual), tuple(problems),
                        _until(section.drift, last + 1), any(i <= last for i in section.lower))


def _until(drift: tuple[tuple[int, str, str], ...], stop: int) -> tuple[tuple[int, str, str], ...]:
    """The drift spellings before token `stop` (those after the end of the auction were not read)."""
    return drift if not drift or drift[-1][0] < stop else tuple(d for d in drift if d[0] < stop)


def _call_problems(section: _Section, verdict: Verdict, actual: int,
                   prefixes: dict[int, str]) -> list[TokenProblem]:
    """The engine's problems up to the end, in PBN's words, and the `^I` marks on sufficient bids."""
    found: list[TokenProblem] = []
    for place, problem, last in verdict.problems:
        if problem == AFTER_END:
            continue
        token = section.tokens[place]
        call, name = section.calls[place], SEATS[(actual + place) % 4].value
        if problem == BAD_DOUBLE:
            found.append(TokenProblem("pbn.auction.double", f"{name} cannot double here.", token))
        elif problem == BAD_REDOUBLE:
            found.append(TokenProblem("pbn.auction.redouble", f"{name} cannot redouble here.", token))
        elif problem == INSUFFICIENT and prefixes.get(token) != "^I":
            found.append(TokenProblem("pbn.auction.insufficient", f"{call} after {CALL_NAMES[last]} is insufficient "
                                      "(mark an accepted insufficient bid with ^I).", token))
    marked = [token for token, prefix in prefixes.items() if prefix == "^I"]
    return _with_marks(found, section, verdict, marked) if marked else found


def _with_marks(found: list[TokenProblem], section: _Section, verdict: Verdict,
                marked: list[int]) -> list[TokenProblem]:
    """`found`, and a problem for each bid read (up to the end) that is marked insufficient (^I)
    but is not, in token order."""
    read = len(section.tokens) if not verdict.complete else min(verdict.end + 1, len(section.tokens))
    place_of = {token: place for place, token in enumerate(section.tokens[:read])}
    wrong = {place for place, _, _ in verdict.problems}
    for token in marked:
        place = place_of.get(token)
        if place is not None and place not in wrong and section.calls[place] in BID_RANK:
            found.append(TokenProblem("pbn.auction.irregularity", f"{section.calls[place]} is marked insufficient "
                                      "(^I) but it is sufficient.", token))
    return sorted(found, key=lambda problem: problem.token)


def _contract(verdict: Verdict, actual: int) -> tuple[int, str, str, Seat] | None:
    """(level, strain, doubling, declarer) of a complete auction whose dealer is seat `actual`;
    None when it is not complete or was passed out."""
    if not verdict.complete or verdict.bid < 0:
        return None
    return (verdict.bid // 5 + 1, CALL_NAMES[verdict.bid][1:], ("", "X", "XX")[verdict.doubling],
            SEATS[(actual + verdict.declarer) % 4])
