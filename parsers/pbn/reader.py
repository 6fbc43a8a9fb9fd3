"""PBN 2.1 reader: text in, format-neutral records and positioned diagnostics out.

    parsed = parsers.pbn.load("session.pbn")            # lenient: keep going, quarantine bad boards
    report = parsers.pbn.loads(text, strict=True)       # strict: every violation of PBN 2.1 is an error
    for game in parsers.pbn.iter_games(text): ...       # the low-level games (what the writer writes)

Reading never raises on bad input. Each problem becomes a `Diagnostic` with file, line, column,
severity and a stable code. In lenient mode, spelling drift is normalised with an info or warning
note (repeated notes of one kind are reported once, with a count) and a board or result that cannot
be trusted is left out with an error. Strict mode additionally checks every rule of the standard
(used by the `check` command); a game with an error in strict mode contributes no records.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator
from datetime import date
from pathlib import Path

from models.diagnostics import Diagnostic, Severity
from parsers.bridge.auction import judge_sections
from parsers.bridge.play import PlaySection, read_plays
from parsers.pbn.clauses import with_clause
from parsers.pbn.encoding import decode
from parsers.pbn.games import PbnGame, parse_call_section, read_games
from parsers.pbn.inheritance import Inheritance, resolve
from parsers.pbn.issues import Issue
from parsers.pbn.records import Builder, GameRecords
from parsers.pbn.results import Tags, cards_section
from parsers.pbn.sections import play_section_of
from parsers.pbn.validate import Validator
from parsers.records import ArtificialRecord, BoardRecord, ContestantRecord, FileMetadata, ParsedFile, ResultRecord

__all__ = ["PARSER_VERSION", "iter_games", "load", "loads", "program_name"]

PARSER_VERSION = "pbn-1.0"
"""Version of this reader, stored with every ingested file."""

logger = logging.getLogger(__name__)
_META = re.compile(r'<META\s+name=(\S+)\s+content="([^"]*)"', re.IGNORECASE)
_MAX_PER_GAME = 200


def iter_games(text: str | bytes, *, resolve_inheritance: bool = False) -> Iterator[PbnGame]:
    """The games of a PBN text, one at a time, with tags in file order and their positions.

    With `resolve_inheritance`, `#` and `##` values are replaced by the values they stand for.
    """
    games = (item for item in read_games(decode(text).text) if isinstance(item, PbnGame))
    yield from resolve(games) if resolve_inheritance else games


def load(path: str | Path, *, strict: bool = False) -> ParsedFile:
    """Read a PBN file; the source name in diagnostics is the file's name."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        diagnostic = Diagnostic(source=path.name, line=0, column=0, severity=Severity.ERROR,
                                code="pbn.file.unreadable", message=f"The file cannot be read: {exc.strerror}.")
        return ParsedFile(source=path.name, format="pbn", parser_version=PARSER_VERSION, diagnostics=(diagnostic,))
    return loads(data, source=path.name, strict=strict)


def loads(data: str | bytes, *, source: str = "<string>", strict: bool = False) -> ParsedFile:
    """Read PBN text or bytes into records and diagnostics. Never raises on bad input."""
    try:
        return _Reader(source, strict).read(data)
    except Exception:  # a reader bug must not take the ingest down with it
        logger.exception("PBN reader failed on %s", source)
        diagnostic = Diagnostic(source=source, line=0, column=0, severity=Severity.ERROR, code="pbn.internal",
                                message="The reader failed on this file (a bug on our side); nothing was read.")
        return ParsedFile(source=source, format="pbn", parser_version=PARSER_VERSION, diagnostics=(diagnostic,))


def _auction_sections(items: list[PbnGame | tuple[Issue, ...]]) -> Iterator[tuple[str, ...]]:
    """The tokens of each game's auction section."""
    for game in items:
        if isinstance(game, PbnGame) and (tag := game.index_of("Auction")) is not None:
            _, seat, data = game.tags[tag]
            yield parse_call_section(seat, data, tag).tokens


