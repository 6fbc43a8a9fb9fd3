"""The Laws of play walked one card at a time: the reference the bridge engine is tested against.

This is a test oracle, not the project's engine. Cards are codes (`SA`), hands are sets of them, and
a play is walked in the order it was played, trick by trick from the opening lead, the way the Laws
put it: the player in turn plays a card he holds and follows suit if he can (Laws 44 and 64: a
failure to is a revoke, and the trick stands as played); the highest trump wins the trick, or else
the highest card of the suit led; the winner leads to the next trick.

Three walks: `walk` reports every card (what `parsers.bridge.play_arrays` reports), `lin_walk` what
the LIN reader makes of a play (`parsers.bridge.play.replay`), and `pbn_walk` what the PBN reader
makes of a play section (`parsers.bridge.play.read_play`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

RANKS = "AKQJT98765432"
SUITS = "SHDC"
SEATS = "NESW"
CARDS = frozenset(suit + rank for suit in SUITS for rank in RANKS)


def trick_winner(trick: list[str], trump: str | None) -> int:
    """The place (in the order played) of the card that wins a complete trick: the highest trump,
    or else the highest card of the suit led; of two equal cards the first played."""
    led = trick[0][0]

    def power(card: str) -> tuple[int, int]:
        return (2 if card[0] == trump else 1 if card[0] == led else 0, -RANKS.index(card[1]))

    best = 0
    for place in range(1, len(trick)):
        if power(trick[place]) > power(trick[best]):
            best = place
    return best


@dataclass
class Walk:
    """What a walk of the play found, card by card in the order played."""

    leaders: list[int] = field(default_factory=list)
    """The seat that led each trick walked (the winner of the trick before)."""
    winners: list[int] = field(default_factory=list)
    """The seat that won each complete trick."""
    won: int = 0
    complete: int = 0
    checked: list[bool] = field(default_factory=list)
    not_held: list[bool] = field(default_factory=list)
    revoked: list[bool] = field(default_factory=list)


def walk(cards: list[str], opening: int, side: int, trump: str | None, hands: list[set[str] | None] | None) -> Walk:
    """Every card checked against the hand of the seat in turn (where that hand is known); a card
    that is not a card stops the count, and nothing after its trick is checked. `side` is the parity
    of declarer's seats (-1: no declarer)."""
    left = [None if hand is None else set(hand) for hand in hands] if hands is not None else [None] * 4
    found = Walk(checked=[False] * len(cards), not_held=[False] * len(cards), revoked=[False] * len(cards))
    leader = opening
    for start in range(0, len(cards), 4):
        trick = cards[start:start + 4]
        found.leaders.append(leader)
        if trick[0] not in CARDS:
            break  # nobody knows what was led, so nothing of this trick can be judged
        for place, card in enumerate(trick):
            hand = left[(leader + place) % 4]
            if card not in CARDS or hand is None:
                continue
            found.checked[start + place] = True
            if card not in hand:
                found.not_held[start + place] = True
                continue
            hand.remove(card)
            found.revoked[start + place] = card[0] != trick[0][0] and any(held[0] == trick[0][0] for held in hand)
        if len(trick) < 4 or not all(card in CARDS for card in trick):
            break
        leader = (leader + trick_winner(trick, trump)) % 4
        found.winners.append(leader)
        found.complete += 1
        found.won += leader % 2 == side
    return found


