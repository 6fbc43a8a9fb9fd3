"""The bridgeledger CSV traveller: one row per table result.

Header (names case-insensitive, order free; `lead` and `score` may be omitted):

    event,session,board,section,table,ns,ew,contract,declarer,result,lead,score

- `contract`: `4S`, `3NTX`, `6HXX`, `3N` or `PASS`; an artificial adjusted score is written as the
  two sides' awards, NS first: `A+/A-`, `A/A`, `60/40` (percentages); any spelling of
  `models.awards` (`A=`, `AVE+`, `average-plus` ...) names the same Law 12C2 award.
- `result`: tricks won by declarer (`10`) or relative to the contract (`=`, `+1`, `-2`).
- `lead`: suit first (`SA`, `H7`) or rank first (`AS`).
- `score`: optional NS score as published, kept as reference only (we compute our own).
- `ns_players`, `ew_players`: optional, the pair's players (one or two) separated by `;`, each a
  name with an optional federation id in square brackets: `Anna Nowak [1041]; Jan Nowak`. `;`
  separates players in these two columns only; a name that holds a `;` writes it `\\;`
  (`Anna\\; Nowak`). A cell that reads as more than two players is refused, naming them, rather
  than one player being taken for several.

A file holds one session: every row names the same event and session as the first.

Cells are separated by `,`: a file whose header is separated by `;` or tabs (what a spreadsheet
writes in locales with decimal commas) is refused, naming its separator, since its numbers may be
written with commas too. A quoted cell may hold line breaks (at most `MAX_CELL_LINES` lines). UTF-8
(with or without a BOM) is expected; UTF-16 and UTF-32 are recognised and read, anything else is
read as Windows-1252, each said with a warning.

Every problem is a diagnostic with file, line and column. A bad row is quarantined; the other
rows stand (lenient) and the caller decides whether any error rejects the whole file (strict).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache

from models.awards import AWARD_SPELLINGS, ArtificialAward, parse_award
from models.cards import Card
from models.contract import Contract, TableResult
from models.diagnostics import Diagnostic, Severity
from models.events import Player
from parsers.numbers import MAX_WHOLE, whole_number
from parsers.records import ArtificialRecord, FileMetadata, ParsedFile, Position, ResultRecord

PARSER_VERSION = "csv-1.0"
REQUIRED = ("event", "session", "board", "section", "table", "ns", "ew", "contract", "declarer", "result")
OPTIONAL = ("lead", "score", "ns_players", "ew_players")
SEPARATORS = (",", ";", "\t")
"""The cell separators told apart in a header: `,` is the format's; the others are recognised and refused."""
MAX_CELL_LINES = 20
"""The most lines one record may span through quoted cells holding line breaks."""
_QUOTED = re.compile(r'"(?:[^"]|"")*"')
_PLAYER = re.compile(r"^\s*(?P<name>[^\[\]]*?)\s*(?:\[\s*(?P<id>[^\[\]]*?)\s*\])?\s*$")
# Longest spelling first, so that `A+` is not read as `A` followed by junk.
_NAMED_AWARDS = "|".join(re.escape(s) for s in sorted(AWARD_SPELLINGS, key=len, reverse=True))
_ONE_AWARD = rf"({_NAMED_AWARDS}|[0-9]{{1,3}}(?:\.[0-9]{{1,6}})?%?)"
_AWARD = re.compile(rf"^\s*{_ONE_AWARD}\s*/\s*{_ONE_AWARD}\s*$", re.I)
_SCORE = re.compile(r"[+-]?[0-9]{1,5}(?:\.[0-9]{1,6})?")
"""A published NS score: points, at most five digits (7NTXX redoubled vulnerable overtricks stay under 10^4)."""
_SHOWN = 40
_LINE_BREAK = re.compile(r"\r\n|\r|\n")


class _RowError(Exception):
    def __init__(self, column: str, message: str, code: str) -> None:
        super().__init__(message)
        self.column = column
        self.code = code


