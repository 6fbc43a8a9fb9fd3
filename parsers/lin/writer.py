"""BBO LIN writer: the inverse of `parsers.lin` for the records LIN can carry.

- One board with at most one result, no event metadata and nothing published: a single-board LIN
  as BBO's hand viewer writes it (`pn|...|st||md|...|rh||ah|Board N|sv|...|mb|...|pc|...|mc|...`).
- Anything else: a vugraph file with a `vg|` header, `rs|` (results as published), `mp|` (published
  IMPs or percentages) and one `qx|o<N>`/`qx|c<N>` block per table, each naming its four players
  (`pn|`). BBO's archives also have a line naming all eight players of a match; other readers
  (endplay) refuse a `pn|` of eight names, and the blocks say the same, so it is not written.

Reading the output back with `parsers.lin` gives the same records (positions aside) for anything
`parsers.lin` produced. What LIN cannot say is dropped: pair numbers other than the players' names,
sections, rounds, alerts and explanations, artificial scores and contestants.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import PurePath

from models.board import law2_dealer
from models.cards import Deal, Hand
from models.events import Player
from parsers.lin.records import unnamed_pair
from parsers.lin.values import DEALER_DIGIT, LIN_SEATS, VUL_LETTER, format_rs
from parsers.records import BoardRecord, FileMetadata, ParsedFile, ResultRecord

_CALLS = {"Pass": "p", "X": "d", "XX": "r"}
_TEAM_ROOMS = ("open", "closed")

Block = tuple[BoardRecord | None, ResultRecord | None]


def dumps(parsed: ParsedFile) -> str:
    """Write the boards and results of `parsed` as LIN text (newline-terminated)."""
    blocks = _blocks(parsed)
    if _fits_single_board(parsed, blocks):
        board, result = blocks[0]
        return _block(board, result) + "\n"
    return _vugraph(parsed, blocks)


def _blocks(parsed: ParsedFile) -> list[Block]:
    """Pair each result with its board, in file order; boards without results get their own block."""
    by_number: dict[int, BoardRecord] = {}
    for record in parsed.boards:
        by_number.setdefault(record.board, record)
    if parsed.format == "lin":
        return _blocks_by_record(parsed, by_number)
    results_of: dict[int, list[ResultRecord]] = {}
    for result in sorted(parsed.results, key=lambda r: (r.board, r.room or "", r.table_id)):
        results_of.setdefault(result.board, []).append(result)
    numbers = sorted(set(by_number) | set(results_of))
    return [block for n in numbers
            for block in ([(by_number.get(n), r) for r in results_of[n]] if n in results_of
                          else [(by_number[n], None)])]


def _blocks_by_record(parsed: ParsedFile, by_number: dict[int, BoardRecord]) -> list[Block]:
    """The LIN reader gives a board and its result the same record index; keep that order."""
    boards_at = {record.at.record: record for record in parsed.boards}
    results_at: dict[int, list[ResultRecord]] = {}
    for result in parsed.results:
        results_at.setdefault(result.at.record, []).append(result)
    blocks: list[Block] = []
    for index in sorted(boards_at.keys() | results_at.keys()):
        results = results_at.get(index, [])
        board = boards_at.get(index)
        if board is None and results:
            board = by_number.get(results[0].board)
        blocks += [(board, result) for result in results] or [(board, None)]
    return blocks


def _fits_single_board(parsed: ParsedFile, blocks: list[Block]) -> bool:
    if len(blocks) != 1 or parsed.metadata != FileMetadata():
        return False
    board, result = blocks[0]
    if board is None:
        return False
    return result is None or (result.room is None and not result.published
                              and result.table_id in _derived_tables(parsed, result)
                              and (bool(result.auction) or result.contract.is_passed_out)
                              and (result.ns_id, result.ew_id) == _derived_ids(parsed, result))


def _derived_tables(parsed: ParsedFile, result: ResultRecord) -> tuple[str, ...]:
    """Table ids a single-board file's result reads back with (`parsers.lin.records.derived_table`)."""
    north, south = _names(result.ns_players)
    east, west = _names(result.ew_players)
    ns = f"{north}/{south}" if north or south else "NS"
    ew = f"{east}/{west}" if east or west else "EW"
    return "1", f"{ns} v {ew}", f"{PurePath(parsed.source).stem}:1"


def _derived_ids(parsed: ParsedFile, result: ResultRecord) -> tuple[str, str]:
    """The ids `parsers.lin` gives the pairs of a single-board file: their players' names, or the
    file and side when neither player is named (`parsers.lin.records.unnamed_pair`)."""
    north, south = _names(result.ns_players)
    east, west = _names(result.ew_players)
    ns = f"{north}/{south}" if north or south else unnamed_pair(parsed.source, 0, "NS")
    ew = f"{east}/{west}" if east or west else unnamed_pair(parsed.source, 0, "EW")
    return ns, ew


def _names(players: tuple[Player, ...]) -> tuple[str, str]:
    names = [_clean(p.name) for p in players] + ["", ""]
    return names[0], names[1]


