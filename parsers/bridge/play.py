"""Play: tricks replayed from the lead, claims, and play sections as PBN writes them.

`replay` (and `replay_masks`, with the hands as suit masks) replays cards in the order they were
played, checking each against the hand of the player whose turn it is; `read_play` reads a PBN play
section, whose rows are in a fixed seat order, into the order of play. Both decide tricks with
`cards.STRENGTH`. `claim_fits` is the rule a claim must meet. Problems come back as values that the
reader turns into positioned diagnostics, with its own codes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import NamedTuple

from models.cards import Deal, Seat, Suit
from models.contract import Strain
from parsers.bridge.auction import Problem, TokenProblem
from parsers.bridge.cards import (
    CARD_DRIFT,
    CARD_INFO,
    CARD_SET,
    CARDS,
    RANK_BIT,
    SEAT_INDEX,
    SEATS,
    STRENGTH,
    SUITS,
    trump_of,
    winning_card,
)

Hands = Mapping[Seat, Mapping[str, str] | None]
"""Seat -> suit letter (S, H, D, C) -> ranks held; None for an unknown hand."""

_MAX_PROBLEMS = 50


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
    for seat in SEATS:
        hand = deal.hand(seat)
        hands[seat] = None if hand is None else {suit.value: hand.ranks(suit) for suit in Suit}
    return hands


def hand_masks(hands: Hands) -> list[int] | None:
    """Hands as 16 suit masks, index 4 * seat + suit (seats N, E, S, W; suits S, H, D, C).

    None unless all four hands are known and together hold each card exactly once.
    """
    masks = [0] * 16
    for seat, hand in hands.items():
        if hand is None:
            return None
        base = 4 * SEAT_INDEX[seat]
        for suit, ranks in hand.items():
            mask = 0
            for rank in ranks:
                mask |= RANK_BIT.get(rank, 0)
            masks[base + SUITS.index(suit)] = mask
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
    tables = STRENGTH[trump_of(strain)]
    d = SEAT_INDEX[declarer]
    leader, side, won = (d + 1) & 3, d & 1, 0
    complete = min(len(cards) // 4, 13)
    problems: list[Problem] = []
    unique = set(cards)
    if len(unique) != len(cards) or not unique <= CARD_SET:
        complete = min(_trusted_prefix(cards, problems) // 4, 13)
    left = None if masks is None else list(masks)
    info = CARD_INFO
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
        table = tables[a[0]]
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
            problems.append((k + i, "revoke", f"{SEATS[(leader + i) & 3].value} played {card} while still "
                                              "holding a card of the suit led"))
    return True


def _not_held(card: str, seat: int, left: list[int], info: Mapping[str, tuple[int, int]]) -> str:
    suit, bit = info[card]
    holder = next((s for s in range(4) if left[4 * s + suit] & bit), None)
    whose = "has already played it" if holder is None else f"{SEATS[holder].value} holds it"
    return f"{card} is played in {SEATS[seat].value}'s turn but {whose}"


def _trusted_prefix(cards: Sequence[str], problems: list[Problem]) -> int:
    """Length of the play before the first unknown or repeated card (reported)."""
    seen: set[str] = set()
    for i, card in enumerate(cards):
        if card not in CARD_SET:
            problems.append((i, "bad-card", f"{card!r} is not a card"))
            return i
        if card in seen:
            problems.append((i, "card-played-twice", f"{card} is played a second time"))
            return i
        seen.add(card)
    return len(cards)


def claim_fits(claimed: int, won: int, complete: int) -> bool:
    """Whether declarer can end with `claimed` tricks having won `won` of the first `complete`."""
    return won <= claimed <= won + 13 - complete


class PlayFacts(NamedTuple):
    """What a play section says."""

    played: tuple[str, ...]
    """Canonical cards in the order played, up to the first unknown card."""
    declarer_tricks: int
    """Tricks won by declarer among the complete known tricks."""
    known_tricks: int
    """Number of tricks whose four cards are known."""
    problems: tuple[TokenProblem, ...]
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
    problems: list[TokenProblem] = []
    drift: list[tuple[int, str, str]] = []
    cards = _card_tokens(tokens, problems, drift)
    first = SEAT_INDEX[leader]
    side = None if declarer is None else SEAT_INDEX[declarer] % 2
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
            current = (current + winning_card(in_order, trump)) % 4
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
        current = order[winning_card(in_order, trump)]
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
    strengths = STRENGTH[trump]
    first = current = SEAT_INDEX[leader]
    side = -1 if declarer is None else SEAT_INDEX[declarer] % 2
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


def _card_tokens(tokens: tuple[str, ...], problems: list[TokenProblem], drift: list[tuple[int, str, str]]) -> list[str]:
    """Canonical cards (and - / + markers) up to the closing '*'."""
    cards: list[str] = []
    for i, token in enumerate(tokens):
        card = CARDS.get(token)
        if card is None:
            if token in ("-", "+"):
                card = token
            elif token == "*":
                if i + 1 < len(tokens):
                    problems.append(TokenProblem("pbn.play.after-end", f"{tokens[i + 1]!r} follows '*'.", i + 1))
                break
            else:
                card = CARD_DRIFT.get(token)
                if card is None:
                    problems.append(TokenProblem("pbn.play.card", f"{token!r} is not a card (suit then rank, like SA).",
                                            i))
                    if len(problems) >= _MAX_PROBLEMS:
                        break  # the play is unusable already; garbage must not cost a finding per token
                    card = "-"
                else:
                    drift.append((i, token, card))
        cards.append(card)
    return cards


def _actual_leader(rightful: int, first: int, indices: list[int], prefixes: dict[int, str],
                   problems: list[TokenProblem]) -> int:
    """Who led the trick: the rightful leader, or the seat marked ^L (lead out of turn)."""
    out_of_turn = [k for k, i in enumerate(indices) if prefixes.get(i) == "^L"]
    if len(out_of_turn) > 1:
        problems.append(TokenProblem("pbn.play.irregularity", "Two leads out of turn in one trick.",
                                indices[out_of_turn[1]]))
        return rightful
    if out_of_turn:
        seat = (first + out_of_turn[0]) % 4
        if seat != rightful:
            return seat
        problems.append(TokenProblem("pbn.play.irregularity", f"{SEATS[seat].value} was on lead; ^L (lead out of "
                                "turn) does not apply.", indices[out_of_turn[0]]))
    return rightful


def _check_continuation(order: list[int], column: dict[int, int], trick: list[str], indices: list[int],
                        plus_seen: bool, problems: list[TokenProblem]) -> bool:
    """'+' marks the next card to play: only one, and only unplayed cards ('-') may follow it."""
    for seat in order:
        k = column.get(seat)
        if k is None:
            continue
        if trick[k] == "+":
            if plus_seen:
                problems.append(TokenProblem("pbn.play.continue", "Only one '+' may mark the next card.", indices[k]))
            plus_seen = True
        elif plus_seen and trick[k] != "-":
            problems.append(TokenProblem("pbn.play.continue", f"{trick[k]} is played after the '+' that marks the "
                                    "next card.", indices[k]))
    return plus_seen


def _check_trick(order: list[int], column: dict[int, int], trick: list[str], indices: list[int],
                 hands: dict[Seat, set[str]], prefixes: dict[int, str]) -> list[TokenProblem]:
    """Cards held, not played twice, suit followed or the revoke marked ^R."""
    problems: list[TokenProblem] = []
    led: str | None = None
    for position, seat_index in enumerate(order):
        k = column.get(seat_index)
        if k is None or trick[k] in ("-", "+"):
            if position == 0:
                return problems
            continue
        card, index, seat = trick[k], indices[k], SEATS[seat_index]
        hand = hands.get(seat)
        if hand is None:
            led = led or card[0]
            continue
        if card not in hand:
            problems.append(TokenProblem("pbn.play.card-not-held", f"{seat.value} does not hold {card} (not dealt to "
                                    "them, or already played).", index))
            led = led or card[0]
            continue
        revoke = led is not None and card[0] != led and any(c[0] == led for c in hand)
        marked = prefixes.get(index) == "^R"
        if revoke and not marked:
            problems.append(TokenProblem("pbn.play.revoke", f"{seat.value} plays {card} but still holds {led}: "
                                         "a revoke must be marked ^R.", index))
        elif marked and not revoke:
            problems.append(TokenProblem("pbn.play.irregularity", f"{card} is marked as a revoke (^R) but it is not "
                                    "one.", index))
        hand.discard(card)
        led = led or card[0]
    return problems


def seat_hands(hands: tuple[tuple[str, str, str, str] | None, ...]) -> dict[Seat, set[str]]:
    """Cards held by each seat whose hand is known (hands in N, E, S, W order), as card strings."""
    held: dict[Seat, set[str]] = {}
    for seat, hand in zip(SEATS, hands, strict=True):
        if hand is not None:
            held[seat] = {suit + rank for suit, ranks in zip(SUITS, hand, strict=True) for rank in ranks}
    return held
