"""A game's own result: Contract/Declarer/Result tags, its auction and play, scores, sides, players.

Used for one-game-per-table files (pbntools, RealBridge, rpbridge) and single hand records with a
result. Findings that strict validation checks again are reported for lenient mode only.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple

from models.cards import Card, Seat, Suit
from models.contract import Contract, Doubling
from models.events import Player
from parsers.bridge.auction import AuctionFacts, read_auction
from parsers.bridge.play import PlayFacts, PlaySection, play_section, read_section
from parsers.pbn.games import CallSection, PbnGame, parse_call_section
from parsers.pbn.issues import ERROR, INFO, WARNING, Issue, at_tag, at_token, at_value, lenient, note
from parsers.pbn.lexer import TagPair
from parsers.pbn.scoretables import player
from parsers.pbn.values import (
    STRAINS,
    contract_model,
    is_unknown,
    parse_contract,
    parse_result,
    parse_seat,
    parse_sided,
)

CARD_MODELS: dict[str, Card] = {s.value + r: Card(suit=s, rank=r) for s in Suit for r in "AKQJT98765432"}
"""The 52 cards as shared model instances."""
_SCORE_KEYS = {"Score": ("score_ns", ""), "ScoreIMP": ("imp_ns", "imp_ew"), "ScoreMP": ("mp_ns", "mp_ew"),
               "ScorePercentage": ("pct_ns", "pct_ew")}
ROOMS = {"open": "open", "closed": "closed"}
"""Room tag values (lower-cased) we know."""


class Tags:
    """A game's tag values by name (first occurrence wins, as the standard says), and their indices."""

    __slots__ = ("pairs", "values", "where")

    def __init__(self, pairs: tuple[TagPair, ...]) -> None:
        self.pairs = pairs
        self.where: dict[str, int] = {pairs[i][0]: i for i in range(len(pairs) - 1, -1, -1)}
        """Index (in the game's tags) of the first tag of each name."""
        self.values: dict[str, str] = {tag[0]: tag[1] for tag in reversed(pairs)}
        """Value of the first tag of each name."""

    @classmethod
    def of(cls, game: PbnGame) -> Tags:
        """Index the game's tags."""
        return cls(game.tags)

    def first_of(self, *names: str) -> int:
        """Index of the first of `names` the game has (0 when none): where to anchor a finding."""
        for name in names:
            if name in self.where:
                return self.where[name]
        return 0

    def get(self, name: str) -> str | None:
        """Value of the first tag `name`."""
        return self.values.get(name)

    def text(self, name: str) -> str:
        """Value of the first tag `name`, stripped; '' when absent or '?'."""
        value = self.values.get(name)
        if not value:
            return ""
        if value[0] == " " or value[-1] == " ":
            value = value.strip()
        return "" if value == "?" else value


class Outcome(NamedTuple):
    """How reading the result went: the contract and tricks, or why there is no result."""

    contract: Contract | None
    tricks: int | None
    status: str
    """ok, none (no result, e.g. an end position or a missing Result) or bad (untrustworthy)."""


def read_contract(tags: Tags, issues: list[Issue]) -> Outcome:
    """The Contract and Declarer tags as a Contract."""
    text = tags.values.get("Contract") or ""
    anchor = at_value(tags.where["Contract"])
    parsed = parse_contract(text)
    if parsed is None:
        issues.append(lenient(ERROR, "pbn.contract", f"Contract {text!r} is not a contract (like 4S, 3NTX or "
                              "Pass); the result was left out.", anchor))
        return Outcome(None, None, "bad")
    if parsed.level == 0 and parsed.strain is not None:
        return Outcome(None, None, "none")  # an end position names only the trump suit
    if parsed.drift:
        issues.append(lenient(INFO, "pbn.contract.spelling", f"Contract written {parsed.drift}; read as "
                              "standard.", anchor))
    elif parsed.lower:
        issues.append(lenient(INFO, "pbn.contract.case", f"Contract {text!r} written in lower case.", anchor))
    if not parsed.level:
        return Outcome(contract_model(0, None, parsed.doubling, None), None, "ok")
    written = tags.text("Declarer")
    seat = parse_seat(written.removeprefix("^"))
    if seat is None:
        message = (f"Contract {text} has no declarer" if not written
                   else f"Declarer {written!r} is not W, N, E or S")
        where = at_value(tags.where["Declarer"]) if written else anchor
        issues.append(lenient(ERROR, "pbn.declarer", message + "; the result was left out.", where))
        return Outcome(None, None, "bad")
    if written.startswith("^"):
        issues.append(note("pbn.declarer.swapped", f"Declarer {written}: declarer and dummy were swapped; "
                           f"{seat.value} is recorded as declarer.", at_value(tags.where["Declarer"])))
    return Outcome(contract_model(parsed.level, parsed.strain, parsed.doubling, seat), None, "ok")


