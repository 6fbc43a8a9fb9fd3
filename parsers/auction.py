"""Auction and play arithmetic shared by the readers.

Everything here works on plain strings so that any format can feed it: calls in the normalised
spelling of `ResultRecord.auction` (`Pass`, `X`, `XX`, `1C` ... `7NT`) and cards as suit-first
codes (`SA`, `HT`, `C2`, i.e. `str(Card)`). Hands are given as seat -> suit letter -> ranks
(`hands_of(deal)` makes that from a `Deal`). The functions are pure and raise nothing on bad input:
they report problems as `(index, code, message)` tuples that the caller turns into positioned
diagnostics.

The loops are written for speed (integer seats, precomputed per-trump tables) because the LIN
reader runs them for every board of files with tens of thousands of boards.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import NamedTuple

from models.cards import Deal, Seat, Suit
from models.contract import Contract, Doubling, Strain

PASS, DOUBLE, REDOUBLE = "Pass", "X", "XX"
"""The three calls that are not bids, in their normalised spelling."""

STRAINS: tuple[Strain, ...] = (Strain.C, Strain.D, Strain.H, Strain.S, Strain.NT)
"""Strains from lowest to highest."""

BIDS: tuple[str, ...] = tuple(f"{level}{strain.value}" for level in range(1, 8) for strain in STRAINS)
"""The 35 bids from 1C to 7NT, in ascending order."""

_BID_RANK: dict[str, int] = {bid: rank for rank, bid in enumerate(BIDS)}
_RANKS_LOW_TO_HIGH = "23456789TJQKA"
_SEATS: tuple[Seat, ...] = (Seat.N, Seat.E, Seat.S, Seat.W)
_SEAT_INDEX: dict[Seat, int] = {seat: i for i, seat in enumerate(_SEATS)}

Problem = tuple[int, str, str]
"""(index of the call or card, stable code suffix, message) — the caller adds position and prefix."""

Hands = Mapping[Seat, Mapping[str, str] | None]
"""Seat -> suit letter (S, H, D, C) -> ranks held; None for an unknown hand."""


def _call_spellings() -> dict[str, str]:
    table: dict[str, str] = {}
    plain = {"P": PASS, "PASS": PASS, "D": DOUBLE, "X": DOUBLE, "DBL": DOUBLE,
             "R": REDOUBLE, "XX": REDOUBLE, "RDBL": REDOUBLE}
    for bid in BIDS:
        plain[bid] = bid
        if bid.endswith("NT"):
            plain[bid[:-1]] = bid
    for text, call in plain.items():
        for variant in {text, text.lower(), text.capitalize()}:
            table[variant] = call
            table[variant + "!"] = call
    return table


CALL_SPELLINGS: dict[str, str] = _call_spellings()
"""Common spellings of calls (`p`, `PASS`, `d`, `r`, `1n`, `2S!`) -> normalised call."""


def normalise_call(text: str) -> str | None:
    """Spell a call the way records store it: `p`/`PASS` -> Pass, `d`/`x` -> X, `r` -> XX, `1n` -> 1NT.

    A trailing alert mark (`1C!`) is dropped. Returns None when `text` is not a call.
    """
    call = CALL_SPELLINGS.get(text)
    if call is None:
        call = CALL_SPELLINGS.get(text.strip().upper().rstrip("!").replace(" ", ""))
    return call


class AuctionSummary(NamedTuple):
    """What an auction established, and what was wrong with it."""

    complete: bool
    """True when the auction ended (three passes after a bid, or four passes)."""
    contract: Contract | None
    """The final contract (passed out = level 0); None while the auction is incomplete or illegal."""
    problems: tuple[Problem, ...]
    """The first illegal call (insufficient bid, double of partner, ...) or call after the end."""


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
        problem = _illegal(call, index, last_rank, bid_side, doubling, side)
        if problem is not None:
            return AuctionSummary(False, None, (problem,))
        passes = 0
        if call == DOUBLE:
            doubling = 1
        elif call == REDOUBLE:
            doubling = 2
        else:
            last_rank, bid_side, doubling = _BID_RANK[call], side, 0
    if not ended:
        return AuctionSummary(False, None, ())
    if last_rank < 0:
        return AuctionSummary(True, Contract.passed_out(), ())
    return AuctionSummary(True, _final_contract(calls, dealer, last_rank, bid_side, doubling), ())


def _illegal(call: str, index: int, last_rank: int, bid_side: int, doubling: int, side: int) -> Problem | None:
    """Why `call` is not allowed after the calls so far (Laws 18, 19), or None when it is."""
    if call == DOUBLE:
        if last_rank < 0 or doubling or bid_side == side:
            return (index, "illegal-double", "a double is only allowed of an opponent's undoubled bid")
    elif call == REDOUBLE:
        if last_rank < 0 or doubling != 1 or bid_side != side:
            return (index, "illegal-redouble", "a redouble is only allowed after an opponent doubled your side's bid")
    elif _BID_RANK[call] <= last_rank:
        return (index, "insufficient-bid", f"{call} does not outrank the previous bid {BIDS[last_rank]}")
    return None


def _final_contract(calls: Sequence[str], dealer: Seat, last_rank: int, bid_side: int, doubling: int) -> Contract:
    bid = BIDS[last_rank]
    strain_text = bid[1:]
    first = next(i for i, call in enumerate(calls)
                 if i & 1 == bid_side and call in _BID_RANK and call[1:] == strain_text)
    return Contract(level=int(bid[0]), strain=Strain(strain_text), doubling=_DOUBLINGS[doubling],
                    declarer=_SEATS[(_SEAT_INDEX[dealer] + first) & 3])


_DOUBLINGS = (Doubling.NONE, Doubling.X, Doubling.XX)


def contract_from_auction(calls: Sequence[str], dealer: Seat) -> Contract | None:
    """Final contract of a complete, legal auction (passed out = level 0); None otherwise."""
    return summarise_auction(calls, dealer).contract


def declarer_from_auction(calls: Sequence[str], dealer: Seat) -> Seat | None:
    """Declarer of a complete, legal auction; None when passed out, incomplete or illegal."""
    contract = contract_from_auction(calls, dealer)
    return None if contract is None else contract.declarer


def trump_of(strain: Strain | None) -> str | None:
    """The trump suit letter for a strain (None at notrump)."""
    return None if strain is None or strain is Strain.NT else strain.value


CARD_CODES: tuple[str, ...] = tuple(suit + rank for suit in "SHDC" for rank in _RANKS_LOW_TO_HIGH)
"""The 52 card codes."""


def _lead_tables() -> dict[str | None, dict[str, dict[str, int]]]:
    """trump -> led card -> (card -> strength): trumps beat the suit led, which beats discards."""
    tables: dict[str | None, dict[str, dict[str, int]]] = {}
    for trump in (None, "S", "H", "D", "C"):
        by_led_suit = {
            led: {code: (200 if code[0] == trump else 100 if code[0] == led else 0)
                  + _RANKS_LOW_TO_HIGH.index(code[1]) for code in CARD_CODES}
            for led in "SHDC"}
        tables[trump] = {code: by_led_suit[code[0]] for code in CARD_CODES}
    return tables


_LEAD_TABLES = _lead_tables()


def winning_card(trick: Sequence[str], trump: str | None) -> int:
    """Index (in played order) of the card that wins a complete trick of four card codes.

    `trump` is the trump suit letter (S, H, D, C) or None at notrump: the highest trump wins,
    otherwise the highest card of the suit led.
    """
    table = _LEAD_TABLES[trump][trick[0]]
    strengths = [table[card] for card in trick[:4]]
    return strengths.index(max(strengths))


def trick_winner(trick: Sequence[str], leader: Seat, trump: str | None) -> Seat:
    """Who wins a complete trick of four card codes played clockwise from `leader`."""
    return _SEATS[(_SEAT_INDEX[leader] + winning_card(trick, trump)) & 3]


class PlayOutcome(NamedTuple):
    """The trick count of a (possibly partial) play record."""

    declarer_tricks: int
    """Tricks won by declarer's side among the complete tricks that were counted."""
    complete_tricks: int
    """Number of complete tricks (four cards each) that were counted."""
    problems: tuple[Problem, ...]
    """Unknown cards, cards played twice or by the wrong player, revokes, play past 13 tricks."""


