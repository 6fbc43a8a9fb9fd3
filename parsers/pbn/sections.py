"""Strict rules for sections: auction (§3.5), play (§3.6), notes, NAGs (§3.7), tables (§5).

Also the rules that tie tags together: an auction needs a dealer, a play needs the deal, declarer
and contract before it, a complete auction must agree with the Contract and Declarer tags, and a
Result cannot be fewer tricks than declarer already took in the recorded play (nor more than the
defenders left).
"""

from __future__ import annotations

from collections.abc import Mapping

from models.cards import Seat
from parsers.bridge.auction import read_auction
from parsers.bridge.calls import CALL_DRIFT
from parsers.bridge.cards import CARD_DRIFT
from parsers.bridge.play import PlayFacts, PlaySection, claim_fits, play_section, read_section, seat_hands
from parsers.numbers import whole_number
from parsers.pbn.games import CallSection, PbnGame, is_table_tag, parse_call_section
from parsers.pbn.issues import WARNING, Issue, at_tag, at_token, at_value, strict
from parsers.pbn.lexer import section_tokens
from parsers.pbn.values import ParsedDeal, is_unknown, parse_contract, parse_deal, parse_result, parse_seat

_AUCTION_NAGS = frozenset({1, 2, 3, 4, 5, 6, 13})
_PLAY_NAGS = frozenset({7, 8, 9, 10, 11, 12, 14})


def check_sections(game: PbnGame, read: Mapping[PlaySection, PlayFacts] | None = None) -> list[Issue]:
    """Strict problems of the auction, play, notes and tables of a (resolved) game; `read` holds
    play sections read already (`play_section_of`)."""
    issues: list[Issue] = []
    where: dict[str, int] = {}
    for i, (name, _, section) in enumerate(game.tags):
        where.setdefault(name, i)
        if section.strip() and not _has_data(name) and any(t.kind != "comment" for t in section_tokens(section)):
            issues.append(strict("pbn.section.unexpected", f"Text after the {name} tag; only sections "
                                 "(Auction, Play, tables) have data after their tag.", at_tag(i)))
    auction = _auction(game, where, issues)
    play = _play(game, where, issues, read)
    _notes(game, auction, play, issues)
    _outcome(game, where, issues)
    for i, (name, _, _) in enumerate(game.tags):
        if is_table_tag(name) and where.get(name) == i:
            issues.extend(game.tables[name].issues)
    return issues


def _has_data(name: str) -> bool:
    return name in ("Auction", "Play") or is_table_tag(name) or name not in _KNOWN_PLAIN


_KNOWN_PLAIN = frozenset({
    "Event", "Site", "Date", "Board", "West", "North", "East", "South", "Dealer", "Vulnerable", "Deal", "Scoring",
    "Declarer", "Contract", "Result", "Competition", "DealId", "Description", "FrenchMP", "Generator", "Hidden",
    "Room", "Termination", "Score", "ScoreIMP", "ScoreMP", "ScorePercentage", "ScoreRubber", "ScoreRubberHistory",
    "OptimumScore", "BidSystemEW", "BidSystemNS", "PairEW", "PairNS", "WestNA", "NorthNA", "EastNA", "SouthNA",
    "WestType", "NorthType", "EastType", "SouthType", "EventDate", "EventSponsor", "HomeTeam", "Round", "Section",
    "Stage", "Table", "VisitTeam", "Time", "UTCDate", "UTCTime", "TimeControl", "TimeCall", "TimeCard",
    "Annotator", "AnnotatorNA", "Application", "Mode", "Note"})


def _auction(game: PbnGame, where: dict[str, int], issues: list[Issue]) -> tuple[int, CallSection] | None:
    tag = where.get("Auction")
    if tag is None:
        return None
    _, value, data = game.tags[tag]
    section = parse_call_section(value, data, tag)
    issues.extend(section.issues)
    issues.extend(_annotation_classes(section, tag, _AUCTION_NAGS, "call"))
    first = parse_seat(value)
    dealer_index = where.get("Dealer")
    dealer = parse_seat(game.tags[dealer_index][1]) if dealer_index is not None else None
    if dealer is None or (dealer_index is not None and dealer_index > tag):
        issues.append(strict("pbn.auction.dealer", "An auction needs the Dealer tag before it.", at_tag(tag)))
    if first is None:
        issues.append(strict("pbn.auction.seat", f"Auction {value!r} must name the first caller (W, N, E or S).",
                             at_value(tag)))
        return tag, section
    prefixes = {i: a.prefix for i, a in section.annotations.items() if a.prefix}
    facts = read_auction(first, dealer, section.tokens, prefixes)
    issues.extend(strict(p.code, p.message, at_token(tag, p.token)) for p in facts.problems)
    for i, token in enumerate(section.tokens):
        if token in CALL_DRIFT:
            issues.append(strict("pbn.auction.spelling", f"Call {token!r} is not written the PBN way "
                                 f"({CALL_DRIFT[token]}).", at_token(tag, i)))
    last = section.tokens[-1] if section.tokens else ""
    if not facts.complete and last not in ("*", "+") and not facts.problems:
        issues.append(strict("pbn.auction.incomplete", "The auction does not end with three passes, AP, '*' "
                             "(stopped) or '+' (to be continued).", at_token(tag, max(len(section.tokens) - 1, 0))))
    if facts.complete and not facts.problems:
        _agreement(game, where, facts.contract, issues)
    return tag, section