def _clean(text: str) -> str:
    """Text safe inside a LIN value: no separators, no line breaks."""
    return text.replace("|", " ").replace(",", " ").replace("\r", " ").replace("\n", " ").strip()


def _block(board: BoardRecord | None, result: ResultRecord | None, slot: str | None = None) -> str:
    parts: list[str] = []
    if slot is not None:
        parts.append(f"qx|{slot}|")
    # Always name the seats, if only with empty names: other readers (endplay) find boards by `pn|`.
    north, south = _names(result.ns_players) if result is not None else ("", "")
    east, west = _names(result.ew_players) if result is not None else ("", "")
    parts.append(f"pn|{south},{west},{north},{east}|")
    number = board.board if board is not None else result.board if result is not None else 1
    parts.append(f"st||md|{_md(board)}|rh||ah|Board {number}|")
    if board is not None and board.vulnerability is not None:
        parts.append(f"sv|{VUL_LETTER[board.vulnerability]}|")
    if result is not None:
        parts.extend(f"mb|{_call(call)}|" for call in result.auction)
        parts.append("pg||")
        parts.extend(_play(result))
    return "".join(parts)


def _md(board: BoardRecord | None) -> str:
    if board is None:
        return ",,,"
    # LIN needs a dealer for the auction to start from; an unmarked board has its Law 2 dealer.
    digit = DEALER_DIGIT[board.dealer or law2_dealer(board.board)]
    deal = board.deal or Deal()
    hands = [_hand(deal.hand(seat)) for seat in LIN_SEATS]
    if deal.is_complete:
        hands[-1] = ""  # BBO writes three hands; the fourth is the rest of the pack
    return digit + ",".join(hands)


def _hand(hand: Hand | None) -> str:
    if hand is None:
        return ""
    return f"S{hand.spades}H{hand.hearts}D{hand.diamonds}C{hand.clubs}"


def _call(call: str) -> str:
    spelled = _CALLS.get(call)
    if spelled is not None:
        return spelled
    return call[0] + "N" if call.endswith("NT") else call


def _play(result: ResultRecord) -> Iterable[str]:
    for i, card in enumerate(result.play):
        yield f"pc|{card}|"
        if i % 4 == 3:
            yield "pg||"
    if len(result.play) < 52 and result.tricks is not None and result.auction:
        yield f"mc|{result.tricks}|pg||"


def _vugraph(parsed: ParsedFile, blocks: list[Block]) -> str:
    team = any(result is not None and result.room in _TEAM_ROOMS for _, result in blocks)
    slots = _slots(blocks, team)
    first = min((n for n, _ in slots), default=1)
    last = max((n for n, _ in slots), default=1)
    width = 2 * (last - first + 1)
    rs, mp = [""] * width, [""] * width
    for (number, side), (_, result) in zip(slots, blocks, strict=True):
        if result is None:
            continue
        index = 2 * (number - first) + side
        # A result without an auction (from another format) travels as its `rs` entry.
        published_rs = result.published.get("rs")
        rs[index] = _clean(str(published_rs)) if published_rs is not None else (
            "" if result.auction else format_rs(result.contract, result.tricks))
        value = result.published.get("imp_ns", result.published.get("pct_ns"))
        if value is not None:
            mp[index] = _number(value)
    meta = parsed.metadata
    team1, team2 = _teams(blocks) if team else ("", "")
    header = [f"vg|{_clean(meta.event_name or '')},{_clean(meta.session_id or '')},{_clean(meta.scoring or '')},"
              f"{first},{last},{team1},0,{team2},0|\n"]
    if any(rs):
        header.append(f"rs|{','.join(rs)}|\n")
    if any(mp):
        header.append(f"mp|{','.join(mp)}|\n")
    body = [_block(board, result, f"{'oc'[side]}{number},BOARD {_board_number(board, result)}") + "\n"
            for (number, side), (board, result) in zip(slots, blocks, strict=True)]
    return "".join(header + body)


def _board_number(board: BoardRecord | None, result: ResultRecord | None) -> int:
    return board.board if board is not None else result.board if result is not None else 1


def _slots(blocks: list[Block], team: bool) -> list[tuple[int, int]]:
    """(qx number, 0 open / 1 closed) per block: the board number, unless boards repeat outside a match."""
    if not team:
        numbers = [_board_number(board, result) for board, result in blocks]
        if len(set(numbers)) == len(numbers):
            return [(n, 0) for n in numbers]
        return [(k + 1, 0) for k in range(len(blocks))]  # a board repeats (e.g. "my hands"): number the slots
    return [(_board_number(board, result), 1 if result is not None and result.room == "closed" else 0)
            for board, result in blocks]


def _teams(blocks: list[Block]) -> tuple[str, str]:
    for _, result in blocks:
        if result is not None and result.room == "open":
            return _clean(result.ns_id), _clean(result.ew_id)
    for _, result in blocks:
        if result is not None and result.room == "closed":
            return _clean(result.ew_id), _clean(result.ns_id)
    return "", ""


def _number(value: float | str) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)

