"""Ingest: a file's records become events, appended in one transaction.

The file's SHA-256 is the idempotency key: `SourceFileIngested` lives in the stream
`source:<sha256>` at version 1, so the same bytes can never be appended twice, not even by two
processes racing each other (the UNIQUE key refuses the second).
"""

from __future__ import annotations

import hashlib
import importlib
import logging
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Literal

from models.board import law2_dealer, law2_vulnerability
from models.diagnostics import Diagnostic, Severity
from models.events import (
    ContestantRegistered,
    Player,
    SessionScheduled,
    SourceFileIngested,
    TournamentRegistered,
    event_payload,
    session_stream,
)
from parsers.records import ArtificialRecord, BoardRecord, ParsedFile, ResultRecord
from pipelines.store import ConcurrencyError, EventStore, NewEvent

log = logging.getLogger(__name__)

READERS: dict[str, str] = {
    ".csv": "parsers.csv_traveller",
    ".pbn": "parsers.pbn",
    ".lin": "parsers.lin",
    ".xml": "parsers.usebio",
}
"""File extension -> reader module (each has `loads(data, source=...) -> ParsedFile`)."""


class IngestRejected(Exception):
    """A file was refused as a whole (strict mode with errors, or an unreadable format)."""

    def __init__(self, source: str, diagnostics: Sequence[Diagnostic]) -> None:
        errors = [d for d in diagnostics if d.severity is Severity.ERROR]
        shown = "\n".join(f"  {d}" for d in errors[:20])
        more = f"\n  ... and {len(errors) - 20} more" if len(errors) > 20 else ""
        super().__init__(f"{source}: {len(errors)} error(s); nothing was appended\n{shown}{more}")
        self.source = source
        self.diagnostics = tuple(diagnostics)


@dataclass(frozen=True)
class IngestOptions:
    """How to ingest: strictness, and names for what the file does not name itself."""

    strict: bool = False
    event_id: str | None = None
    session_id: str | None = None
    occurred_at: datetime | None = None  # when the facts happened; defaults to recorded_at


@dataclass(frozen=True)
class IngestReport:
    """What ingesting one file did."""

    source: str
    sha256: str
    already_ingested: bool
    events: int
    counts: dict[str, int] = field(default_factory=dict)
    diagnostics: tuple[Diagnostic, ...] = ()
    quarantined: int = 0
    event_id: str | None = None
    session_id: str | None = None


def sha256_of(data: bytes) -> str:
    """Hex SHA-256 of a file's bytes."""
    return hashlib.sha256(data).hexdigest()


def source_stream(sha256: str) -> str:
    """The stream that records a file's ingestion (one event, version 1)."""
    return f"source:{sha256}"


def parse_bytes(data: bytes, source: str, *, strict: bool = False) -> ParsedFile:
    """Pick the reader by extension and read; an unknown format is a diagnostic, not a crash.

    In strict mode a reader reports every departure from its standard as an error.
    """
    suffix = Path(source).suffix.lower()
    module_name = READERS.get(suffix)
    if module_name is None:
        return _unreadable(source, f"unknown file type {suffix or '(none)'}; expected one of "
                           f"{', '.join(sorted(READERS))}")
    try:
        loads = getattr(importlib.import_module(module_name), "loads", None)
    except ModuleNotFoundError:
        loads = None
    if loads is None:
        return _unreadable(source, f"no reader for {suffix} files is installed in this version")
    parsed: ParsedFile = loads(data, source=source, strict=strict)
    return parsed


def ingest_file(store: EventStore, path: str | Path, *, recorded_at: datetime,
                options: IngestOptions = IngestOptions()) -> IngestReport:
    """Read, validate and append one file in one transaction; a second time is a no-op."""
    path = Path(path)
    data = path.read_bytes()
    return ingest_bytes(store, data, source=path.name, recorded_at=recorded_at, options=options)