def loads(data: str | bytes, *, source: str = "<string>", strict: bool = False) -> ParsedFile:
    """Read a CSV traveller. Never raises on bad input: problems become diagnostics.

    The format has no optional spellings to normalise, so `strict` changes nothing here; it is
    accepted so that every reader is called the same way.
    """
    text, encoding, diagnostics = _decode(data, source)
    lines = _LINE_BREAK.split(text)  # not str.splitlines: \x0c, \x1c or \u2028 in a cell is no new line
    if not lines or not lines[0].strip():
        diagnostics.append(_diag(source, 1, 1, "csv.header.missing",
                                 f"the first line must be the header: {','.join(REQUIRED)}"))
        return ParsedFile(source=source, format="csv", parser_version=PARSER_VERSION,
                          diagnostics=tuple(diagnostics))
    separator = _separator(lines[0])
    if separator != ",":
        diagnostics.append(_diag(source, 1, 1, "csv.header.separator", _other_separator(separator, encoding)))
        return ParsedFile(source=source, format="csv", parser_version=PARSER_VERSION,
                          diagnostics=tuple(diagnostics))
    header = [h.strip().lower() for h in _split(lines[0])[0]]
    missing = [name for name in REQUIRED if name not in header]
    if missing:
        diagnostics.append(_diag(source, 1, 1, "csv.header.missing-column",
                                 f"the header lacks {', '.join(missing)}; expected {','.join(REQUIRED)} "
                                 f"({_as_read(lines[0], encoding)})"))
        return ParsedFile(source=source, format="csv", parser_version=PARSER_VERSION,
                          diagnostics=tuple(diagnostics))
    results: list[ResultRecord] = []
    artificial: list[ArtificialRecord] = []
    quarantined = 0
    first_row: dict[str, str] | None = None
    for index, read in enumerate(_data_records(lines)):
        line_no, cells, columns = read.line, read.cells, read.columns
        row = dict(zip(header, cells, strict=False))
        position = Position(record=index, line=line_no)
        try:
            if read.unclosed is not None:
                raise _RowError(header[min(read.unclosed, len(header) - 1)],
                                f"a quoted cell is not closed within {MAX_CELL_LINES} lines", "csv.row.quote")
            _same_session(row, first_row)
            if len(cells) != len(header):
                raise _RowError(header[min(len(cells), len(header) - 1)],
                                f"expected {len(header)} fields as in the header, found {len(cells)}",
                                "csv.row.field-count")
            record = _row_record(row, position)
        except _RowError as err:
            col = columns[header.index(err.column)] if header.index(err.column) < len(columns) else 1
            diagnostics.append(_diag(source, line_no, col, err.code, f"{err}; row left out", index))
            quarantined += 1
            continue
        first_row = first_row or row
        (artificial if isinstance(record, ArtificialRecord) else results).append(record)  # type: ignore[arg-type]
    metadata = FileMetadata(
        event_id=first_row["event"].strip() if first_row else None,
        session_id=first_row["session"].strip() if first_row else None,
    )
    return ParsedFile(source=source, format="csv", parser_version=PARSER_VERSION, metadata=metadata,
                      results=tuple(results), artificial=tuple(artificial),
                      diagnostics=tuple(diagnostics), quarantined=quarantined)


def load(path: str, *, source: str | None = None, strict: bool = False) -> ParsedFile:
    """Read a CSV traveller file."""
    with open(path, "rb") as handle:
        return loads(handle.read(), source=source or path, strict=strict)


def _decode(data: str | bytes, source: str) -> tuple[str, str, list[Diagnostic]]:
    """The text, the encoding it was read in, and a warning when that was not UTF-8."""
    if isinstance(data, str):
        return data, "text", []
    utf16 = _utf16(data)
    if utf16 is not None:
        name = utf16[:6].upper()
        code = f"csv.encoding.{name.lower().replace('-', '')}"
        try:
            text = data.decode(utf16)
        except UnicodeDecodeError as exc:
            note = _diag(source, 0, 0, code, f"the file looks like {name} but byte {exc.start} is not; read as "
                         f"{name} with that character replaced", severity=Severity.WARNING)
            return data.decode(utf16, errors="replace").lstrip("\ufeff"), name, [note]
        note = _diag(source, 0, 0, code, f"the file is {name}, not UTF-8; read as {name}", severity=Severity.WARNING)
        return text.lstrip("\ufeff"), name, [note]
    try:
        return data.decode("utf-8-sig"), "UTF-8", []
    except UnicodeDecodeError as exc:
        note = _diag(source, 0, 0, "csv.encoding.latin1",
                     f"not UTF-8 (byte {exc.start}); read as Latin-1", severity=Severity.WARNING)
        return data.decode("cp1252", errors="replace"), "Windows-1252", [note]


def _utf16(data: bytes) -> str | None:
    """`utf-16` or `utf-32` (with its BOM), `utf-16-le` or `utf-16-be` when `data` looks like UTF-16
    (or UTF-32), else None: a BOM, or a zero byte in every other place of the start (ASCII text in
    UTF-16 without one)."""
    if data.startswith((b"\xff\xfe\x00\x00", b"\x00\x00\xfe\xff")):
        return "utf-32"
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return "utf-16"
    start = data[:200]
    if len(start) < 4 or len(start) % 2:
        start = start[:len(start) - len(start) % 2]
    if len(start) < 4:
        return None
    if start[1::2].count(0) == len(start) // 2 and start[0::2].count(0) == 0:
        return "utf-16-le"
    if start[0::2].count(0) == len(start) // 2 and start[1::2].count(0) == 0:
        return "utf-16-be"
    return None


