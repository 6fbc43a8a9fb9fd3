"""Reading tag values: seats, vulnerability, deals, contracts, results, scores and dates.

Each reader returns the value plus, where the file strayed from the standard's spelling, a short
description of the drift (empty when the value was canonical). Values we cannot read at all come
back as None with an error message. No pydantic validation happens here: plain tuples and cached
model instances keep the hot path cheap.
"""

from __future__ import annotations

import functools
import re
from datetime import date
from typing import NamedTuple

from pydantic import ValidationError

from models.board import Vulnerability
from models.cards import RANKS, Deal, Hand, Seat
from models.contract import Contract, Doubling, Strain
from parsers.numbers import whole_number

SEATS: dict[str, Seat] = {s.value: s for s in Seat} | {s.value.lower(): s for s in Seat}
STRAINS: dict[str, Strain] = {"C": Strain.C, "D": Strain.D, "H": Strain.H, "S": Strain.S, "NT": Strain.NT,
                              "N": Strain.NT, "SA": Strain.NT}
_DOUBLINGS: dict[str, Doubling] = {"": Doubling.NONE, "X": Doubling.X, "XX": Doubling.XX,
                                   "*": Doubling.X, "**": Doubling.XX, "R": Doubling.XX}
PASS_WORDS = frozenset({"PASS", "P", "AP", "PASSED", "PASSED OUT", "PASSEDOUT", "ALL PASS"})
_CONTRACT = re.compile(r"([1-7])\s*(NT|SA|N|S|H|D|C)\s*(XX|X|\*\*|\*|R)?", re.IGNORECASE)
_VULS = {"NONE": Vulnerability.NONE, "LOVE": Vulnerability.NONE, "-": Vulnerability.NONE,
         "NS": Vulnerability.NS, "EW": Vulnerability.EW, "ALL": Vulnerability.BOTH, "BOTH": Vulnerability.BOTH}
_RANK_ORDER = {r: i for i, r in enumerate(RANKS)}
_DEAL = re.compile(r"([NESWnesw])\s*:\s*(\S+)\s+(\S+)\s+(\S+)\s+(\S+)")
_SUIT_CACHE: dict[str, str | None] = {}
_HOLDING = r"[AKQJT2-9]*\.[AKQJT2-9]*\.[AKQJT2-9]*\.[AKQJT2-9]*"
_CANONICAL_DEAL = re.compile(rf"[NESW]:{_HOLDING} {_HOLDING} {_HOLDING} {_HOLDING}")


_RANK_BITS = {rank: 1 << index for index, rank in enumerate(RANKS)}


@functools.lru_cache(maxsize=16_384)
def _holding_mask(holding: str) -> int:
    """The 13-bit rank mask of one suit's holding written the export way (highest rank first, no
    rank twice), or -1 for any other spelling. Cached: a file repeats the same few thousand."""
    mask = 0
    for rank in holding:
        bit = _RANK_BITS.get(rank, 0)
        if bit <= mask:  # not a rank, or not below every rank before it
            return -1
        mask |= bit
    return mask


_CACHE_LIMIT = 50_000
_PARSED_CONTRACTS: dict[str, ParsedContract | None] = {}
_PARSED_RESULTS: dict[str, ParsedResult | None] = {}
_CONTRACT_CACHE: dict[tuple[int, Strain | None, Doubling, Seat | None], Contract] = {}
_RESULT = re.compile(r"(\^)?\s*(?:(\d{1,2})|(NS|EW)\s+(\d{1,2})(?:\s+(NS|EW)\s+(\d{1,2}))?)", re.IGNORECASE)
_NUMBER = r"[+-]?\d+(?:\.\d*)?"
_SIDED = re.compile(rf"(?:({_NUMBER})|(NS|EW)\s+({_NUMBER})(?:\s+(NS|EW)\s+({_NUMBER}))?)")
_DATE = re.compile(r"([\d?]{4})\.([\d?]{2})\.([\d?]{2})")
_DATE_DRIFT = re.compile(r"(\d{4})-?(\d{2})-?(\d{2})(?:[ T]\d{1,2}:\d{2}(?::\d{2})?)?")


class ParsedContract(NamedTuple):
    """A Contract tag read: level 0 = passed out; strain only = end position."""

    level: int
    strain: Strain | None
    doubling: Doubling
    drift: str
    """How the spelling strayed from the standard (`3N`, `PASS`, `4S*`), or ''."""
    lower: bool = False
    """Written in lower case, which import format allows (`2Dx`, `pass`)."""


