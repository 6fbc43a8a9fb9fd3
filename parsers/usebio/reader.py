"""USEBIO 1.0-1.3 reader (EBU/ABF XML results files): pairs, teams, travellers and hand records.

`loads(data)` returns a `ParsedFile` with a `ContestantRecord` per PAIR/TEAM, a `ResultRecord` per
TRAVELLER_LINE with a contract, an `ArtificialRecord` per artificial score (`A6040` ...), and a
`BoardRecord` per HANDSET board (or per traveller board when the file has no hands). It never
raises on bad input: problems are positioned diagnostics, and a line it cannot trust is left out.

Pair ids. `ns_id`/`ew_id` are the contestant ids of the PARTICIPANTS list (`1NS`, `1EW` in a
Mitchell, `7` in a Howell), so NS pair 1 and EW pair 1 of a Mitchell stay two contestants. A
traveller line usually writes the same text; when it writes a bare `1` in a two-field event the id
is completed to `1NS`/`1EW` from the side it sits (info diagnostic). Without a participants list
the traveller's text is kept as it is.

Table ids. ABF traveller lines name no table, so `table_id` is `TABLE_NUMBER` when given and
otherwise `<ns_id>-<ew_id>`, which is unique on a board (a pair meets a board once). In a team
MATCH it is `<round>-open` / `<round>-closed` (home team NS = open room).

Published values kept per line: `score_ns` (SCORE, or NS_SCORE / -EW_SCORE), `mp_ns`/`mp_ew`,
`imp_ns`/`imp_ew` (Butler points or match IMPs), `cross_imp_ns`/`cross_imp_ew`, `datum`
(BOARD_AVERAGE); an artificial line keeps its SCORE text (`A6040`) as `score`. Per contestant:
`total`, `percentage`, `rank` (text when tied, `3=`), `master_points`, `victory_points`.

An EVENT_TYPE this reader does not know refuses the file: an error diagnostic names the type and
the supported ones, and every record is quarantined (the metadata is kept), because results whose
scoring method is unknown must not be half-ingested.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

from models.cards import Card
from models.contract import Contract, TableResult
from models.diagnostics import Diagnostic, Severity
from models.events import ArtificialAward, Player
from parsers.numbers import whole_number
from parsers.records import (
    ArtificialRecord,
    BoardRecord,
    ContestantRecord,
    FileMetadata,
    ParsedFile,
    Position,
    PublishedValues,
    ResultRecord,
)
from parsers.usebio.hands import read_hand_record
from parsers.usebio.tree import Node, parse, to_bytes
from parsers.usebio.values import event_date, line_contract

PARSER_VERSION = "usebio-1.0.0"
"""Version of this reader, stored with every ingested file."""

SUPPORTED_EVENT_TYPES: tuple[str, ...] = (
    "MP_PAIRS", "BUTLER_PAIRS", "CROSS_IMP", "CROSS_IMPS", "IMP_PAIRS", "AGGREGATE", "SWISS_PAIRS",
    "SWISS_PAIRS_CROSS_IMPS", "SWISS_PAIRS_BUTLER_IMPS", "SWISS_TEAMS", "TEAMS_OF_FOUR", "INDIVIDUAL",
)
"""EVENT_TYPE values this reader knows how to read."""

logger = logging.getLogger(__name__)

_ERROR, _WARNING, _INFO = Severity.ERROR, Severity.WARNING, Severity.INFO
_LINE_VALUES = {
    "NS_MATCH_POINTS": "mp_ns", "EW_MATCH_POINTS": "mp_ew",
    "NS_BUTLER_POINTS": "imp_ns", "EW_BUTLER_POINTS": "imp_ew",
    "NS_IMPS": "imp_ns", "EW_IMPS": "imp_ew",
    "NS_CROSS_IMP_POINTS": "cross_imp_ns", "EW_CROSS_IMP_POINTS": "cross_imp_ew",
    "NS_PERCENTAGE": "pct_ns", "EW_PERCENTAGE": "pct_ew",
}
_CONTESTANT_VALUES = {"TOTAL_SCORE": "total", "PERCENTAGE": "percentage", "PLACE": "rank",
                      "TEAM_SCORE": "total", "MASTER_POINTS_AWARDED": "master_points",
                      "TEAM_VICTORY_POINTS": "victory_points"}
_ARTIFICIAL = re.compile(r"^A(\d{2})(\d{2})$")
_AWARDS: dict[int, ArtificialAward] = {60: "A+", 50: "A", 40: "A-"}


def load(path: str | Path, *, strict: bool = False) -> ParsedFile:
    """Read a USEBIO file from disk (see `loads`)."""
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        return _failed(str(path), "usebio.file.unreadable", f"the file cannot be read: {exc.strerror or exc}")
    return loads(data, source=str(path), strict=strict)


def loads(data: bytes | str, *, source: str = "<string>", strict: bool = False) -> ParsedFile:
    """Read USEBIO XML (bytes as stored, or text) into records and diagnostics."""
    try:
        return _read(data, source, strict)
    except Exception:  # a reader bug must not take the ingest down with it
        logger.exception("USEBIO reader failed on %s", source)
        return _failed(source, "usebio.reader.internal-error",
                       "the reader failed on this file (a bug, please report it); nothing was read from it")


def _read(data: bytes | str, source: str, strict: bool) -> ParsedFile:
    reader = _Reader(source, strict)
    raw, problem = to_bytes(data)
    if problem is not None:
        reader.report(_WARNING, f"usebio.encoding.{problem.code}", problem.message)
    root, problem = parse(raw)
    if problem is not None:
        reader.report(_ERROR, f"usebio.xml.{problem.code}", problem.message, line=problem.line,
                      column=problem.column)
    if root is not None:
        reader.read(root, truncated=problem is not None)
    parsed = reader.result()
    logger.debug("%s: %d results, %d diagnostics", source, len(parsed.results), len(parsed.diagnostics))
    return parsed


def _failed(source: str, code: str, message: str) -> ParsedFile:
    diagnostic = Diagnostic(source=source, line=0, column=0, severity=_ERROR, code=code, message=message)
    return ParsedFile(source=source, format="usebio", parser_version=PARSER_VERSION, diagnostics=(diagnostic,))


@dataclass(slots=True)
class _Scope:
    """Where a BOARD sits: session, section, and the team match around it."""

    section: str = ""
    round: int | None = None
    home: str | None = None
    away: str | None = None
    match: int = 0


@dataclass(slots=True)
class _Reader:
    source: str
    strict: bool
    diagnostics: list[Diagnostic] = field(default_factory=list)
    boards: dict[tuple[str, int], BoardRecord] = field(default_factory=dict)
    hand_boards: set[int] = field(default_factory=set)
    results: list[ResultRecord] = field(default_factory=list)
    artificial: list[ArtificialRecord] = field(default_factory=list)
    contestants: list[ContestantRecord] = field(default_factory=list)
    metadata: FileMetadata = field(default_factory=FileMetadata)
    quarantined: int = 0
    refused: bool = False
    two_field: bool = True
    _records: int = 0
    _failed: set[int] = field(default_factory=set)
    _completed_ids: bool = False
    _known_ids: set[str] = field(default_factory=set)

    # -- diagnostics --------------------------------------------------------------------------------

    def report(self, severity: Severity, code: str, message: str, *, node: Node | None = None,
               line: int = 0, column: int = 0, record: int | None = None) -> None:
        if self.strict:
            severity = _ERROR
        if node is not None:
            line, column = node.line, node.column
        self.diagnostics.append(Diagnostic(source=self.source, line=line, column=column, severity=severity,
                                           code=code, message=message, record=record))
        if severity is _ERROR and record is not None:
            self._failed.add(record)

    def _next_record(self) -> int:
        self._records += 1
        return self._records - 1

    def _keep(self, record: int, node: Node) -> bool:
        """A record is kept when its element is complete and no error was reported against it."""
        if not node.closed:
            self.report(_ERROR, "usebio.xml.incomplete-record",
                        f"this {node.tag} is cut off by the end of the readable XML; it is left out",
                        node=node, record=record)
        if record in self._failed:
            self.quarantined += 1
            return False
        return True

    def result(self) -> ParsedFile:
        if self.refused:
            self.quarantined += len(self.boards) + len(self.results) + len(self.artificial) + len(self.contestants)
            self.boards, self.results, self.artificial, self.contestants = {}, [], [], []
        boards = tuple(sorted(self.boards.values(), key=lambda b: (b.section, b.board)))
        return ParsedFile(source=self.source, format="usebio", parser_version=PARSER_VERSION,
                          metadata=self.metadata, boards=boards, results=tuple(self.results),
                          artificial=tuple(self.artificial), contestants=tuple(self.contestants),
                          diagnostics=tuple(self.diagnostics), quarantined=self.quarantined)

    # -- structure ----------------------------------------------------------------------------------

    def read(self, root: Node, truncated: bool) -> None:
        if root.tag != "USEBIO":
            self.report(_WARNING, "usebio.xml.not-usebio",
                        f"the root element is {root.tag}, not USEBIO; reading it anyway", node=root)
        events = root.find_all("EVENT")
        if not events and not truncated:
            self.report(_ERROR, "usebio.event.missing", "the file has no EVENT element", node=root)
        for index, event in enumerate(events):
            self._event(root, event, first=index == 0)
        for handset in root.descendants("HANDSET"):
            for board in handset.find_all("BOARD"):
                self._hand_record(board)

    def _event(self, root: Node, event: Node, first: bool) -> None:
        event_type = self._event_type(event)
        participants = event.descendants("PARTICIPANTS")
        self.two_field = self._two_field(event, participants)
        if first:
            self.metadata = self._metadata(root, event, event_type)
        for block in participants:
            self._participants(block)
        self._walk(event, _Scope())

    def _event_type(self, event: Node) -> str | None:
        event_type = event.get("EVENT_TYPE")
        if not event_type:
            self.report(_WARNING, "usebio.event.no-type", "the EVENT gives no EVENT_TYPE; scoring is unknown",
                        node=event)
            return None
        if event_type.upper() not in SUPPORTED_EVENT_TYPES:
            self.refused = True
            self.report(_ERROR, "usebio.event.unsupported-type",
                        f"event type {event_type!r} is not supported, so nothing in this file is taken: "
                        f"its results cannot be scored as the file intends. Supported types are "
                        f"{', '.join(SUPPORTED_EVENT_TYPES)}", node=event)
        return event_type

    def _two_field(self, event: Node, participants: list[Node]) -> bool:
        winner_type = event.get("WINNER_TYPE")
        if winner_type in ("1", "2"):
            return winner_type == "2"
        ids = [pair.get("PAIR_NUMBER") or "" for block in participants for pair in block.find_all("PAIR")]
        return not ids or not all(whole_number(text) is not None for text in ids)

    def _metadata(self, root: Node, event: Node, event_type: str | None) -> FileMetadata:
        club = root.find("CLUB")
        site = event.get("VENUE") or (club.get("CLUB_NAME") if club is not None else None) or None
        program = " ".join(filter(None, (event.get("PROGRAM_NAME"), event.get("PROGRAM_VERSION"))))
        sessions = event.descendants("SESSION")
        return FileMetadata(
            event_name=event.get("EVENT_DESCRIPTION") or event.get("TITLE") or None,
            event_id=event.get("EVENT_IDENTIFIER") or None,
            session_id=(sessions[0].get("SESSION_ID") or None) if len(sessions) == 1 else None,
            event_date=self._date(event), site=site, scoring=event_type,
            field_layout="two_field" if self.two_field else "one_field", program=program or None)

    def _date(self, event: Node) -> date | None:
        text = event.get("DATE")
        if not text:
            return None
        found = event_date(text)
        if found is not None:
            return found
        node = event.find("DATE")
        self.report(_WARNING, "usebio.event.bad-date",
                    f"date {text!r} is not a date like 11/07/2022; the event date is left unknown", node=node or event)
        return None

    def _walk(self, node: Node, scope: _Scope) -> None:
        """Visit SESSION/SECTION/MATCH nesting down to the BOARDs with traveller lines."""
        for child in node.children:
            if child.tag == "BOARD":
                self._traveller(child, scope)
            elif child.tag == "SECTION":
                name = child.get("SECTION_ID") or child.get("SECTION_NAME") or child.get("SECTION_LETTER") or ""
                self._walk(child, _Scope(name, scope.round, scope.home, scope.away, scope.match))
            elif child.tag == "SESSION":
                self._walk(child, scope)
            elif child.tag == "MATCH":
                round_text = child.get("ROUND_NUMBER") or ""
                self._walk(child, _Scope(scope.section, whole_number(round_text),
                                         child.get("TEAM") or child.get("TEAM_NUMBER") or child.get("TEAM_ID"),
                                         child.get("OPPOSING_TEAM"), scope.match + 1))

    # -- participants -------------------------------------------------------------------------------

    def _participants(self, block: Node) -> None:
        for child in block.children:
            if child.tag == "PAIR":
                self._contestant(child, "pair", child.get("PAIR_NUMBER"))
            elif child.tag == "TEAM":
                self._contestant(child, "team", child.get("TEAM_ID") or child.get("TEAM_NUMBER")
                                 or child.get("TEAM_NAME"))
            elif child.tag == "PLAYER":
                self._contestant(child, "individual", child.get("PLAYER_NUMBER"))

    def _contestant(self, node: Node, kind: str, contestant_id: str | None) -> None:
        record = self._next_record()
        if not contestant_id:
            self.report(_ERROR, "usebio.participant.no-number", f"this {node.tag} has no number; it is left out",
                        node=node, record=record)
        players = tuple(self._player(p) for p in node.descendants("PLAYER")) if kind != "individual" \
            else (self._player(node),)
        published: PublishedValues = {}
        for element, key in _CONTESTANT_VALUES.items():
            self._number(node, element, key, published, record)
        direction = (node.get("DIRECTION") or "").upper().replace("-", "") or None
        if direction not in (None, "NS", "EW"):
            self.report(_WARNING, "usebio.participant.bad-direction",
                        f"direction {direction!r} is neither NS nor EW", node=node, record=record)
            direction = None
        name = node.get("TEAM_NAME") if kind == "team" else " & ".join(p.name for p in players if p.name)
        if self._keep(record, node) and contestant_id:
            self.contestants.append(ContestantRecord(
                contestant_id=contestant_id, kind=kind, direction=direction, name=name or None, players=players,
                published=published, at=Position(record=record, line=node.line)))

    def _player(self, node: Node) -> Player:
        number = node.get("NATIONAL_ID_NUMBER") or ""
        # Compscore writes 0 for people without a number (the DIRECTOR filling in).
        return Player(name=node.get("PLAYER_NAME") or "", federation_id=number if number.strip("0") else None)

    def _number(self, node: Node, element: str, key: str, into: PublishedValues, record: int | None) -> None:
        text = node.get(element)
        if not text:
            return
        try:
            into[key] = float(text.replace(",", "."))
        except ValueError:
            if key == "rank":
                into[key] = text  # tied places are written "3=" and stay text
                return
            self.report(_WARNING, "usebio.value.not-a-number", f"{element} {text!r} is not a number; not kept",
                        node=node.find(element) or node, record=record)

    # -- travellers ---------------------------------------------------------------------------------

    def _traveller(self, board_node: Node, scope: _Scope) -> None:
        number = self._board_number(board_node)
        if number is None:
            return
        if (scope.section, number) not in self.boards and number not in self.hand_boards:
            self.boards[scope.section, number] = BoardRecord(
                board=number, section=scope.section, at=Position(record=self._next_record(), line=board_node.line))
        datum: PublishedValues = {}
        self._number(board_node, "BOARD_AVERAGE", "datum", datum, None)
        for index, line in enumerate(board_node.find_all("TRAVELLER_LINE")):
            self._traveller_line(line, number, scope, index, datum)

    def _board_number(self, node: Node) -> int | None:
        text = node.get("BOARD_NUMBER") or ""
        number = whole_number(text, low=1)
        if number is not None:
            return number
        record = self._next_record()
        self.report(_ERROR, "usebio.board.bad-number",
                    f"board number {text!r} is not a positive number; this board's lines are left out",
                    node=node, record=record)
        self.quarantined += 1 + len(node.find_all("TRAVELLER_LINE"))
        return None

    def _traveller_line(self, line: Node, board: int, scope: _Scope, index: int, datum: PublishedValues) -> None:
        record = self._next_record()
        ns_id, ew_id, room = self._sides(line, scope, index, record)
        table = line.get("TABLE_NUMBER") or line.get("TABLE") or (
            f"{scope.round or scope.match}-{room}" if room else f"{ns_id}-{ew_id}")
        published: PublishedValues = dict(datum)
        for element, key in _LINE_VALUES.items():
            self._number(line, element, key, published, record)
        score = line.get("SCORE") or ""
        artificial = _ARTIFICIAL.match(score.upper())
        if artificial is not None:
            self._artificial(line, record, board, scope, table, ns_id, ew_id, artificial, published)
            return
        self._score(line, score, published, record)
        contract = self._contract(line, record)
        tricks = None if contract is None else self._tricks(line, contract, record)
        lead = self._lead(line, record)
        if not self._keep(record, line) or contract is None:
            return
        at = Position(record=record, line=line.line)
        self.results.append(ResultRecord(board=board, section=scope.section, table_id=table, round=scope.round,
                                         room=room, ns_id=ns_id, ew_id=ew_id, contract=contract, tricks=tricks,
                                         lead=lead, published=published, at=at))

    def _sides(self, line: Node, scope: _Scope, index: int, record: int) -> tuple[str, str, str | None]:
        ns, ew = line.get("NS_PAIR_NUMBER") or "", line.get("EW_PAIR_NUMBER") or ""
        if scope.home is not None and not (ns and ew):
            home_ns = (line.get("DIRECTION") or ("NS" if index % 2 == 0 else "EW")).upper().replace("-", "") == "NS"
            away = scope.away or ""
            ns, ew = (scope.home, away) if home_ns else (away, scope.home)
            return ns, ew, "open" if home_ns else "closed"
        if not ns or not ew:
            self.report(_ERROR, "usebio.traveller.no-pair",
                        "this traveller line does not say which pairs played it (NS_PAIR_NUMBER/EW_PAIR_NUMBER)",
                        node=line, record=record)
        return self._contestant_id(ns, "NS", line, record), self._contestant_id(ew, "EW", line, record), None

    def _contestant_id(self, text: str, side: str, line: Node, record: int) -> str:
        known = self._known_ids
        if len(known) != len(self.contestants):
            known = self._known_ids = {c.contestant_id for c in self.contestants}
        if not known or text in known:
            return text
        completed = f"{text}{side}"
        if self.two_field and completed in known:
            if not self._completed_ids:
                self._completed_ids = True
                self.report(_INFO, "usebio.traveller.pair-number-completed",
                            f"traveller lines write bare pair numbers ({text}); they are read as the participants' "
                            f"{completed}-style numbers so NS and EW pairs stay apart", node=line, record=record)
            return completed
        self.report(_WARNING, "usebio.traveller.unknown-pair",
                    f"{side} pair {text!r} is not in the participants list", node=line, record=record)
        return text

    def _artificial(self, line: Node, record: int, board: int, scope: _Scope, table: str, ns_id: str,
                    ew_id: str, match: re.Match[str], published: PublishedValues) -> None:
        if line.get("CONTRACT"):
            self.report(_WARNING, "usebio.traveller.artificial-with-contract",
                        f"artificial score {match.group(0)} comes with contract {line.get('CONTRACT')!r}; "
                        "the contract is ignored", node=line, record=record)
        published["score"] = match.group(0)
        if not self._keep(record, line):
            return
        ns_pct, ew_pct = int(match.group(1)), int(match.group(2))
        self.artificial.append(ArtificialRecord(
            board=board, section=scope.section, table_id=table, round=scope.round, ns_id=ns_id, ew_id=ew_id,
            ns_award=_AWARDS.get(ns_pct, float(ns_pct)), ew_award=_AWARDS.get(ew_pct, float(ew_pct)),
            published=published, at=Position(record=record, line=line.line)))

    def _score(self, line: Node, score: str, published: PublishedValues, record: int) -> None:
        ns_score, ew_score = line.get("NS_SCORE") or "", line.get("EW_SCORE") or ""
        text, sign = (score, 1) if score else (ns_score, 1) if ns_score else (ew_score, -1)
        if not text:
            return
        try:
            published["score_ns"] = sign * float(text)
        except ValueError:
            self.report(_WARNING, "usebio.traveller.bad-score", f"score {text!r} is not a number; not kept",
                        node=line, record=record)

    def _contract(self, line: Node, record: int) -> Contract | None:
        text = line.get("CONTRACT") or ""
        if not text:
            self.report(_ERROR, "usebio.traveller.no-contract",
                        "this traveller line has neither a contract nor an artificial score; it is left out",
                        node=line, record=record)
            return None
        try:
            return line_contract(text, line.get("PLAYED_BY") or "")
        except ValueError as exc:
            self.report(_ERROR, "usebio.traveller.bad-contract", f"{exc}; the line is left out",
                        node=line.find("CONTRACT") or line, record=record)
            return None

    def _tricks(self, line: Node, contract: Contract, record: int) -> int | None:
        text = line.get("TRICKS") or ""
        if contract.is_passed_out:
            if text not in ("", "0"):
                self.report(_WARNING, "usebio.traveller.tricks-on-pass-out",
                            f"a passed-out board records {text} tricks; ignored", node=line, record=record)
            return None
        result = line.get("RESULT") or ""
        try:
            tricks = whole_number(text, high=13) if text else \
                TableResult.tricks_from_result(contract.level, result) if result else None
        except ValueError:
            tricks = None
        if tricks is None or not 0 <= tricks <= 13:
            self.report(_ERROR, "usebio.traveller.bad-tricks",
                        f"tricks {text or result!r} is not a number of tricks 0-13; the line is left out",
                        node=line.find("TRICKS") or line, record=record)
            return None
        return tricks

    def _lead(self, line: Node, record: int) -> Card | None:
        text = line.get("LEAD") or ""
        if not text:
            return None
        try:
            return Card.parse(text)
        except ValueError as exc:
            self.report(_WARNING, "usebio.traveller.bad-lead", f"{exc}; the lead is left out",
                        node=line.find("LEAD") or line, record=record)
            return None

    # -- hand records -------------------------------------------------------------------------------

    def _hand_record(self, node: Node) -> None:
        record = self._next_record()
        hand_record = read_hand_record(node)
        for finding in hand_record.findings:
            self.report(finding.severity, finding.code, finding.message, node=finding.node, record=record)
        if not self._keep(record, node) or hand_record.number is None:
            return
        number = hand_record.number
        self.hand_boards.add(number)
        for key in [k for k in self.boards if k[1] == number]:
            del self.boards[key]
        self.boards["", number] = BoardRecord(board=number, dealer=hand_record.dealer,
                                              vulnerability=hand_record.vulnerability, deal=hand_record.deal,
                                              at=Position(record=record, line=node.line))