def _agreement(game: PbnGame, where: dict[str, int], final: tuple[int, str, str, Seat] | None,
               issues: list[Issue]) -> None:
    """A complete auction must end in the contract the Contract and Declarer tags give."""
    contract_text = game.tags[where["Contract"]][1] if "Contract" in where else None
    parsed = None if is_unknown(contract_text) else parse_contract(contract_text or "")
    if parsed is None:
        return
    said = "passed out" if final is None else f"{final[0]}{final[1]}{final[2]}"
    tags_say = "Pass" if parsed.level == 0 else f"{parsed.level}{parsed.strain}{parsed.doubling.value}"
    if (final is None) != (parsed.level == 0) or (final is not None and tags_say != said):
        issues.append(strict("pbn.contract.auction", f"Contract {contract_text!r} does not match the auction, "
                             f"which ends in {said}.", at_value(where["Contract"])))
        return
    declarer_text = game.tags[where["Declarer"]][1].strip() if "Declarer" in where else ""
    if final is None:
        return
    seat = parse_seat(declarer_text.removeprefix("^"))
    expected = final[3].partner if declarer_text.startswith("^") else final[3]
    if seat is not None and seat != expected:
        how = "the swapped declarer (^) must be the partner of " if declarer_text.startswith("^") else "declarer is "
        issues.append(strict("pbn.declarer.auction", f"Declarer {declarer_text!r} does not match the auction: "
                             f"{how}{final[3].value}.", at_value(where["Declarer"])))


def _play(game: PbnGame, where: dict[str, int], issues: list[Issue],
          read: Mapping[PlaySection, PlayFacts] | None) -> tuple[int, CallSection] | None:
    tag = where.get("Play")
    if tag is None:
        return None
    _, value, data = game.tags[tag]
    section = parse_call_section(value, data, tag)
    issues.extend(section.issues)
    issues.extend(_annotation_classes(section, tag, _PLAY_NAGS, "card"))
    deal = _deal_before(game, where, tag)
    end_position = deal is not None and deal.hands is not None and all(
        h is None or sum(map(len, h)) < 13 for h in deal.hands)
    needed = ("Deal", "Contract") if end_position else ("Deal", "Declarer", "Contract")
    for name in needed:
        if name not in where or where[name] > tag or is_unknown(game.tags[where[name]][1]):
            issues.append(strict("pbn.play.needs", f"A play section needs the {name} tag before it.", at_tag(tag)))
    played = _play_section(game, where, section, deal)
    if played is None:
        if parse_seat(value) is None:
            issues.append(strict("pbn.play.seat", f"Play {value!r} must name the opening leader.", at_value(tag)))
        return tag, section
    facts = read_section(played, read)
    declarer = played.declarer
    issues.extend(strict(p.code, p.message, at_token(tag, p.token)) for p in facts.problems)
    for i, token in enumerate(section.tokens):
        if token in CARD_DRIFT:
            issues.append(strict("pbn.play.spelling", f"Card {token!r} must be written {CARD_DRIFT[token]}.",
                                 at_token(tag, i)))
    result = parse_result(game.get("Result") or "") if not is_unknown(game.get("Result")) else None
    tricks = None if result is None or result.irregular else result.for_declarer(declarer)
    defence = facts.known_tricks - facts.declarer_tricks
    if tricks is not None and not claim_fits(tricks, facts.declarer_tricks, facts.known_tricks):
        issues.append(strict("pbn.result.play", f"Result gives declarer {tricks} tricks, but the play already shows "
                             f"{facts.declarer_tricks} for declarer and {defence} "
                             "for the defence.", at_value(where["Result"])))
    return tag, section


def play_section_of(game: PbnGame) -> PlaySection | None:
    """The play section `check_sections` reads: the strict reader replays a file's sections together
    before it reads the games."""
    where: dict[str, int] = {}
    for i, (name, _, _) in enumerate(game.tags):
        where.setdefault(name, i)
    tag = where.get("Play")
    if tag is None:
        return None
    _, value, data = game.tags[tag]
    return _play_section(game, where, parse_call_section(value, data, tag), _deal_before(game, where, tag))


def _deal_before(game: PbnGame, where: dict[str, int], tag: int) -> ParsedDeal | None:
    """The Deal tag before the play section (tag `tag`), read."""
    deal_text = game.tags[where["Deal"]][1] if "Deal" in where and where["Deal"] < tag else None
    return None if is_unknown(deal_text) else parse_deal(deal_text or "")


