"""A second, independent LIN generator: files in the shapes BBO and the vugraph tools write.

`text(count, seed)` is the whole file of `count` boards (one `qx`/`pn` block each), written from
scratch here: it uses neither `benchmarks/boards.py` nor anything under `parsers/`, so a
misunderstanding shared by our reader and our other generator cannot hide in both. Every file is
well formed (a careful reader finds nothing to say about it) and endplay's `lin.load` reads the same
number of boards from it (endplay splits boards on `pn|`, so every block names its players once and
the header names none).

Two shapes, chosen by the seed:
- odd seeds: a vugraph team match as BBO's vugraph archive and the converters (TMPbn2LinVG) write
  it: a header `vg|` (teams, IMPs), `rs|` with every table's result, `pw|`, then `qx|o1|` / `qx|c1|`
  blocks, players named after `qx` or (the converter's way) just before it, `sv|o` with a line
  break before its `|`, `sa|0|`, tricks one per line, claims `mc|`, commentary `nt|` (some across
  lines) and hand-record-only boards;
- even seeds: BBO "my hands" and hand-record files without `qx`: an optional `vg|` header, one
  board per `pn|` block, on one line or broken after the auction and after each trick.
Both: random deals, random legal auctions (passes, doubles, redoubles, alerts `!` with `an|`
explanations, spellings `p`/`P`/`d`/`r`), full play or a claim at any card, passed-out boards,
boards without a result, `pg||` page breaks present or not, LF or CRLF line ends.

    .venv/bin/python -m benchmarks.wild_lin --boards 50000 --out wild.lin
"""

from __future__ import annotations

import argparse
import random
from dataclasses import dataclass
from pathlib import Path

_RANKS = "23456789TJQKA"  # low to high, as BBO writes a hand
_SUITS = "SHDC"
_STRAINS = "CDHSN"  # bid order; N is notrump
_TRUMP_SUIT = {0: 3, 1: 2, 2: 1, 3: 0}  # strain -> suit index in _SUITS (notrump: none)
# Seats are numbered in LIN's order, which is clockwise: S=0, W=1, N=2, E=3 (the `md` digit is one more).
_SEAT_LETTER = "SWNE"
_LAW2_VUL = "onebneboebonbone"  # boards 1..16
_ALERTS = ("natural", "5+ !S, 11-15", "transfer to !h", "Stayman", "weak", "game forcing",
           "2 of the majors", "Précision", "takeout", "support, 3 cards", "cue bid", "RKCB 1430")
_COMMENTS = ("Nice lead.", "The defence had to cash out\nbefore declarer set up the clubs.",
             "Bidding: North's double was for takeout.", "Tempo...", "A close decision at the other table",
             "Declarer finesses\nand it works.")
_FIRST = ("Anna", "Björn", "Chen", "Dario", "Ewa", "Farid", "Grace", "Hiroshi", "Ines", "José", "Karin",
          "Łukasz", "Marta", "Nils", "Olga", "Pedro", "Quentin", "Rita", "Sven", "Tomás", "Ute", "Vera")
_LAST = ("Kowalski", "Müller", "Nordström", "Rossi", "Dubois", "Santos", "Tanaka", "O'Brien", "van Dijk",
         "Novák", "Haddad", "Schmidt")
_TEAMS = ("SWEDEN", "POLAND", "Monaco", "Netherlands", "Team Rossi", "Bridge Club Łódź", "USA 2", "Norway")


@dataclass
class _Board:
    """One table's board: deal, auction and play, with what the `rs` list says of it."""

    number: int
    dealer: int
    vul: str
    hands: list[list[int]]
    """Card numbers (suit * 13 + rank, rank 0 = the two) per seat."""
    calls: list[str]
    play: list[int]
    claim: int | None
    rs: str


def _law2(number: int) -> tuple[int, str]:
    """Dealer (seat number) and vulnerability letter of a board number, by Law 2."""
    dealer = (2, 3, 0, 1)[(number - 1) % 4]  # N, E, S, W
    return dealer, _LAW2_VUL[(number - 1) % 16]


def _deal(rng: random.Random) -> list[list[int]]:
    cards = list(range(52))
    rng.shuffle(cards)
    return [sorted(cards[13 * seat:13 * seat + 13]) for seat in range(4)]