class ParsedResult(NamedTuple):
    """A Result tag read."""

    tricks: int | None
    """Tricks as written for declarer (bare number), else None."""
    ns: int | None
    """Tricks won by NS, when given by side."""
    ew: int | None
    """Tricks won by EW, when given by side."""
    irregular: bool
    """The ^ prefix: the players agreed on a wrong number of tricks."""

    def for_declarer(self, declarer: Seat | None) -> int | None:
        """Tricks won by declarer (derived from the side counts when needed)."""
        if self.tricks is not None:
            return self.tricks
        if declarer is None:
            return None
        mine, theirs = (self.ns, self.ew) if declarer.side == "NS" else (self.ew, self.ns)
        if mine is not None:
            return mine
        return None if theirs is None else 13 - theirs


def is_unknown(value: str | None) -> bool:
    """True for a missing tag, '' (inappropriate) or '?' (unknown)."""
    return value is None or value.strip() in ("", "?")


def parse_seat(text: str) -> Seat | None:
    """W, N, E or S (lower case accepted); None otherwise."""
    return SEATS.get(text.strip())


def parse_vulnerable(text: str) -> tuple[Vulnerability | None, str]:
    """Vulnerability and drift; None when unreadable. Lower case is standard (import format)."""
    token = text.strip().upper()
    vul = _VULS.get(token)
    if vul is not None:
        return vul, "" if text == text.strip() else f"{text!r}"
    try:
        return Vulnerability.parse(text), f"{text!r}"
    except ValueError:
        return None, ""


def parse_contract(text: str) -> ParsedContract | None:
    """Read `4S`, `3NTX`, `Pass`, an end position's strain `H`, and drift like `3N`, `PASS`, `4S*`."""
    if text in _PARSED_CONTRACTS:
        return _PARSED_CONTRACTS[text]
    found = _parse_contract(text)
    if len(_PARSED_CONTRACTS) < _CACHE_LIMIT:
        _PARSED_CONTRACTS[text] = found
    return found


def _parse_contract(text: str) -> ParsedContract | None:
    token = text.strip()
    if token in ("Pass", "pass"):
        return ParsedContract(0, None, Doubling.NONE, "", token == "pass")
    if token.upper() in PASS_WORDS:
        return ParsedContract(0, None, Doubling.NONE, f"{token!r} for Pass")
    match = _CONTRACT.fullmatch(token)
    if match is None:
        strain = STRAINS.get(token.upper())
        if strain is not None and token.upper() not in ("N", "SA"):
            return ParsedContract(0, strain, Doubling.NONE, "", not token.isupper())
        return None
    level, strain_text, dbl = match.groups()
    canonical = f"{level}{strain_text.upper()}{(dbl or '').upper()}"
    drift = ""

    if strain_text.upper() in ("N", "SA"):
        drift = f"{token!r} (NT written {strain_text})"
    elif token.upper() != canonical or (dbl or "").upper() in ("*", "**", "R"):
        drift = f"{token!r}"
    lower = not drift and token != canonical
    return ParsedContract(int(level), STRAINS[strain_text.upper()], _DOUBLINGS[(dbl or "").upper()], drift, lower)


def contract_model(level: int, strain: Strain | None, doubling: Doubling, declarer: Seat | None) -> Contract:
    """A Contract instance (cached: contracts repeat a lot)."""
    key = (level, strain, doubling, declarer)
    found = _CONTRACT_CACHE.get(key)
    if found is None:
        found = Contract(level=level, strain=strain, doubling=doubling, declarer=declarer)
        _CONTRACT_CACHE[key] = found
    return found


def parse_result(text: str) -> ParsedResult | None:
    """Read `9`, `NS 9`, `EW 4 NS 9`, `^9`; None when unreadable or out of 0..13."""
    if text in _PARSED_RESULTS:
        return _PARSED_RESULTS[text]
    found = _parse_result(text)
    if len(_PARSED_RESULTS) < _CACHE_LIMIT:
        _PARSED_RESULTS[text] = found
    return found


def _parse_result(text: str) -> ParsedResult | None:
    match = _RESULT.fullmatch(text.strip())
    if match is None:
        return None
    caret, bare, side1, n1, side2, n2 = match.groups()
    numbers = [int(n) for n in (bare, n1, n2) if n is not None]
    if any(n > 13 for n in numbers):
        return None
    if bare is not None:
        return ParsedResult(int(bare), None, None, bool(caret))
    sides = {side1.upper(): int(n1)}
    if side2 is not None:
        if side2.upper() == side1.upper():
            return None
        sides[side2.upper()] = int(n2)
    return ParsedResult(None, sides.get("NS"), sides.get("EW"), bool(caret))


