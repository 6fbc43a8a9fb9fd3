"""Play as the careful readers see it: cards in the order played (LIN) and play sections as PBN
writes them, put to the bridge engine's rules of play (`parsers.bridge.play_arrays`).

`replay_boards` (and `replay`, for one board) hands cards in the order they were played to the
engine, with the hands when they are known; `read_plays` (and `read_play`, for one) reads PBN play
sections (rows in a fixed seat order from the opening leader; `-`, `+`, `*`, `^L`, `^R`, drift
spellings) and hands their tricks to the engine. Either does a batch in one call of the engine;
what it finds comes back as problems with each format's codes, as values the reader turns into
positioned diagnostics. `claim_fits` is the rule a claim must meet. No rule of play is decided here.

The engine and numpy load with the first play replayed, not with this module: the results site
imports the PBN writer, and with it the PBN reader's modules, and never reads a play.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from itertools import takewhile
from typing import TYPE_CHECKING, Any, NamedTuple, overload

from models.cards import RANKS, Deal, Seat, Suit
from models.contract import Strain
from parsers.bridge.auction import Problem, TokenProblem
from parsers.bridge.cards import (
    CARD_DRIFT,
    CARD_NAMES,
    CARD_NUMBER,
    CARD_SET,
    CARDS,
    RANK_BIT,
    SEAT_INDEX,
    SEATS,
    SUITS,
    trump_of,
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

    numbers: list[int] = []
    dealt: list[list[int]] = []
    for play in plays:
        cards = [CARD_NUMBER.get(card, _UNKNOWN) for card in play.cards[:52]]
        numbers += cards + [-1] * (52 - len(cards))
        opening = SEAT_INDEX[play.declarer] + 1
        dealt.append([0] * 4 if play.masks is None else
                     [_seat_cards(play.masks, (opening + column) & 3) for column in range(4)])
    rows = np.array(numbers, dtype=np.int8).reshape(len(plays), 52)
    trump = np.array([_trump_number(trump_of(play.strain)) for play in plays])
    known = np.array([[play.masks is not None] * 4 for play in plays])
    hands = np.array(dealt, dtype=np.uint64) if any(play.masks is not None for play in plays) else None
    found, table = engine.replay_in_order(rows, hands, trump, known=None if hands is None else known)
    # The first card that is no card or a card played again: past it no trick can be trusted.
    suspect = (rows >= _UNKNOWN) | engine.played_twice(rows)
    first = np.where(suspect.any(axis=1), suspect.argmax(axis=1), 52).tolist()
    lin = _LinFindings(found, table, hands, plays)
    return [lin.outcome(board, play, first[board]) for board, play in enumerate(plays)]


class _LinFindings:
    """The engine's findings on a batch of plays in the order played, as LIN's problems."""

    def __init__(self, found: Play, table: Any, hands: Any, plays: Sequence[CardPlay]) -> None:
        self.found, self.table, self.hands = found, table, hands
        self.leaders, self.winners = found.leaders.tolist(), found.winners.tolist()
        # The cards found not held or revoked, by board, in the order played: (index, not held).
        self.flagged: list[list[tuple[int, bool]]] = [[] for _ in plays]
        if hands is not None:
            import numpy as np

            at = np.nonzero(found.not_held | found.revoked)
            for board, trick, column, not_held in zip(*(a.tolist() for a in at), found.not_held[at].tolist(),
                                                       strict=True):
                self.flagged[board].append((4 * trick + ((column - self.leaders[board][trick]) & 3), not_held))
            for flagged in self.flagged:
                flagged.sort()

    def outcome(self, board: int, play: CardPlay, first: int) -> PlayOutcome:
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
        for index, not_held in self.flagged[board]:
            if index >= end:
                break
            trick = index // 4
            column = (self.leaders[board][trick] + index) & 3
            seat = SEATS[(opening + column) & 3]
            if not_held:
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
        holder = int(holders(self.table, self.hands, self.found.leaders, *named)[0])
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


def seat_hands(hands: tuple[tuple[str, str, str, str] | None, ...]) -> dict[Seat, int]:
    """Cards held by each seat whose hand is known (hands in N, E, S, W order), as the engine's sets
    of cards (bit `card number` set for each card held)."""
    held: dict[Seat, int] = {}
    for seat, hand in zip(SEATS, hands, strict=True):
        if hand is not None:
            cards = 0
            for suit, ranks in enumerate(hand):
                for rank in ranks:
                    if rank in _RANK_INDEX:
                        cards |= 1 << (13 * suit + _RANK_INDEX[rank])
            held[seat] = cards
    return held


class PlaySection(NamedTuple):
    """A play section to read: `read_play`'s arguments, as a key."""

    leader: Seat
    declarer: Seat | None
    trump: str | None
    tokens: tuple[str, ...]
    prefixes: tuple[tuple[int, str], ...]
    """(token, prefix) for each token with one, in token order."""
    hands: tuple[tuple[Seat, int], ...] | None
    """(seat, cards) for each seat whose hand is known, as `seat_hands`; None when none is."""