def contract_from_auction(tags: Tags, dealer: Seat | None, issues: list[Issue]) -> Outcome:
    """When the Contract tag is missing, the contract a complete auction ends in (an empty Contract
    tag says there is no result: the game is a hand record only)."""
    tag = tags.where.get("Auction")
    if tag is None:
        return Outcome(None, None, "none")
    _, seat, data = tags.pairs[tag]
    first = parse_seat(seat)
    section = parse_call_section(seat, data, tag)
    if first is None or section.annotations:
        return Outcome(None, None, "none")
    facts = read_auction(first, dealer, section.tokens)
    if not facts.complete or facts.problems:
        return Outcome(None, None, "none")
    if facts.contract is None:
        contract = contract_model(0, None, Doubling.NONE, None)
    else:
        level, strain, doubling, declarer = facts.contract
        contract = contract_model(level, STRAINS[strain], Doubling(doubling), declarer)
    issues.append(note("pbn.contract.from-auction", f"There is no Contract tag; the auction ends in "
                       f"{'all pass' if contract.is_passed_out else contract}, which was recorded.", at_tag(tag)))
    return Outcome(contract, None, "ok")


def read_tricks(tags: Tags, contract: Contract, from_play: int | None, issues: list[Issue]) -> Outcome:
    """Declarer's tricks from the Result tag (or from a complete play when Result is missing)."""
    text = tags.values.get("Result")
    if is_unknown(text):
        if from_play is not None:
            return Outcome(contract, from_play, "ok")
        issues.append(note("pbn.result.incomplete", f"Contract {contract} has no result; no traveller line "
                           "was recorded.", at_tag(tags.first_of("Contract", "Auction"))))
        return Outcome(contract, None, "none")
    parsed = parse_result(text or "")
    tricks = None if parsed is None else parsed.for_declarer(contract.declarer)
    if parsed is None or tricks is None:
        issues.append(lenient(ERROR, "pbn.result", f"Result {text!r} is not a number of tricks (0-13, or "
                              "'NS 9', 'EW 4'); the result was left out.", at_value(tags.where["Result"])))
        return Outcome(contract, None, "bad")
    if parsed.irregular:
        issues.append(note("pbn.result.agreed", f"Result {text}: the players agreed on a trick count that "
                           "differs from the play; the agreed count is recorded.", at_value(tags.where["Result"])))
    return Outcome(contract, tricks, "ok")


def read_calls(game: PbnGame, tags: Tags, dealer: Seat | None, contract: Contract,
               issues: list[Issue]) -> tuple[str, ...]:
    """The auction, normalised, from the dealer on; () when it cannot be read."""
    tag = tags.where.get("Auction")
    if tag is None:
        return ()
    _, seat, data = tags.pairs[tag]
    section = parse_call_section(seat, data, tag)
    first = parse_seat(section.seat)
    if first is None:
        issues.append(lenient(WARNING, "pbn.auction.seat", f"Auction {section.seat!r} does not name a seat; the "
                              "auction was not recorded.", at_value(tag)))
        return ()
    prefixes = {i: a.prefix for i, a in section.annotations.items() if a.prefix} if section.annotations else None
    facts = read_auction(first, dealer, section.tokens, prefixes)
    for problem in facts.problems:
        issues.append(lenient(WARNING, problem.code, problem.message, at_token(tag, problem.token)))
    if facts.drift:
        i, written, call = facts.drift[0]
        issues.append(lenient(INFO, "pbn.auction.spelling", f"Call written {written!r}; read as {call}.",
                              at_token(tag, i)))
    if any(p.code in ("pbn.auction.call", "pbn.auction.first-call") for p in facts.problems):
        return ()
    return facts.calls if _agrees(facts, contract, tag, issues) else ()