def _separator(header: str) -> str:
    """The separator that finds the most required columns in the header (`,` when none finds more)."""
    def found(separator: str) -> int:
        names = {h.strip().lower() for h in _split(header, separator)[0]}
        return sum(name in names for name in REQUIRED)

    return max(SEPARATORS, key=found)  # `max` keeps the first of equals: `,`


def _other_separator(separator: str, encoding: str) -> str:
    """Why a header separated by something else than `,` is refused, naming what it is."""
    return (f"the header's cells are separated by {_named(separator)} (read as {encoding}), not by ','; "
            "a traveller's cells are separated by commas (a spreadsheet set to a locale with decimal "
            "commas writes ';': export it as CSV with commas)")


def _as_read(header: str, encoding: str) -> str:
    """How the header line was read, for a refusal: its encoding and what separates its cells."""
    seen = [s for s in SEPARATORS if s in header]
    separated = (f"its cells separated by {_named(seen[0])}" if seen and seen[0] != "," else
                 "separated by ','" if seen else "with no ',', ';' or tab in it")
    return f"read as {encoding}, {separated}: {_shown(header)}"


def _named(separator: str) -> str:
    return "tabs" if separator == "\t" else repr(separator)


@dataclass(frozen=True, slots=True)
class _Record:
    """One data record: its first line, cells and their columns, and the index of a quoted cell
    left open when the record could not be closed within `MAX_CELL_LINES` lines."""

    line: int
    cells: list[str]
    columns: list[int]
    unclosed: int | None = None


def _data_records(lines: list[str], separator: str = ",") -> Iterator[_Record]:
    """The data records after the header; a record whose quoted cell holds line breaks spans
    several lines (rejoined with `\n`)."""
    number, last = 1, len(lines) - 1
    while number <= last:
        line = lines[number]
        first = number
        number += 1
        if not line.strip():
            continue
        cells, columns, unclosed = _split(line, separator)
        if unclosed is not None:
            # Quotes come in pairs in a record whose quoted cells are closed: count them (at C speed)
            # to find the line that closes it, then split the joined lines once. A quote never
            # closed costs a count of `MAX_CELL_LINES` lines, and the first line alone is refused.
            quotes, end = line.count('"'), number
            while quotes % 2 and end <= last and end - first < MAX_CELL_LINES:
                quotes += lines[end].count('"')
                end += 1
            if quotes % 2 == 0:
                joined = _split("\n".join(lines[first:end]), separator)
                if joined[2] is None:
                    (cells, columns, unclosed), number = joined, end
        yield _Record(first + 1, cells, columns, unclosed)


@lru_cache(maxsize=len(SEPARATORS))
def _field(separator: str) -> re.Pattern[str]:
    """A cell: quoted (`""` an escaped quote), else anything up to the next separator."""
    return re.compile(rf'"(?:[^"]|"")*"|[^{re.escape(separator)}]*')


def _split(line: str, separator: str = ",") -> tuple[list[str], list[int], int | None]:
    """Cells, their 1-based start columns (quoted cells unquoted), and the index of the first cell
    that opens a quote it does not close (None when every quote is closed)."""
    cells: list[str] = []
    columns: list[int] = []
    unclosed: int | None = None
    pattern, pos = _field(separator), 0
    while True:
        match = pattern.match(line, pos)
        assert match is not None  # the pattern matches the empty string
        raw = match.group(0)
        columns.append(pos + 1)
        quoted = raw.startswith('"') and _QUOTED.fullmatch(raw) is not None
        if raw.startswith('"') and not quoted and unclosed is None:
            unclosed = len(cells)
        cells.append(raw[1:-1].replace('""', '"') if quoted else raw)
        pos = match.end()
        if pos >= len(line) or line[pos] != separator:
            return cells, columns, unclosed
        pos += 1


def _row_record(row: dict[str, str], at: Position) -> ResultRecord | ArtificialRecord:
    board = _board(row["board"])
    common = {"board": board, "section": row["section"].strip(), "table_id": _text(row, "table"),
              "ns_id": _text(row, "ns"), "ew_id": _text(row, "ew")}
    award = _AWARD.match(row["contract"])
    if award:
        return ArtificialRecord(**common, ns_award=_award(award.group(1)),
                                ew_award=_award(award.group(2)), at=at)
    try:
        contract = Contract.parse(row["contract"], row["declarer"] or None)
    except ValueError as exc:
        column = "declarer" if "declarer" in str(exc) else "contract"
        raise _RowError(column, str(exc), f"csv.row.{column}") from exc
    tricks = None if contract.is_passed_out else _tricks(contract, row["result"])
    published: dict[str, float | str] = {}
    if row.get("score", "").strip():
        score = _SCORE.fullmatch(row["score"].strip())
        if score is None:
            raise _RowError("score", f"score must be a whole number of points, got {_shown(row['score'])}",
                            "csv.row.score")
        published["score_ns"] = float(score.group(0))
    ns_players, ew_players = _players(row, "ns_players"), _players(row, "ew_players")
    _refuse_one_pair_on_both_sides(row["ns"].strip(), ns_players, ew_players)
    return ResultRecord(**common, contract=contract, tricks=tricks, lead=_lead(row.get("lead", "")),
                        published=published, ns_players=ns_players, ew_players=ew_players, at=at)