def play_section(leader: Seat, declarer: Seat | None, trump: str | None, tokens: tuple[str, ...],
                 prefixes: Mapping[int, str] | None = None, hands: Mapping[Seat, int] | None = None) -> PlaySection:
    """`read_play`'s arguments as a `PlaySection`."""
    return PlaySection(leader, declarer, trump, tokens, tuple(sorted(prefixes.items())) if prefixes else (),
                       tuple(hands.items()) if hands else None)


def read_play(leader: Seat, declarer: Seat | None, trump: str | None, tokens: tuple[str, ...],
              prefixes: dict[int, str] | None = None, hands: dict[Seat, int] | None = None,
              read: Mapping[PlaySection, PlayFacts] | None = None) -> PlayFacts:
    """Interpret play tokens (rows in seat order from `leader`) into the order the cards were played.

    `trump` is S/H/D/C or None for notrump. With `hands` (the cards of each seat whose hand is
    known, `seat_hands`), cards are also checked against the hands: held, not played twice,
    following suit or marked as a revoke (^R). `read` holds sections read already (`read_plays`).
    """
    return read_section(play_section(leader, declarer, trump, tokens, prefixes, hands), read)


def read_section(section: PlaySection, read: Mapping[PlaySection, PlayFacts] | None = None) -> PlayFacts:
    """`read_play` of a `PlaySection`: from `read` when it holds it, else replayed alone."""
    facts = None if read is None else read.get(section)
    return facts if facts is not None else read_plays([section])[section]


def read_plays(sections: Iterable[PlaySection]) -> dict[PlaySection, PlayFacts]:
    """`read_play` of many sections, their tricks replayed in one call of the engine (the PBN reader
    reads a file's sections before its games)."""
    tokens = [_Tokens(section) for section in dict.fromkeys(sections)]
    if not tokens:
        return {}
    found, order = _replay_sections(tokens)
    return {read.section: read.facts(found, order[board], board) for board, read in enumerate(tokens)}


class _Tokens:
    """A play section's tokens as cards, rows and leads out of turn, and the problems they have."""

    def __init__(self, section: PlaySection) -> None:
        self.section = section
        self.problems: list[TokenProblem] = []
        self.drift: list[tuple[int, str, str]] = []
        cards = _card_tokens(section.tokens, self.problems, self.drift)
        self.tricks = [cards[start:start + 4] for start in range(0, len(cards), 4)]
        self.marks = dict(section.prefixes)
        self.leads, self.two_leads = _leads_out_of_turn(self.tricks, self.marks)

    def facts(self, found: Play, order: list[int], board: int) -> PlayFacts:
        """What the section says, with the engine's findings on it (`board` of `found`, whose cards in
        the order played are `order`)."""
        problems, tricks = list(self.problems), self.tricks
        if not tricks:
            return PlayFacts((), 0, 0, tuple(problems), tuple(self.drift))
        section = _Section(tricks, SEAT_INDEX[self.section.leader], self.marks, found, board)
        complete = int(found.complete[board])
        for trick in range(min(complete + 1, len(tricks))):
            if trick in self.two_leads:
                problems.append(self.two_leads[trick])
            section.lead_in_turn(trick, problems)
            if trick == complete:
                _check_continuation(section.order(trick), section.columns(trick), tricks[trick],
                                    list(range(4 * trick, 4 * trick + len(tricks[trick]))), False, problems)
            if self.section.hands is not None:
                section.check_hands(trick, problems)
        return PlayFacts(section.played(order, complete), int(found.won[board]), complete, tuple(problems),
                         tuple(self.drift))


def _leads_out_of_turn(tricks: list[list[str]], marks: dict[int, str]) -> tuple[list[int], dict[int, TokenProblem]]:
    """Each trick's column marked ^L (lead out of turn), or -1; and the tricks marked twice (neither
    mark then stands)."""
    leads = [-1] * len(tricks)
    twice: dict[int, TokenProblem] = {}
    if not marks:
        return leads, twice
    for trick, cards in enumerate(tricks):
        marked = [column for column in range(len(cards)) if marks.get(4 * trick + column) == "^L"]
        if len(marked) > 1:
            twice[trick] = TokenProblem("pbn.play.irregularity", "Two leads out of turn in one trick.",
                                        4 * trick + marked[1])
        elif marked:
            leads[trick] = marked[0]
    return leads, twice


