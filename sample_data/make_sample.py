"""How the sample session was made.

`python sample_data/make_sample.py` rewrites the files.

A 13-table Mitchell over 26 boards (two per round, 13 rounds; an odd table count needs no relay):
NS pairs stay at their table,
EW pairs move up one table and the boards move down one table each round. Deals are random
(fixed seed); each table's contract and tricks follow the hands' strength with some noise, so
the travellers look like a club evening: mostly sensible contracts, a few doubled sacrifices,
the odd passed-out board and one average-plus/average-minus ruling.
"""

from __future__ import annotations

import csv
import random
from pathlib import Path

HERE = Path(__file__).resolve().parent
RANKS = "AKQJT98765432"
HCP = {"A": 4, "K": 3, "Q": 2, "J": 1}
SEATS = "NESW"
TABLES, BOARDS, PER_ROUND = 13, 26, 2
EVENT, SESSION = "club-championship-2026", "1"
LEADS = ["SA", "HK", "D7", "C2", "S4", "HQ", "DJ", "C9", "S9", "H3"]


def deal(rng: random.Random) -> dict[str, list[str]]:
    cards = [s + r for s in "SHDC" for r in RANKS]
    rng.shuffle(cards)
    return {seat: sorted(cards[i * 13:(i + 1) * 13], key=lambda c: ("SHDC".index(c[0]), RANKS.index(c[1])))
            for i, seat in enumerate(SEATS)}


def pbn_hand(cards: list[str]) -> str:
    return ".".join("".join(c[1] for c in cards if c[0] == suit) for suit in "SHDC")


def points(cards: list[str]) -> int:
    return sum(HCP.get(c[1], 0) for c in cards)


def best_fit(a: list[str], b: list[str]) -> tuple[str, int]:
    lengths = {s: sum(1 for c in a + b if c[0] == s) for s in "SHDC"}
    suit = max("SHDC", key=lambda s: (lengths[s], s in "SH"))
    return suit, lengths[suit]


def table_result(hands: dict[str, list[str]], rng: random.Random) -> tuple[str, str, str]:
    ns_hcp = points(hands["N"]) + points(hands["S"])
    side, hcp = ("NS", ns_hcp) if ns_hcp >= 20 else ("EW", 40 - ns_hcp)
    if hcp <= 21 and rng.random() < 0.2:
        return "PASS", "", ""
    pair = (hands[side[0]], hands[side[1]])
    suit, fit = best_fit(*pair)
    strain = suit if fit >= 8 else "NT"
    if hcp >= 33:
        level = 6
    elif hcp >= 25:
        level = 3 if strain == "NT" else (4 if strain in "SH" else 5 if hcp >= 28 else 3)
    else:
        level = 1 if strain == "NT" else 2
    expected = 6 + round((hcp - 20) / 3 + (fit - 8) * 0.7 if strain != "NT" else (hcp - 20) / 3)
    tricks = max(0, min(13, expected + rng.choice([-2, -1, -1, 0, 0, 0, 0, 1, 1, 2]) + (level == 1)))
    declarer = rng.choice(side)
    doubling = "X" if tricks < level + 6 - 1 and rng.random() < 0.4 else ""
    return f"{level}{strain}{doubling}", declarer, str(tricks)


def movement() -> list[tuple[int, int, int, int]]:
    """(round, table, ew_pair, board) for a 13-table Mitchell, two boards a round.

    EW move up a table and boards move down: with an odd number of tables every pair plays every
    board once and meets every pair of the other direction once.
    """
    rows = []
    for rnd in range(1, TABLES + 1):
        for table in range(1, TABLES + 1):
            ew = (table - rnd) % TABLES + 1
            set_index = (table + rnd - 2) % TABLES
            for k in range(PER_ROUND):
                rows.append((rnd, table, ew, set_index * PER_ROUND + k + 1))
    return rows


def main() -> None:
    rng = random.Random(20261121)
    deals = {board: deal(rng) for board in range(1, BOARDS + 1)}
    header = ["event", "session", "board", "section", "table", "ns", "ew", "contract", "declarer",
              "result", "lead"]
    lines = []
    for _round, table, ew, board in movement():
        contract, declarer, tricks = table_result(deals[board], rng)
        lead = "" if contract == "PASS" else rng.choice(LEADS)
        lines.append([EVENT, SESSION, board, "A", table, table, ew, contract, declarer, tricks, lead])
    lines.sort(key=lambda row: (row[2], row[4]))
    ruling = next(row for row in lines if row[2] == 7 and row[4] == 5)
    assert ruling[7] != "PASS"
    ruling[7:11] = ["A+/A-", "", "", ""]  # a director's ruling: no result could be obtained
    with open(HERE / "club_championship_traveller.csv", "w", newline="") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(header)
        writer.writerows(lines)
    with open(HERE / "club_championship_handrecord.pbn", "w", newline="\n") as handle:
        handle.write("% PBN 2.1\n% EXPORT\n")
        for board in range(1, BOARDS + 1):
            dealer = "NESW"[(board - 1) % 4]
            vul = ["None", "NS", "EW", "All", "NS", "EW", "All", "None",
                   "EW", "All", "None", "NS", "All", "None", "NS", "EW"][(board - 1) % 16]
            hands = deals[board]
            order = "NESW"[(board - 1) % 4:] + "NESW"[:(board - 1) % 4]
            handle.write(f'[Event "Club Championship 2026"]\n[Site "Bridge Club"]\n[Date "2026.11.21"]\n'
                         f'[Board "{board}"]\n[Dealer "{dealer}"]\n[Vulnerable "{vul}"]\n'
                         f'[Deal "{dealer}:{" ".join(pbn_hand(hands[s]) for s in order)}"]\n\n')


if __name__ == "__main__":
    main()
