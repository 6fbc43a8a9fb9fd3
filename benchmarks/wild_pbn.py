"""A second, independent generator of PBN 2.1 files, written the many ways the standard allows.

`benchmarks/boards.py` writes every game the same way (the export layout). This one varies what
PBN 2.1 lets a program vary, game by game: the order of the tags after the first, `{...}` comments
(on one line or several, a blank line inside) and `;` comments between tags, Note tags with `=n=`
note references in the auction, `!`/`?` suffixes on calls and cards, claims (a play that stops
with `*` before trick 13 and a Result giving declarer's tricks), `AP` and `-` in auctions, calls
and cards spread over lines with several spaces or tabs, trailing blanks, one to three semi-empty
lines between games, optional tags (Room, Table, Score, Competition, Section...), passed-out boards,
and CRLF line ends when asked.

It uses none of our parsers and none of `boards.py`: endplay's dealer makes the deals; the
auctions (random but legal), the plays (random but legal, full or claimed), trick winners and
scores are worked out here. endplay's own PBN parser reads what it writes (the benchmark's peer),
except comments inside auction and play sections, which endplay 0.5.12 takes for calls and cards:
those come only with `section_comments=True`.

    .venv/bin/python -m benchmarks.wild_pbn --boards 50000 --out wild.pbn
"""

from __future__ import annotations

import argparse
import random
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from endplay.dealer import generate_deals

SEATS = "NESW"
SUITS = "SHDC"
RANKS = "AKQJT98765432"
STRAINS = ("C", "D", "H", "S", "NT")
VULNERABLE = ("None", "NS", "EW", "All", "NS", "EW", "All", "None", "EW", "All", "None", "NS", "All", "None",
              "NS", "EW")
NAMES = ("Ann Ames", "Bo Berg", "Cy Cole", "Di Dahl", "Ed Eng", "Flo Fry", "Gus Gray", "Hal Holt", "Ida Ito",
         "Jo Jung", "Kai Kerr", "Liv Lund")
COMMENTS = ("a quiet board", "top for NS", "director called; ruling: result stands", "{no nesting here",
            "50% \"even\" [bracketed]", "lead: \\S A")


@dataclass(frozen=True)
class Game:
    """One board as played at one table: what the file says about it, before it is written."""

    number: int
    dealer: int
    deal: str
    calls: list[str]
    contract: str
    declarer: int | None
    leader: int | None
    tricks_shown: list[list[str]]
    """Each trick as the PBN play section writes it: columns in seat order from the opening leader."""
    result: int | None


def text(count: int, seed: int = 17, *, crlf: bool = False, section_comments: bool = False) -> str:
    """A whole PBN file of `count` boards, deterministic for a seed. With `crlf`, CRLF line ends;
    with `section_comments`, comments also inside auction and play sections (endplay cannot read those)."""
    rng = random.Random(seed)
    out = ["% PBN 2.1\n% IMPORT\n% Creator: wild_pbn\n"]
    if rng.random() < 0.5:
        out.append("{ A file from the second generator:\n  its games vary in every way PBN allows. }\n")
    out.append("\n")
    # Event-level tags hold for the whole file (a game leaving one out would lean on an earlier game).
    site, pairs = rng.choice(("Club rooms", "Town hall; upstairs", "?")), rng.random() < 0.3
    for game in _games(count, rng, seed):
        out.append(_write(game, rng, section_comments, site, pairs))
        out.append(rng.choice(("\n", "\n", "\n", "\n\n", " \t\n", "\n\t\n\n")))
    written = "".join(out)
    return written.replace("\n", "\r\n") if crlf else written


def _games(count: int, rng: random.Random, seed: int) -> Iterator[Game]:
    for number, deal in enumerate(generate_deals(produce=count, seed=seed), start=1):
        hands = _hands(deal.to_pbn())
        dealer = (number - 1) % 4
        calls, contract, declarer = _auction(dealer, rng)
        if declarer is None:
            yield Game(number, dealer, _deal_text(hands, rng), calls, contract, None, None, [], None)
            continue
        leader = (declarer + 1) % 4
        shown, won, played = _play(hands, leader, declarer, contract, rng)
        result = won if played == 13 else won + rng.randint(0, 13 - played)
        yield Game(number, dealer, _deal_text(hands, rng), calls, contract, declarer, leader, shown, result)