class _Reader:
    """One reading of one file."""

    def __init__(self, source: str, strict: bool) -> None:
        self.source = source
        self.strict = strict
        self.diagnostics: list[tuple[int, int, Diagnostic]] = []
        self.first_of: dict[str, Diagnostic] = {}
        """First info note of each code (lenient mode reports repeated notes once, with a count)."""
        self.times: dict[str, int] = {}
        self.boards: list[BoardRecord] = []
        self.results: list[ResultRecord] = []
        self.artificial: list[ArtificialRecord] = []
        self.standings: list[ContestantRecord] = []
        self.quarantined = 0
        self.escapes: list[str] = []
        self.first_tags: dict[str, str] = {}

    def read(self, data: str | bytes) -> ParsedFile:
        decoded = decode(data)
        inheritance = Inheritance() if '"#' in decoded.text else None
        # Inherited values depend on the games before only: every game is resolved first, so that
        # every play section of the file is replayed in one call of the play engine, and every
        # auction judged in one call of the auction engine (each game's read_auction then finds its
        # verdict; a one-game file's auction is as cheap judged alone).
        items = list(read_games(decoded.text))
        if len(items) > 1:
            judge_sections(_auction_sections(items))
        resolutions = [None if isinstance(item, tuple) else _resolved(item, inheritance) for item in items]
        read = read_plays(self._play_sections([resolved for resolved, _ in filter(None, resolutions)]))
        builder = Builder(read)
        validator = Validator(read) if self.strict else None
        for item, resolution in zip(items, resolutions, strict=True):
            if isinstance(item, tuple):
                self._report(None, item, None)
            elif resolution is not None:
                self._game(item, *resolution, builder, validator)
        return self._parsed(builder)

    def _play_sections(self, games: list[PbnGame]) -> Iterator[PlaySection]:
        """The play sections the (resolved) games will read: the play of their own result
        (`read_cards`), and in strict mode the play section as the standard checks it."""
        for game in games:
            if any(name == "Play" for name, _, _ in game.tags):
                lenient = cards_section(Tags.of(game))
                if lenient is not None:
                    yield lenient
                strict = play_section_of(game) if self.strict else None
                if strict is not None:
                    yield strict

    def _game(self, game: PbnGame, resolved: PbnGame, inherited: list[Issue], builder: Builder,
              validator: Validator | None) -> None:
        if game.orphans:
            self._report(game, game.orphans, None)
        if len(self.escapes) < 500:
            self.escapes.extend(game.escapes)
        if game.index < 3:  # the program is named at the top of the file
            for name in ("Application", "Generator"):
                if name not in self.first_tags and (value := game.get(name)):
                    self.first_tags[name] = value
        issues: list[Issue] = [*game.issues, *inherited]
        records, built = builder.add(resolved)
        issues.extend(built)
        if validator is not None:
            issues.extend(validator.check(game, resolved))
        self._keep(records, issues)
        self._report(resolved, issues, game.index)

    def _keep(self, records: GameRecords, issues: list[Issue]) -> None:
        self.quarantined += records.quarantined
        if any((i.strict if self.strict else i.lenient) is Severity.ERROR and not i.contained for i in issues):
            self.quarantined += records.size()
            return
        self.boards.extend(records.boards)
        self.results.extend(records.results)
        self.artificial.extend(records.artificial)
        self.standings.extend(records.standings)

    def _report(self, game: PbnGame | None, issues: tuple[Issue, ...] | list[Issue], record: int | None) -> None:
        reported = 0
        for issue in issues:
            severity = issue.strict if self.strict else issue.lenient
            if severity is None:
                continue
            if reported == _MAX_PER_GAME:
                line = game.line if game is not None else 0
                self._add(line, 0, Severity.WARNING, "pbn.diagnostics.truncated", "More problems were found in "
                          "this game; only the first ones are listed.", record)
            reported += 1
            if reported > _MAX_PER_GAME:
                continue
            grouped = severity is Severity.INFO and not self.strict
            if grouped and issue.code in self.first_of:
                self.times[issue.code] += 1
                continue
            line, column = game.locate(issue.anchor) if game is not None else (issue.anchor[1], issue.anchor[2])
            # Strict mode is the standard: its refusals and its own findings name the clause (findings
            # about the data, reported in both modes, keep their words).
            about_standard = self.strict and (severity is Severity.ERROR or issue.lenient is None)
            message = with_clause(issue.code, issue.message) if about_standard else issue.message
            diagnostic = self._add(line, column, severity, issue.code, message, record)
            if grouped:
                self.first_of[issue.code], self.times[issue.code] = diagnostic, 1

    def _add(self, line: int, column: int, severity: Severity, code: str, message: str,
             record: int | None) -> Diagnostic:
        diagnostic = Diagnostic(source=self.source, line=line, column=column, severity=severity, code=code,
                                message=message, record=record)
        self.diagnostics.append((line, column, diagnostic))
        return diagnostic

    def _diagnostics(self) -> tuple[Diagnostic, ...]:
        counts = {id(self.first_of[code]): n for code, n in self.times.items() if n > 1}
        out: list[tuple[int, int, Diagnostic]] = []
        for line, column, diagnostic in self.diagnostics:
            times = counts.get(id(diagnostic))
            if times:
                text = f"{diagnostic.message} (seen {times} times in this file; the first is shown.)"
                diagnostic = diagnostic.model_copy(update={"message": text})
            out.append((line, column, diagnostic))
        out.sort(key=lambda item: (item[0], item[1]))
        return tuple(d for _, _, d in out)

    def _seated(self, derived: list[ContestantRecord]) -> tuple[ContestantRecord, ...]:
        """The contestants named by results, those of quarantined games left out with them."""
        kept = _sides_of(self.results) | _sides_of(self.artificial)
        return tuple(c for c in derived if (c.section, c.contestant_id) in kept)

    def _parsed(self, builder: Builder) -> ParsedFile:
        meta = builder.metadata
        event_date = meta.get("event_date")
        metadata = FileMetadata(
            event_name=_text(meta.get("event_name")), site=_text(meta.get("site")),
            event_date=event_date if isinstance(event_date, date) else None,
            scoring=_text(meta.get("scoring")), field_layout=builder.field_layout(self.escapes),
            program=program_name(self.escapes, self.first_tags), tie_breaks=builder.tie_breaks())
        return ParsedFile(source=self.source, format="pbn", parser_version=PARSER_VERSION, metadata=metadata,
                          boards=tuple(self.boards), results=tuple(self.results),
                          artificial=tuple(self.artificial),
                          contestants=tuple(self.standings) + self._seated(builder.derived_contestants()),
                          diagnostics=self._diagnostics(), quarantined=self.quarantined)


def _resolved(game: PbnGame, inheritance: Inheritance | None) -> tuple[PbnGame, list[Issue]]:
    """The game with inherited values filled in, and problems with its inheritance."""
    return (game, []) if inheritance is None else inheritance.resolve(game)


def _sides_of(records: list[ResultRecord] | list[ArtificialRecord]) -> set[tuple[str, str]]:
    return {(r.section, r.ns_id) for r in records} | {(r.section, r.ew_id) for r in records}


def _text(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


def program_name(escapes: list[str], first_tags: dict[str, str]) -> str | None:
    """The program that wrote the file: Magic Contest META, Application tag, %Creator, Generator."""
    meta = {name.lower(): content for line in escapes for name, content in _META.findall(line)}
    if meta.get("generator"):
        return f"{meta['generator']} {meta.get('version', '')}".strip()
    if first_tags.get("Application"):
        return first_tags["Application"]
    for line in escapes:
        body = line.lstrip("%").strip()
        for prefix in ("Creator:", "Generated by "):
            if body.startswith(prefix) and body[len(prefix):].strip():
                return body[len(prefix):].strip()
    return first_tags.get("Generator") or None
