"""BBO LIN reader: single-board files, one board per line ("my hands") and vugraph/tournament files.

`loads(text)` returns a `ParsedFile`: one `BoardRecord` per distinct board, one `ResultRecord` per
table that has a trustworthy result, and positioned diagnostics for everything else. It never
raises on bad input. Lenient mode (the default) quarantines a board or result it cannot trust and
goes on; strict mode reports every irregularity as an error.

File shapes (formats-notes §2):
- in files without `qx` a board block starts at the `pn` that introduces its deal (or at `md` when
  there is none);
- in vugraph files every `qx|o<N>` / `qx|c<N>` starts a block. A `pn` written after a block's last
  call, card or deal names the players of the next block (the re-exported WBTC file does this);
  the header's eight-name `pn` gives both rooms' line-ups, and `rs`/`mp` are read by slot
  (2 x (board - first board) + 0 open / 1 closed).

Identifiers, because LIN has no pair numbers:
- team match (vg names two teams, or a closed room exists): `room` is open/closed, `table_id` is
  the room, `ns_id`/`ew_id` are the team names (open room: team 1 NS, team 2 EW; closed room the
  other way round);
- otherwise `ns_id`/`ew_id` name the pair by its players, `North/South` and `East/West` (a pair
  with no names by the file, the block's place and its side, `t17:1 NS`, with a warning), and
  `table_id` names the table by its two pairs (`North/South v East/West`; the file's stem and the
  block's place in it when no player is named), so single-board files of one tournament do not all
  claim "table 1".
"""

from __future__ import annotations

import bisect
import logging
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from itertools import compress
from pathlib import Path

from models.diagnostics import Diagnostic, Severity
from models.events import Player
from parsers.bridge.auction import judge_calls
from parsers.lin.lexer import KNOWN_KEYS, Reporter, Tokens, decode, repair_mojibake, tokenize
from parsers.lin.records import (
    BlockContext,
    BlockOutcome,
    derived_table,
    normalised_calls,
    read_blocks,
    seat_names,
)
from parsers.numbers import whole_number
from parsers.positions import LineIndex
from parsers.records import BoardRecord, FileMetadata, ParsedFile, PublishedValues, ResultRecord

PARSER_VERSION = "lin-1.0.0"
"""Version of this reader, stored with every ingested file."""

logger = logging.getLogger(__name__)

_ERROR, _WARNING, _INFO = Severity.ERROR, Severity.WARNING, Severity.INFO
_MP_KEYS = {"I": "imp_ns", "P": "pct_ns"}
# Keys that carry no board content: what may stand between one board's content and the next deal.
_PREAMBLE = frozenset({"pn", "st", "rh", "ah", "pg", "nt", "at", "bt", "ht", "mn", "sa", "sk", "va", "tu"})


def load(path: str | Path, *, strict: bool = False) -> ParsedFile:
    """Read a LIN file from disk (see `loads`)."""
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        return _failed(str(path), "lin.file.unreadable", f"the file cannot be read: {exc.strerror or exc}")
    return loads(data, source=str(path), strict=strict)


def loads(data: str | bytes, *, source: str = "<string>", strict: bool = False) -> ParsedFile:
    """Read LIN text (or bytes: UTF-8, falling back to cp1252) into records and diagnostics."""
    try:
        return _read(data, source, strict)
    except Exception:  # a reader bug must not take the ingest down with it
        logger.exception("LIN reader failed on %s", source)
        return _failed(source, "lin.reader.internal-error",
                       "the reader failed on this file (a bug, please report it); nothing was read from it")


def _read(data: str | bytes, source: str, strict: bool) -> ParsedFile:
    rep = Reporter(source, strict)
    if isinstance(data, bytes):
        text, encoding = decode(data)
        if encoding != "utf-8":
            rep.report(_WARNING, "lin.encoding.not-utf8",
                       f"the file is not valid UTF-8; it was read as {encoding}")
    else:
        text = data
    rep.lines = LineIndex(text)
    parsed = _Reader(text, rep).read()
    logger.debug("%s: %d boards, %d results, %d diagnostics", source, len(parsed.boards), len(parsed.results),
                 len(parsed.diagnostics))
    return parsed


