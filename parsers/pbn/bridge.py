"""Bridge logic on plain strings: calls, contracts from auctions, tricks and the order of play.

PBN writes play lines in a fixed seat order (from the Play tag's seat), not in the order the cards
were played, so the winner of every trick has to be computed to know who led the next one. The
functions here work on canonical strings ("1NT", "SA") and report problems as (code, message, token
index) tuples; turning those into positioned diagnostics is the caller's business.
"""

from __future__ import annotations

from typing import NamedTuple

from models.cards import RANKS, Seat
from parsers.auction import winning_card as trick_winner

STRAIN_ORDER = ("C", "D", "H", "S", "NT")
BIDS = tuple(f"{level}{strain}" for level in range(1, 8) for strain in STRAIN_ORDER)
_BID_RANK = {bid: i for i, bid in enumerate(BIDS)}
_SUITS = "SHDC"


def _call_spellings() -> tuple[dict[str, str], dict[str, str]]:
    standard: dict[str, str] = {}
    for call in ("Pass", "X", "XX", *BIDS):
        standard[call] = call
        standard[call.lower()] = call
    drift: dict[str, str] = {"PASS": "Pass", "P": "Pass", "p": "Pass", "PAS": "Pass", "Dbl": "X", "DBL": "X",
                             "Rdbl": "XX", "RDBL": "XX", "D": "X", "R": "XX"}
    for level in range(1, 8):
        for spelling in ("N", "n", "Nt", "nT", "SA", "sa"):
            drift[f"{level}{spelling}"] = f"{level}NT"
        for strain in "CDHS":
            drift.setdefault(f"{level}{strain.lower()}", f"{level}{strain}")
    for mixed in ("PaSS", "pASS", "PAss"):
        drift[mixed] = "Pass"
    return standard, drift


CALLS, CALL_DRIFT = _call_spellings()
"""Standard spellings of calls (upper and lower case) and drift spellings (PASS, p, 1N)."""

CARDS: dict[str, str] = {}
"""Every spelling of a card PBN allows (upper or lower case) -> canonical `SA`."""
CARD_DRIFT: dict[str, str] = {}
"""Drift spellings of cards (`S10`) -> canonical."""
for _suit in _SUITS:
    for _rank in RANKS:
        for _s in (_suit, _suit.lower()):
            for _r in (_rank, _rank.lower()):
                CARDS[_s + _r] = _suit + _rank
    for _s in (_suit, _suit.lower()):
        CARD_DRIFT[_s + "10"] = _suit + "T"
_MAX_PROBLEMS = 50
_SEATS = (Seat.N, Seat.E, Seat.S, Seat.W)
_INDEX = {seat: i for i, seat in enumerate(_SEATS)}
_STRENGTH: dict[str | None, dict[str, dict[str, int]]] = {
    trump: {led: {card: (200 if card[0] == trump else 100 if card[0] == led else 0) + 13 - RANKS.index(card[1])
                  for card in set(CARDS.values())} for led in _SUITS} for trump in (*_SUITS, None)}
"""Strength of each card in a trick, by trump (None = notrump) and led suit: trumps beat the led suit."""


class Problem(NamedTuple):
    """A problem found by the bridge logic, tied to a token of the section."""

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
    problems: tuple[Problem, ...]
    drift: tuple[tuple[int, str, str], ...]
    """(token index, as written, canonical) for drift spellings such as PASS or 1N."""
    lower: bool
    """Some calls were written in lower case (allowed by import format)."""


_AUCTIONS: dict[tuple[int, int, tuple[str, ...]], AuctionFacts] = {}


