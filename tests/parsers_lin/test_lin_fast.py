"""The vectorised LIN fast path (`parsers.lin.fast`) against the careful reader (`parsers.lin.loads`).

Whenever the fast path answers, its file must equal `columnar_from_parsed` of the careful reader on
the same bytes; when it cannot vouch for a file it must answer None. The tests feed it generated
files in every shape it accepts (and check it does accept them), the corpus, one mutation per check
the careful reader makes (each must be declined, and the careful reader must say what is wrong),
and garbage.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from benchmarks.bench_lin import lin_text
from benchmarks.boards import LIN_SEAT_ORDER, LIN_VUL, SEATS, Board, boards, to_lin
from parsers import lin
from parsers.bridge.calls import CALL_NAMES, CALL_SPELLINGS
from parsers.columnar import ColumnarFile, assert_same, columnar_from_parsed
from parsers.lin import fast as lin_fast
from parsers.lin.fast_auction import call_numbers
from tests.conftest import examples

from .conftest import CORPUS
from .test_lin_generated import Generated, generated_boards

# The corpus files the fast path reads: every one the careful reader reads without a diagnostic
# (single-table BBO exports, vugraph hand records and matches). The other two, the careful reader
# reports on (double-encoded text; a stray '|' and a closed room that repeats the open room's
# players), so they go the careful way.
FAST_CORPUS = [
    "bbo_1047742261_gib_an.lin",
    "bbo_20784109_redouble.lin",
    "bbo_20784112_robots.lin",
    "bbo_20784113_claim_midtrick.lin",
    "bbo_28189391_passout.lin",
    "bbo_28189410_claim.lin",
    "bbo_28189494_dbl_rdbl.lin",
    "bbo_28189727_unplayed.lin",
    "bbo_28190049_rdbl_an.lin",
    "bbo_3381671193.lin",
    "bbo_3381683999.lin",
    "bbo_3399598383_alert.lin",
    "bbo_3399600265.lin",
    "bbo_myhands_multi.lin",
    "dealconvert_vg_handsonly.lin",
    "handrecord_uppercase_sv.lin",
    "handrecord_vg_sv0.lin",
    "tmpbn2linvg_gib_match.lin",
    "tmpbn2linvg_gib_match_bc.lin",
]
LIN_FILES = sorted((CORPUS / "lin").glob("*.lin"))


class _Errors(logging.Handler):
    """Collects what the fast path logs at ERROR: an unexpected exception it caught."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


def fast(data: str | bytes, *, strict: bool = False) -> ColumnarFile | None:
    """The fast path's answer, which must never come from swallowing an exception (a decline is a
    decision the checks make, not a crash)."""
    errors = _Errors()
    logger = logging.getLogger("parsers.lin.fast")
    logger.addHandler(errors)
    try:
        answer = lin_fast.loads_columnar(data, source="test", strict=strict)
    finally:
        logger.removeHandler(errors)
    assert errors.records == [], [r.getMessage() for r in errors.records]
    return answer


def careful(data: str | bytes, *, strict: bool = False) -> ColumnarFile:
    """The reference: the careful reader's records as frames."""
    return columnar_from_parsed(lin.loads(data, source="test", strict=strict))


def read_exactly(data: str | bytes, *, strict: bool = False) -> ColumnarFile:
    """Assert the fast path accepts `data` and agrees with the careful reader, which reports nothing."""
    answer = fast(data, strict=strict)
    reference = careful(data, strict=strict)
    assert reference.diagnostics == (), reference.diagnostics
    assert answer is not None, "the fast path declined a well-formed file"
    assert_same(answer, reference)
    return answer


def declined_or_exact(data: str | bytes, *, strict: bool = False) -> ColumnarFile | None:
    """Assert the fast path either declines `data` or agrees with the careful reader."""
    answer = fast(data, strict=strict)
    if answer is not None:
        assert_same(answer, careful(data, strict=strict))
    return answer


# -- a LIN writer for generated boards, independent of the readers ------------------------------------

_LOW_TO_HIGH = "23456789TJQKA"
_SPELLINGS: dict[str, list[str]] = {}
for _text, _call in CALL_SPELLINGS.items():
    _SPELLINGS.setdefault(_call, []).append(_text)