def hands_of(deal: Deal) -> dict[Seat, dict[str, str] | None]:
    """A deal as seat -> suit letter -> ranks, the shape `replay` checks the play against."""
    hands: dict[Seat, dict[str, str] | None] = {}
    for seat in _SEATS:
        hand = deal.hand(seat)
        hands[seat] = None if hand is None else {suit.value: hand.ranks(suit) for suit in Suit}
    return hands


RANK_BIT: dict[str, int] = {rank: 1 << i for i, rank in enumerate("AKQJT98765432")}
"""Rank -> bit in a suit mask (A is bit 0, 2 is bit 12)."""
_CARD_INFO: dict[str, tuple[int, int]] = {code: ("SHDC".index(code[0]), RANK_BIT[code[1]]) for code in CARD_CODES}


def hand_masks(hands: Hands) -> list[int] | None:
    """Hands as 16 suit masks, index 4 * seat + suit (seats N, E, S, W; suits S, H, D, C).

    None unless all four hands are known and together hold each card exactly once.
    """
    masks = [0] * 16
    for seat, hand in hands.items():
        if hand is None:
            return None
        base = 4 * _SEAT_INDEX[seat]
        for suit, ranks in hand.items():
            mask = 0
            for rank in ranks:
                mask |= RANK_BIT.get(rank, 0)
            masks[base + "SHDC".index(suit)] = mask
    together = [masks[i] | masks[4 + i] | masks[8 + i] | masks[12 + i] for i in range(4)]
    if sum(m.bit_count() for m in masks) != 52 or together != [(1 << 13) - 1] * 4:
        return None
    return masks