def read_auction(first: Seat, dealer: Seat | None, tokens: tuple[str, ...],
                 prefixes: dict[int, str] | None = None) -> AuctionFacts:
    """Interpret auction tokens whose first column is `first` (`-` pads up to the dealer)."""
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
    problems: list[Problem] = []
    drift: list[tuple[int, str, str]] = []
    lower = False
    dashes = 0
    while dashes < len(tokens) and tokens[dashes] == "-":
        dashes += 1
    actual = (_INDEX[first] + dashes) % 4
    if dealer is not None and actual != _INDEX[dealer]:
        problems.append(Problem("pbn.auction.first-call", f"The first call is by {_SEATS[actual].value} but the "
                                f"dealer is {dealer.value}; pad with '-' up to the dealer.", dashes))
    state = _Bidding(actual)
    ended_at: int | None = None
    for i in range(dashes, len(tokens)):
        token = tokens[i]
        if ended_at is not None:
            problems.append(Problem("pbn.auction.after-end", f"{token!r} comes after the end of the auction.", i))
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
            call = "Pass" if token == "^S" else CALL_DRIFT.get(token)
            if call is None:
                problems.append(Problem("pbn.auction.call", f"{token!r} is not a call (Pass, X, XX, 1C..7NT).", i))
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
    """Running state of an auction, enforcing sufficiency and the double/redouble rules."""

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
            self.add("Pass", "", -1)

    def add(self, call: str, prefix: str, index: int) -> Problem | None:
        problem = None if call == "Pass" else self._check(call, prefix, index)
        seat = self.turn
        if call == "Pass":
            self.passes += 1
        else:
            self.passes = 0
            if call in ("X", "XX"):
                self.doubling = call
            else:
                self.last_bid, self.last_bidder, self.doubling = call, seat, ""
                self.first_namer.setdefault((seat % 2, call[1:]), seat)
        self.calls.append(call)
        self.turn = (seat + 1) % 4
        return problem

    def _check(self, call: str, prefix: str, index: int) -> Problem | None:
        seat = self.turn
        name = _SEATS[seat].value
        if call == "X" and (self.last_bid is None or self.doubling or self.last_bidder % 2 == seat % 2):
            return Problem("pbn.auction.double", f"{name} cannot double here.", index)
        if call == "XX" and (self.doubling != "X" or self.last_bidder % 2 != seat % 2):
            return Problem("pbn.auction.redouble", f"{name} cannot redouble here.", index)
        if call in _BID_RANK:
            sufficient = self.last_bid is None or _BID_RANK[call] > _BID_RANK[self.last_bid]
            if not sufficient and prefix != "^I":
                return Problem("pbn.auction.insufficient", f"{call} after {self.last_bid} is insufficient "
                               "(mark an accepted insufficient bid with ^I).", index)
            if sufficient and prefix == "^I":
                return Problem("pbn.auction.irregularity", f"{call} is marked insufficient (^I) but it is "
                               "sufficient.", index)
        return None

    def contract(self) -> tuple[int, str, str, Seat] | None:
        if self.last_bid is None:
            return None
        strain = self.last_bid[1:]
        declarer = self.first_namer[(self.last_bidder % 2, strain)]
        return int(self.last_bid[0]), strain, self.doubling, _SEATS[declarer]


class PlayFacts(NamedTuple):
    """What a play section says."""

    played: tuple[str, ...]
    """Canonical cards in the order played, up to the first unknown card."""
    declarer_tricks: int
    """Tricks won by declarer among the complete known tricks."""
    known_tricks: int
    """Number of tricks whose four cards are known."""
    problems: tuple[Problem, ...]
    drift: tuple[tuple[int, str, str], ...]


def read_play(leader: Seat, declarer: Seat | None, trump: str | None, tokens: tuple[str, ...],
              prefixes: dict[int, str] | None = None,
              hands: dict[Seat, set[str]] | None = None) -> PlayFacts:
    """Interpret play tokens (rows in seat order from `leader`) into the order the cards were played.

    `trump` is S/H/D/C or None for notrump. With `hands` (remaining cards by seat), cards are also
    checked against the hands: held, not played twice, following suit or marked as a revoke (^R).
    """
    if not prefixes and hands is None:
        quick = _quick_play(leader, declarer, trump, tokens)
        if quick is not None:
            return quick
    problems: list[Problem] = []
    drift: list[tuple[int, str, str]] = []
    cards = _card_tokens(tokens, problems, drift)
    first = _INDEX[leader]
    side = None if declarer is None else _INDEX[declarer] % 2
    played: list[str] = []
    won = known = 0
    current = first
    plus_seen = False
    careful = bool(prefixes) or hands is not None
    for start in range(0, len(cards), 4):
        trick = cards[start:start + 4]
        if not careful and len(trick) == 4 and "-" not in trick and "+" not in trick:
            shift = (current - first) % 4
            in_order = trick[shift:] + trick[:shift]  # columns are fixed seats; rotate to the leader
            current = (current + trick_winner(in_order, trump)) % 4
            played.extend(in_order)
            known += 1
            won += current % 2 == side
            continue
        indices = list(range(start, start + len(trick)))
        current = _actual_leader(current, first, indices, prefixes or {}, problems)
        order = [(current + k) % 4 for k in range(4)]
        column = {(first + k) % 4: k for k in range(len(trick))}
        plus_seen = _check_continuation(order, column, trick, indices, plus_seen, problems)
        if hands is not None:
            problems.extend(_check_trick(order, column, trick, indices, hands, prefixes or {}))
        if len(trick) < 4 or "-" in trick or "+" in trick:
            # An unknown card hides who won, so the order of play stops being known here.
            for seat in order:
                k = column.get(seat)
                if k is None or trick[k] in ("-", "+"):
                    break
                played.append(trick[k])
            break
        in_order = [trick[column[seat]] for seat in order]
        current = order[trick_winner(in_order, trump)]
        played.extend(in_order)
        known += 1
        won += current % 2 == side
    return PlayFacts(tuple(played), won, known, tuple(problems), tuple(drift))


