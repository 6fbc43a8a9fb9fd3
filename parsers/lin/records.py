"""One LIN board block (a `pn|...|md|...` run, or a vugraph `qx` block) to a hand record and a result.

The block's tokens are looked at in bulk (`dict(zip(...))` for the single-valued keys, one list
comprehension each for the `mb` and `pc` runs) rather than dispatching on every token; play is
put to the bridge engine's rules of play (`parsers.bridge.play.replay_boards`), every play of a file
in one call (`read_blocks`); records are assembled without re-validation (pydantic's
`model_construct`). Per-token pydantic work was what made a first version slow.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import PurePath
from typing import NamedTuple

from models.board import Vulnerability, law2_dealer
from models.contract import Contract
from models.diagnostics import Severity
from models.events import Player
from parsers.bridge.auction import summarise_auction
from parsers.bridge.calls import CALL_SPELLINGS, normalise_call
from parsers.bridge.play import CardPlay, PlayOutcome, claim_fits, replay_boards
from parsers.lin.lexer import Reporter, Tokens
from parsers.lin.values import CARD_CODES, CARDS, ParsedDeal, parse_md, parse_rs, parse_vulnerability
from parsers.numbers import whole_number
from parsers.records import BoardRecord, Position, PublishedValues, ResultRecord

_ERROR, _WARNING, _INFO = Severity.ERROR, Severity.WARNING, Severity.INFO
_DIGITS = re.compile(r"[0-9]+")
_SIDE_NAMES = {"NS": "North-South", "EW": "East-West"}


@dataclass(slots=True)
class BlockContext:
    """What the file structure says about one block (resolved by `parsers.lin`)."""

    index: int
    """Record index of the block in the file (0-based)."""
    start: int
    """First token of the block."""
    end: int
    """One past the last token."""
    table_id: str
    """Table id for the result."""
    names: list[str] | None = None
    """Player names S, W, N, E."""
    room: str | None = None
    """'open'/'closed' in a team match."""
    ns_id: str | None = None
    """NS team name in a team match (None: derived from the players)."""
    ew_id: str | None = None
    """EW team name in a team match."""
    slot_number: int | None = None
    """Board number from `qx` (o12 -> 12)."""
    rs: str | None = None
    """This table's entry of the `rs` results list."""
    published: PublishedValues = field(default_factory=dict)
    """Published values from the header (`mp`)."""


@dataclass(slots=True)
class BlockOutcome:
    """The records of one block, before quarantine decisions."""

    board: BoardRecord | None = None
    """Hand record, when the deal could be read."""
    result: ResultRecord | None = None
    """Table result, when one could be established."""
    result_expected: bool = False
    """True when the block carried a result (auction, claim, play or `rs`), trusted or not."""


class _Played(NamedTuple):
    """A result that waits for its play to be replayed (`read_blocks`)."""

    number: int
    at: Position
    contract: Contract
    calls: list[str]
    codes: list[str]
    claim: str | None
    play: CardPlay