def read_cards(game: PbnGame, tags: Tags, contract: Contract, issues: list[Issue],
               read: Mapping[PlaySection, PlayFacts] | None = None) -> tuple[tuple[str, ...], int | None]:
    """Cards in played order, and declarer's tricks when all 13 tricks are known. `read` holds play
    sections read already (`cards_section`)."""
    tag = tags.where.get("Play")
    if tag is None:
        return (), None
    if contract.strain is None or contract.declarer is None:
        report_unread_play(tags, issues)
        return (), None
    _, seat, data = tags.pairs[tag]
    section = parse_call_section(seat, data, tag)
    cards = _cards_section(section, contract)
    if cards is None:
        issues.append(lenient(WARNING, "pbn.play.seat", f"Play {section.seat!r} does not name a seat; the play "
                              "was not recorded.", at_value(tag)))
        return (), None
    facts = read_section(cards, read)
    if facts.problems:
        for problem in facts.problems:
            issues.append(lenient(WARNING, problem.code, problem.message + " The play was not recorded.",
                                  at_token(tag, problem.token)))
        return (), None
    if facts.drift:
        i, written, card = facts.drift[0]
        issues.append(lenient(INFO, "pbn.play.spelling", f"Card written {written!r}; read as {card}.",
                              at_token(tag, i)))
    return facts.played, facts.declarer_tricks if facts.known_tricks == 13 else None


def cards_section(tags: Tags) -> PlaySection | None:
    """The play section `read_cards` reads, when the game's own Contract tag gives its contract: the
    reader replays a file's sections together before it reads the games."""
    tag = tags.where.get("Play")
    if tag is None or "Contract" not in tags.values:
        return None
    contract = read_contract(tags, []).contract
    if contract is None:
        return None
    _, seat, data = tags.pairs[tag]
    return _cards_section(parse_call_section(seat, data, tag), contract)


def _cards_section(section: CallSection, contract: Contract) -> PlaySection | None:
    """The section as `read_play` reads it for the contract; None when it names no opening leader."""
    leader = parse_seat(section.seat)
    if leader is None or contract.strain is None or contract.declarer is None:
        return None
    prefixes = {i: a.prefix for i, a in section.annotations.items() if a.prefix} if section.annotations else None
    trump = None if contract.strain.value == "NT" else contract.strain.value
    return play_section(leader, contract.declarer, trump, section.tokens, prefixes)


def report_unread_play(tags: Tags, issues: list[Issue]) -> None:
    """Say so when a game's play section holds cards that no contract of the game can take (the
    Contract and Declarer tags must come before a play section): lenient mode drops the play."""
    tag = tags.where.get("Play")
    if tag is None:
        return
    _, seat, data = tags.pairs[tag]
    if not any(token != "*" for token in parse_call_section(seat, data, tag).tokens):
        return  # an empty play section drops nothing
    issues.append(lenient(WARNING, "pbn.play.no-contract", "The play section has no contract and declarer "
                          "of this game to follow (a passed-out or unknown contract, or none); the play was "
                          "not recorded.", at_tag(tag)))