def ingest_bytes(store: EventStore, data: bytes, *, source: str, recorded_at: datetime,
                 options: IngestOptions = IngestOptions()) -> IngestReport:
    """Ingest already-read bytes named `source` (see `ingest_file`)."""
    sha = sha256_of(data)
    if store.stream_version(source_stream(sha)) > 0:
        log.info("%s already ingested (sha256 %s); nothing to do", source, sha[:12])
        return IngestReport(source, sha, True, 0)
    parsed = parse_bytes(data, source, strict=options.strict)
    if parsed.errors and (options.strict or not _has_records(parsed)):
        raise IngestRejected(source, parsed.diagnostics)
    event_id, session_id = _names(parsed, options, source)
    occurred_at = options.occurred_at or recorded_at
    facts = list(_facts(store, parsed, event_id, session_id, sha, occurred_at))
    counts = _count(facts)
    ingested = SourceFileIngested(sha256=sha, name=source, format=parsed.format,
                                  parser_version=parsed.parser_version, counts=counts,
                                  diagnostics=parsed.diagnostics, quarantined=parsed.quarantined)
    facts.append(NewEvent(source_stream(sha), ingested.type, event_payload(ingested), occurred_at))
    try:
        store.append(facts, recorded_at=recorded_at, source_sha256=sha,
                     expected_versions={source_stream(sha): 0})
    except ConcurrencyError:
        if store.stream_version(source_stream(sha)) > 0:
            return IngestReport(source, sha, True, 0)
        raise
    log.info("%s: %d events appended (%d quarantined)", source, len(facts), parsed.quarantined)
    return IngestReport(source, sha, False, len(facts), counts, parsed.diagnostics, parsed.quarantined,
                        event_id, session_id)


def _unreadable(source: str, message: str) -> ParsedFile:
    diagnostic = Diagnostic(source=source, line=0, column=0, severity=Severity.ERROR,
                            code="ingest.format", message=message)
    return ParsedFile(source=source, format="unknown", parser_version="-", diagnostics=(diagnostic,))


def _has_records(parsed: ParsedFile) -> bool:
    return bool(parsed.boards or parsed.results or parsed.artificial)


def slug(text: str) -> str:
    """A stable id from a name: lower case, words joined by hyphens."""
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "event"


def _names(parsed: ParsedFile, options: IngestOptions, source: str) -> tuple[str, str]:
    meta = parsed.metadata
    event_id = options.event_id or meta.event_id or (slug(meta.event_name) if meta.event_name else None)
    event_id = event_id or slug(Path(source).stem)
    session_id = options.session_id or meta.session_id or "1"
    return event_id, session_id


def _facts(store: EventStore, parsed: ParsedFile, event_id: str, session_id: str, sha: str,
           occurred_at: datetime) -> Iterable[NewEvent]:
    stream = session_stream(event_id, session_id)

    def new(event: Any, stream_id: str = stream) -> NewEvent:
        return NewEvent(stream_id, event.type, event_payload(event), occurred_at)

    meta = parsed.metadata
    tournament = f"tournament:{event_id}"
    if store.stream_version(tournament) == 0:
        yield new(TournamentRegistered(event_id=event_id, name=meta.event_name or event_id,
                                       start_date=meta.event_date, end_date=meta.event_date,
                                       organiser=meta.site,
                                       conditions=_stated_conditions(meta.scoring, meta.program)),
                  tournament)
    if not store.read(types=["SessionScheduled"], stream_id=stream):
        yield new(SessionScheduled(event_id=event_id, session_id=session_id, session_date=meta.event_date,
                                   scoring=scoring_method(meta.scoring, parsed),
                                   field_layout=_layout(meta.field_layout),
                                   title=meta.event_name))
    layout = _layout(meta.field_layout)
    yield from (new(e) for e in _contestants(parsed, event_id, session_id, layout))
    for board in parsed.boards:
        yield NewEvent(stream, "BoardDealt", board_payload(board, event_id, session_id), occurred_at)
    for result in parsed.results:
        yield NewEvent(stream, "ResultRecorded", result_payload(result, event_id, session_id, sha), occurred_at)
    for award in parsed.artificial:
        yield NewEvent(stream, "ArtificialScoreAwarded", artificial_payload(award, event_id, session_id, sha),
                       occurred_at)


def _stated_conditions(tag: str | None, program: str | None) -> dict[str, Any]:
    """What the file says of its own scoring, kept verbatim; replay turns it into conditions."""
    stated = {"scoring_tag": tag, "program": program}
    return {key: value for key, value in stated.items() if value}


def scoring_method(tag: str | None, parsed: ParsedFile) -> str:
    """The session's scoring method from what the file says of itself (MP when it says nothing)."""
    text = (tag or "").lower()
    if "butler" in text:
        return "BUTLER"
    if "cross" in text:
        return "CROSS_IMP"
    teams = any(r.room for r in parsed.results) or any(c.kind == "team" for c in parsed.contestants)
    if "imp" in text or text in ("i", "b"):
        return "IMP_TEAMS" if teams else "CROSS_IMP"
    if "total" in text:
        return "TOTAL"
    return "IMP_TEAMS" if teams and not text else "MP"