def _play_section(game: PbnGame, where: dict[str, int], section: CallSection,
                  deal: ParsedDeal | None) -> PlaySection | None:
    """The section as `read_play` reads it, checked against the deal's known hands; None without an
    opening leader or a contract with a strain."""
    leader = parse_seat(section.seat)
    contract = parse_contract(game.tags[where["Contract"]][1]) if "Contract" in where else None
    if leader is None or contract is None or contract.strain is None:
        return None
    declarer = parse_seat((game.get("Declarer") or "").strip().removeprefix("^")) or leader.next(3)
    hands = seat_hands(deal.hands) if deal is not None and deal.hands is not None and not deal.problem[0] else None
    prefixes = {i: a.prefix for i, a in section.annotations.items() if a.prefix}
    trump = None if contract.strain.value == "NT" else contract.strain.value
    return play_section(leader, declarer, trump, section.tokens, prefixes, hands)


def _annotation_classes(section: CallSection, tag: int, allowed: frozenset[int], what: str) -> list[Issue]:
    """NAGs of the wrong kind ($1-$6 are for calls, $7-$12 for cards) and a suffix given twice (! and $1)."""
    issues: list[Issue] = []
    wrong = _PLAY_NAGS if what == "call" else _AUCTION_NAGS
    for index, ann in section.annotations.items():
        for nag in ann.nags:
            if nag in wrong:
                issues.append(strict("pbn.nag.kind", f"NAG ${nag} is for {'cards' if what == 'call' else 'calls'}, "
                                     f"not for a {what}.", at_token(tag, max(index, 0))))
        suffix_nags = [n for n in ann.nags if n in allowed and n not in (13, 14)]
        if len(suffix_nags) + bool(ann.suffix) > 1:
            issues.append(strict("pbn.nag.double", f"A {what} has more than one suffix annotation "
                                 "(a suffix like ! counts as a NAG $1-$12).", at_token(tag, max(index, 0))))
    return issues


def _notes(game: PbnGame, auction: tuple[int, CallSection] | None, play: tuple[int, CallSection] | None,
           issues: list[Issue]) -> None:
    """Notes: 'n:text' with n 1..32, in the auction or play section, each referenced and each reference explained."""
    defined: dict[str, dict[int, int]] = {"Auction": {}, "Play": {}}
    for section, index, number, _ in game.notes:
        if not section:
            issues.append(strict("pbn.note.section", "A note belongs after the auction or the play it explains.",
                                 at_tag(index)))
            continue
        if whole_number(number, low=1, high=32) is None or ":" not in game.tags[index][1]:
            issues.append(strict("pbn.note.number", f"Note {game.tags[index][1]!r} must be 'n:text' with n from "
                                 "1 to 32.", at_value(index)))
            continue
        if int(number) in defined[section]:
            issues.append(strict("pbn.note.duplicate", f"Note {number} is given twice in this section.",
                                 at_value(index)))
        defined[section][int(number)] = index
    for name, found in (("Auction", auction), ("Play", play)):
        if found is None:
            continue
        tag, calls = found
        used = {ann.note: i for i, ann in calls.annotations.items() if ann.note is not None and 1 <= ann.note <= 32}
        for reference, token in used.items():
            if reference not in defined[name]:
                issues.append(strict("pbn.note.missing", f"Note reference ={reference}= has no [Note "
                                     f"\"{reference}:...\"] in the {name.lower()} section.",
                                     at_token(tag, max(token, 0))))
        for defined_number, note_tag in defined[name].items():
            if defined_number not in used:
                issues.append(strict("pbn.note.unused", f"Note {defined_number} is not referenced in the "
                                     f"{name.lower()} section.", at_value(note_tag)))


def _outcome(game: PbnGame, where: dict[str, int], issues: list[Issue]) -> None:
    """Passed-out games (Contract Pass, or an empty Declarer) have no declarer and no result."""
    contract = game.get("Contract")
    result = game.get("Result")
    parsed = None if is_unknown(contract) else parse_contract(contract or "")
    if parsed is not None and parsed.level == 0 and parsed.strain is None:
        # Programs write a passed-out board with a declarer and Result 0: nothing is lost, so it is
        # read as passed out and said; a passed-out board with tricks is an error.
        zero = is_unknown(result) or (result or "").strip() == "0"
        for name in ("Declarer", "Result"):
            if not is_unknown(game.get(name)):
                message = f"A passed-out game has an empty {name}."
                issues.append(Issue("pbn.pass.extra", f"{message} It was read as passed out.",
                                    at_value(where[name]), None, WARNING) if zero
                              else strict("pbn.pass.extra", message, at_value(where[name])))
    elif game.get("Declarer") == "" and not is_unknown(result):
        issues.append(strict("pbn.result.declarer", "An empty Declarer means all passed, so Result must be empty "
                             "too.", at_value(where["Result"])))