def _replay_sections(sections: list[_Tokens]) -> tuple[Play, list[list[int]]]:
    """The engine's replay of play sections, one board each (columns are seats from the leader),
    and each board's card numbers in the order played."""
    import numpy as np

    from parsers.bridge import play_arrays as engine

    tricks = max((len(section.tricks) for section in sections), default=0)
    table = np.full((len(sections), tricks, 4), -1, dtype=np.int8)
    leads = np.full((len(sections), tricks), -1, dtype=np.int8)
    dealt = np.zeros((len(sections), 4), dtype=np.uint64)
    known = np.zeros((len(sections), 4), dtype=bool)
    trump, side = np.empty(len(sections), dtype=np.int64), np.empty(len(sections), dtype=np.int64)
    for board, read in enumerate(sections):
        section = read.section
        numbers = [CARD_NUMBER.get(card, _UNKNOWN) for trick in read.tricks for card in trick]
        table[board].flat[:len(numbers)] = numbers  # (only the last row can be short)
        leads[board, :len(read.leads)] = read.leads
        first = SEAT_INDEX[section.leader]
        if section.hands:
            hands = dict(section.hands)
            seats = [SEATS[(first + column) & 3] for column in range(4)]
            dealt[board] = [hands.get(seat, 0) for seat in seats]
            known[board] = [seat in hands for seat in seats]
        trump[board] = _trump_number(section.trump)
        side[board] = -1 if section.declarer is None else (SEAT_INDEX[section.declarer] - first) & 1
    checked = bool(known.any())
    found = engine.replay(table, dealt if checked else None, trump, known=known if checked else None, side=side,
                          leads=leads)
    return found, engine.played_order(table, found.leaders).tolist()


class _Section:
    """A play section's tricks and the engine's findings on them, as PBN's problems."""

    def __init__(self, tricks: list[list[str]], first: int, marks: dict[int, str], found: Play, board: int) -> None:
        self.tricks, self.first, self.marks = tricks, first, marks
        self.leaders, self.rightful = found.leaders[board].tolist(), found.rightful[board].tolist()
        self.checked, self.not_held = found.checked[board].tolist(), found.not_held[board].tolist()
        self.revoked = found.revoked[board].tolist()

    def order(self, trick: int) -> list[int]:
        """Seats in the order they played the trick."""
        return [(self.first + self.leaders[trick] + k) % 4 for k in range(4)]

    def columns(self, trick: int) -> dict[int, int]:
        """Seat -> its column (place in the row) in the trick."""
        return {(self.first + k) % 4: k for k in range(len(self.tricks[trick]))}

    def lead_in_turn(self, trick: int, problems: list[TokenProblem]) -> None:
        """^L on the seat that was on lead anyway."""
        column = self.rightful[trick]
        if self.leaders[trick] == column and self.marks.get(4 * trick + column) == "^L" and \
                sum(self.marks.get(4 * trick + k) == "^L" for k in range(len(self.tricks[trick]))) == 1:
            problems.append(TokenProblem("pbn.play.irregularity", f"{SEATS[(self.first + column) % 4].value} was on "
                                         "lead; ^L (lead out of turn) does not apply.", 4 * trick + column))

    def check_hands(self, trick: int, problems: list[TokenProblem]) -> None:
        """Cards held, not played twice, suit followed or the revoke marked ^R (in the order played)."""
        cards = self.tricks[trick]
        leader = self.leaders[trick]
        for place in range(4):
            column = (leader + place) & 3
            if not self.checked[trick][column]:
                continue
            card, index, seat = cards[column], 4 * trick + column, SEATS[(self.first + column) % 4]
            if self.not_held[trick][column]:
                problems.append(TokenProblem("pbn.play.card-not-held", f"{seat.value} does not hold {card} (not "
                                             "dealt to them, or already played).", index))
                continue
            revoke = self.revoked[trick][column]
            marked = self.marks.get(index) == "^R"
            if revoke and not marked:
                problems.append(TokenProblem("pbn.play.revoke", f"{seat.value} plays {card} but still holds "
                                             f"{cards[leader][0]}: a revoke must be marked ^R.", index))
            elif marked and not revoke:
                problems.append(TokenProblem("pbn.play.irregularity", f"{card} is marked as a revoke (^R) but it "
                                             "is not one.", index))

    def played(self, order: list[int], complete: int) -> tuple[str, ...]:
        """The cards in the order played (`order`: their numbers), up to the first that is missing or unknown."""
        played = takewhile(lambda number: 0 <= number < _UNKNOWN, order[:4 * complete + 4])
        return tuple(CARD_NAMES[number] for number in played)


def _card_tokens(tokens: tuple[str, ...], problems: list[TokenProblem], drift: list[tuple[int, str, str]]) -> list[str]:
    """Canonical cards (and - / + markers) up to the closing '*'."""
    try:  # the usual play: cards written as PBN writes them, perhaps closed by '*'
        return [CARDS[token] for token in (tokens[:-1] if tokens and tokens[-1] == "*" else tokens)]
    except KeyError:
        pass
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
