"""Strict mode: every rule of PBN 2.1 that a file can break, reported as an error.

The rules follow the standard and the committee's reference verifier test files (`errors_10/20/21`):
line length and character set, tag names and repeats, the syntax of every defined tag value, and
(in `sections`) auction, play, notes and tables. Import format is the yardstick; the stricter
layout rules of export format apply once the file declares `% EXPORT`. Unknown tag names are
errors too, as in the reference verifier, although the standard asks only for robustness there.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping

from parsers.bridge.play import PlayFacts, PlaySection
from parsers.numbers import whole_number
from parsers.pbn.games import PbnGame
from parsers.pbn.issues import WARNING, Issue, at_offset, at_tag, at_value, strict
from parsers.pbn.sections import check_sections
from parsers.pbn.values import parse_date, parse_deal

MANDATORY = ("Event", "Site", "Date", "Board", "West", "North", "East", "South", "Dealer", "Vulnerable", "Deal",
             "Scoring", "Declarer", "Contract", "Result")
"""The Mandatory Tag Set in export order."""
SUPPLEMENTAL = frozenset({
    "Competition", "DealId", "Description", "FrenchMP", "Generator", "Hidden", "Room", "Termination", "Score",
    "ScoreIMP", "ScoreMP", "ScorePercentage", "ScoreRubber", "ScoreRubberHistory", "OptimumScore", "BidSystemEW",
    "BidSystemNS", "PairEW", "PairNS", "WestNA", "NorthNA", "EastNA", "SouthNA", "WestType", "NorthType",
    "EastType", "SouthType", "EventDate", "EventSponsor", "HomeTeam", "Round", "Section", "Stage", "Table",
    "VisitTeam", "Time", "UTCDate", "UTCTime", "TimeControl", "TimeCall", "TimeCard", "Annotator", "AnnotatorNA",
    "Application", "Mode", "Auction", "Play", "Note", "ActionTable", "AuctionTimeTable", "InstantScoreTable",
    "OptimumPlayTable", "OptimumResultTable", "PlayTimeTable", "ScoreTable", "TotalScoreTable"})
"""Every other tag PBN 2.1 defines."""
KNOWN_TAGS = frozenset(MANDATORY) | SUPPLEMENTAL
SCORING_FIELDS = frozenset(s.lower() for s in (
    "MP", "MatchPoints", "IMP", "Cavendish", "Chicago", "Rubber", "BAM", "Instant", "Butler", "Butler-2",
    "Experts", "Cross", "Cross1", "Cross2", "Mean", "Median", "MP1", "MP2", "OldMP", "Mitchell2", "Mitchell3",
    "Mitchell4", "Ascherman", "Bastille", "EMP", "IMP_1948", "IMP_1961"))
_INT = r"[+-]?\d+"
_DEC = r"[+-]?(?:\d+\.?\d*|\.\d+)"
_RUBBER = r"\d+\s*/\s*\d+"


def _sided(unit: str, bare: bool = True) -> re.Pattern[str]:
    sided = rf"(?:NS|EW)\s+{unit}(?:\s+(?:NS|EW)\s+{unit})?"
    return re.compile(rf"\s*(?:{unit}|{sided})\s*" if bare else rf"\s*{sided}\s*")


_PATTERNS: dict[str, tuple[re.Pattern[str], str]] = {
    "Date": (re.compile(r"[\d?]{4}\.[\d?]{2}\.[\d?]{2}"), "YYYY.MM.DD (? for unknown digits)"),
    "Board": (re.compile(r"0*[1-9]\d*"), "a positive whole number"),
    "Dealer": (re.compile(r"[WNESwnes]"), "W, N, E or S"),
    "Vulnerable": (re.compile(r"(?i:none|love|-|ns|ew|all|both)"), "None, Love, -, NS, EW, All or Both"),
    "Declarer": (re.compile(r"\^?[WNESwnes]"), "W, N, E or S (^ for declarer and dummy swapped)"),
    "Contract": (re.compile(r"(?i:pass|[1-7](?:s|h|d|c|nt)(?:x|xx)?|s|h|d|c|nt)"), "Pass or e.g. 4S, 3NTX, 6HXX"),
    "Result": (re.compile(r"\^?(?:\d{1,2}|(?:NS|EW) \d{1,2}(?: (?:NS|EW) \d{1,2})?)"),
               "tricks 0-13, or 'NS 9', 'EW 4', 'NS 9 EW 4'"),
    "Score": (_sided(_INT), "points, or 'NS 420', 'EW 110', 'NS 90 EW -90'"),
    "ScoreIMP": (_sided(_DEC), "IMPs, or 'NS 3', 'NS 3 EW -3'"),
    "ScoreMP": (_sided(_DEC), "matchpoints, or 'NS 7', 'NS 7 EW 5'"),
    "ScorePercentage": (_sided(r"(?:100(?:\.0*)?|\d{1,2}(?:\.\d*)?|\.\d+)"), "a percentage 0-100, or 'NS 55.2'"),
    "ScoreRubber": (_sided(_RUBBER), "'above/below', or 'NS 300/40'"),
    "OptimumScore": (_sided(_INT, bare=False), "'NS 420' or 'EW 100'"),
    "Round": (re.compile(r"\w+(?:\.\w+)*", re.ASCII), "letters, digits and _, parts separated by ."),
    "Room": (re.compile(r"Open|Closed"), "Open or Closed"),
    "FrenchMP": (re.compile(r"Yes|No"), "Yes or No"),
    "Time": (re.compile(r"\d\d:\d\d:\d\d"), "HH:MM:SS"),
    "TimeControl": (re.compile(r"\d+/\d+"), "games/minutes, e.g. 4/30"),
    "TimeCall": (re.compile(r"\d+"), "seconds"),
    "Competition": (re.compile(r"[A-Za-z]+"), "one word, e.g. Pairs, Teams, Individuals"),
    "Mode": (re.compile(r"[A-Z]+"), "an upper-case code, e.g. TABLE, IBS, EM"),
    "WestType": (re.compile(r"human|program"), "human or program"),
}
for _copy, _of in (("EventDate", "Date"), ("UTCDate", "Date"), ("UTCTime", "Time"), ("TimeCard", "TimeCall"),
                   ("NorthType", "WestType"), ("EastType", "WestType"), ("SouthType", "WestType")):
    _PATTERNS[_copy] = _PATTERNS[_of]
_DATES = frozenset({"Date", "EventDate", "UTCDate"})
_BAD_CHAR = re.compile(r"[\x00-\x08\x0c-\x1f\x7f-\x9f\u0100-\U0010ffff]")
_HISTORY = r"(\d+)\s+(\d+)\s*/\s*(\d+(?:\s+\d+){0,2})"
_RUBBER_HISTORY = re.compile(rf"NS\s+{_HISTORY}\s+EW\s+{_HISTORY}\s*")
_EXPORT_TAG = re.compile(r'\[[A-Za-z0-9_]+ "(?:[^"\\]|\\.)*"\]')


class Validator:
    """Checks each game of a file against PBN 2.1 (strict mode)."""

    def __init__(self, read: Mapping[PlaySection, PlayFacts] | None = None) -> None:
        self.read = read
        """Play sections read already (`parsers.pbn.sections.play_section_of`)."""
        self.export = False
        """True once the file has declared `% EXPORT`."""

    def check(self, raw: PbnGame, resolved: PbnGame) -> list[Issue]:
        """Problems of one game: `raw` as written, `resolved` with inherited values filled in."""
        if any(e.strip().lstrip("%").strip().upper() == "EXPORT" for e in raw.escapes):
            self.export = True
        issues = _lines(raw)
        issues.extend(_names(raw))
        issues.extend(_values(resolved))
        issues.extend(check_sections(resolved, self.read))
        if self.export:
            issues.extend(_export_layout(raw))
        return issues



def _lines(game: PbnGame) -> list[Issue]:
    """Lines over 255 characters (with the line end) and characters outside ISO 8859-1."""
    issues: list[Issue] = []
    offset = 0
    for line in game.text.split("\n"):
        if len(line) > 254:
            issues.append(strict("pbn.line.length", f"This line has {len(line)} characters; PBN allows 255 "
                                 "including the line end.", at_offset(offset)))
        offset += len(line) + 1
    for match in _BAD_CHAR.finditer(game.text):
        issues.append(strict("pbn.char", f"Character U+{ord(match.group()):04X} is not allowed in PBN "
                             "(ISO 8859-1 printable characters, tab and line ends only).", at_offset(match.start())))
        if len(issues) > 50:
            break
    return issues


def _names(game: PbnGame) -> list[Issue]:
    """Unknown, lower-case and repeated tag names; tabs inside values."""
    issues: list[Issue] = []
    seen: set[str] = set()
    for i, (name, value, _) in enumerate(game.tags):
        if not name[0].isupper():
            issues.append(strict("pbn.tag.name", f"Tag name {name!r} must start with an upper-case letter.",
                                 at_tag(i)))
        elif name not in KNOWN_TAGS:
            # Legal PBN: a program skips tags it does not know (§4.9), "and perhaps shows a warning".
            issues.append(Issue("pbn.tag.unknown", f"Tag name {name!r} is not a PBN 2.1 tag; it was skipped.",
                                at_tag(i), None, WARNING))
        if name in seen and name != "Note":
            issues.append(strict("pbn.tag.duplicate", f"Tag {name} occurs twice in this game; the second one "
                                 "is ignored.", at_tag(i)))
        seen.add(name)
        if "\t" in value:
            issues.append(strict("pbn.string.tab", f"The value of {name} holds a tab; tabs are not allowed in "
                                 "strings.", at_value(i)))
    return issues


def _values(game: PbnGame) -> list[Issue]:
    """The syntax of every defined tag value ('' and '?' are always allowed)."""
    issues: list[Issue] = []
    done: set[str] = set()
    for i, (name, value, _) in enumerate(game.tags):
        if name in done or value in ("", "?") or i >= len(game.tags) - len(game.inherited):
            continue
        done.add(name)
        pattern = _PATTERNS.get(name)
        if name in _DATES and pattern is not None and pattern[0].fullmatch(value) is None:
            found, how = parse_date(value)
            if how == "drift":  # real programs write 2024-06-02 or a time after the date: read, and said
                issues.append(Issue("pbn.date.spelling", f"{name} {value!r} is not written YYYY.MM.DD; read as "
                                    f"{found}.", at_value(i), None, WARNING))
                continue
        if pattern is not None and pattern[0].fullmatch(value) is None:
            issues.append(strict(f"pbn.value.{name.lower()}", f"{name} {value!r} is not valid: expected "
                                 f"{pattern[1]}.", at_value(i)))
            continue
        check = _CHECKS.get(name)
        if check is not None:
            problem = check(value, game)
            if problem:
                issues.append(strict(f"pbn.value.{name.lower()}", f"{name} {value!r}: {problem}", at_value(i)))
    return issues


def _deal(value: str, game: PbnGame) -> str:
    parsed = parse_deal(value)
    if parsed.problem[0]:
        return parsed.problem[1]
    if parsed.drift:
        return "hands must be separated by single spaces and ranks written AKQJT98765432."
    if parsed.hands is not None and all(h is None for h in parsed.hands):
        return "no hand is given."
    return ""


def _result(value: str, game: PbnGame) -> str:
    numbers = [whole_number(n, high=13) for n in re.findall(r"\d+", value)]
    if any(n is None for n in numbers):
        return "a number of tricks is 0 to 13."
    if len(numbers) == 2 and sum(n or 0 for n in numbers) != 13:
        return "the tricks of NS and EW must add up to 13."
    return ""


def _scoring(value: str, game: PbnGame) -> str:
    unknown = [f for f in value.split(";") if f.strip().lower() not in SCORING_FIELDS]
    return f"{', '.join(repr(f) for f in unknown)} is not a scoring method or modifier." if unknown else ""


def _hidden(value: str, game: PbnGame) -> str:
    ok = set(value.upper()) <= set("WNES") and len(set(value.upper())) == len(value)
    return "" if ok else "give each of W, N, E, S at most once."


def _rubber_history(value: str, game: PbnGame) -> str:
    match = _RUBBER_HISTORY.fullmatch(value)
    if match is None:
        return "expected 'NS <above> <above>/<below...> EW <above> <above>/<below...>'."
    ns_below, ew_below = match.group(3).split(), match.group(6).split()
    if len(ns_below) != len(ew_below):
        return "NS and EW must list the same number of games."
    # Every listed game but the last is finished; a side that scored 100 below the line in one won it.
    ns_vul = any((whole_number(b) or 0) >= 100 or len(b) > 9 for b in ns_below[:-1])
    ew_vul = any((whole_number(b) or 0) >= 100 or len(b) > 9 for b in ew_below[:-1])
    expected = {(False, False): "None", (True, False): "NS", (False, True): "EW", (True, True): "All"}[ns_vul, ew_vul]
    vulnerable = (game.get("Vulnerable") or "").strip().upper()
    vulnerable = {"LOVE": "NONE", "-": "NONE", "BOTH": "ALL"}.get(vulnerable, vulnerable)
    if vulnerable and vulnerable != "?" and vulnerable != expected.upper():
        return f"the games won make the vulnerability {expected}, but Vulnerable says otherwise."
    return ""


_CHECKS: dict[str, Callable[[str, PbnGame], str]] = {
    "Deal": _deal, "Result": _result, "Scoring": _scoring, "Hidden": _hidden,
    "ScoreRubberHistory": _rubber_history,
}


def _export_layout(game: PbnGame) -> list[Issue]:
    """Export format: each tag pair alone and left-justified on its line as [Name "value"], no tabs."""
    issues: list[Issue] = []
    layout, text = game.layout, game.text
    for i, start in enumerate(layout.tag_starts):
        line_start = text.rfind("\n", 0, start) + 1
        line_end = text.find("\n", start)
        line = text[line_start:len(text) if line_end < 0 else line_end]
        if start != line_start or _EXPORT_TAG.fullmatch(line.rstrip()) is None:
            issues.append(strict("pbn.export.tag-line", "In export format a tag pair stands alone at the start of "
                                 "its line, written [Name \"value\"].", at_tag(i)))
    tab = text.find("\t")
    if tab >= 0:
        issues.append(strict("pbn.export.tab", "Tabs are not allowed in export format.", at_offset(tab)))
    for i, (name, _, section) in enumerate(game.tags[:len(layout.tag_starts)]):
        if name not in ("Auction", "Play"):
            continue
        offset = layout.section_starts[i]
        for line in section.split("\n"):
            words = [] if line.startswith("%") else [w for w in line.split(";")[0].split() if w[0] not in "=$!?^{"]
            if len(words) > 4:
                issues.append(strict("pbn.export.line", f"In export format an auction or play line holds at most "
                                     f"four {'calls' if name == 'Auction' else 'cards'}; this one has {len(words)}.",
                                     at_offset(offset)))
            offset += len(line) + 1
    return issues