def parse_sided(text: str) -> dict[str, float] | None:
    """Read a Score-like value: `420`, `NS 420`, `EW -90`, `NS 90 EW -90`; keys '', NS, EW."""
    match = _SIDED.fullmatch(text.strip())
    if match is None:
        return None
    bare, side1, v1, side2, v2 = match.groups()
    if bare is not None:
        return {"": float(bare)}
    values = {side1: float(v1)}
    if side2 is not None:
        if side2 == side1:
            return None
        values[side2] = float(v2)
    return values


def parse_date(text: str) -> tuple[date | None, str]:
    """Read a Date: ('ok'|'partial'|'drift'|'empty'|'bad') tells how it went."""
    token = text.strip()
    if token in ("", "?"):
        return None, "empty"
    match = _DATE.fullmatch(token)
    if match is not None:
        if "?" in token:
            return None, "partial"
        return _date(*match.groups()), "ok" if _date(*match.groups()) else "bad"
    match = _DATE_DRIFT.fullmatch(token)
    if match is not None:
        found = _date(*match.groups())
        return found, "drift" if found else "bad"
    return None, "bad"


def _date(year: str, month: str, day: str) -> date | None:
    try:
        return date(int(year), int(month), int(day))
    except ValueError:
        return None


def parse_board(text: str) -> int | None:
    """A positive board number; None when not one."""
    return whole_number(text, low=1)


def _suit(ranks: str) -> str | None:
    """Canonical ranks of one suit (upper case, highest first, T for 10); None if invalid."""
    found = _SUIT_CACHE.get(ranks)
    if found is not None or ranks in _SUIT_CACHE:
        return found
    token = ranks.upper().replace("10", "T")
    if all(r in _RANK_ORDER for r in token) and len(set(token)) == len(token):
        found = "".join(sorted(token, key=_RANK_ORDER.__getitem__))
    if len(_SUIT_CACHE) > 100_000:
        _SUIT_CACHE.clear()
    _SUIT_CACHE[ranks] = found
    return found


Holding = tuple[str, str, str, str]
"""One hand as ranks per suit (spades, hearts, diamonds, clubs), highest first."""
Hands = tuple[Holding | None, Holding | None, Holding | None, Holding | None]
"""The four hands in seat order N, E, S, W (None = not given)."""
SEAT_ORDER = (Seat.N, Seat.E, Seat.S, Seat.W)
"""Seats in the order `Hands` uses."""
_SEAT_INDEX = {"N": 0, "E": 1, "S": 2, "W": 3, "n": 0, "e": 1, "s": 2, "w": 3}


class ParsedDeal(NamedTuple):
    """A Deal tag read: the hands in N, E, S, W order, problem and drift."""

    hands: Hands | None
    problem: tuple[str, str]
    """(code, message) when the deal cannot be trusted, else ('', '')."""
    drift: str


def parse_deal(text: str) -> ParsedDeal:
    """Read `N:AKQ.JT9.876.5432 ...` (any first seat, `-` for an unknown hand) and check it."""
    if _CANONICAL_DEAL.fullmatch(text):
        quick = _canonical_deal(text)
        if quick is not None:
            return quick
    match = _DEAL.fullmatch(text.strip())
    if match is None:
        return ParsedDeal(None, ("pbn.deal.syntax", f"Deal {text[:40]!r} is not 'seat:hand hand hand "
                                 "hand' with hands written S.H.D.C (or - when unknown)."), "")
    first = _SEAT_INDEX[match.group(1)]
    found: list[Holding | None] = [None, None, None, None]
    canonical = f"{match.group(1)}:" + " ".join(match.group(i) for i in range(2, 6))
    drift = "" if text == canonical else "spacing"
    for offset in range(4):
        seat, written = SEAT_ORDER[(first + offset) % 4], match.group(offset + 2)
        if written == "-":
            continue
        parts = written.split(".")
        suits = [_suit(p) for p in parts] if len(parts) == 4 else [None]
        if None in suits:
            code, message = _hand_problem(seat, written)
            return ParsedDeal(None, (code, _model_says(text) or message), "")
        hand = (suits[0] or "", suits[1] or "", suits[2] or "", suits[3] or "")
        if "10" in written and not drift:
            drift = f"{seat.value}'s hand {written!r} writes 10 for T"
        found[(first + offset) % 4] = hand
    hands: Hands = (found[0], found[1], found[2], found[3])
    code, message = _deal_problem(hands)
    return ParsedDeal(hands, (code, _model_says(text) or message) if code else ("", ""), drift)


