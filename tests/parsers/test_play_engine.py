"""The bridge engine's rules of play (`parsers.bridge.play_arrays`) and the careful readers' use of
them (`parsers.bridge.play`) against a plain walk of the Laws (`_laws_of_play`): random deals and
plays, legal or broken on purpose (a card from another hand, a card played again, a revoke, a token
that is no card, more than 52 cards), and cases worked by hand."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import parsers.lin as lin
import parsers.pbn as pbn
from models.cards import Seat
from models.contract import Strain
from parsers.bridge import play_arrays
from parsers.bridge.play import (
    CardPlay,
    PlaySection,
    claim_fits,
    hand_masks,
    play_section,
    read_play,
    read_plays,
    replay,
    replay_boards,
    seat_hands,
)
from parsers.bridge.play_arrays import CARD_NAMES, UNKNOWN, played_order, played_twice, replay_in_order
from tests.conftest import examples

from ._laws_of_play import CARDS, RANKS, SUITS, PbnWalk, Walk, lin_walk, pbn_walk, trick_winner, walk
from .conftest import CORPUS as _CORPUS

_SEATS = (Seat.N, Seat.E, Seat.S, Seat.W)
_STRAINS = {"S": Strain.S, "H": Strain.H, "D": Strain.D, "C": Strain.C, None: Strain.NT}
_NUMBER = {name: number for number, name in enumerate(CARD_NAMES)}
_FAULTS = ("other hand", "again", "revoke", "no card")


@dataclass
class Board:
    """A deal (the cards of N, E, S, W), declarer, trump and cards in the order played."""

    hands: list[set[str]]
    declarer: int
    trump: str | None
    cards: list[str]


def _board(rng: random.Random) -> Board:
    """A random deal and play: mostly legal, trick by trick from declarer's left, now and then a
    card from another hand, a card played again, a revoke or a token that is no card; of any length
    up to a little past the 52 cards of a deal (cards past them are some card again)."""
    pack = sorted(CARDS)
    rng.shuffle(pack)
    hands = [set(pack[13 * seat:13 * seat + 13]) for seat in range(4)]
    declarer, trump = rng.randrange(4), rng.choice([*SUITS, None])
    length = rng.choice([rng.randrange(53), 52, rng.randrange(48, 60)])
    rate = rng.choice([0.0, 0.0, 0.01, 0.04, 0.15])
    left = [sorted(hand) for hand in hands]
    cards: list[str] = []
    leader = (declarer + 1) % 4
    while len(cards) < length:
        trick: list[str] = []
        for place in range(min(4, length - len(cards))):
            hand = left[(leader + place) % 4]
            follow = [card for card in hand if trick and card[0] == trick[0][:1]]
            others = [card for other in left if other is not hand for card in other]
            fault = rng.choice(_FAULTS) if rng.random() < rate else None
            if fault == "revoke" and follow and len(follow) < len(hand):
                card = rng.choice([card for card in hand if card not in follow])
            elif fault == "other hand" and others:
                card = rng.choice(others)
            elif fault == "again" and cards:
                card = rng.choice(cards)
            elif fault == "no card":
                card = rng.choice(["XX", "S1", "10", "h", ""])
            else:
                card = rng.choice(follow or hand or pack)  # (past 52 cards: some card again)
            for other in left:
                if card in other:
                    other.remove(card)
            trick.append(card)
        cards += trick
        if len(trick) == 4 and all(card in CARDS for card in trick):
            leader = (leader + trick_winner(trick, trump)) % 4
    return Board(hands, declarer, trump, cards)


def _boards(seed: random.Random, count: int) -> list[Board]:
    return [_board(seed) for _ in range(count)]


def _numbers(cards: list[str]) -> list[int]:
    return [_NUMBER.get(card, UNKNOWN) for card in cards]


def _dealt(board: Board, opening: int) -> list[int]:
    """The cards of each column's seat (columns from `opening`) as the engine's sets of cards."""
    return [sum(1 << _NUMBER[card] for card in board.hands[(opening + column) % 4]) for column in range(4)]


# -- the engine ---------------------------------------------------------------------------------------


@settings(max_examples=examples(150), deadline=None)
@given(st.randoms(use_true_random=False), st.booleans())
def test_cards_in_the_order_played_are_judged_as_the_laws_walk_them(seed: random.Random, known: bool) -> None:
    boards = _boards(seed, 6)
    rows = np.full((len(boards), 52), -1, dtype=np.int8)
    for row, board in zip(rows, boards, strict=True):
        row[:min(len(board.cards), 52)] = _numbers(board.cards[:52])
    opening = [(board.declarer + 1) % 4 for board in boards]
    dealt = np.array([_dealt(board, first) for board, first in zip(boards, opening, strict=True)], dtype=np.uint64)
    trump = np.array([SUITS.index(board.trump) if board.trump else 4 for board in boards])
    found, table = replay_in_order(rows, dealt if known else None, trump)
    for index, (board, first) in enumerate(zip(boards, opening, strict=True)):
        cards = board.cards[:52]
        expected = walk(cards, first, board.declarer % 2, board.trump, board.hands if known else None)
        _assert_found(found, index, first, expected, len(cards))
    # The table is the play by column: each trick's cards from its leader's column round the table.
    assert played_order(table, found.leaders).tolist() == rows.tolist()


@settings(max_examples=examples(100), deadline=None)
@given(st.randoms(use_true_random=False), st.sampled_from([0, 10**6]))
def test_a_play_written_by_seat_is_followed_from_trick_to_trick(seed: random.Random, few: int) -> None:
    boards = _boards(seed, 5)
    walks = [walk(board.cards[:52], (board.declarer + 1) % 4, board.declarer % 2, board.trump, board.hands)
             for board in boards]
    # Rows as PBN writes them: columns are seats from the opening leader, whoever led the trick.
    table = np.full((len(boards), 13, 4), -1, dtype=np.int8)
    for index, (board, found) in enumerate(zip(boards, walks, strict=True)):
        first = (board.declarer + 1) % 4
        for place, number in enumerate(_numbers(board.cards[:52])):
            leader = found.leaders[place // 4] if place // 4 < len(found.leaders) else 0
            table[index, place // 4, (leader - first + place) % 4] = number
    dealt = np.array([_dealt(board, (board.declarer + 1) % 4) for board in boards], dtype=np.uint64)
    trump = np.array([SUITS.index(board.trump) if board.trump else 4 for board in boards])
    kept = play_arrays._FEW
    try:  # trick by trick, or each trick won for every leader first (how a few boards are followed)
        play_arrays._FEW = few
        found = play_arrays.replay(table, dealt, trump)
    finally:
        play_arrays._FEW = kept
    for index, (board, expected) in enumerate(zip(boards, walks, strict=True)):
        first = (board.declarer + 1) % 4
        _assert_found(found, index, first, expected, min(len(board.cards), 52))


def _assert_found(found: play_arrays.Play, index: int, first: int, expected: Walk, count: int) -> None:
    """The engine's findings on one board (columns from `first`) equal the walk's (seats, in order played)."""
    walked = len(expected.leaders)
    assert [(first + column) % 4 for column in found.leaders[index, :walked].tolist()] == expected.leaders
    winners = found.winners[index, :expected.complete].tolist()
    assert [(first + column) % 4 for column in winners] == expected.winners
    assert (int(found.won[index]), int(found.complete[index])) == (expected.won, expected.complete)
    assert found.winners[index, expected.complete:].tolist() == [-1] * (found.winners.shape[1] - expected.complete)
    in_order = {name: played_order(np.ascontiguousarray(getattr(found, name)).view(np.int8), found.leaders)[index]
                for name in ("checked", "not_held", "revoked")}
    for name in in_order:
        # (past the tricks walked nothing is checked; the walk's leaders stop there)
        assert [bool(flag) for flag in in_order[name][:4 * walked][:count]] == getattr(expected, name)[:4 * walked]
        assert not in_order[name][4 * walked:].any()


def test_a_card_played_twice_and_a_card_unknown_are_named() -> None:
    rows = np.array([[0, 1, 2, 3, 1, UNKNOWN, 5, 0] + [-1] * 44], dtype=np.int8)
    assert played_twice(rows)[0, :8].tolist() == [False, False, False, False, True, False, False, True]
    found, _ = replay_in_order(rows, None, np.array([4]))
    assert (found.complete.tolist(), found.cards.tolist()) == ([1], [8])  # the unknown card ends the count


# -- the LIN reader -----------------------------------------------------------------------------------


@settings(max_examples=examples(200), deadline=None)
@given(st.randoms(use_true_random=False))
def test_the_lin_reader_counts_and_reports_as_the_laws_walk_it(seed: random.Random) -> None:
    boards = _boards(seed, 8)
    known = [seed.random() < 0.85 for _ in boards]
    plays = [CardPlay(board.cards, _SEATS[board.declarer], _STRAINS[board.trump],
                      _masks(board) if sure else None) for board, sure in zip(boards, known, strict=True)]
    expected = [lin_walk(board.cards, board.declarer, board.trump, board.hands if sure else None)
                for board, sure in zip(boards, known, strict=True)]
    together = replay_boards(plays)
    assert [(o.declarer_tricks, o.complete_tricks, list(o.problems)) for o in together] == expected
    assert [tuple(replay_boards([play])[0]) for play in plays] == [tuple(o) for o in together]


def _masks(board: Board) -> list[int]:
    masks = hand_masks({seat: {suit: "".join(r for r in RANKS if suit + r in board.hands[i]) for suit in SUITS}
                        for i, seat in enumerate(_SEATS)})
    assert masks is not None
    return masks


# -- the PBN reader -----------------------------------------------------------------------------------


@settings(max_examples=examples(150), deadline=None)
@given(st.randoms(use_true_random=False))
def test_the_pbn_reader_reads_sections_as_the_laws_walk_them(seed: random.Random) -> None:
    sections = [_section(seed) for _ in range(4)]
    together = read_plays(section for section, _ in sections)  # as the PBN reader reads a file's
    for section, expected in sections:
        facts = read_play(section.leader, section.declarer, section.trump, section.tokens, dict(section.prefixes),
                          None if section.hands is None else dict(section.hands))
        assert (list(facts.played), facts.declarer_tricks, facts.known_tricks) == \
            (expected.played, expected.won, expected.known)
        assert [(problem.code, problem.token) for problem in facts.problems] == expected.problems
        assert together[section] == facts


def _section(seed: random.Random) -> tuple[PlaySection, PbnWalk]:
    """A play section of a random play, by seat from the Play tag's seat (with now and then a card
    unknown, a '+', a short last row, ^L and ^R marks, hands known in part or not at all), and the
    walk of it."""
    board = _board(seed)
    first = seed.randrange(4)  # the Play tag's seat, whoever declares
    declarer = seed.choice([(first + 3) % 4, (first + 3) % 4, seed.randrange(4), None])
    found = walk(board.cards, first, -1, board.trump, None)
    rows: list[list[str]] = []
    for start in range(0, len(board.cards), 4):
        row = ["-"] * 4
        leader = found.leaders[start // 4] if start // 4 < len(found.leaders) else first
        for place, card in enumerate(board.cards[start:start + 4]):
            row[(leader - first + place) % 4] = card if card in CARDS else "-"
        rows.append(row)
    if rows and seed.random() < 0.5:
        rows[-1] = rows[-1][:seed.randrange(5)]
    for _ in range(seed.choice([0, 0, 1, 3])):
        if rows and rows[-1]:
            row = seed.choice([r for r in rows if r])
            row[seed.randrange(len(row))] = seed.choice(["-", "+"])
    tokens = tuple(card for row in rows for card in row)
    marks = {seed.randrange(len(tokens)): seed.choice(["^L", "^R"]) for _ in range(seed.choice([0, 2, 6]))} \
        if tokens else {}
    hands = {seat: {card for card in board.hands[seat] if seed.random() < 0.9} for seat in range(4)
             if seed.random() < 0.8} if seed.random() < 0.8 else None
    deal = tuple(None if hands is None or seat not in hands else
                 tuple("".join(r for r in RANKS if s + r in hands[seat]) for s in SUITS) for seat in range(4))
    section = play_section(_SEATS[first], None if declarer is None else _SEATS[declarer], board.trump, tokens,
                           marks, None if hands is None else seat_hands(deal))
    return section, pbn_walk(first, declarer, board.trump, [row for row in rows if row], marks, hands)


def test_a_file_s_plays_are_replayed_in_one_call_of_the_engine(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[int] = []
    for name in ("replay", "replay_in_order"):
        monkeypatch.setattr(play_arrays, name, _counted(getattr(play_arrays, name), calls))
    lin_file = _CORPUS / "lin" / "bbo_teammatch_17360.lin"
    assert sum(bool(result.play) for result in lin.loads(lin_file.read_bytes()).results) == 36
    pbn_file = _CORPUS / "pbn" / "lintopbn_wbtc2015_swe_pol.pbn"
    for strict in (False, True):
        assert sum(bool(result.play) for result in pbn.loads(pbn_file.read_bytes(), strict=strict).results) == 32
    # LIN's plays in one call (36 boards); PBN's in one (32), and in strict mode each section twice,
    # as its result's play and as the standard checks it (64).
    assert calls == [36, 32, 64]


def _counted(engine: Callable[..., Any], calls: list[int]) -> Callable[..., Any]:
    """`engine`, noting the number of boards of each call in `calls`."""
    def counted(cards: np.ndarray, *args: object, **kwargs: object) -> Any:
        calls.append(cards.shape[0])
        return engine(cards, *args, **kwargs)
    return counted


# -- cases worked by hand -----------------------------------------------------------------------------

_ONE_SUIT_EACH = [{suit + rank for rank in RANKS} for suit in SUITS]
"""North holds the spades, East the hearts, South the diamonds, West the clubs."""


def _lin(cards: list[str], declarer: Seat, strain: Strain, hands: list[set[str]]) -> tuple[int, int, list[str]]:
    outcome = replay(cards, declarer, strain, {seat: {s: "".join(r for r in RANKS if s + r in hands[i])
                                                      for s in SUITS} for i, seat in enumerate(_SEATS)})
    return outcome.declarer_tricks, outcome.complete_tricks, [f"{i}:{code}" for i, code, _ in outcome.problems]


def test_a_trump_beats_the_suit_led_and_a_discard_never_wins() -> None:
    # Declarer South, West leads the club two; North plays SA, East S2, South DA.
    facts = read_play(Seat.W, Seat.S, "S", ("C2", "SA", "S2", "DA"))  # spades: North's ace of trumps wins
    assert (facts.played, facts.declarer_tricks, facts.known_tricks) == (("C2", "SA", "S2", "DA"), 1, 1)
    facts = read_play(Seat.W, Seat.S, None, ("C2", "SA", "S2", "DA"))  # notrump: the aces are discards
    assert facts.declarer_tricks == 0
    facts = read_play(Seat.W, Seat.S, "H", ("C2", "SA", "S2", "DA"))  # hearts: no trump, the club two wins
    assert facts.declarer_tricks == 0
    found = play_arrays.replay(np.array([[[51, 0, 12, 26]]], dtype=np.int8), None, np.array([0]))
    assert (found.winners.tolist(), found.won.tolist()) == ([[1]], [1])  # the same trick, columns from West


def test_the_winner_leads_the_next_trick() -> None:
    # Declarer North, East leads: HA wins (nobody follows), so East leads again; then HK, and East
    # leads a third time. A row is written from East whatever seat led.
    tokens = ("HA", "D2", "C2", "S2", "HK", "D3", "C3", "S3", "HQ", "D4", "C4", "S4")
    facts = read_play(Seat.E, Seat.N, None, tokens)
    assert facts.played == tokens and (facts.declarer_tricks, facts.known_tricks) == (0, 3)
    # With spades trumps North ruffs the first trick and leads the second: the row from East is
    # then played North (S3), East (HK), South, West.
    facts = read_play(Seat.E, Seat.N, "S", tokens)
    assert facts.played[4:8] == ("S3", "HK", "D3", "C3") and facts.declarer_tricks == 3


def test_a_revoke_is_reported_and_the_trick_stands() -> None:
    hands = [set(h) for h in _ONE_SUIT_EACH]
    hands[0], hands[1] = (hands[0] - {"SA"}) | {"HA"}, (hands[1] - {"HA"}) | {"SA"}  # East holds a spade
    # Declarer West, North leads SK; East, holding SA, plays HK (a revoke); North's king wins.
    won, complete, problems = _lin(["SK", "HK", "D2", "C2"], Seat.W, Strain.NT, hands)
    assert (won, complete, problems) == (0, 1, ["1:revoke"])
    # Hearts trumps: East's revoke wins the trick, which stands as played.
    won, complete, problems = _lin(["SK", "HK", "D2", "C2"], Seat.W, Strain.H, hands)
    assert (won, complete, problems) == (1, 1, ["1:revoke"])


def test_a_card_from_another_hand_stops_the_count_and_says_who_holds_it() -> None:
    outcome = replay(["HA", "DA", "CA", "SA", "H2", "D2", "C2", "S2", "HK", "SK"], Seat.N, Strain.NT,
                     {seat: {s: RANKS if s == SUITS[i] else "" for s in SUITS} for i, seat in enumerate(_SEATS)})
    # East's lead of HA wins (nobody follows), East leads again and wins again; then East leads HK
    # and South, in turn, plays SK, which North holds.
    assert (outcome.declarer_tricks, outcome.complete_tricks) == (0, 2)
    assert outcome.problems == ((9, "wrong-player", "SK is played in S's turn but N holds it"),)


def test_a_lead_out_of_turn_stands_and_a_lead_in_turn_marked_as_one_is_reported() -> None:
    hands = seat_hands(tuple(tuple(RANKS if s == i else "" for s in range(4)) for i in range(4)))
    # Declarer South, West leads CA and wins; North leads out of turn (^L on North's SK), and the
    # trick is played from North: SK, HK, DK, CK. North wins it and leads the third trick.
    tokens = ("CA", "SA", "HA", "DA", "CK", "SK", "HK", "DK", "CQ", "SQ", "HQ", "DQ")
    facts = read_play(Seat.W, Seat.S, None, tokens, {5: "^L"}, hands)
    assert facts.played == ("CA", "SA", "HA", "DA", "SK", "HK", "DK", "CK", "SQ", "HQ", "DQ", "CQ")
    assert (facts.declarer_tricks, facts.known_tricks, facts.problems) == (2, 3, ())
    facts = read_play(Seat.W, Seat.S, None, tokens, {4: "^L"}, hands)  # West was on lead anyway
    assert [(p.code, p.token, p.message) for p in facts.problems] == [
        ("pbn.play.irregularity", 4, "W was on lead; ^L (lead out of turn) does not apply.")]
    facts = read_play(Seat.W, Seat.S, None, tokens, {4: "^L", 5: "^L"}, hands)
    assert [(p.code, p.token) for p in facts.problems] == [("pbn.play.irregularity", 5)]


def test_a_revoke_must_be_marked_in_a_play_section() -> None:
    hands = seat_hands((("KQ", "A", "", ""), ("", "KQ", "", "A"), ("", "", "AKQ", ""), ("A", "", "", "KQ")))
    # North leads SK; East (no spade) discards; South (no spade) discards; West, holding SA, plays CK.
    facts = read_play(Seat.N, Seat.S, None, ("SK", "HK", "DA", "CK"), {3: "^R"}, hands)
    assert facts.problems == () and facts.declarer_tricks == 1  # marked: North's king stands and wins
    facts = read_play(Seat.N, Seat.S, None, ("SK", "HK", "DA", "CK"), {1: "^R"}, hands)
    assert [(p.code, p.token) for p in facts.problems] == [("pbn.play.irregularity", 1), ("pbn.play.revoke", 3)]
    assert facts.problems[1].message == "W plays CK but still holds S: a revoke must be marked ^R."


@pytest.mark.parametrize(("claimed", "won", "complete", "fits"), [
    (9, 4, 6, True), (11, 4, 6, True), (12, 4, 6, False), (3, 4, 6, False), (13, 13, 13, True), (0, 0, 0, True),
])
def test_a_claim_fits_the_tricks_won_and_the_tricks_still_to_play(claimed: int, won: int, complete: int,
                                                                  fits: bool) -> None:
    assert claim_fits(claimed, won, complete) is fits
    assert claim_fits(np.array([claimed, 0]), np.array([won, 0]), np.array([complete, 0])).tolist() == [fits, True]
