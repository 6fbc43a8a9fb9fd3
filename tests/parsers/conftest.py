"""Fixtures for the PBN tests: the shared corpus (read in place, never copied) and helpers."""

from __future__ import annotations

import logging
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from parsers.records import ParsedFile

CORPUS = Path(__file__).resolve().parents[3] / "shared" / "corpus"
"""The shared corpus beside the checkout (`../shared/corpus` from the repository root)."""
PBN = CORPUS / "pbn"
RANKS = "AKQJT98765432"
SEATS = "NESW"


@pytest.fixture
def corpus() -> Path:
    """The corpus directory."""
    return CORPUS


def comparable(parsed: ParsedFile) -> dict[str, Any]:
    """Records of a parse without positions and diagnostics (what a round trip must keep)."""
    data = parsed.model_dump(exclude={"diagnostics", "quarantined", "source"})
    for key in ("boards", "results", "artificial", "contestants"):
        for record in data[key]:
            record.pop("at")
    return data


def pbn_files() -> list[Path]:
    """Every PBN file of the corpus."""
    return sorted(PBN.glob("*.pbn"))


def random_game(rnd: random.Random, board: int) -> tuple[str, dict[str, Any]]:
    """A PBN game with a random deal, a legal auction and a legal full play, and the truth about it.

    Written here by hand (not by our writer), with play lines in seat order from the leader, so the
    reader's trick-winner logic is checked against independently computed played order.
    """
    deck = [s + r for s in "SHDC" for r in RANKS]
    rnd.shuffle(deck)
    hands = {SEATS[i]: deck[i * 13:(i + 1) * 13] for i in range(4)}
    dealer = SEATS[rnd.randrange(4)]
    strain = rnd.choice(["S", "H", "D", "C", "NT"])
    level = rnd.randint(1, 7)
    opener = rnd.randrange(4)  # passes before the opening bid
    declarer = SEATS[(SEATS.index(dealer) + opener) % 4]
    doubling = rnd.choice(["", "X", "XX"])
    calls = ["Pass"] * opener + [f"{level}{strain}"]
    if doubling:
        calls += ["X"] + (["XX"] if doubling == "XX" else [])
    calls += ["Pass", "Pass", "Pass"]
    leader = SEATS[(SEATS.index(declarer) + 1) % 4]
    trump = None if strain == "NT" else strain
    held = {s: list(h) for s, h in hands.items()}
    played: list[str] = []
    rows: list[str] = []
    current, won = leader, 0
    for _ in range(13):
        trick: dict[str, str] = {}
        led = None
        for k in range(4):
            seat = SEATS[(SEATS.index(current) + k) % 4]
            options = [c for c in held[seat] if led and c[0] == led] or held[seat]
            card = rnd.choice(options)
            held[seat].remove(card)
            trick[seat] = card
            led = led or card[0]
            played.append(card)

        def power(card: str, led_suit: str = led or "") -> int:
            bonus = 200 if card[0] == trump else 100 if card[0] == led_suit else 0
            return bonus + 13 - RANKS.index(card[1])

        current = max(trick, key=lambda seat: power(trick[seat]))
        won += current in (declarer, SEATS[(SEATS.index(declarer) + 2) % 4])
        rows.append(" ".join(trick[SEATS[(SEATS.index(leader) + k) % 4]] for k in range(4)))

    def holding(seat: str) -> str:
        return ".".join("".join(r for r in RANKS if s + r in hands[seat]) for s in "SHDC")

    first = rnd.choice(SEATS)  # any first seat is allowed in the Deal tag
    deal = f"{first}:" + " ".join(holding(SEATS[(SEATS.index(first) + k) % 4]) for k in range(4))
    vul = ["None", "NS", "EW", "All"][rnd.randrange(4)]
    contract = f"{level}{strain}{doubling}"
    lines = ['[Event "Random"]', f'[Board "{board}"]', f'[Dealer "{dealer}"]', f'[Vulnerable "{vul}"]',
             f'[Deal "{deal}"]', f'[Declarer "{declarer}"]', f'[Contract "{contract}"]', f'[Result "{won}"]',
             f'[Auction "{dealer}"]']
    lines += [" ".join(calls[i:i + 4]) for i in range(0, len(calls), 4)]
    lines += [f'[Play "{leader}"]', *rows]
    truth = {"board": board, "dealer": dealer, "deal": deal, "contract": contract, "declarer": declarer,
             "tricks": won, "calls": tuple(calls), "played": tuple(played), "vul": vul}
    return "\n".join(lines), truth


def random_file(count: int, seed: int = 1) -> str:
    """A PBN file of `count` random games with auction and play (the throughput benchmark's input)."""
    rnd = random.Random(seed)
    return "% PBN 2.1\n\n" + "\n\n".join(random_game(rnd, n)[0] for n in range(1, count + 1)) + "\n"


class Declines(logging.Handler):
    """Collects why the fast path declined, and any failure it logged."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.reasons: list[str] = []
        self.failures: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        (self.failures if record.levelno >= logging.ERROR else self.reasons).append(record.getMessage())


@pytest.fixture
def declines() -> Iterator[Declines]:
    """Why the PBN fast path declined, and any failure it logged, while the test runs."""
    handler = Declines()
    logger = logging.getLogger("parsers.pbn.fast")
    level = logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG)
    try:
        yield handler
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)