def holders(board: Board) -> dict[str, str]:
    """Card -> the seat dealt it."""
    return {card: seat for seat, cards in board.hands.items() for card in cards}


def winning_card(board: Board, trick: list[str]) -> str:
    """The highest trump of a complete trick, else its highest card of the suit led."""
    trump = None if board.contract.endswith("NT") else board.contract[-1]
    contenders = [c for c in trick if c[0] == trump] or [c for c in trick if c[0] == trick[0][0]]
    return max(contenders, key=lambda c: _LOW_TO_HIGH.index(c[1]))


def declarer_tricks(board: Board, play: list[str]) -> int:
    """Tricks won by declarer's side among the complete tricks of `play`, counted from the deal."""
    ours = {board.declarer, SEATS[(SEATS.index(board.declarer) + 2) % 4]}
    return sum(holders(board)[winning_card(board, play[4 * t:4 * t + 4])] in ours for t in range(len(play) // 4))


def md_value(board: Board, rng: random.Random | None = None, hands: int = 3, comma: bool = True,
             cards: dict[str, list[str]] | None = None) -> str:
    """`md`: dealer digit, then hands S, W, N (and E), ranks shuffled and tens spelled `10` when `rng` says.

    `cards` replaces the board's hands.
    """
    cards = board.hands if cards is None else cards
    texts = []
    for seat in LIN_SEAT_ORDER[:hands]:
        text = ""
        for suit in "SHDC":
            ranks = [c[1] for c in cards[seat] if c[0] == suit]
            if rng is not None:
                rng.shuffle(ranks)
            text += suit + "".join("10" if r == "T" and rng is not None and rng.random() < 0.5 else r for r in ranks)
        texts.append(text)
    return str(LIN_SEAT_ORDER.index(board.dealer) + 1) + ",".join(texts) + ("," if comma and hands == 3 else "")


def lin_line(board: Board, *, names: str = "South,West,North,East", md: str | None = None,
             heading: str | None = None, sv: str | None = "", calls: list[str] | None = None,
             play: list[str] | None = None, claim: str | None = None, middle: str = "", tail: str = "") -> str:
    """One board as a line, every part replaceable (`sv=None` leaves vulnerability out)."""
    calls = board.auction if calls is None else calls
    play = board.play if play is None else play
    text = f"pn|{names}|st||md|{md_value(board) if md is None else md}|rh||"
    text += f"ah|{heading or f'Board {board.number}'}|" + middle
    if sv is not None:
        text += f"sv|{sv or LIN_VUL[board.vulnerability]}|"
    text += "".join(f"mb|{'p' if c == 'Pass' else c.replace('NT', 'N')}|" for c in calls) + "pg||"
    text += "".join(f"pc|{card}|" + ("pg||" if i % 4 == 3 else "") for i, card in enumerate(play))
    return text + (f"mc|{claim}|" if claim is not None else "") + tail + "\n"


# (A pair with no name at all is left to the careful reader, which warns: see MUTATIONS.)
_NAMES = ["South,West,North,East", "Rémi Dupont,ŁUKASZ,李雷,~~M25054gn", "a,,c,d", "KAJTEK 1,b b,c,d"]


def _varied_calls(board: Board, rng: random.Random) -> str:
    """The board's auction (maybe doubled and redoubled), spelled as real files do, with alerts and notes."""
    bid = next(i for i, c in enumerate(board.auction) if c != "Pass")
    calls = board.auction[:bid + 1] + rng.choice([[], ["X"], ["X", "XX"]]) + ["Pass"] * 3
    text = ""
    for call in calls:
        spelled = rng.choice([s for s in _SPELLINGS[call] if len(s) <= 5])
        text += f"mb|{spelled}|" + ("an|5+ !S; 11-21 HCP|" if rng.random() < 0.2 else "")
    return text


def varied_line(board: Board, rng: random.Random) -> str:
    """One board in a shape the fast path reads, with the variety of real files: claims, pass-outs,
    unplayed boards, doubled contracts, spellings, alerts and notes, `10` for T, three or four hands."""
    kind = rng.choice(["played", "played", "claim", "claim", "passed out", "unplayed"])
    hands = rng.choice([3, 4])
    md = md_value(board, rng, hands=hands, comma=rng.random() < 0.7)
    sv = "" if rng.random() < 0.8 else None
    if sv == "" and rng.random() < 0.5:
        sv = rng.choice({"o": "oO0", "n": "nN", "e": "eE", "b": "bB"}[LIN_VUL[board.vulnerability]])
    text = f"pn|{rng.choice(_NAMES)}|" + ("st||" if rng.random() < 0.8 else "") + f"md|{md}|"
    text += ("rh||" if rng.random() < 0.8 else "") + f"ah|Board {board.number}|"
    text += "" if sv is None else f"sv|{sv or LIN_VUL[board.vulnerability]}|"
    if kind == "unplayed":
        return text + "pg||\n"
    if kind == "passed out":
        return text + "".join(f"mb|{rng.choice(['p', 'P', 'pass', 'Pass'])}|" for _ in range(4)) + "pg||\n"
    text += _varied_calls(board, rng) + ("pg||" if rng.random() < 0.5 else "")
    play = board.play if kind == "played" else board.play[:rng.randrange(52)]
    for i, card in enumerate(play):
        text += f"pc|{card}|" + ("pg||" if i % 4 == 3 and rng.random() < 0.9 else "")
    if kind == "claim" or rng.random() < 0.1:
        won = declarer_tricks(board, play)
        text += f"mc|{rng.randint(won, won + 13 - len(play) // 4) if len(play) < 52 else won}|"
    return text + ("pg||" if rng.random() < 0.5 else "") + "\n"


def varied_file(count: int, seed: int) -> str:
    """Boards of every accepted shape, blank lines between some, a table repeated, CRLF sometimes."""
    rng = random.Random(seed)
    lines = [varied_line(board, rng) for board in boards(count, seed)]
    if count > 1 and rng.random() < 0.5:
        # The same board again, at another table: other players (the same four would claim the
        # same table, which the careful reader reports and the fast path declines).
        lines.append("pn|S2,W2,N2,E2|" + lines[rng.randrange(count)].split("|", 2)[2])
    text = "".join(line + ("\n" if rng.random() < 0.1 else "") for line in lines)
    text = text.rstrip("\n") if rng.random() < 0.2 else text
    return text.replace("\n", "\r\n") if rng.random() < 0.3 else text


# -- 1. generated files --------------------------------------------------------------------------------


@pytest.mark.parametrize(("count", "seed"), [(1, 7), (2, 1), (17, 3), (300, 11)])
def test_benchmark_files_are_read_exactly(count: int, seed: int) -> None:
    text = "".join(to_lin(b) for b in boards(count, seed))
    answer = read_exactly(text)
    assert answer.boards.height == answer.results.height == count
    assert read_exactly(text.encode()).results.equals(answer.results)


def test_the_benchmark_file_itself_is_read_exactly() -> None:
    read_exactly(lin_text(2000))


@settings(max_examples=examples(40), deadline=None)
@given(seed=st.integers(0, 2**32 - 1), count=st.integers(1, 30))
def test_any_benchmark_file_is_read_exactly(seed: int, count: int) -> None:
    read_exactly("".join(to_lin(b) for b in boards(count, seed)))


@settings(max_examples=examples(80), deadline=None)
@given(seed=st.integers(0, 2**32 - 1), count=st.integers(1, 25))
def test_claims_pass_outs_spellings_and_layouts_are_read_exactly(seed: int, count: int) -> None:
    read_exactly(varied_file(count, seed))


@pytest.mark.parametrize("strict", [False, True])
def test_strict_mode_reads_the_same_file(strict: bool) -> None:
    read_exactly(varied_file(40, 5), strict=strict)


@settings(max_examples=examples(80), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(generated_boards(), min_size=1, max_size=4))
def test_generated_boards_are_read_exactly_whenever_the_careful_reader_is_silent(boards: list[Generated]) -> None:
    # These boards (from the careful reader's own tests) sometimes break a line before a '|'.
    text = "\n".join(board.text for board in boards)
    answer = declined_or_exact(text)
    silent = careful(text).diagnostics == ()
    assert (answer is not None) == silent


# -- 2. the corpus -------------------------------------------------------------------------------------


@pytest.mark.parametrize("path", LIN_FILES, ids=[p.name for p in LIN_FILES])
def test_corpus_file_is_declined_or_read_exactly(path: Path) -> None:
    declined_or_exact(path.read_bytes())
    declined_or_exact(path.read_bytes(), strict=True)


def test_the_fast_path_reads_the_pinned_corpus_files(corpus: Path) -> None:
    accepted = [p.name for p in sorted((corpus / "lin").glob("*.lin")) if fast(p.read_bytes()) is not None]
    assert accepted == FAST_CORPUS


# -- 3. one mutation per check: declined, and the careful reader says what is wrong -------------------

BASE = list(boards(6, seed=5))
VICTIM = BASE[2]  # the board each mutation spoils
BID = next(i for i, c in enumerate(VICTIM.auction) if c != "Pass")  # where the victim's contract is bid


def _file(line: str | None = None) -> str:
    return "".join(line if board is VICTIM and line is not None else lin_line(board) for board in BASE)


def _victim(**parts: object) -> str:
    """The base file with the victim's line written with `parts` replaced (see `lin_line`)."""
    return _file(lin_line(VICTIM, **parts))  # type: ignore[arg-type]


def _swap(play: list[str], i: int, j: int) -> list[str]:
    swapped = list(play)
    swapped[i], swapped[j] = swapped[j], swapped[i]
    return swapped


def _revoke(board: Board) -> list[str]:
    """The play with two cards of one player swapped so that they fail to follow suit while still
    holding the suit led, and nothing else is wrong (no trick changes hands)."""
    holder = holders(board)
    for k, card in enumerate(board.play):
        led = board.play[k - k % 4]
        for m in range(4 * (k // 4 + 1), 52):
            other = board.play[m]
            if k % 4 and card[0] == led[0] and holder[other] == holder[card] and other[0] != led[0]:
                play = _swap(board.play, k, m)
                if {d.code for d in lin.loads(lin_line(board, play=play)).diagnostics} == {"lin.pc.revoke"}:
                    return play
    raise AssertionError("no revoke found")


def _from_another_hand(board: Board) -> list[str]:
    """The play with the opening lead swapped for a later card of another player."""
    holder = holders(board)
    other = next(m for m in range(4, 52) if holder[board.play[m]] != holder[board.play[0]])
    return _swap(board.play, 0, other)


def _card_again(board: Board) -> list[str]:
    """Two tricks, then the winner of the second leads the card that won it once more."""
    return [*board.play[:8], winning_card(board, board.play[4:8])]


def _claim(board: Board, cards: int, more: int) -> str:
    """A claim of `more` tricks over what declarer won in the first `cards` cards (never below 0)."""
    won = declarer_tricks(board, board.play[:cards])
    assert won + more >= 0
    return str(won + more)


def _dealt(board: Board, change: Callable[[dict[str, list[str]]], object]) -> str:
    """`md` of the board's hands after `change`."""
    hands = {seat: list(cards) for seat, cards in board.hands.items()}
    change(hands)
    return md_value(board, cards=hands)


def _south_has_a_west_card(hands: dict[str, list[str]]) -> None:
    hands["S"][0] = hands["W"][0]


def _west_gives_south_a_card(hands: dict[str, list[str]]) -> None:
    hands["S"].append(hands["W"].pop())


_V, _A, _P = VICTIM, VICTIM.auction, VICTIM.play
_MD = md_value(VICTIM)
# name -> (the careful reader's diagnostic, the mutated file)
MUTATIONS: dict[str, tuple[str, Callable[[], str | bytes]]] = {
    # the deal (the first two without play, so that only the deal's own checks can catch them)
    "card dealt twice": ("lin.md.bad-hand", lambda: _victim(calls=[], play=[], md=_dealt(
        _V, _south_has_a_west_card))),
    "card given to another hand": ("lin.md.bad-hand", lambda: _victim(calls=[], play=[], md=_dealt(
        _V, _west_gives_south_a_card))),
    "short hand": ("lin.md.bad-hand", lambda: _victim(md=_dealt(_V, lambda hands: hands["S"].pop()))),
    "long hand": ("lin.md.bad-hand", lambda: _victim(md=_MD.replace(",", "", 1))),
    "rank that is no rank": ("lin.md.bad-hand", lambda: _victim(md=_MD.replace("H", "HX", 1))),
    "dealer digit out of range": ("lin.md.irregular", lambda: _victim(md="5" + _MD[1:])),
    "no dealer digit": ("lin.md.irregular", lambda: _victim(md=_MD[1:])),
    "two hands only": ("lin.md.irregular", lambda: _victim(md=",".join(_MD.split(",")[:2]) + ",,")),
    "five hands": ("lin.md.bad-hand", lambda: _victim(md=md_value(_V, hands=4) + ",SAH")),
    "second deal without a heading": ("lin.ah.missing", lambda: _victim(middle=f"md|{_MD}|")),
    "board repeated with another deal": ("lin.md.board-differs", lambda: _file() + lin_line(
        replace(BASE[0], number=_V.number))),
    # heading, vulnerability, names
    "board 0": ("lin.ah.bad-heading", lambda: _victim(heading="Board 0")),
    "no heading": ("lin.ah.missing", lambda: _victim().replace(f"ah|Board {_V.number}|", "")),
    "bad vulnerability": ("lin.sv.bad-vulnerability", lambda: _victim(sv="x")),
    "three names": ("lin.pn.bad-names", lambda: _victim(names="a,b,c")),
    "no names": ("lin.pn.unnamed-pair", lambda: _victim(names=",,,")),
    "a pair with no names": ("lin.pn.unnamed-pair", lambda: _victim(names="a,,c,")),
    # the auction
    "insufficient bid": ("lin.mb.insufficient-bid", lambda: _victim(calls=[*_A[:BID], "7NT", *_A[BID:]])),
    "double of partner": ("lin.mb.illegal-double", lambda: _victim(calls=[*_A[:BID + 1], "Pass", "d",
                                                                          *_A[BID + 1:]])),
    "redouble without a double": ("lin.mb.illegal-redouble", lambda: _victim(calls=[*_A[:BID + 1], "r",
                                                                                    *_A[BID + 1:]])),
    "auction that does not end": ("lin.mb.auction-incomplete", lambda: _victim(calls=_A[:-1])),
    "call after the end": ("lin.mb.call-after-end", lambda: _victim(calls=[*_A, "Pass"])),
    "call that is no call": ("lin.mb.bad-call", lambda: _victim(calls=[*_A[:-1], "8C"])),
    # the play
    "card out of turn": ("lin.pc.wrong-player", lambda: _victim(play=_swap(_P, 0, 1))),
    "trick led by its loser": ("lin.pc.wrong-player", lambda: _victim(play=[*_P[:4], *_P[5:8], _P[4], *_P[8:]])),
    "card from another hand": ("lin.pc.wrong-player", lambda: _victim(play=_from_another_hand(_V))),
    "revoke": ("lin.pc.revoke", lambda: _victim(play=_revoke(_V))),
    "card played twice": ("lin.pc.card-played-twice", lambda: _victim(play=_card_again(_V), claim=_claim(_V, 8, 0))),
    "card that is no card": ("lin.pc.bad-card", lambda: _victim(play=["SX", *_P[1:]])),
    # (A 53rd card is always some card a second time.)
    "53 cards": ("lin.pc.card-played-twice", lambda: _victim(play=[*_P, _P[0]])),
    "play stops without a claim": ("lin.result.unknown", lambda: _victim(play=_P[:-1])),
    "contract without play or claim": ("lin.result.unknown", lambda: _victim(play=[])),
    "play after a pass-out": ("lin.pc.after-pass-out", lambda: _victim(calls=["Pass"] * 4)),
    "play without an auction": ("lin.pc.no-auction", lambda: _victim(calls=[])),
    "claim without an auction": ("lin.pc.no-auction", lambda: _victim(calls=[], play=[], claim="7")),
    "claim after a pass-out": ("lin.pc.after-pass-out", lambda: _victim(calls=["Pass"] * 4, play=[], claim="7")),
    # claims
    "claim below the tricks won": ("lin.mc.impossible", lambda: _victim(play=_P[:32], claim=_claim(_V, 32, -1))),
    "claim above the tricks left": ("lin.mc.impossible", lambda: _victim(play=_P[:32], claim=_claim(_V, 32, 6))),
    "claim that differs from the play": ("lin.mc.differs-from-play", lambda: _victim(claim=_claim(_V, 52, 1))),
    "claim of 14 tricks": ("lin.mc.bad-claim", lambda: _victim(play=[], claim="14")),
    # the text
    "unknown key": ("lin.key.unknown", lambda: _victim(middle="zz|1|")),
    "undo": ("lin.up.undo", lambda: _victim(tail="up||")),
    "stray separator": ("lin.syntax.stray-separator", lambda: _victim().replace("rh||", "rh|||", 1)),
    "text where a key should be": ("lin.syntax.not-a-key", lambda: _victim().replace("rh||", "rh||foo|", 1)),
    "file cut inside a value": ("lin.syntax.truncated", lambda: _file().rstrip("\n")[:-3]),
    "not UTF-8": ("lin.encoding.not-utf8", lambda: _victim(names="Jérôme,b,c,d").encode("cp1252")),
    "double-encoded text": ("lin.text.mojibake-repaired", lambda: _victim(names="JÃ©rÃ´me,b,c,d")),
    "empty file": ("lin.file.empty", lambda: ""),
    "no deal at all": ("lin.md.missing", lambda: "pn|a,b,c,d|ah|Board 1|sv|o|\n"),
}


def test_the_unmutated_base_is_read() -> None:
    read_exactly(_file())


@pytest.mark.parametrize("name", list(MUTATIONS))
def test_a_mutation_is_declined_and_the_careful_reader_says_why(name: str) -> None:
    code, mutate = MUTATIONS[name]
    data = mutate()
    assert code in {d.code for d in careful(data).diagnostics}, careful(data).diagnostics
    assert fast(data) is None


def test_a_board_without_its_result_is_declined_for_the_whole_file() -> None:
    # The careful reader keeps the other boards and quarantines this result; the fast path never
    # returns part of a file.
    data = _file(lin_line(VICTIM, play=VICTIM.play[:-1]))
    assert len(careful(data).results) == len(BASE) - 1
    assert fast(data) is None


def test_a_lone_carriage_return_ends_a_line() -> None:
    # The careful reader counts it as a line end (so every later board moves down a line) and
    # reports nothing; so does the fast path.
    data = _file(lin_line(VICTIM).replace("st||", "st|a\rb|", 1))
    assert read_exactly(data).results["line"].to_list() == [1, 2, 3, 5, 6, 7]


@pytest.mark.parametrize("spelling", ["PaSs", "pAsS!", "pass!!", "P!!"])
def test_a_call_the_careful_reader_must_normalise_is_left_to_it(spelling: str) -> None:
    data = _file(lin_line(VICTIM, calls=[*VICTIM.auction[:-1], spelling]))
    assert careful(data).diagnostics == ()
    assert fast(data) is None


def test_every_spelling_the_careful_reader_looks_up_is_read() -> None:
    for spelling, call in CALL_SPELLINGS.items():
        if len(spelling) <= 5:
            packed = np.array([sum(b << 8 * i for i, b in enumerate(spelling.encode()))], dtype=np.uint64)
            assert CALL_NAMES[int(call_numbers(packed)[0])] == call


# -- 4. garbage never raises ---------------------------------------------------------------------------


@settings(max_examples=examples(150), deadline=None)
@given(st.binary(max_size=400))
def test_random_bytes_never_raise(data: bytes) -> None:
    declined_or_exact(data)


@settings(max_examples=examples(150), deadline=None)
@given(st.text(max_size=400))
def test_random_text_never_raises(text: str) -> None:
    declined_or_exact(text)


@settings(max_examples=examples(200), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_mutated_board_text_never_raises(data: st.DataObject) -> None:
    text = _file()
    for _ in range(data.draw(st.integers(1, 4))):
        at = data.draw(st.integers(0, len(text)))
        cut = data.draw(st.integers(0, 6))
        insert = data.draw(st.sampled_from(["", "|", "||", "\n", "\r", "pc|", "mb|", "md|", "mc|9|", "1", "10",
                                            "SA", "é", "Ã©", "\x00", " "]))
        text = text[:at] + insert + text[at + cut:]
    declined_or_exact(text, strict=data.draw(st.booleans()))


def test_a_bug_in_the_fast_path_costs_speed_not_the_file(monkeypatch: pytest.MonkeyPatch,
                                                         caplog: pytest.LogCaptureFixture) -> None:
    def broken(*args: object) -> None:
        raise RuntimeError("bug")

    monkeypatch.setattr(lin_fast, "replay", broken)
    with caplog.at_level(logging.ERROR, logger="parsers.lin.fast"):
        assert lin_fast.loads_columnar(_file(), source="buggy.lin") is None
    assert [r.levelno for r in caplog.records] == [logging.ERROR] and "buggy.lin" in caplog.text


def test_the_lin_reader_exports_the_fast_path() -> None:
    from parsers.lin import loads_columnar

    assert loads_columnar is lin_fast.loads_columnar
# -- 5. mutations anywhere: declined, or read exactly as the careful reader reads them -----------------


_PIECES = ["", "|", "||", "\n", "pc|", "mb|", "md|", "mc|", "sv|", "an|", "pg|", "ah|", "pn|", "1", "10", "SA",
           "S", "é", ",", " ", "\x00", "Board ", "!"]
# Whole tokens, right or wrong, for the places between tokens.
_TOKENS = ["pg||", "pg|x|", "pc|SA|", "pc|S|", "pc|SAA|", "pc|sa|", "pc|1S|", "mb|p|", "mb|p\x00|", "mb|1N!|",
           "mb|12345|", "an|x|", "mc|9|", "mc|99|", "mc|999|", "mc||", "mc|x|", "sv|o|", "sv|oo|", "sv||", "sv|x|",
           "st||", "rh||", "ah|Board 1|", "md|1SHDC,SHDC,SHDC|", "pn|a,b,c,d|", "zz|1|", "up||", "qx|o1|",
           "qx|c2,BOARD 2|", "qx|x|", "vg|e,s,I,1,9,A,0,B,0|", "rs|4SN=,,3NE-1|", "mp|1,2|", "pw|a,b|", "nt|x\ny|",
           "sa|0|", "pn|a,b,c,d,e,f,g,h|", "mn|Title|"]


# Values changed in place: (what, into what).
_CHANGES = [("mb|p|", "mb|p\x00|"), ("mb|p|", "mb|p!x|"), ("mb|", "mb|1"), ("pg||", "pg|\x00|"), ("pc|", "pc|\x00"),
            ("pc|S", "pc|\x00S"), ("sv|", "sv|o"), ("sv|", "sv|\x00"), ("|Board ", "|Board 0"), ("|Board ", "|Board x"),
            ("md|", "md|1"), ("md|", "md|5"), ("pn|", "pn| "), ("pn|", "pn|,"), ("|st|", "|st"), ("pc|H", "pc|10"),
            ("st||", "st|a\nb|"), ("rh||", "rh|\n|"), ("|mb|", "|an|x\ny|mb|"), ("pn|", "pn|\n")]


def _token_starts(text: str) -> list[int]:
    """The offsets where a token may start: the start, and after each value's closing pipe."""
    starts, pipes = [0], 0
    for at, char in enumerate(text):
        if char == "|":
            pipes += 1
            if pipes % 2 == 0:
                starts.append(at + 1)
    return starts


@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_a_mutated_file_is_declined_or_read_exactly(data: st.DataObject) -> None:
    text = _file()
    for _ in range(data.draw(st.integers(1, 3))):
        kind = data.draw(st.sampled_from(["token", "change", "piece"]))
        if kind == "change":
            what, into = data.draw(st.sampled_from(_CHANGES))
            at = text.find(what, data.draw(st.integers(0, len(text))))
            text = text if at < 0 else text[:at] + into + text[at + len(what):]
        elif kind == "token":
            at = data.draw(st.sampled_from(_token_starts(text)))
            text = text[:at] + data.draw(st.sampled_from(_TOKENS)) + text[at:]
        else:
            at = data.draw(st.integers(0, len(text)))
            cut = data.draw(st.integers(0, 8))
            text = text[:at] + data.draw(st.sampled_from(_PIECES)) + text[at + cut:]
    declined_or_exact(text)