def published_scores(tags: Tags, contract: Contract, issues: list[Issue]) -> dict[str, float | str]:
    """Score, ScoreIMP, ScoreMP and ScorePercentage tags as published values (NS-signed score)."""
    published: dict[str, float | str] = {}
    declarer_side = contract.declarer.side if contract.declarer is not None else "NS"
    written = tags.values
    for name, (ns_key, ew_key) in _SCORE_KEYS.items():
        text = written.get(name)
        if text is None or is_unknown(text):
            continue
        scores = parse_sided(text)
        if scores is None:
            issues.append(lenient(WARNING, "pbn.score", f"{name} {text!r} is not a score like 'NS 420'; it was "
                                  "not kept.", at_value(tags.where[name])))
            continue
        for side, value in scores.items():
            side = side or declarer_side
            if side == "NS":
                published[ns_key] = value
            elif ew_key:
                published[ew_key] = value
            elif "NS" not in scores:
                published[ns_key] = -value  # Score has no EW key: the NS score is the opposite
    return published


def sides(tags: Tags, ctx: dict[str, str], room: str | None) -> tuple[str, str, bool]:
    """NS and EW ids: PairNS/PairEW, else teams by room, else a pair name on both seats; is it teams?"""
    values = tags.values
    if "PairNS" in values or "PairEW" in values:
        pair_ns, pair_ew = tags.text("PairNS"), tags.text("PairEW")
        if pair_ns or pair_ew:
            return pair_ns, pair_ew, False
    home, visit = ctx.get("HomeTeam", "").strip(), ctx.get("VisitTeam", "").strip()
    if home or visit:
        # The home team sits NS in the open room and EW in the closed room (also without a Room tag).
        return (visit, home, True) if room == "closed" else (home, visit, True)
    # pbntools names both players of a pair after the pair ("Para-1"): take that as the pair's id.
    north, south, east, west = tags.text("North"), tags.text("South"), tags.text("East"), tags.text("West")
    if north and north == south and east and east == west and north != east:
        return north, east, False
    # No pair numbers (BBO exports, KoPS, robot matches): a pair is named by its players, as LIN's are.
    return pair_by_players(north, south), pair_by_players(east, west), False


def pair_by_players(first: str, second: str) -> str:
    """A pair's id from its two players, `North/South` or `East/West` (the LIN reader's ids);
    '' when neither is named."""
    return f"{first}/{second}" if first or second else ""


def players(tags: Tags, first: str, second: str) -> tuple[Player, ...]:
    """Players named by two seat tags (several per seat separated by ;)."""
    values = tags.values
    return _seat_players(values.get(first)) + _seat_players(values.get(second))


_SEATED: dict[str, tuple[Player, ...]] = {}


def _seat_players(text: str | None) -> tuple[Player, ...]:
    """Players of one seat tag ('' and '?' name nobody); cached, names repeat from game to game."""
    if not text:
        return ()
    found = _SEATED.get(text)
    if found is None:
        found = tuple(player(n.strip()) for n in text.split(";") if n.strip() and n.strip() != "?")
        if len(_SEATED) < 50_000:
            _SEATED[text] = found
    return found


_AGREES: dict[tuple[int, int], bool] = {}


def _agrees(facts: AuctionFacts, contract: Contract, tag: int, issues: list[Issue]) -> bool:
    """False (with a warning) when a complete auction ends in another contract than the tags say."""
    if not facts.complete:
        return True
    key = (id(facts), id(contract))  # both are shared instances (caches in bridge and values)
    if _AGREES.get(key):
        return True
    if facts.contract is None:
        said, same = "passed out", contract.is_passed_out
    else:
        level, strain, doubling, declarer = facts.contract
        said = f"{level}{strain}{doubling} by {declarer.value}"
        same = (not contract.is_passed_out and contract.level == level and contract.strain is not None
                and contract.strain.value == strain and contract.doubling.value == doubling
                and contract.declarer == declarer)
    if same and len(_AGREES) < 50_000:
        _AGREES[key] = True
    if not same:
        told = "passed out" if contract.is_passed_out else f"{contract} by {contract.declarer}"
        issues.append(lenient(WARNING, "pbn.auction.contract", f"The auction ends in {said} but the tags say "
                              f"{told}; the tags were recorded, the auction was not.", at_tag(tag)))
    return same