def lin_walk(cards: list[str], declarer: int, trump: str | None,
             hands: list[set[str]] | None) -> tuple[int, int, list[tuple[int, str, str]]]:
    """(declarer's tricks, complete tricks, problems) as the LIN reader counts a play: the count stops
    before the first card that is not a card or is played a second time, and at the first card played
    by a player who does not hold it (no card after that one is looked at); revokes are reported."""
    problems: list[tuple[int, str, str]] = []
    trusted = len(cards)
    seen: set[str] = set()
    for index, card in enumerate(cards):
        if card not in CARDS or card in seen:
            problems.append((index, "bad-card", f"{card!r} is not a card") if card not in CARDS
                            else (index, "card-played-twice", f"{card} is played a second time"))
            trusted = index
            break
        seen.add(card)
    left = None if hands is None else [set(hand) for hand in hands]
    leader, won = (declarer + 1) % 4, 0

    def follow(trick: list[str], start: int) -> bool:
        """Take the trick's cards from the hands; False at a card its player does not hold."""
        assert left is not None
        for place, card in enumerate(trick):
            seat = (leader + place) % 4
            if card not in left[seat]:
                holder = next((s for s in range(4) if card in left[s]), None)
                whose = "has already played it" if holder is None else f"{SEATS[holder]} holds it"
                problems.append((start + place, "wrong-player",
                                 f"{card} is played in {SEATS[seat]}'s turn but {whose}"))
                return False
            left[seat].remove(card)
            if card[0] != trick[0][0] and any(held[0] == trick[0][0] for held in left[seat]):
                problems.append((start + place, "revoke",
                                 f"{SEATS[seat]} played {card} while still holding a card of the suit led"))
        return True

    complete = min(trusted // 4, 13)
    for number in range(complete):
        trick = cards[4 * number:4 * number + 4]
        if left is not None and not follow(trick, 4 * number):
            return won, number, problems
        leader = (leader + trick_winner(trick, trump)) % 4
        won += leader % 2 == declarer % 2
    if trusted == len(cards) and left is not None and 4 * complete < len(cards):
        follow(cards[4 * complete:], 4 * complete)
    return won, complete, problems


@dataclass
class PbnWalk:
    """What the PBN reader makes of a play section."""

    played: list[str]
    won: int
    known: int
    problems: list[tuple[str, int]]
    """(code, token) of each problem, in the order found."""


def pbn_walk(first: int, declarer: int | None, trump: str | None, rows: list[list[str]], marks: dict[int, str],
             hands: dict[int, set[str]] | None) -> PbnWalk:
    """A play section as rows in seat order from `first` (cards, `-` unknown, `+` the next card to
    play), marks `^L` (this seat led out of turn) and `^R` (a revoke), checked against `hands`
    (seat -> cards, for the seats whose hand is known) when given. The tricks are walked up to the
    first one with a card missing or unknown, which is walked as far as the cards go."""
    left = None if hands is None else {seat: set(hand) for seat, hand in hands.items()}
    found = PbnWalk([], 0, 0, [])
    current, plus_seen = first, False
    for number, row in enumerate(rows):
        marked = [column for column in range(len(row)) if marks.get(4 * number + column) == "^L"]
        if len(marked) > 1:
            found.problems.append(("pbn.play.irregularity", 4 * number + marked[1]))
        elif marked and (first + marked[0]) % 4 == current:
            found.problems.append(("pbn.play.irregularity", 4 * number + marked[0]))
        elif marked:
            current = (first + marked[0]) % 4
        order = [(current + place) % 4 for place in range(4)]
        column = {seat: (seat - first) % 4 for seat in order if (seat - first) % 4 < len(row)}
        for seat in order:
            if seat in column and row[column[seat]] == "+":
                if plus_seen:
                    found.problems.append(("pbn.play.continue", 4 * number + column[seat]))
                plus_seen = True
            elif seat in column and plus_seen and row[column[seat]] != "-":
                found.problems.append(("pbn.play.continue", 4 * number + column[seat]))
        if left is not None and order[0] in column and row[column[order[0]]] not in "-+":
            led = row[column[order[0]]][0]
            for seat in order:
                if seat not in column or row[column[seat]] in "-+" or seat not in left:
                    continue
                card, token = row[column[seat]], 4 * number + column[seat]
                if card not in left[seat]:
                    found.problems.append(("pbn.play.card-not-held", token))
                    continue
                revoke = card[0] != led and any(held[0] == led for held in left[seat])
                if revoke != (marks.get(token) == "^R"):
                    found.problems.append(("pbn.play.revoke" if revoke else "pbn.play.irregularity", token))
                left[seat].remove(card)
        if len(row) < 4 or "-" in row or "+" in row:
            for seat in order:
                if seat not in column or row[column[seat]] in "-+":
                    break
                found.played.append(row[column[seat]])
            break
        trick = [row[column[seat]] for seat in order]
        current = order[trick_winner(trick, trump)]
        found.played += trick
        found.known += 1
        found.won += declarer is not None and current % 2 == declarer % 2
    return found