def _canonical_deal(text: str) -> ParsedDeal | None:
    """Fast path for a deal written the export way (ranks in order); None when anything is off."""
    first, second, third, fourth = text[2:].split(" ")
    size = len(first)
    if size > 16 or len(second) != size or len(third) != size or len(fourth) != size:
        return None  # with the three dots, every hand has the same length: 16 for 13 cards
    h0, h1, h2, h3 = first.split("."), second.split("."), third.split("."), fourth.split(".")
    mask = _holding_mask
    for suit in (0, 1, 2, 3):
        a, b, c, d = mask(h0[suit]), mask(h1[suit]), mask(h2[suit]), mask(h3[suit])
        # Four holdings of a suit are disjoint exactly when no bit is counted twice.
        if a < 0 or b < 0 or c < 0 or d < 0 or a + b + c + d != a | b | c | d:
            return None
    rotated = [(h0[0], h0[1], h0[2], h0[3]), (h1[0], h1[1], h1[2], h1[3]),
               (h2[0], h2[1], h2[2], h2[3]), (h3[0], h3[1], h3[2], h3[3])]
    shift = _SEAT_INDEX[text[0]]
    if shift:
        rotated = rotated[4 - shift:] + rotated[:4 - shift]
    return ParsedDeal((rotated[0], rotated[1], rotated[2], rotated[3]), ("", ""), "")


def _model_says(text: str) -> str | None:
    """The Deal model's own complaint about a deal, as a sentence (None when it accepts the deal).

    Our checks run first because they are cheap; on a bad deal the model's message is the one
    reported, so the wording is the same whichever reader meets the deal. It accepts short hands
    (end positions), so a 51-card deal keeps our own message."""
    try:
        Deal.from_pbn(text)
    except ValidationError as exc:
        message = str(exc.errors()[0]["msg"]).removeprefix("Value error, ")
    except ValueError as exc:
        message = str(exc)
    else:
        return None
    return message[:1].upper() + message[1:] + ("" if message.endswith(".") else ".")


def _hand_problem(seat: Seat, written: str) -> tuple[str, str]:
    parts = written.split(".")
    if len(parts) != 4:
        return "pbn.deal.syntax", f"{seat.value}'s hand {written!r} does not have four suits separated by dots."
    for part in parts:
        token = part.upper().replace("10", "T")
        bad = [r for r in token if r not in _RANK_ORDER]
        if bad:
            return "pbn.deal.rank", f"{seat.value}'s hand {written!r} has {bad[0]!r}, which is not a rank."
    return "pbn.deal.duplicate-card", f"{seat.value}'s hand {written!r} holds the same card twice."


def _deal_problem(hands: Hands) -> tuple[str, str]:
    given = {seat: hand for seat, hand in zip(SEAT_ORDER, hands, strict=True) if hand is not None}
    if not given:
        return "", ""
    for suit_index, suit in enumerate("SHDC"):
        ranks = "".join(hand[suit_index] for hand in given.values())
        if len(set(ranks)) != len(ranks):
            twice = next(r for r in ranks if ranks.count(r) > 1)
            return "pbn.deal.duplicate-card", f"Card {suit}{twice} is dealt twice."
    sizes = {seat: sum(len(s) for s in hand) for seat, hand in given.items()}
    for seat, size in sizes.items():
        if size > 13:
            return "pbn.deal.hand-size", f"{seat.value} holds {size} cards; a hand has 13."
    if len(set(sizes.values())) > 1:
        described = ", ".join(f"{seat.value} {size}" for seat, size in sizes.items())
        total = sum(sizes.values())
        return "pbn.deal.hand-size", f"The hands do not hold the same number of cards ({described}; {total} cards)."
    return "", ""


def deal_model(hands: Hands) -> Deal:
    """A Deal built from checked hands without re-running pydantic validation (it is costly)."""
    north, east, south, west = hands
    return Deal.model_construct(north=_hand(north), east=_hand(east), south=_hand(south), west=_hand(west))


def _hand(hand: Holding | None) -> Hand | None:
    if hand is None:
        return None
    return Hand.model_construct(spades=hand[0], hearts=hand[1], diamonds=hand[2], clubs=hand[3])