def _quick_play(leader: Seat, declarer: Seat | None, trump: str | None, tokens: tuple[str, ...]) -> PlayFacts | None:
    """Complete tricks of plain cards (optionally closed by '*'): the common case, kept tight."""
    count = len(tokens) - 1 if tokens and tokens[-1] == "*" else len(tokens)
    if count % 4:
        return None
    try:
        cards = [CARDS[tokens[i]] for i in range(count)]
    except KeyError:
        return None
    strengths = _STRENGTH[trump]
    first = current = _INDEX[leader]
    side = -1 if declarer is None else _INDEX[declarer] % 2
    played: list[str] = []
    won = 0
    for start in range(0, count, 4):
        # Rows are in fixed seat order from `leader`; the trick is played from the current leader.
        shift = (current - first) & 3
        a, b = cards[start + shift], cards[start + ((shift + 1) & 3)]
        c, d = cards[start + ((shift + 2) & 3)], cards[start + ((shift + 3) & 3)]
        power = strengths[a[0]]
        best, winner = power[a], 0
        if power[b] > best:
            best, winner = power[b], 1
        if power[c] > best:
            best, winner = power[c], 2
        if power[d] > best:
            winner = 3
        current = (current + winner) & 3
        won += (current & 1) == side
        played += (a, b, c, d)
    return PlayFacts(tuple(played), won, count // 4, (), ())


def _card_tokens(tokens: tuple[str, ...], problems: list[Problem], drift: list[tuple[int, str, str]]) -> list[str]:
    """Canonical cards (and - / + markers) up to the closing '*'."""
    cards: list[str] = []
    for i, token in enumerate(tokens):
        card = CARDS.get(token)
        if card is None:
            if token in ("-", "+"):
                card = token
            elif token == "*":
                if i + 1 < len(tokens):
                    problems.append(Problem("pbn.play.after-end", f"{tokens[i + 1]!r} follows '*'.", i + 1))
                break
            else:
                card = CARD_DRIFT.get(token)
                if card is None:
                    problems.append(Problem("pbn.play.card", f"{token!r} is not a card (suit then rank, like SA).",
                                            i))
                    if len(problems) >= _MAX_PROBLEMS:
                        break  # the play is unusable already; garbage must not cost a finding per token
                    card = "-"
                else:
                    drift.append((i, token, card))
        cards.append(card)
    return cards


def _actual_leader(rightful: int, first: int, indices: list[int], prefixes: dict[int, str],
                   problems: list[Problem]) -> int:
    """Who led the trick: the rightful leader, or the seat marked ^L (lead out of turn)."""
    out_of_turn = [k for k, i in enumerate(indices) if prefixes.get(i) == "^L"]
    if len(out_of_turn) > 1:
        problems.append(Problem("pbn.play.irregularity", "Two leads out of turn in one trick.",
                                indices[out_of_turn[1]]))
        return rightful
    if out_of_turn:
        seat = (first + out_of_turn[0]) % 4
        if seat != rightful:
            return seat
        problems.append(Problem("pbn.play.irregularity", f"{_SEATS[seat].value} was on lead; ^L (lead out of "
                                "turn) does not apply.", indices[out_of_turn[0]]))
    return rightful


def _check_continuation(order: list[int], column: dict[int, int], trick: list[str], indices: list[int],
                        plus_seen: bool, problems: list[Problem]) -> bool:
    """'+' marks the next card to play: only one, and only unplayed cards ('-') may follow it."""
    for seat in order:
        k = column.get(seat)
        if k is None:
            continue
        if trick[k] == "+":
            if plus_seen:
                problems.append(Problem("pbn.play.continue", "Only one '+' may mark the next card.", indices[k]))
            plus_seen = True
        elif plus_seen and trick[k] != "-":
            problems.append(Problem("pbn.play.continue", f"{trick[k]} is played after the '+' that marks the "
                                    "next card.", indices[k]))
    return plus_seen


def _check_trick(order: list[int], column: dict[int, int], trick: list[str], indices: list[int],
                 hands: dict[Seat, set[str]], prefixes: dict[int, str]) -> list[Problem]:
    """Cards held, not played twice, suit followed or the revoke marked ^R."""
    problems: list[Problem] = []
    led: str | None = None
    for position, seat_index in enumerate(order):
        k = column.get(seat_index)
        if k is None or trick[k] in ("-", "+"):
            if position == 0:
                return problems
            continue
        card, index, seat = trick[k], indices[k], _SEATS[seat_index]
        hand = hands.get(seat)
        if hand is None:
            led = led or card[0]
            continue
        if card not in hand:
            problems.append(Problem("pbn.play.card-not-held", f"{seat.value} does not hold {card} (not dealt to "
                                    "them, or already played).", index))
            led = led or card[0]
            continue
        revoke = led is not None and card[0] != led and any(c[0] == led for c in hand)
        marked = prefixes.get(index) == "^R"
        if revoke and not marked:
            problems.append(Problem("pbn.play.revoke", f"{seat.value} plays {card} but still holds {led}: a revoke "
                                    "must be marked ^R.", index))
        elif marked and not revoke:
            problems.append(Problem("pbn.play.irregularity", f"{card} is marked as a revoke (^R) but it is not "
                                    "one.", index))
        hand.discard(card)
        led = led or card[0]
    return problems


def seat_hands(hands: tuple[tuple[str, str, str, str] | None, ...]) -> dict[Seat, set[str]]:
    """Cards held by each seat whose hand is known (hands in N, E, S, W order), as card strings."""
    held: dict[Seat, set[str]] = {}
    for seat, hand in zip(_SEATS, hands, strict=True):
        if hand is not None:
            held[seat] = {suit + rank for suit, ranks in zip(_SUITS, hand, strict=True) for rank in ranks}
    return held