def _auction(rng: random.Random, dealer: int) -> tuple[list[str], int, int, int]:
    """A random legal auction: its calls (plain spellings), the final bid (-1: passed out), its
    doubling and declarer's seat."""
    if rng.random() < 0.05:
        return ["p", "p", "p", "p"], -1, 0, -1
    calls: list[str] = []
    bid, bidder, doubling, passes = -1, -1, 0, 0
    named: dict[tuple[int, int], int] = {}  # (side, strain) -> first seat of that side to name it
    while not (bid >= 0 and passes == 3):
        seat = (dealer + len(calls)) % 4
        side = seat % 2
        choices = ["p"] * (1 + len(calls) // 3)
        if bid < 34 and ((bid < 0 and passes == 3) or rng.random() < 0.8):
            choices += ["bid"] * (3 if bid < 0 and passes == 3 else 2)
        if bid >= 0 and doubling == 0 and bidder % 2 != side:
            choices.append("d")
        if doubling == 1 and bidder % 2 == side:
            choices.append("r")
        if bid < 0 and passes == 3:
            choices = ["bid"]
        call = rng.choice(choices)
        if call == "bid":
            bid += 1 + rng.randrange(min(6, 34 - bid))
            bidder, doubling, passes = seat, 0, 0
            named.setdefault((side, bid % 5), seat)
            calls.append(f"{bid // 5 + 1}{_STRAINS[bid % 5]}")
        elif call == "d":
            doubling, passes = 1, 0
            calls.append("d")
        elif call == "r":
            doubling, passes = 2, 0
            calls.append("r")
        else:
            passes += 1
            calls.append("p")
    return calls, bid, doubling, named[(bidder % 2, bid % 5)]


def _winner(trick: list[tuple[int, int]], trump: int | None) -> int:
    """The seat that wins a trick of (seat, card) pairs."""
    led = trick[0][1] // 13

    def strength(card: int) -> int:
        suit = card // 13
        return (2 if suit == trump else 1 if suit == led else 0) * 13 + card % 13

    return max(trick, key=lambda pair: strength(pair[1]))[0]


def _play(rng: random.Random, hands: list[list[int]], declarer: int, trump: int | None,
          cards: int) -> tuple[list[int], int, int]:
    """A random legal play of `cards` cards from declarer's left: the cards, declarer's side's tricks
    among the complete ones, and the number of complete tricks."""
    held = [list(hand) for hand in hands]
    leader, play, won = (declarer + 1) % 4, list[int](), 0
    while len(play) < cards:
        trick: list[tuple[int, int]] = []
        for turn in range(4):
            seat = (leader + turn) % 4
            follow = [c for c in held[seat] if trick and c // 13 == trick[0][1] // 13]
            card = rng.choice(follow or held[seat])
            held[seat].remove(card)
            trick.append((seat, card))
            play.append(card)
            if len(play) == cards:
                break
        if len(trick) == 4:
            leader = _winner(trick, trump)
            won += leader % 2 == declarer % 2
    return play, won, len(play) // 4


def _board(rng: random.Random, number: int, hands: list[list[int]]) -> _Board:
    dealer, vul = _law2(number)
    if rng.random() < 0.08:  # a board nobody played (a hand record, or a board not reached)
        return _Board(number, dealer, vul, hands, [], [], None, "")
    calls, bid, doubling, declarer = _auction(rng, dealer)
    if bid < 0:
        return _Board(number, dealer, vul, hands, calls, [], None, "PASS")
    trump = _TRUMP_SUIT.get(bid % 5)
    full = rng.random() < 0.45
    play, won, complete = _play(rng, hands, declarer, trump, 52 if full else rng.randrange(52))
    claim = None if full else won + rng.randint(0, 13 - complete)
    tricks = won if full else claim
    assert tricks is not None
    over = tricks - bid // 5 - 7
    rs = (f"{bid // 5 + 1}{_STRAINS[bid % 5]}{_SEAT_LETTER[declarer]}{('', 'x', 'xx')[doubling]}"
          + ("=" if over == 0 else f"{over:+d}"))
    return _Board(number, dealer, vul, hands, calls, play, claim, rs)


def _md(rng: random.Random, board: _Board) -> str:
    """`md`: dealer digit, then S, W, N (and E, in vugraph files) with ranks low to high."""
    hands = []
    for seat in range(4 if rng.random() < 0.3 else 3):
        text = ""
        for suit, letter in enumerate(_SUITS):
            text += letter + "".join(_RANKS[c % 13] for c in board.hands[seat] if c // 13 == suit)
        hands.append(text)
    return str(board.dealer + 1) + ",".join(hands) + ("," if len(hands) == 3 else "")


def _spelled(rng: random.Random, call: str) -> str:
    if rng.random() < 0.05:
        call = call.upper()
    return call + ("!" if rng.random() < 0.08 else "")


def _auction_text(rng: random.Random, board: _Board, eol: str) -> str:
    text = ""
    for call in board.calls:
        spelled = _spelled(rng, call)
        text += f"mb|{spelled}|"
        if spelled.endswith("!") or rng.random() < 0.05:
            text += f"an|{rng.choice(_ALERTS)}|"
    if board.calls and rng.random() < 0.1:
        text += f"nt|{rng.choice(_COMMENTS).replace(chr(10), eol)}|"
    return text + ("pg||" if rng.random() < 0.9 else "")


def _play_text(rng: random.Random, board: _Board, eol: str, trick_lines: bool) -> str:
    text = ""
    for i, card in enumerate(board.play):
        text += f"pc|{_SUITS[card // 13]}{_RANKS[card % 13]}|"
        if i % 4 == 3:
            text += "pg||" if rng.random() < 0.95 else ""
            text += eol if trick_lines else ""
    if board.play and rng.random() < 0.05:
        text += f"nt|{rng.choice(_COMMENTS).replace(chr(10), eol)}|"
    if board.claim is not None:
        text += f"mc|{board.claim}|" + ("pg||" if rng.random() < 0.5 else "")
    return text


def _name(rng: random.Random) -> str:
    if rng.random() < 0.1:
        return f"~~M{rng.randrange(10000, 99999)}"
    if rng.random() < 0.3:
        return f"{rng.choice(_FIRST).lower()}{rng.randrange(100)}"
    return f"{rng.choice(_FIRST)} {rng.choice(_LAST)}"


def _players(rng: random.Random, count: int) -> list[str]:
    names: list[str] = []
    while len(names) < count:
        name = _name(rng)
        if name not in names:
            names.append(name)
    return names


def _vugraph(rng: random.Random, count: int, eol: str) -> str:
    """A team match: two rooms per board, `count` blocks in all."""
    numbers = [1 + i // 2 for i in range(count)]
    last = numbers[-1] if numbers else 1
    home, away = rng.sample(_TEAMS, 2)
    team = {0: _players(rng, 6), 1: _players(rng, 6)}
    deals = {number: _deal(rng) for number in range(1, last + 1)}
    boards = [_board(rng, number, deals[number]) for number in numbers]
    text = f"vg|Wild Cup {rng.randrange(2000, 2030)},Segment {rng.randrange(1, 9)},I,1,{last},{home},0,{away},0|{eol}"
    text += "rs|" + ",".join(board.rs for board in boards) + f"|{eol}"
    text += "pw|" + ",".join(team[0][:4] + team[1][:4]) + f"|{eol}pg||{eol}"
    for index, board in enumerate(boards):
        room = index % 2  # 0 open (home sits NS), 1 closed (home sits EW)
        ns, ew = team[room], team[1 - room]
        north, south = rng.sample(ns[:4] if rng.random() < 0.9 else ns, 2)
        west, east = rng.sample(ew[:4] if rng.random() < 0.9 else ew, 2)
        pn = f"pn|{south},{west},{north},{east}|"
        qx = f"qx|{'oc'[room]}{board.number}" + (f",BOARD {board.number}" if rng.random() < 0.5 else "") + "|"
        md, heading = f"md|{_md(rng, board)}|", f"ah|Board {board.number}|"
        if rng.random() < 0.7:  # BBO's vugraph archive
            text += qx + pn + "st||" + md + f"sv|{board.vul}|rh||" + heading
        else:  # TMPbn2LinVG: players before the slot, a line break before sv's closing '|'
            text += pn + qx + "rh||" + heading + md + f"sv|{board.vul}{eol}|sa|0|"
        text += _auction_text(rng, board, eol) + eol + _play_text(rng, board, eol, trick_lines=True)
        text += "" if text.endswith(eol) else eol
    return text


def _hands(rng: random.Random, count: int, eol: str) -> str:
    """"My hands" and hand-record files: one `pn` block per board, numbered 1..count."""
    text = ""
    if rng.random() < 0.5:
        text += f"vg|Club night {rng.randrange(1, 52)},Session {rng.randrange(1, 4)},P,1,{count},,,,|{eol}pg||{eol}"
    people = _players(rng, 40)
    for number in range(1, count + 1):
        board = _board(rng, number, _deal(rng))
        # (A hand record names nobody; a pair with a result is named, as LIN knows a pair only by its players.)
        names = ",".join(rng.sample(people, 4)) if board.calls or rng.random() < 0.5 else ",,,"
        broken = rng.random() < 0.3
        text += f"pn|{names}|st||md|{_md(rng, board)}|rh||ah|Board {number}|"
        text += f"sv|{board.vul}|" if rng.random() < 0.97 else ""
        text += _auction_text(rng, board, eol) + (eol if broken else "")
        text += _play_text(rng, board, eol, trick_lines=broken)
        text += "" if text.endswith(eol) else eol
    return text


def text(count: int, seed: int = 17) -> str:
    """The whole LIN file of `count` boards (blocks), the same for the same seed."""
    rng = random.Random(seed)
    eol = "\r\n" if rng.random() < 0.35 else "\n"
    return _vugraph(rng, count, eol) if seed % 2 else _hands(rng, count, eol)


def main() -> None:
    """Write a file: `--boards`, `--seed`, `--out`."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--boards", type=int, default=50_000)
    parser.add_argument("--seed", type=int, default=17)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    args.out.write_bytes(text(args.boards, args.seed).encode("utf-8"))


if __name__ == "__main__":
    main()