def _hands(pbn_deal: str) -> list[list[str]]:
    """The four hands (N, E, S, W) of a deal `F:h1 h2 h3 h4` as card lists like `SA`."""
    first = SEATS.index(pbn_deal[0])
    hands: list[list[str]] = [[], [], [], []]
    for offset, hand in enumerate(pbn_deal[2:].split(" ")):
        hands[(first + offset) % 4] = [suit + rank for suit, ranks in zip(SUITS, hand.split("."), strict=True)
                                       for rank in ranks]
    return hands


def _deal_text(hands: list[list[str]], rng: random.Random) -> str:
    """The Deal tag value, from any first seat (the standard lets the first hand be anyone's)."""
    first = rng.randrange(4)
    written = []
    for offset in range(4):
        cards = hands[(first + offset) % 4]
        written.append(".".join("".join(sorted((c[1] for c in cards if c[0] == suit), key=RANKS.index))
                                for suit in SUITS))
    return f"{SEATS[first]}:" + " ".join(written)


def _auction(dealer: int, rng: random.Random) -> tuple[list[str], str, int | None]:
    """A random legal auction from the dealer: its calls, the contract and the declarer."""
    calls: list[str] = []
    best, best_by, doubled, passes = -1, -1, 0, 0
    first_named: dict[tuple[int, int], int] = {}
    while passes < (3 if best >= 0 else 4):
        seat = (dealer + len(calls)) % 4
        roll = rng.random()
        opponents_bid = best >= 0 and (best_by - seat) % 2 == 1
        if best < 34 and roll < (0.45 if best < 0 else 0.3) / (1 + max(best, 0) // 10):
            best = rng.randint(best + 1, min(34, best + 4))
            best_by, doubled, passes = seat, 0, 0
            first_named.setdefault((seat % 2, best % 5), seat)
            calls.append(f"{best // 5 + 1}{STRAINS[best % 5]}")
        elif opponents_bid and doubled == 0 and roll < 0.36:
            calls.append("X")
            doubled, passes = 1, 0
        elif best >= 0 and doubled == 1 and (best_by - seat) % 2 == 0 and roll < 0.4:
            calls.append("XX")
            doubled, passes = 2, 0
        else:
            calls.append("Pass")
            passes += 1
    if best < 0:
        return calls, "Pass", None
    contract = f"{best // 5 + 1}{STRAINS[best % 5]}" + ("", "X", "XX")[doubled]
    return calls, contract, first_named[(best_by % 2, best % 5)]


def _play(hands: list[list[str]], leader: int, declarer: int, contract: str,
          rng: random.Random) -> tuple[list[list[str]], int, int]:
    """A random legal play, full or claimed: the tricks as written, declarer's tricks so far, and
    how many tricks were played."""
    trump = None if contract[1] == "N" else contract[1]
    left = [list(hand) for hand in hands]
    played = 13 if rng.random() < 0.6 else rng.randint(1, 12)
    shown, won, lead = [], 0, leader
    for _ in range(played):
        trick: dict[int, str] = {}
        for place in range(4):
            seat = (lead + place) % 4
            led = trick[lead][0] if trick else None
            choices = [card for card in left[seat] if card[0] == led] or left[seat]
            card = rng.choice(choices)
            left[seat].remove(card)
            trick[seat] = card
        lead = max(trick, key=lambda seat: _strength(trick[seat], trick[lead][0], trump))
        won += (lead - declarer) % 2 == 0
        shown.append([trick[(leader + column) % 4] for column in range(4)])
    return shown, won, played


def _strength(card: str, led: str, trump: str | None) -> int:
    return (200 if card[0] == trump else 100 if card[0] == led else 0) + 13 - RANKS.index(card[1])


def _score(contract: str, declarer: int, tricks: int, vulnerability: str) -> int:
    """Declarer's score by Law 77 (duplicate), made or set."""
    level, strain, doubling = int(contract[0]), contract[1:].rstrip("X"), contract.count("X")
    vulnerable = vulnerability == "All" or (vulnerability == ("NS" if declarer % 2 == 0 else "EW"))
    over = tricks - level - 6
    if over < 0:
        if not doubling:
            return 50 * over * (2 if vulnerable else 1)
        steps = [(200 if vulnerable else 100)] + [300 if vulnerable else (200 if n < 3 else 300) for n in range(1, 13)]
        return -sum(steps[:-over]) * (2 if doubling == 2 else 1)
    per_trick = 20 if strain in ("C", "D") else 30
    points = (per_trick * level + (10 if strain == "NT" else 0)) * (1, 2, 4)[doubling]
    score = points + ((500 if vulnerable else 300) if points >= 100 else 50)
    score += (0, 50, 100)[doubling]
    score += over * (per_trick if not doubling else (100, 200)[doubling - 1] * (2 if vulnerable else 1))
    if level == 6:
        score += 750 if vulnerable else 500
    if level == 7:
        score += 1500 if vulnerable else 1000
    return score


def _write(game: Game, rng: random.Random, section_comments: bool, site: str, pairs: bool) -> str:
    vulnerable = VULNERABLE[(game.number - 1) % 16]
    players = rng.sample(NAMES, 4)
    if rng.random() < 0.05:
        players[0] += "; " + rng.choice(NAMES)  # two people shared a seat
    tags = [("Site", site), ("Date", "2026.11.21"),
            ("Board", str(game.number)), ("West", players[3]), ("North", players[0]), ("East", players[1]),
            ("South", players[2]), ("Dealer", SEATS[game.dealer]), ("Vulnerable", vulnerable),
            ("Deal", game.deal), ("Scoring", rng.choice(("MP", "MatchPoints;MP1", "IMP"))),
            ("Declarer", "" if game.declarer is None else SEATS[game.declarer]), ("Contract", game.contract),
            ("Result", "" if game.result is None else str(game.result))]
    roll = rng.random()
    if roll < 0.2:
        tags.append(("Room", rng.choice(("Open", "Closed"))))
    if 0.1 < roll < 0.3:
        tags.append(("Table", str(rng.randint(1, 20))))
    if 0.2 < roll < 0.5 and game.declarer is not None and game.result is not None:
        score = _score(game.contract, game.declarer, game.result, vulnerable)
        tags.append(("Score", f"{'NS' if game.declarer % 2 == 0 else 'EW'} {score}"))
    if pairs:
        tags.append(("Competition", "Pairs"))
    if rng.random() < 0.5:
        rng.shuffle(tags)  # import format: any order after the first tag
    lines = ['[Event "Wild pairs"]']
    for name, value in tags:
        lines.append(f'[{name} "{value}"]' + _after_tag(rng))
        lines.extend(_comment_lines(rng))
    auction, notes = _auction_lines(game, rng, section_comments)
    play = _play_lines(game, rng, section_comments)
    # The sections come after the Contract tag (endplay reads the play only once it knows the contract).
    # (Before a tag pair, not between a tag and its comment lines: endplay reads no comment in a section.)
    after = next(i for i, line in enumerate(lines) if line.startswith("[Contract")) + 1
    place = rng.choice([i for i in range(after, len(lines)) if lines[i].startswith("[")] + [len(lines)])
    lines[place:place] = auction + notes + play
    return "\n".join(lines) + "\n"


def _after_tag(rng: random.Random) -> str:
    """What may follow a tag pair on its line: nothing, blanks, or a comment."""
    roll = rng.random()
    if roll < 0.04:
        return " { " + rng.choice(COMMENTS) + " }"
    if roll < 0.06:
        return "  ; " + rng.choice(COMMENTS)
    if roll < 0.08:
        return " \t "
    return ""


def _comment_lines(rng: random.Random) -> list[str]:
    """Comment lines between tag pairs: none mostly, a `{...}` or `;` line, or a comment over several lines."""
    roll = rng.random()
    if roll < 0.03:
        return ["{" + rng.choice(COMMENTS) + "}"]
    if roll < 0.045:
        return ["; " + rng.choice(COMMENTS)]
    if roll < 0.05:
        return ["{ A comment over several lines,", "", "  a blank line inside it: the game goes on. }"]
    return []


def _auction_lines(game: Game, rng: random.Random, section_comments: bool) -> tuple[list[str], list[str]]:
    """The Auction tag and its calls (with suffixes and note references), and the Note tags."""
    words: list[str] = []
    notes: list[str] = []
    calls = list(game.calls)
    padding = 0
    seat = game.dealer
    if rng.random() < 0.05:
        padding = rng.randint(1, 3)  # the first column is not the dealer's: `-` up to the dealer
        seat = (game.dealer - padding) % 4
        words.extend(["-"] * padding)
    if game.declarer is not None and calls[-3:] == ["Pass"] * 3 and rng.random() < 0.3:
        calls[-3:] = ["AP"]
    for call in calls:
        word = call
        roll = rng.random()
        if call not in ("AP", "Pass") and roll < 0.12 and len(notes) < 32:
            notes.append(f'[Note "{len(notes) + 1}:{rng.choice(("alerted", "15-17", "transfer", "strong"))}"]')
            # Attached to a bid, or apart (endplay reads an annotation attached to a bid only).
            word += rng.choice((f"={len(notes)}=", f" ={len(notes)}=")) if call[0].isdigit() else f" ={len(notes)}="
        elif roll < 0.16 and call[0].isdigit():
            word += rng.choice(("!", "?", "!!", "?!"))
        words.append(word)
        if section_comments and rng.random() < 0.03:
            words.append(rng.choice(("{" + rng.choice(COMMENTS) + "}", "{two\nlines}")))
    lines = [f'[Auction "{SEATS[seat]}"]' + _after_section_tag(rng)]
    lines.extend(_spread(words, rng, section_comments))
    return lines, notes


def _after_section_tag(rng: random.Random) -> str:
    return " { one line only }" if rng.random() < 0.03 else ""


def _play_lines(game: Game, rng: random.Random, section_comments: bool) -> list[str]:
    """The Play tag and its tricks, a line each in seat order from the opening leader (claims end with `*`)."""
    if game.leader is None:
        return []
    lines = [f'[Play "{SEATS[game.leader]}"]' + _after_section_tag(rng)]
    separator = rng.choice((" ", " ", "  ", "\t"))
    for trick in game.tricks_shown:
        cards = [card + ("!" if rng.random() < 0.01 else "") for card in trick]
        line = separator.join(cards) + rng.choice(("", "", "", " ", "\t"))
        if section_comments and rng.random() < 0.05:
            line += rng.choice((" {" + rng.choice(COMMENTS) + "}", " ; " + rng.choice(COMMENTS)))
        lines.append(line)
    if len(game.tricks_shown) < 13:
        lines.append("*")
    return lines


def _spread(words: list[str], rng: random.Random, section_comments: bool) -> list[str]:
    """Calls laid out over lines: four a line (export), or any number, with spaces or tabs between."""
    per_line = 4 if rng.random() < 0.7 else rng.randint(1, 9)
    separator = rng.choice((" ", " ", "  ", "\t", " \t"))
    lines = [separator.join(words[start:start + per_line]) for start in range(0, len(words), per_line)]
    if section_comments and lines and rng.random() < 0.1:
        lines[-1] += " ; " + rng.choice(COMMENTS)
    return lines


def main() -> None:
    """Write a file: `--boards`, `--seed`, `--crlf`, `--section-comments`, `--out`."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--boards", type=int, default=50_000)
    parser.add_argument("--seed", type=int, default=17)
    parser.add_argument("--crlf", action="store_true")
    parser.add_argument("--section-comments", action="store_true")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    written = text(args.boards, args.seed, crlf=args.crlf, section_comments=args.section_comments)
    args.out.write_bytes(written.encode("utf-8"))


if __name__ == "__main__":
    main()