class _Block:
    """Reads one block; methods report problems, which reach the shared `Reporter` when the block is
    done (`flush`), in the order they were found."""

    def __init__(self, tokens: Tokens, ctx: BlockContext, rep: Reporter, players: dict[str, Player]) -> None:
        self.tokens, self.ctx, self.rep, self.players = tokens, ctx, rep, players
        self.keys = tokens.keys[ctx.start:ctx.end]
        self.values = tokens.values[ctx.start:ctx.end]
        self.last = dict(zip(self.keys, self.values, strict=True))
        self.outcome = BlockOutcome()
        self.played: _Played | None = None
        self.reports: list[tuple[Severity, str, str, int, str]] = []

    def _runs(self) -> tuple[list[str], list[str]]:
        """The values of the block's calls (`mb`) and cards (`pc`), in order, in one pass."""
        calls: list[str] = []
        cards: list[str] = []
        for key, value in zip(self.keys, self.values, strict=True):
            if key == "pc":
                cards.append(value)
            elif key == "mb":
                calls.append(value)
        return calls, cards

    def report(self, severity: Severity, code: str, message: str, key: str | None = None,
               nth: int = -1, part: str = "board", value: bool = True) -> None:
        """Report at the `nth` occurrence of `key` in the block (-1 = last), or at the block start."""
        k = self.ctx.start
        if key is not None:
            found = [i for i, name in enumerate(self.keys) if name == key]
            if found:
                k = self.ctx.start + found[nth if -len(found) <= nth < len(found) else -1]
        offset = self.tokens.value_offset(k) if key is not None and value else self.tokens.key_offset(k)
        self.reports.append((severity, code, message, offset, part))

    def flush(self) -> None:
        """Hand the block's problems to the shared `Reporter`."""
        for severity, code, message, offset, part in self.reports:
            self.rep.report(severity, code, message, offset=offset, record=self.ctx.index, part=part)
        self.reports.clear()

    def read(self) -> BlockOutcome:
        """The block's records, but a result whose play waits to be replayed (`finish`)."""
        outcome = self.outcome
        outcome.result_expected = self._has_result()
        md = self.last.get("md")
        if md is None:
            self.report(_ERROR, "lin.md.missing", "this board has no deal (md); board and result are left out")
            return outcome
        if self.keys.count("md") > 1:
            self.report(_ERROR, "lin.md.repeated", "this board gives the deal (md) twice", key="md")
        parsed = parse_md(md)
        for message in parsed.errors:
            self.report(_ERROR, "lin.md.bad-hand", message, key="md")
        for message in parsed.warnings:
            self.report(_WARNING, "lin.md.irregular", message, key="md")
        number = self._board_number()
        at = Position.model_construct(record=self.ctx.index, line=self._line())
        outcome.board = BoardRecord.model_construct(
            board=number, section="", dealer=parsed.dealer, vulnerability=self._vulnerability(),
            deal=None if parsed.errors else parsed.deal(), published={}, at=at)
        if outcome.result_expected and not parsed.errors:
            outcome.result = self._result(number, parsed, at)
        return outcome

    def _has_result(self) -> bool:
        last = self.last
        return "mb" in last or "pc" in last or "mc" in last or bool(self.ctx.rs and self.ctx.rs.strip())

    def _line(self) -> int:
        assert self.rep.lines is not None
        return self.rep.lines.line(self.tokens.key_offset(self.ctx.start))

    def _board_number(self) -> int:
        heading = self.last.get("ah")
        if heading is not None:
            digits = _DIGITS.search(heading)
            number = whole_number(digits.group(), low=1) if digits is not None else None
            if number is not None:
                if self.ctx.slot_number is not None and number != self.ctx.slot_number:
                    self.report(_INFO, "lin.ah.differs-from-qx",
                                f"heading says board {number} but the slot (qx) says {self.ctx.slot_number}; "
                                "the heading is used", key="ah")
                return number
            self.report(_WARNING, "lin.ah.bad-heading",
                        f"heading {heading.strip()[:40]!r} carries no board number from 1 to 999999999",
                        key="ah")
        if self.ctx.slot_number is not None and self.ctx.slot_number >= 1:
            return self.ctx.slot_number
        self.report(_WARNING, "lin.ah.missing",
                    f"no board number (ah|Board N| or qx); numbered {self.ctx.index + 1} by its place in the file")
        return self.ctx.index + 1

    def _vulnerability(self) -> Vulnerability | None:
        text = self.last.get("sv")
        if text is None:
            return None
        vul = parse_vulnerability(text.strip())
        if vul is None:
            self.report(_WARNING, "lin.sv.bad-vulnerability",
                        f"vulnerability {text.strip()!r} is not o, n, e or b; taken from Law 2", key="sv")
        return vul

    # -- the result ---------------------------------------------------------------------------------

    def _result(self, number: int, parsed: ParsedDeal, at: Position) -> ResultRecord | None:
        raw_calls, raw_cards = self._runs() if "up" not in self.last else self._undo()
        calls = self._calls(raw_calls)
        if calls is None:
            return None
        codes = self._cards(raw_cards)
        if codes is None:
            return None
        claim = self.last.get("mc")
        if not calls:
            if codes or claim is not None:
                self.report(_ERROR, "lin.pc.no-auction",
                            "cards or a claim are recorded but no auction, so the contract is unknown",
                            key="pc" if codes else "mc", part="result")
                return None
            return self._from_rs(number, at, None, calls)
        dealer = parsed.dealer or law2_dealer(number)
        summary = summarise_auction(calls, dealer)
        for index, code, message in summary.problems:
            self.report(_ERROR, f"lin.mb.{code}", f"call {index + 1} of the auction: {message}",
                        key="mb", nth=index, part="result")
        if summary.problems:
            return None
        if summary.contract is None:
            self.report(_ERROR, "lin.mb.auction-incomplete",
                        f"the auction stops after {len(calls)} calls without ending; the result is unknown",
                        key="mb", part="result")
            return None
        contract = summary.contract
        if contract.is_passed_out:
            if codes or claim is not None:
                self.report(_ERROR, "lin.pc.after-pass-out", "cards or a claim are recorded on a passed-out board",
                            key="pc" if codes else "mc", part="result")
                return None
            return self._record(number, at, contract, None, calls, codes)
        if not codes and claim is None:
            return self._from_rs(number, at, contract, calls)
        assert contract.declarer is not None
        self.played = _Played(number, at, contract, calls, codes, claim,
                              CardPlay(codes, contract.declarer, contract.strain, parsed.masks()))
        return None

    def finish(self, played: _Played, replayed: PlayOutcome) -> None:
        """The result of a block whose play was replayed: tricks from the play or the claim."""
        tricks = self._tricks(played.codes, played.claim, replayed)
        if tricks is None:
            return
        self._cross_check(played.contract, tricks)
        self.outcome.result = self._record(played.number, played.at, played.contract, tricks, played.calls,
                                           played.codes)

    def _calls(self, raw: list[str]) -> list[str] | None:
        calls = normalised_calls(raw)
        for index, call in enumerate(calls):
            if call is None:
                self.report(_ERROR, "lin.mb.bad-call",
                            f"call {index + 1} of the auction, {raw[index].strip()!r}, is not a call "
                            "(expected p, d, r or a bid such as 1C or 3N)", key="mb", nth=index, part="result")
                return None
        return calls  # type: ignore[return-value]

    def _cards(self, raw: list[str]) -> list[str] | None:
        codes = list(map(CARD_CODES.get, raw))
        if None in codes:
            index = codes.index(None)
            self.report(_ERROR, "lin.pc.bad-card",
                        f"card {index + 1} of the play, {raw[index].strip()!r}, is not a card (expected e.g. SA or H7)",
                        key="pc", nth=index, part="result")
            return None
        return codes  # type: ignore[return-value]

    def _undo(self) -> tuple[list[str], list[str]]:
        """Apply vugraph `up` (take back the last call or card)."""
        calls: list[str] = []
        cards: list[str] = []
        last_kind = calls
        for key, value in zip(self.keys, self.values, strict=True):
            if key == "mb":
                calls.append(value)
                last_kind = calls
            elif key == "pc":
                cards.append(value)
                last_kind = cards
            elif key == "up" and last_kind:
                last_kind.pop()
        self.report(_INFO, "lin.up.undo", "the record takes back calls or cards (up); the last ones stand",
                    key="up", part="result")
        return calls, cards

    def _tricks(self, codes: list[str], claim: str | None, outcome: PlayOutcome) -> int | None:
        fatal = False
        for index, code, message in outcome.problems:
            severity = _WARNING if code == "revoke" else _ERROR
            fatal |= severity is _ERROR
            self.report(severity, f"lin.pc.{code}", f"card {index + 1} of the play: {message}",
                        key="pc", nth=min(index, len(codes) - 1), part="result")
        if fatal:
            return None
        if claim is not None:
            return self._claimed(claim, outcome.declarer_tricks, outcome.complete_tricks)
        if outcome.complete_tricks == 13:
            return outcome.declarer_tricks
        self.report(_ERROR, "lin.result.unknown",
                    f"the play stops after {len(codes)} cards without a claim (mc), so the number of tricks "
                    "is unknown; the result is left out", key="pc", part="result")
        return None

    def _claimed(self, claim: str, won: int, complete: int) -> int | None:
        text = claim.strip()
        if whole_number(text, high=13) is None:
            self.report(_ERROR, "lin.mc.bad-claim", f"claim {text!r} is not a number of tricks 0-13",
                        key="mc", part="result")
            return None
        tricks = int(text)
        if complete == 13:
            if tricks != won:
                self.report(_WARNING, "lin.mc.differs-from-play",
                            f"claim says {tricks} tricks but all 13 tricks were played and declarer won {won}; "
                            "the play is used", key="mc", part="result")
            return won
        if not claim_fits(tricks, won, complete):
            self.report(_ERROR, "lin.mc.impossible",
                        f"claim of {tricks} tricks is impossible: declarer had won {won} of the first "
                        f"{complete} tricks", key="mc", part="result")
            return None
        return tricks

    def _from_rs(self, number: int, at: Position, contract: Contract | None,
                 calls: list[str]) -> ResultRecord | None:
        """No play and no claim: the `rs` list is the only source of the result."""
        entry = (self.ctx.rs or "").strip()
        if not entry:
            if contract is not None:
                self.report(_ERROR, "lin.result.unknown",
                            f"the auction ended in {contract} by {contract.declarer} but neither play nor a claim "
                            "was recorded, so the number of tricks is unknown; the result is left out",
                            key="mb", part="result")
            return None
        parsed = parse_rs(entry)
        if parsed is None or (parsed[1] is None and not parsed[0].is_passed_out):
            self.report(_ERROR, "lin.rs.bad-entry",
                        f"result {entry!r} in the results list (rs) is not a result like 4SW-1 or 3NE=",
                        part="result")
            return None
        rs_contract, tricks = parsed
        if contract is not None and rs_contract != contract:
            self.report(_ERROR, "lin.rs.contradicts-auction",
                        f"the results list (rs) says {entry} but the auction ended in {contract} by "
                        f"{contract.declarer}", key="mb", part="result")
            return None
        return self._record(number, at, rs_contract, tricks, calls, [])

    def _cross_check(self, contract: Contract, tricks: int) -> None:
        entry = (self.ctx.rs or "").strip()
        if not entry:
            return
        parsed = parse_rs(entry)
        if parsed is None:
            self.report(_WARNING, "lin.rs.bad-entry",
                        f"result {entry!r} in the results list (rs) is not a result like 4SW-1 or 3NE=",
                        part="result")
        elif parsed[0] != contract or (parsed[1] is not None and parsed[1] != tricks):
            self.report(_WARNING, "lin.rs.mismatch",
                        f"the results list (rs) says {entry} but the table's record gives {contract} by "
                        f"{contract.declarer} with {tricks} tricks; the table's record is used", part="result")

    def _record(self, number: int, at: Position, contract: Contract, tricks: int | None,
                calls: list[str], codes: list[str]) -> ResultRecord:
        ns_players, ew_players = self._players()
        published = dict(self.ctx.published)
        if self.ctx.rs and self.ctx.rs.strip():
            published["rs"] = self.ctx.rs.strip()
        return ResultRecord.model_construct(
            board=number, section="", table_id=self.ctx.table_id, round=None, room=self.ctx.room,
            ns_id=self.ctx.ns_id or self._pair_id(2, 0, "NS"),
            ew_id=self.ctx.ew_id or self._pair_id(3, 1, "EW"),
            contract=contract, tricks=tricks, lead=CARDS[codes[0]] if codes else None,
            auction=tuple(calls), play=tuple(map(CARDS.__getitem__, codes)),
            ns_players=ns_players, ew_players=ew_players, published=published, at=at)

    def _pair_id(self, first: int, second: int, side: str) -> str:
        """The pair by its players; a pair with no name is a pair of its own, said where it sits."""
        named = _side_id(self.ctx.names, first, second, "")
        if named:
            return named
        pair = unnamed_pair(self.rep.source, self.ctx.index, side)
        self.report(_WARNING, "lin.pn.unnamed-pair",
                    f"no player of {_SIDE_NAMES[side]} is named, and LIN knows a pair only by its players; "
                    f"they are scored as pair {pair!r}, a pair of their own", key="pn" if "pn" in self.last else None,
                    part="result")
        return pair

    def _players(self) -> tuple[tuple[Player, ...], tuple[Player, ...]]:
        names = self.ctx.names
        if names is None:
            return (), ()
        return self._pair(names[2], names[0]), self._pair(names[3], names[1])

    def _pair(self, first: str, second: str) -> tuple[Player, ...]:
        if not first and not second:
            return ()
        return self._player(first), self._player(second)

    def _player(self, name: str) -> Player:
        player = self.players.get(name)
        if player is None:
            player = self.players[name] = Player(name=name)
        return player


