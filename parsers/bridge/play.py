"""Play as the careful readers see it: cards in the order played (LIN) and play sections as PBN
writes them, put to the bridge engine's rules of play (`parsers.bridge.play_arrays`).

`replay_boards` (and `replay`, for one board) hands cards in the order they were played to the
engine, with the hands when they are known; `read_play` reads a PBN play section (rows in a fixed
seat order from the opening leader; `-`, `+`, `*`, `^L`, `^R`, drift spellings) into the order of
play, deciding tricks with `cards.STRENGTH`. Problems come back as values, with each format's
codes, that the reader turns into positioned diagnostics. `claim_fits` is the rule a claim must meet.

The engine and numpy load with the first play replayed, not with this module: the results site
imports the PBN writer, and with it the PBN reader's modules, and never reads a play.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple, overload

from models.cards import RANKS, Deal, Seat, Suit
from models.contract import Strain
from parsers.bridge.auction import Problem, TokenProblem
from parsers.bridge.cards import (
    CARD_DRIFT,
    CARD_NUMBER,
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

if TYPE_CHECKING:
    from parsers.bridge.play_arrays import Bools, Ints, Play

Hands = Mapping[Seat, Mapping[str, str] | None]
"""Seat -> suit letter (S, H, D, C) -> ranks held; None for an unknown hand."""

_MAX_PROBLEMS = 50
_UNKNOWN = 52
"""The engine's number of a card that was played but is not known (`play_arrays.UNKNOWN`)."""
_NO_TRUMP = 4
_RANK_INDEX = {rank: i for i, rank in enumerate(RANKS)}


@overload
def claim_fits(claimed: int, won: int, complete: int) -> bool: ...
@overload
def claim_fits(claimed: Ints, won: Ints, complete: Ints) -> Bools: ...
def claim_fits(claimed: Any, won: Any, complete: Any) -> Any:
    """Whether declarer can end with `claimed` tricks having won `won` of the first `complete`:
    one board's numbers, or numpy arrays of them (board by board)."""
    return (won <= claimed) & (claimed <= won + 13 - complete)


# -- LIN: cards in the order played ------------------------------------------------------------------


class PlayOutcome(NamedTuple):
    """The trick count of a (possibly partial) play record."""

    declarer_tricks: int
    """Tricks won by declarer's side among the complete tricks that were counted."""
    complete_tricks: int
    """Number of complete tricks (four cards each) that were counted."""
    problems: tuple[Problem, ...]
    """Unknown cards, cards played twice or by the wrong player, revokes."""


class CardPlay(NamedTuple):
    """One board's play, as the order of the cards."""

    cards: Sequence[str]
    """Card codes in the order played; anything else is reported as no card."""
    declarer: Seat
    strain: Strain | None
    masks: Sequence[int] | None
    """The hands as `hand_masks`, or None when they are not all known."""


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
    return replay_boards([CardPlay(cards, declarer, strain, None if hands is None else hand_masks(hands))])[0]


def replay_boards(plays: Sequence[CardPlay]) -> list[PlayOutcome]:
    """`replay` of many boards in one call of the engine (the LIN reader replays a file's plays)."""
    if not plays:
        return []
    import numpy as np

    from parsers.bridge import play_arrays as engine

    rows = np.full((len(plays), 52), -1, dtype=np.int8)
    dealt = np.zeros((len(plays), 4), dtype=np.uint64)
    known = np.zeros((len(plays), 4), dtype=bool)
    trump = np.full(len(plays), _NO_TRUMP)
    for board, play in enumerate(plays):
        numbers = [CARD_NUMBER.get(card, _UNKNOWN) for card in play.cards[:52]]
        rows[board, :len(numbers)] = numbers
        if play.masks is not None:
            opening = SEAT_INDEX[play.declarer] + 1
            dealt[board] = [_seat_cards(play.masks, (opening + column) & 3) for column in range(4)]
            known[board] = True
        trump[board] = _trump_number(trump_of(play.strain))
    checked = bool(known.any())
    found, table = engine.replay_in_order(rows, dealt if checked else None, trump, known=known if checked else None)
    # The first card that is no card or a card played again: past it no trick can be trusted.
    suspect = (rows >= _UNKNOWN) | engine.played_twice(rows)
    first = np.where(suspect.any(axis=1), suspect.argmax(axis=1), 52).tolist()
    not_held = engine.played_order(np.ascontiguousarray(found.not_held).view(np.int8), found.leaders)
    revoked = engine.played_order(np.ascontiguousarray(found.revoked).view(np.int8), found.leaders)
    flagged: list[list[int]] = [[] for _ in plays]
    for board, index in zip(*np.nonzero(not_held | revoked), strict=True):
        flagged[board].append(int(index))
    lin = _LinFindings(found, table, dealt, not_held.tolist(), found.leaders.tolist(), found.winners.tolist())
    return [lin.outcome(board, play, first[board], flagged[board]) for board, play in enumerate(plays)]


class _LinFindings:
    """The engine's findings on a batch of plays in the order played, as LIN's problems."""

    def __init__(self, found: Play, table: Any, dealt: Any, not_held: list[list[int]], leaders: list[list[int]],
                 winners: list[list[int]]) -> None:
        self.found, self.table, self.dealt = found, table, dealt
        self.not_held, self.leaders, self.winners = not_held, leaders, winners

    def outcome(self, board: int, play: CardPlay, first: int, flagged: list[int]) -> PlayOutcome:
        """Problems in the order of play: the first untrusted card, then revokes up to the first card
        played by a player who did not hold it (where the count stops)."""
        cards, problems = play.cards, []
        complete = min(len(cards) // 4, 13)
        end = 52  # flags reach past the complete tricks only into a last trick that is trusted
        if first < len(cards):
            card = cards[first]
            problems.append((first, "card-played-twice", f"{card} is played a second time") if card in CARD_SET
                            else (first, "bad-card", f"{card!r} is not a card"))
            complete = min(first // 4, 13)
            end = 4 * complete
        opening = SEAT_INDEX[play.declarer] + 1
        for index in flagged:
            if index >= end:
                break
            trick = index // 4
            column = (self.leaders[board][trick] + index) & 3
            seat = SEATS[(opening + column) & 3]
            if self.not_held[board][index]:
                problems.append((index, "wrong-player", f"{cards[index]} is played in {seat.value}'s turn but "
                                 f"{self._whose(board, trick, column, opening)}"))
                complete = min(complete, trick)
                break
            problems.append((index, "revoke", f"{seat.value} played {cards[index]} while still holding a card "
                             "of the suit led"))
        won = sum(1 for winner in self.winners[board][:complete] if winner >= 0 and winner & 1)
        return PlayOutcome(won, complete, tuple(problems))

    def _whose(self, board: int, trick: int, column: int, opening: int) -> str:
        import numpy as np

        from parsers.bridge.play_arrays import holders

        named = (np.array([board]), np.array([trick]), np.array([column]))
        holder = int(holders(self.table, self.dealt, self.found.leaders, *named)[0])
        return "has already played it" if holder < 0 else f"{SEATS[(opening + holder) & 3].value} holds it"


def _seat_cards(masks: Sequence[int], seat: int) -> int:
    """A seat's cards as the engine's set of cards, from `hand_masks`' four suit masks."""
    base = 4 * seat
    return masks[base] | masks[base + 1] << 13 | masks[base + 2] << 26 | masks[base + 3] << 39


def _trump_number(trump: str | None) -> int:
    return _NO_TRUMP if trump is None else SUITS.index(trump)


# -- PBN: play sections ------------------------------------------------------------------------------


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
