"""The clause of PBN 2.1 (`../shared/specs/pbn_v21.txt`) each strict-mode finding enforces.

Strict mode means the standard, not stricter: every finding it turns into an error names the
clause it breaks, so that a club scorer (or the program's author) can read the rule, and a test
holds every strict refusal to having one. Codes map by their longest known prefix.
"""

from __future__ import annotations

STANDARD = "PBN 2.1"

_TAG_CLAUSES = {
    "event": "3.4.1", "site": "3.4.2", "date": "3.4.3", "board": "3.4.4", "west": "3.4.5", "north": "3.4.6",
    "east": "3.4.7", "south": "3.4.8", "dealer": "3.4.9", "vulnerable": "3.4.10", "deal": "3.4.11",
    "scoring": "3.4.12", "declarer": "3.4.13", "contract": "3.4.14", "result": "3.4.15",
    "competition": "4.1.1", "frenchmp": "4.1.4", "room": "4.1.7", "score": "4.2.1", "scoreimp": "4.2.2",
    "scoremp": "4.2.3", "scorepercentage": "4.2.4", "scorerubber": "4.2.5", "scorerubberhistory": "4.2.6",
    "optimumscore": "4.2", "westtype": "4.3.4", "northtype": "4.3.4", "easttype": "4.3.4", "southtype": "4.3.4",
    "eventdate": "4.4.1", "round": "4.4.4", "section": "4.4.5", "table": "4.4.7", "time": "4.5.1",
    "utcdate": "4.5.2", "utctime": "4.5.3", "timecontrol": "4.6.1", "timecall": "4.6.2", "timecard": "4.6.3",
    "mode": "4.7.4",
}

_CLAUSES = {
    "pbn.char": "2.2", "pbn.line.length": "2.3", "pbn.export": "2.1", "pbn.syntax.comment": "3.8",
    "pbn.syntax.stray-text": "3.2", "pbn.syntax.tag": "3.3", "pbn.string.tab": "3.2", "pbn.tag.unknown": "4.9",
    "pbn.tag.name": "3.3", "pbn.tag.duplicate": "3.5.5", "pbn.section": "3.1", "pbn.board": "3.4.4",
    "pbn.date": "3.4.3", "pbn.dealer": "3.4.9", "pbn.vulnerable": "3.4.10", "pbn.deal": "3.4.11",
    "pbn.declarer": "3.4.13", "pbn.contract": "3.4.14", "pbn.result": "3.4.15", "pbn.pass": "3.4.13",
    "pbn.result.declarer": "3.4.13", "pbn.result.play": "3.6", "pbn.contract.auction": "3.5",
    "pbn.contract.from-auction": "3.5", "pbn.auction": "3.5", "pbn.auction.spelling": "3.5.1",
    "pbn.auction.call": "3.5.1", "pbn.play.spelling": "3.6.1", "pbn.play.card": "3.6.1",
    "pbn.auction.irregularity": "3.9",
    "pbn.annotation": "3.5.2", "pbn.nag": "3.7", "pbn.note": "3.5.5", "pbn.play": "3.6",
    "pbn.play.irregularity": "3.9", "pbn.irregularity": "3.9", "pbn.inherit": "4.8", "pbn.score": "4.2",
    "pbn.table": "5.2", "pbn.scoretable": "5.9",
    # Values of tags the standard does not define (legal, §4.9) that cannot be read, or contradict.
    "pbn.double-dummy": "4.9", "pbn.par": "4.9",
}


def clause(code: str) -> str | None:
    """The clause a finding's code enforces, e.g. `pbn.value.dealer` -> "PBN 2.1 §3.4.9"; None for
    findings that are not about the standard (an unreadable file, a reader bug)."""
    if code.startswith("pbn.value."):
        found = _TAG_CLAUSES.get(code.removeprefix("pbn.value."))
        return f"{STANDARD} §{found or '3.4'}"
    parts = code.split(".")
    for end in range(len(parts), 1, -1):
        found = _CLAUSES.get(".".join(parts[:end]))
        if found is not None:
            return f"{STANDARD} §{found}"
    return None


def with_clause(code: str, message: str) -> str:
    """The message with the clause its code enforces, when there is one."""
    found = clause(code)
    return message if found is None or found in message else f"{message} ({found})"