def _refuse_one_pair_on_both_sides(ns_id: str, ns: tuple[Player, ...], ew: tuple[Player, ...]) -> None:
    """A player named on both sides of a table: the same pair cannot play against itself."""
    def who(player: Player) -> str:
        return f"[{player.federation_id}]" if player.federation_id else " ".join(player.name.lower().split())

    both = sorted({who(p) for p in ns} & {who(p) for p in ew})
    if both:
        raise _RowError("ew_players", f"{', '.join(both)} sits both NS (pair {ns_id}) and EW at this table: "
                        "a pair cannot play against itself", "csv.row.same-pair")


PAIR_SIZE = 2
"""The most players a pair column names: the two who sat at the table."""
_PLAYER_SEPARATOR = re.compile(r"(?<!\\);")
"""A `;` that separates two players (one written `\\;` is part of a name)."""


def _players(row: dict[str, str], column: str) -> tuple[Player, ...]:
    """`Anna Nowak [1041]; Jan Nowak` -> the players, ids when given; `\\;` is a `;` in a name."""
    entries = [e.replace("\\;", ";") for e in _PLAYER_SEPARATOR.split(row.get(column, "")) if e.strip()]
    if len(entries) > PAIR_SIZE:
        named = "; ".join(repr(e.strip()) for e in entries)
        raise _RowError(column, f"{column} names {len(entries)} players ({named}) but a pair is at most "
                        f"{PAIR_SIZE}: ';' separates the pair's players; write a ';' inside a name as '\\;'",
                        f"csv.row.{column}")
    players = []
    for entry in entries:
        match = _PLAYER.match(entry)
        if match is None or not match["name"]:
            raise _RowError(column, f"player {entry.strip()!r}: expected a name, optionally followed by "
                            "[federation id]", f"csv.row.{column}")
        players.append(Player(name=match["name"], federation_id=match["id"] or None))
    return tuple(players)


def _same_session(row: dict[str, str], first: dict[str, str] | None) -> None:
    if first is None:
        return
    for name in ("event", "session"):
        if row.get(name, "").strip() != first[name].strip():
            raise _RowError(name, f"a CSV traveller holds one session; this row says {name} "
                            f"{row.get(name, '')!r} but the file began with {first[name]!r}",
                            "csv.row.other-session")


def _text(row: dict[str, str], name: str) -> str:
    value = row[name].strip()
    if not value:
        raise _RowError(name, f"{name} is empty", f"csv.row.{name}")
    return value


def _board(text: str) -> int:
    board = whole_number(text, low=1)
    if board is None:
        raise _RowError("board", f"board must be a whole number from 1 to {MAX_WHOLE}, got {_shown(text)}",
                        "csv.row.board")
    return board


def _tricks(contract: Contract, text: str) -> int:
    try:
        tricks = TableResult.tricks_from_result(contract.level, text)
    except ValueError as exc:
        raise _RowError("result", str(exc), "csv.row.result") from exc
    if not 0 <= tricks <= 13:
        raise _RowError("result", f"{contract} {text} means {tricks} tricks; declarer wins 0 to 13",
                        "csv.row.result")
    return tricks


def _lead(text: str) -> Card | None:
    if not text.strip():
        return None
    try:
        return Card.parse(text)
    except ValueError as exc:
        raise _RowError("lead", str(exc), "csv.row.lead") from exc


def _award(text: str) -> ArtificialAward:
    try:
        return parse_award(text)
    except ValueError:
        raise _RowError("contract", f"an award is a percentage 0-100, got {text.strip()!r}", "csv.row.award") from None


def _shown(text: str) -> str:
    """A cell as a diagnostic quotes it: at most a few dozen characters."""
    return repr(text) if len(text) <= _SHOWN else f"{text[:_SHOWN]!r}... ({len(text)} characters)"


def _diag(source: str, line: int, column: int, code: str, message: str, record: int | None = None,
          severity: Severity = Severity.ERROR) -> Diagnostic:
    return Diagnostic(source=source, line=line, column=column, severity=severity, code=code,
                      message=message, record=record)