def _side_id(names: list[str] | None, first: int, second: int, fallback: str) -> str:
    """LIN has no pair numbers: a pair is named by its players, `North/South` or `East/West`."""
    if names is None or not (names[first] or names[second]):
        return fallback
    return f"{names[first]}/{names[second]}"


def unnamed_pair(source: str, index: int, side: str) -> str:
    """The id of a pair none of whose players is named: its file, its block's place in the file and
    its side (`t17:1 NS`). Unnamed pairs of different files (or tables) are never one contestant,
    and a file read again names them the same."""
    return f"{PurePath(source).stem}:{index + 1} {side}"


def derived_table(names: list[str] | None, source: str, index: int) -> str:
    """The table of a result when the file names none (LIN never does outside a team match).

    BBO sends a tournament as one file per board and table, every one of them "table 1": the id
    must tell the tables of one board apart across files and stay the same when a file is sent
    again. The pairs that sat there do both (`North/South v East/West`); a block that names no
    player is named by its file and place in it (`stem:3`)."""
    if names is not None and any(names[:4]):
        return f"{_side_id(names, 2, 0, 'NS')} v {_side_id(names, 3, 1, 'EW')}"
    return f"{PurePath(source).stem}:{index + 1}"


def normalised_calls(raw: list[str]) -> list[str | None]:
    """`mb` values spelled as records spell calls (`p` -> Pass, `1n` -> 1NT); None for one that is no call."""
    calls = list(map(CALL_SPELLINGS.get, raw))
    return calls if None not in calls else [normalise_call(text) for text in raw]


def read_blocks(tokens: Tokens, contexts: Sequence[BlockContext], rep: Reporter,
                players: dict[str, Player]) -> list[BlockOutcome]:
    """Read board blocks into hand records and (when a block has one) results.

    Every play is replayed in one call of the bridge engine: each block is read up to its play,
    the plays are replayed, and then each block is finished. The problems reach `rep` block by
    block, as if each block had been read from start to end before the next."""
    blocks = [_Block(tokens, ctx, rep, players) for ctx in contexts]
    outcomes = [block.read() for block in blocks]
    waiting = [(block, block.played) for block in blocks if block.played is not None]
    replayed = replay_boards([played.play for _, played in waiting])
    for (block, played), outcome in zip(waiting, replayed, strict=True):
        block.finish(played, outcome)
    for block in blocks:
        block.flush()
    return outcomes


def seat_names(text: str) -> list[str]:
    """Split a `pn` value into stripped names (S, W, N, E order; 8 names in a match header)."""
    return [name.strip() for name in text.split(",")]

