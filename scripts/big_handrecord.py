"""Write a PBN hand record of many distinct deals (deterministic: seeded), for the Airflow smoke's
"one big file" case (issue #36): `python scripts/big_handrecord.py BOARDS OUT.pbn [EVENT NAME]`.

The deals are shuffled from a fixed seed, so the same call writes the same bytes; at about 0.4 s of
the solver a deal, 100,000 of them are 11 hours of double-dummy analysis.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

RANKS = "AKQJT98765432"
DEALERS = "NESW"
VULNERABILITIES = ("None", "NS", "EW", "All", "NS", "EW", "All", "None", "EW", "All", "None", "NS",
                   "All", "None", "NS", "EW")


def deal_text(rng: random.Random) -> str:
    """One random deal as PBN writes it, North first."""
    cards = [(suit, rank) for suit in range(4) for rank in range(13)]
    rng.shuffle(cards)
    hands = []
    for seat in range(4):
        held = sorted(cards[seat * 13:(seat + 1) * 13])
        hands.append(".".join("".join(RANKS[r] for s, r in held if s == suit) for suit in range(4)))
    return "N:" + " ".join(hands)


def write(boards: int, out: Path, event: str = "Marathon 2026") -> None:
    """Write `boards` boards of one session to `out`."""
    rng = random.Random(36)
    with out.open("w", encoding="ascii") as handle:
        handle.write("% PBN 2.1\n% EXPORT\n")
        for board in range(1, boards + 1):
            handle.write(f'[Event "{event}"]\n[Date "2026.11.21"]\n[Board "{board}"]\n'
                         f'[Dealer "{DEALERS[(board - 1) % 4]}"]\n[Vulnerable "{VULNERABILITIES[(board - 1) % 16]}"]\n'
                         f'[Deal "{deal_text(rng)}"]\n\n')


if __name__ == "__main__":
    write(int(sys.argv[1]), Path(sys.argv[2]), *sys.argv[3:4])