def _layout(hint: str | None) -> Literal["two_field", "one_field"]:
    return "one_field" if hint == "one_field" else "two_field"


def _kind(kind: str) -> Literal["pair", "team", "individual"]:
    return "team" if kind == "team" else "individual" if kind == "individual" else "pair"


def _direction(direction: str | None) -> Literal["NS", "EW"] | None:
    return "NS" if direction == "NS" else "EW" if direction == "EW" else None


def _room(room: str | None) -> Literal["open", "closed"] | None:
    return "open" if room == "open" else "closed" if room == "closed" else None


def _contestants(parsed: ParsedFile, event_id: str, session_id: str,
                 layout: str) -> Iterable[ContestantRegistered]:
    """Registered contestants, plus any id that only the results name.

    In a two-field movement NS pair 1 and EW pair 1 are different pairs, so the direction is part
    of a contestant's identity there; in a one-field movement a pair sits both ways.
    """
    known: set[tuple[str, str, str | None]] = set()
    for c in parsed.contestants:
        known.add((c.section, c.contestant_id, c.direction if layout == "two_field" else None))
        yield ContestantRegistered(
            event_id=event_id, session_id=session_id, contestant_id=c.contestant_id,
            kind=_kind(c.kind), section=c.section, direction=_direction(c.direction),
            name=c.name, players=c.players,
        )
    rows: list[ResultRecord | ArtificialRecord] = [*parsed.results, *parsed.artificial]
    for row in rows:
        team = isinstance(row, ResultRecord) and row.room is not None
        for cid, direction, players in _seats(row):
            fixed = direction if layout == "two_field" and not team else None
            if (row.section, cid, fixed) in known or (row.section, cid, None) in known:
                continue
            known.add((row.section, cid, fixed))
            yield ContestantRegistered(event_id=event_id, session_id=session_id, contestant_id=cid,
                                       kind="team" if team else "pair", section=row.section,
                                       direction=_direction(fixed), players=players)


def _seats(row: ResultRecord | ArtificialRecord) -> list[tuple[str, str, tuple[Player, ...]]]:
    ns_players = row.ns_players if isinstance(row, ResultRecord) else ()
    ew_players = row.ew_players if isinstance(row, ResultRecord) else ()
    return [(row.ns_id, "NS", ns_players), (row.ew_id, "EW", ew_players)]


def result_payload(r: ResultRecord, event_id: str, session_id: str, sha: str) -> dict[str, Any]:
    """The `ResultRecorded` payload of a record, built directly: the record is already validated,
    and this is the hot path of a large file (tests validate these payloads against the catalogue)."""
    c = r.contract
    return {
        "event_id": event_id, "session_id": session_id, "section": r.section, "board": r.board,
        "table_id": r.table_id, "round": r.round, "room": _room(r.room), "ns_id": r.ns_id, "ew_id": r.ew_id,
        "contract": str(c), "declarer": c.declarer.value if c.declarer else None,
        "tricks": None if c.is_passed_out else r.tricks, "lead": str(r.lead) if r.lead else None,
        "auction": list(r.auction), "play": [str(card) for card in r.play], "published": dict(r.published),
        "source": {"sha256": sha, "record": r.at.record, "line": r.at.line},
    }


def artificial_payload(a: ArtificialRecord, event_id: str, session_id: str, sha: str) -> dict[str, Any]:
    """The `ArtificialScoreAwarded` payload of a record (see `result_payload`)."""
    return {
        "event_id": event_id, "session_id": session_id, "section": a.section, "board": a.board,
        "table_id": a.table_id, "ns_id": a.ns_id, "ew_id": a.ew_id, "ns_award": a.ns_award,
        "ew_award": a.ew_award, "reason": None, "director": None, "requested_at": None,
        "published": dict(a.published), "source": {"sha256": sha, "record": a.at.record, "line": a.at.line},
    }


def board_payload(b: BoardRecord, event_id: str, session_id: str) -> dict[str, Any]:
    """The `BoardDealt` payload of a hand record; dealer and vulnerability by Law 2 when unmarked."""
    return {
        "event_id": event_id, "session_id": session_id, "section": b.section, "board": b.board,
        "dealer": (b.dealer or law2_dealer(b.board)).value,
        "vulnerability": (b.vulnerability or law2_vulnerability(b.board)).value,
        "deal": b.deal.to_pbn() if b.deal else None,
    }


def _count(events: Sequence[NewEvent]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for event in events:
        counts[event.type] = counts.get(event.type, 0) + 1
    return dict(sorted(counts.items()))