def replay(cards: Sequence[str], declarer: Seat, strain: Strain | None,
           hands: Hands | None = None) -> PlayOutcome:
    """Replay the cards trick by trick from the lead of declarer's left-hand opponent.

    With `hands` (all four known) each card is checked against the player whose turn it is, and a
    failure to follow suit is reported as a revoke (the trick still stands as played). The count
    stops before the first trick that cannot be trusted: an unknown card, a card played twice or
    one played by somebody who does not hold it.
    """
    return replay_masks(cards, declarer, strain, None if hands is None else hand_masks(hands))


def replay_masks(cards: Sequence[str], declarer: Seat, strain: Strain | None,
                 masks: Sequence[int] | None) -> PlayOutcome:
    """`replay` with the hands already given as `hand_masks` (the LIN reader has them from `md`)."""
    tables = _LEAD_TABLES[trump_of(strain)]
    d = _SEAT_INDEX[declarer]
    leader, side, won = (d + 1) & 3, d & 1, 0
    complete = min(len(cards) // 4, 13)
    problems: list[Problem] = []
    unique = set(cards)
    if len(unique) != len(cards) or not unique <= _CARD_SET:
        complete = min(_trusted_prefix(cards, problems) // 4, 13)
    left = None if masks is None else list(masks)
    info = _CARD_INFO
    for t in range(complete):
        k = 4 * t
        trick = a, b, c, e = cards[k:k + 4]
        if left is not None:
            (sa, ba), (sb, bb), (sc, bc), (se, be) = info[a], info[b], info[c], info[e]
            pa, pb, pc, pe = _SLOTS[leader]
            # Common case inline: everybody follows suit with a card they hold. Anything else
            # (a discard, a card from the wrong hand) goes through `_follow`, which reports it.
            if sa == sb == sc == se and left[pa + sa] & ba and left[pb + sb] & bb and left[pc + sc] & bc \
                    and left[pe + se] & be:
                left[pa + sa] ^= ba
                left[pb + sb] ^= bb
                left[pc + sc] ^= bc
                left[pe + se] ^= be
            elif not _follow(trick, k, leader, left, info, problems):
                return PlayOutcome(won, t, tuple(problems))
        table = tables[a]
        x = (table[a], table[b], table[c], table[e])
        leader = (leader + x.index(max(x))) & 3
        won += (leader & 1) == side
    rest = cards[4 * complete:]
    if rest and not any(code != "revoke" for _, code, _ in problems):
        if complete == 13:
            problems.append((52, "too-many-cards", f"{len(cards)} cards were played; a deal has 52"))
        elif left is not None:
            _follow(rest, 4 * complete, leader, left, info, problems)
    return PlayOutcome(won, complete, tuple(problems))


_CARD_SET = frozenset(CARD_CODES)
_SLOTS = tuple(tuple(4 * ((leader + i) & 3) for i in range(4)) for leader in range(4))


def _follow(trick: Sequence[str], k: int, leader: int, left: list[int], info: Mapping[str, tuple[int, int]],
            problems: list[Problem]) -> bool:
    """Take the trick's cards out of the players' hands; False at a card its player does not hold.

    A player who does not follow suit while still holding the suit led has revoked (reported).
    """
    led = info[trick[0]][0]
    for i, card in enumerate(trick):
        suit, bit = info[card]
        slot = 4 * ((leader + i) & 3) + suit
        if not left[slot] & bit:
            problems.append((k + i, "wrong-player", _not_held(card, (leader + i) & 3, left, info)))
            return False
        left[slot] ^= bit
        if suit != led and left[slot - suit + led]:
            problems.append((k + i, "revoke", f"{_SEATS[(leader + i) & 3].value} played {card} while still "
                                              "holding a card of the suit led"))
    return True


def _not_held(card: str, seat: int, left: list[int], info: Mapping[str, tuple[int, int]]) -> str:
    suit, bit = info[card]
    holder = next((s for s in range(4) if left[4 * s + suit] & bit), None)
    whose = "has already played it" if holder is None else f"{_SEATS[holder].value} holds it"
    return f"{card} is played in {_SEATS[seat].value}'s turn but {whose}"


def _trusted_prefix(cards: Sequence[str], problems: list[Problem]) -> int:
    """Length of the play before the first unknown or repeated card (reported)."""
    seen: set[str] = set()
    for i, card in enumerate(cards):
        if card not in _CARD_SET:
            problems.append((i, "bad-card", f"{card!r} is not a card"))
            return i
        if card in seen:
            problems.append((i, "card-played-twice", f"{card} is played a second time"))
            return i
        seen.add(card)
    return len(cards)