def _failed(source: str, code: str, message: str) -> ParsedFile:
    diagnostic = Diagnostic(source=source, line=0, column=0, severity=_ERROR, code=code, message=message)
    return ParsedFile(source=source, format="lin", parser_version=PARSER_VERSION, diagnostics=(diagnostic,))


@dataclass(slots=True)
class _Header:
    """The vugraph header (tokens before the first block)."""

    vg: list[str] = field(default_factory=lambda: [""] * 9)
    rs: list[str] = field(default_factory=list)
    mp: list[str] = field(default_factory=list)
    lineup: list[str] | None = None
    carry: int | None = None
    title: str | None = None

    @property
    def first_board(self) -> int:
        text = self.vg[3].strip()
        return whole_number(text, low=1) or 1


class _Reader:
    def __init__(self, text: str, rep: Reporter) -> None:
        self.text, self.rep = text, rep
        self.tokens: Tokens = tokenize(text)
        keys = self.tokens.keys
        present = set(keys)
        self.positions = {key: list(compress(range(len(keys)), map(key.__eq__, keys))) if key in present else []
                          for key in ("qx", "md", "pn")}
        self.players: dict[str, Player] = {}

    def read(self) -> ParsedFile:
        blocks = self._blocks()
        self._lexical_diagnostics([start for start, _ in blocks])
        header = self._header(blocks[0][0] if blocks else len(self.tokens.keys))
        if self.positions["qx"]:
            contexts = self._vugraph_contexts(blocks, header)
        else:
            contexts = self._plain_contexts(blocks, header)
        if len(contexts) > 1:  # all at once, for each block's summarise_auction to find (one block: as cheap alone)
            judge_calls(self._auctions(contexts))
        outcomes = read_blocks(self.tokens, contexts, self.rep, self.players)
        if not blocks and self.tokens.keys:
            self.rep.report(_ERROR, "lin.md.missing", "the file contains no deal (md), so there is no board to read",
                            offset=self.tokens.key_offset(0))
        elif not blocks and not self.tokens.skips:
            self.rep.report(_WARNING, "lin.file.empty", "the file contains no LIN data")
        boards, results, quarantined = self._assemble(contexts, outcomes)
        diagnostics = sorted(self.rep.diagnostics + self.rep.unlisted(), key=lambda d: (d.line, d.column))
        return ParsedFile(source=self.rep.source, format="lin", parser_version=PARSER_VERSION,
                          metadata=self._metadata(header), boards=tuple(boards), results=tuple(results),
                          diagnostics=tuple(diagnostics), quarantined=quarantined)

    def _auctions(self, contexts: list[BlockContext]) -> Iterator[list[str]]:
        """The calls of each block that has an auction of calls only, no undo (`up`), normalised."""
        keys, values = self.tokens.keys, self.tokens.values
        mb, up = (list(compress(range(len(keys)), map(key.__eq__, keys))) for key in ("mb", "up"))
        for ctx in contexts:
            first, end = bisect.bisect_left(mb, ctx.start), bisect.bisect_left(mb, ctx.end)
            if first == end or bisect.bisect_left(up, ctx.start) < bisect.bisect_left(up, ctx.end):
                continue
            calls = normalised_calls([values[k] for k in mb[first:end]])
            known = [call for call in calls if call is not None]
            if len(known) == len(calls):
                yield known

    # -- structure ----------------------------------------------------------------------------------

    def _blocks(self) -> list[tuple[int, int]]:
        """Token ranges of the board blocks."""
        n = len(self.tokens.keys)
        qx = self.positions["qx"]
        if qx:
            return list(zip(qx, [*qx[1:], n], strict=True))
        starts = [self._preamble_start(m) for m in self.positions["md"]]
        return list(zip(starts, [*starts[1:], n], strict=True)) if starts else []

    def _preamble_start(self, md: int) -> int:
        """Where the board whose deal is at token `md` starts: at the `pn` that introduces it.

        Only a `pn` separated from the deal by nothing but layout keys (st, rh, ah, pg ...) counts, so a
        `pn` written after the previous board's deal stays with that board.
        """
        keys = self.tokens.keys
        k, start = md, md
        while k > 0 and keys[k - 1] in _PREAMBLE:
            k -= 1
            if keys[k] == "pn":
                start = k
        return start

    def _header(self, end: int) -> _Header:
        header = _Header()
        keys, values = self.tokens.keys, self.tokens.values
        names: list[int] = []
        for k in range(end):
            key = keys[k]
            if key == "vg" and not any(header.vg):
                fields = values[k].strip().split(",")
                header.vg = [f.strip() for f in fields] + [""] * (9 - len(fields))
            elif key == "rs" and not header.rs:
                header.rs = values[k].replace("\r", "").replace("\n", "").split(",")
            elif key == "mp" and not header.mp:
                header.mp = values[k].replace("\r", "").replace("\n", "").split(",")
            elif key == "mn" and header.title is None and values[k].strip():
                header.title = values[k].strip()
            elif key == "pn":
                names.append(k)
        for k in names:
            if header.lineup is None and len(values[k].split(",")) >= 8:
                header.lineup = seat_names(values[k])
            else:
                header.carry = k
        return header

    def _plain_contexts(self, blocks: list[tuple[int, int]], header: _Header) -> list[BlockContext]:
        pn = self.positions["pn"]
        contexts = []
        for index, (start, end) in enumerate(blocks):
            inside = pn[bisect.bisect_left(pn, start):bisect.bisect_left(pn, end)]
            k = inside[-1] if inside else header.carry
            names = None if k is None else self._four_names(self.tokens.values[k], 0, index, k)
            if names is None and header.lineup is not None:
                names = header.lineup[:4]
            contexts.append(BlockContext(index=index, start=start, end=end, names=names,
                                         table_id=derived_table(names, self.rep.source, index)))
        return contexts

    def _vugraph_contexts(self, blocks: list[tuple[int, int]], header: _Header) -> list[BlockContext]:
        slots = [self._slot(start) for start, _ in blocks]
        team1, team2 = header.vg[5], header.vg[7]
        is_team = bool(team1 or team2) or any(room == "c" for room, _ in slots)
        team1, team2 = team1 or "Team 1", team2 or "Team 2"
        open_names: dict[int | None, list[str]] = {}
        carry = header.carry
        contexts = []
        for index, ((start, end), (room, number)) in enumerate(zip(blocks, slots, strict=True)):
            own, carry_next = self._block_pn(start, end)
            side = 1 if room == "c" else 0
            k = own if own is not None else carry
            names = None if k is None else self._four_names(self.tokens.values[k], side, index, k)
            if names is None and header.lineup is not None:
                names = (header.lineup + [""] * 8)[4 * side:4 * side + 4]
            if room == "c" and names is not None:
                names = self._closed_room_names(names, open_names.get(number), header, index, start)
            elif names is not None:
                open_names[number] = names
            carry = carry_next
            ctx = BlockContext(index=index, start=start, end=end, names=names, slot_number=number,
                               table_id=("closed" if side else "open") if is_team
                               else derived_table(names, self.rep.source, index))
            if is_team:
                ctx.room = "closed" if side else "open"
                ctx.ns_id, ctx.ew_id = (team2, team1) if side else (team1, team2)
            self._slot_results(ctx, header, number, side)
            contexts.append(ctx)
        if is_team:
            self._check_orientation(contexts)
        return contexts

    def _slot(self, start: int) -> tuple[str, int | None]:
        label = self.tokens.values[start].split(",")[0].strip()
        room, digits = label[:1].lower(), label[1:]
        if room not in ("o", "c"):
            self.rep.report(_WARNING, "lin.qx.bad-slot", f"board slot {label!r} is not o<N> or c<N>",
                            offset=self.tokens.value_offset(start))
        return room, whole_number(digits)

    def _block_pn(self, start: int, end: int) -> tuple[int | None, int | None]:
        """Token of the block's own `pn`, and of a `pn` after all its board content, which names the
        players of the next block (re-exported vugraph files write it there)."""
        keys = self.tokens.keys
        k, trailing = end, None
        while k - 1 > start and keys[k - 1] in _PREAMBLE:
            k -= 1
            if keys[k] == "pn" and trailing is None:
                trailing = k
        pn = self.positions["pn"]
        own = pn[bisect.bisect_left(pn, start):bisect.bisect_left(pn, k)]
        return (own[-1] if own else None), trailing

    def _four_names(self, text: str, side: int, index: int, k: int) -> list[str]:
        names = seat_names(text)
        if len(names) >= 8:
            return names[4 * side:4 * side + 4]
        if len(names) != 4:
            offset = self.tokens.value_offset(k)
            self.rep.report(_WARNING, "lin.pn.bad-names",
                            f"player list {text.strip()!r} has {len(names)} names; LIN gives four (S, W, N, E)",
                            offset=offset, record=index, part="result")
            names = (names + [""] * 4)[:4]
        return names

    def _closed_room_names(self, names: list[str], open_room: list[str] | None, header: _Header, index: int,
                           start: int) -> list[str]:
        """A closed room cannot seat the open room's four players; trust the header line-up then."""
        if open_room is None or header.lineup is None or len(header.lineup) < 8:
            return names
        lineup = header.lineup[4:8]
        if sorted(names) == sorted(open_room) and any(names) and sorted(lineup) != sorted(open_room):
            self.rep.report(_WARNING, "lin.pn.closed-room-repeats-open",
                            f"the closed room lists the open room's players ({', '.join(names)}); the match "
                            f"header's closed-room line-up ({', '.join(lineup)}) is used",
                            offset=self.tokens.key_offset(start), record=index, part="result")
            return lineup
        return names

    def _check_orientation(self, contexts: list[BlockContext]) -> None:
        """Team 1 sits NS in the open room and EW in the closed room: nobody sits NS in both."""
        open_ns: dict[int | None, set[str]] = {}
        for ctx in contexts:
            if ctx.names is None:
                continue
            ns = {ctx.names[0], ctx.names[2]} - {""}
            ambiguous = ns & {ctx.names[1], ctx.names[3]}
            ns -= ambiguous
            if ctx.room == "open":
                open_ns[ctx.slot_number] = ns
            elif ctx.slot_number in open_ns and ns & open_ns[ctx.slot_number]:
                both = ", ".join(sorted(ns & open_ns[ctx.slot_number]))
                self.rep.report(_WARNING, "lin.pn.team-orientation",
                                f"{both} sit(s) North-South in both rooms; the team names given to NS and EW "
                                "in the closed room may be the wrong way round",
                                offset=self.tokens.key_offset(ctx.start), record=ctx.index, part="result")

    def _slot_results(self, ctx: BlockContext, header: _Header, number: int | None, side: int) -> None:
        if number is None:
            return
        first = header.first_board
        slot = 2 * (number - first if number >= first else number - 1) + side
        if 0 <= slot < len(header.rs):
            ctx.rs = header.rs[slot].strip() or None
        if 0 <= slot < len(header.mp) and header.mp[slot].strip():
            self._published_mp(ctx, header, header.mp[slot].strip())

    def _published_mp(self, ctx: BlockContext, header: _Header, text: str) -> None:
        key = _MP_KEYS.get(header.vg[2].upper())
        try:
            value = float(text)
        except ValueError:
            self.rep.report(_WARNING, "lin.mp.bad-score", f"published score {text!r} (mp) is not a number",
                            record=ctx.index, part="result")
            return
        if key is None:
            self.rep.report(_INFO, "lin.mp.unknown-scoring",
                            f"published score {text} is not kept: scoring {header.vg[2]!r} is neither I nor P",
                            record=ctx.index, part="result")
            return
        published: PublishedValues = {key: value}
        ctx.published = published

    # -- file-level diagnostics -----------------------------------------------------------------------

    def _lexical_diagnostics(self, starts: list[int]) -> None:
        tokens = self.tokens

        def record_of(k: int) -> int | None:
            i = bisect.bisect_right(starts, k) - 1
            return i if i >= 0 else None

        for skip in tokens.skips:
            if skip.text:
                self.rep.report(_ERROR, "lin.syntax.not-a-key",
                                f"{skip.text[:40]!r} stands where a two-letter key should be; the reader skipped it "
                                "and went on at the next key", offset=skip.offset, record=record_of(skip.token))
            elif skip.count == 1:
                self.rep.report(_WARNING, "lin.syntax.stray-separator",
                                "an extra '|' stands where a key should be; it was skipped",
                                offset=skip.offset, record=record_of(skip.token))
            else:
                self.rep.report(_WARNING, "lin.syntax.stray-separator",
                                f"{skip.count} extra '|' in a row stand where a key should be; they were skipped",
                                offset=skip.offset, record=record_of(skip.token))
        if tokens.truncated_at is not None:
            self.rep.report(_WARNING, "lin.syntax.truncated",
                            "the file ends in the middle of a key or value (no closing '|'); the last value may "
                            "be cut short", offset=tokens.truncated_at,
                            record=record_of(len(tokens.keys) - 1), part="result")
        for key in sorted(set(tokens.keys) - KNOWN_KEYS):
            k = tokens.keys.index(key)
            self.rep.report(_INFO, "lin.key.unknown", f"key {key!r} is not a LIN key this reader knows; ignored",
                            offset=tokens.key_offset(k))
        self._repair_text(record_of)

    def _repair_text(self, record_of: Callable[[int], int | None]) -> None:
        if self.text.isascii():
            return
        values = self.tokens.values
        for k, value in enumerate(values):
            if value.isascii():
                continue
            fixed = repair_mojibake(value)
            if fixed is not None:
                values[k] = fixed
                self.rep.report(_INFO, "lin.text.mojibake-repaired",
                                f"text {value.strip()[:40]!r} was UTF-8 decoded twice; repaired to "
                                f"{fixed.strip()[:40]!r}", offset=self.tokens.value_offset(k),
                                record=record_of(k), part="result")

    # -- records ---------------------------------------------------------------------------------------

    def _assemble(self, contexts: list[BlockContext],
                  outcomes: list[BlockOutcome]) -> tuple[list[BoardRecord], list[ResultRecord], int]:
        boards: list[BoardRecord] = []
        results: list[ResultRecord] = []
        first_seen: dict[int, BoardRecord] = {}
        tables: set[tuple[int, str | None, str]] = set()
        quarantined = 0
        for ctx, outcome in zip(contexts, outcomes, strict=True):
            if outcome.board is not None and not self.rep.failed(ctx.index, "board"):
                board = self._dedupe(outcome.board, first_seen, ctx)
            if outcome.board is None or self.rep.failed(ctx.index, "board"):
                quarantined += 1 + outcome.result_expected
                continue
            if board is not None:
                boards.append(board)
            if not outcome.result_expected:
                continue
            if outcome.result is None or self.rep.failed(ctx.index, "result"):
                quarantined += 1
            else:
                results.append(self._own_table(outcome.result, tables, ctx))
        return boards, results, quarantined

    def _own_table(self, result: ResultRecord, tables: set[tuple[int, str | None, str]],
                   ctx: BlockContext) -> ResultRecord:
        """The result, at a table no other result of its board in this file has: the same players
        twice on one board (a board replayed) become `table#2`, with a warning, never one result."""
        table, n = result.table_id, 2
        while (result.board, result.room, table) in tables:
            table, n = f"{result.table_id}#{n}", n + 1
        tables.add((result.board, result.room, table))
        if table == result.table_id:
            return result
        self.rep.report(_WARNING, "lin.result.same-table",
                        f"board {result.board} has two results for table {result.table_id!r}; the second was "
                        f"recorded as table {table!r}", offset=self.tokens.key_offset(ctx.start), record=ctx.index)
        return result.model_copy(update={"table_id": table})

    def _dedupe(self, board: BoardRecord, first_seen: dict[int, BoardRecord], ctx: BlockContext) -> BoardRecord | None:
        """The same board in several blocks (both rooms of a match) is one hand record."""
        earlier = first_seen.get(board.board)
        if earlier is None:
            first_seen[board.board] = board
            return board
        if (earlier.dealer, earlier.vulnerability, earlier.deal) == (board.dealer, board.vulnerability, board.deal):
            return None
        self.rep.report(_WARNING, "lin.md.board-differs",
                        f"board {board.board} appears again with a different deal, dealer or vulnerability; "
                        "both hand records are kept", offset=self.tokens.key_offset(ctx.start), record=ctx.index)
        return board

    def _metadata(self, header: _Header) -> FileMetadata:
        vg = header.vg
        return FileMetadata(event_name=vg[0] or header.title, session_id=vg[1] or None, scoring=vg[2] or None)
