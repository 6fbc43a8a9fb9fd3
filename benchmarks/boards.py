"""Random but legal boards for the benchmarks: a deal, an auction, and all 52 cards played.

Written independently of our readers and of the bridge engine (it decides its own tricks), so that
a reader bug cannot make its own benchmark file easier.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass

RANKS = "AKQJT98765432"
SEATS = "NESW"
LIN_SEAT_ORDER = "SWNE"
VULS = ["None", "NS", "EW", "All", "NS", "EW", "All", "None", "EW", "All", "None", "NS", "All", "None", "NS", "EW"]
LIN_VUL = {"None": "o", "NS": "n", "EW": "e", "All": "b"}


def trick_winner(trick: list[str], leader: str, trump: str | None) -> str:
    """The seat that wins a complete trick led by `leader`: the highest trump, else the highest card
    of the suit led."""
    led = trick[0][0]
    power = [(card[0] == trump, card[0] == led, -RANKS.index(card[1])) for card in trick]
    return SEATS[(SEATS.index(leader) + power.index(max(power))) % 4]


@dataclass(frozen=True)
class Board:
    """One board as played at one table."""

    number: int
    dealer: str
    vulnerability: str
    hands: dict[str, list[str]]     # seat -> cards like 'SA'
    auction: list[str]              # from the dealer: '1NT', 'Pass', ...
    declarer: str
    contract: str                   # '3NT'
    play: list[str]                 # 52 cards in the order played


def boards(count: int, seed: int = 7) -> Iterator[Board]:
    """`count` boards, deterministic for a seed."""
    rng = random.Random(seed)
    for number in range(1, count + 1):
        yield _board(number, rng)


def _board(number: int, rng: random.Random) -> Board:
    deck = [s + r for s in "SHDC" for r in RANKS]
    rng.shuffle(deck)
    hands = {seat: deck[i * 13:(i + 1) * 13] for i, seat in enumerate(SEATS)}
    dealer = SEATS[(number - 1) % 4]
    level, strain = rng.choice([(1, "NT"), (2, "H"), (3, "NT"), (4, "S"), (3, "C"), (2, "D")])
    declarer = SEATS[(SEATS.index(dealer) + rng.randrange(4)) % 4]
    calls = ["Pass"] * ((SEATS.index(declarer) - SEATS.index(dealer)) % 4)
    auction = [*calls, f"{level}{strain}", "Pass", "Pass", "Pass"]
    trump = None if strain == "NT" else strain
    play = _play(hands, SEATS[(SEATS.index(declarer) + 1) % 4], trump, rng)
    return Board(number, dealer, VULS[(number - 1) % 16], hands, auction, declarer, f"{level}{strain}", play)


def _play(hands: dict[str, list[str]], leader: str, trump: str | None, rng: random.Random) -> list[str]:
    left = {seat: list(cards) for seat, cards in hands.items()}
    played: list[str] = []
    for _ in range(13):
        trick: list[str] = []
        for k in range(4):
            seat = SEATS[(SEATS.index(leader) + k) % 4]
            follow = [c for c in left[seat] if trick and c[0] == trick[0][0]]
            card = rng.choice(follow or left[seat])
            left[seat].remove(card)
            trick.append(card)
        played.extend(trick)
        leader = trick_winner(trick, leader, trump)
    return played


def _suits(cards: list[str]) -> list[str]:
    return ["".join(sorted((c[1] for c in cards if c[0] == s), key=RANKS.index)) for s in "SHDC"]


def to_lin(board: Board) -> str:
    """One board per line, as BBO's "my hands" export writes it."""
    md = str(LIN_SEAT_ORDER.index(board.dealer) + 1) + ",".join(
        "".join(f"{s}{r}" for s, r in zip("SHDC", _suits(board.hands[seat]), strict=True))
        for seat in LIN_SEAT_ORDER[:3]) + ","
    calls = "".join(f"mb|{_lin_call(c)}|" for c in board.auction)
    cards = "".join(f"pc|{c}|" + ("pg||" if i % 4 == 3 else "") for i, c in enumerate(board.play))
    return (f"pn|South,West,North,East|st||md|{md}|rh||ah|Board {board.number}|"
            f"sv|{LIN_VUL[board.vulnerability]}|{calls}pg||{cards}\n")


def _lin_call(call: str) -> str:
    return "p" if call == "Pass" else call.replace("NT", "N")


def to_pbn(board: Board) -> str:
    """One PBN game in export style, auction and play included (play lines in seat order)."""
    first = board.dealer
    order = [SEATS[(SEATS.index(first) + i) % 4] for i in range(4)]
    deal = " ".join(".".join(_suits(board.hands[s])) for s in order)
    tricks = _declarer_tricks(board)
    lines = ['[Event "Benchmark"]', '[Site "-"]', '[Date "2026.11.21"]', f'[Board "{board.number}"]',
             '[West "W"]', '[North "N"]', '[East "E"]', '[South "S"]', f'[Dealer "{board.dealer}"]',
             f'[Vulnerable "{board.vulnerability}"]', f'[Deal "{first}:{deal}"]', '[Scoring "MP"]',
             f'[Declarer "{board.declarer}"]', f'[Contract "{board.contract}"]', f'[Result "{tricks}"]',
             f'[Auction "{board.dealer}"]']
    lines += [" ".join(board.auction[i:i + 4]) for i in range(0, len(board.auction), 4)]
    leader = SEATS[(SEATS.index(board.declarer) + 1) % 4]
    lines.append(f'[Play "{leader}"]')
    lines += _pbn_play_lines(board, leader)
    return "\n".join(lines) + "\n\n"


def _pbn_play_lines(board: Board, first: str) -> list[str]:
    trump = None if board.contract.endswith("NT") else board.contract[-1]
    columns = [SEATS[(SEATS.index(first) + i) % 4] for i in range(4)]
    lines, leader = [], first
    for t in range(13):
        trick = board.play[t * 4:(t + 1) * 4]
        by_seat = {SEATS[(SEATS.index(leader) + k) % 4]: card for k, card in enumerate(trick)}
        lines.append(" ".join(by_seat[seat] for seat in columns))
        leader = trick_winner(trick, leader, trump)
    return lines


def _declarer_tricks(board: Board) -> int:
    trump = None if board.contract.endswith("NT") else board.contract[-1]
    leader, won = SEATS[(SEATS.index(board.declarer) + 1) % 4], 0
    for t in range(13):
        leader = trick_winner(board.play[t * 4:(t + 1) * 4], leader, trump)
        won += leader in (board.declarer, SEATS[(SEATS.index(board.declarer) + 2) % 4])
    return won
