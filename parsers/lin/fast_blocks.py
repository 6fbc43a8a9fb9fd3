"""Board blocks for the vectorised LIN reader: what the file's structure says about every block at once.

The careful reader (`parsers.lin.reader`) resolves, block by block: the file's header (`vg`, `rs`,
`mp`, `mn`, the players `pn`), each block's board number (`ah|Board N|`, or the vugraph slot
`qx|o12|`), its players (its own `pn`; in a vugraph file the `pn` written after the previous
block's content; the header's), its room and teams in a team match, and its entry of the `rs`
list. Here each of those is an array over the blocks. Whatever the careful reader would report
(a heading that differs from the slot, a player list of other than four or eight names, a team
sitting North-South in both rooms, published `mp` scores this path does not read) is declined.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import polars as pl

from parsers.arrow import series
from parsers.lin.fast_bytes import (
    KIND,
    Ints,
    Names,
    Tokens,
    by_board,
    per_board,
    require,
    string_views,
    views,
)
from parsers.lin.fast_text import Lines
from parsers.records import FileMetadata

# A player name: no separator, no control character, and no white space at either end, so that
# `str.strip` (what the careful reader applies) leaves it unchanged. (Python and the regex engine
# disagree on whether \x1c-\x1f are white space; control characters are excluded outright.)
_INNER = r"[^,|\x00-\x1f\x7f-\x9f]"
_EDGE = r"[^\s,|\x00-\x1f\x7f-\x9f]"
NAME = rf"(?:{_EDGE}(?:{_INNER}*{_EDGE})?)?"
"""A player name the fast path reads (the careful reader's `strip` leaves it as it is)."""
_RANKS = r"(?:[2-9TJQKA]|10)*"
_HAND = rf"S{_RANKS}H{_RANKS}D{_RANKS}C{_RANKS}"
MD_GRAMMAR = rf"^[1-4]{_HAND},{_HAND},{_HAND}(?:,(?:{_HAND})?)?$"
"""An `md` value the fast path reads: the dealer digit, three hands, and maybe the fourth."""
_HEADING = r"^Board [0-9]{1,9}$"
_SLOT = r"^([oOcC])([0-9]{1,9})(?:,.*)?$"
_HEADER_KEYS = [KIND[key] for key in ("vg", "rs", "pw", "mp", "bn", "mn", "pn", "pg", "st", "rh", "nt", "at", "bt",
                                      "ht", "sa", "sk", "va", "tu")]
_RS_TEXT = r"^[0-9A-Za-z=+\- ]*$"  # an `rs` entry whose JSON needs no escape


@dataclass(frozen=True)
class Header:
    """The tokens before the first block, as `parsers.lin.reader._header` reads them."""

    vg: list[str]
    rs: list[str]
    lineup: int
    """Token of the first `pn` with eight names or more (-1: none)."""
    carry: int
    """Token of the last other `pn` (-1: none)."""
    title: str | None

    @property
    def first_board(self) -> int:
        """The first board of a vugraph match (`vg`'s fourth field), 1 when it says none."""
        text = self.vg[3]
        return int(text) if text.isascii() and text.isdigit() and len(text) <= 9 and int(text) >= 1 else 1

    def metadata(self) -> FileMetadata:
        """The file's event, session and scoring (`parsers.lin.reader._Reader._metadata`)."""
        return FileMetadata(event_name=self.vg[0] or self.title, session_id=self.vg[1] or None,
                            scoring=self.vg[2] or None)

    def teams(self) -> tuple[str, str]:
        """The team names, or the reader's defaults."""
        return self.vg[5] or "Team 1", self.vg[7] or "Team 2"


@dataclass(frozen=True)
class Blocks:
    """Every block's place in the file, board number, room, players and `rs` entry."""

    line: Ints
    """1-based line of each block's first key."""
    number: Ints
    """Board number."""
    md: Ints
    """Token of each block's deal."""
    room: Ints
    """0 open, 1 closed in a team match; -1 otherwise."""
    names: Names
    """The four players S, W, N, E of each block (empty names where the file gives none)."""
    rs: pl.Series
    """Each block's `rs` entry, stripped ("" where there is none)."""
    header: Header


def _text(toks: Tokens, k: int) -> str:
    return bytes(toks.raw[toks.key_end[k] + 1:toks.end[k]]).decode("utf-8")


def read_header(toks: Tokens) -> Header:
    """The header's `vg`, `rs`, `mn` and player lists (a few tokens, read one by one)."""
    end = int(toks.first[0])
    require(bool(np.isin(toks.kind[:end], _HEADER_KEYS).all()), "board content before the first board")
    vg, rs, title, lineup, carry = [""] * 9, list[str](), None, -1, -1
    names: list[int] = []
    for k in range(end):
        kind = int(toks.kind[k])
        if kind == KIND["vg"] and not any(vg):
            fields = [part.strip() for part in _text(toks, k).strip().split(",")]
            vg = fields + [""] * (9 - len(fields))
        elif kind == KIND["rs"] and not rs:
            rs = _text(toks, k).split(",")
        elif kind == KIND["mp"]:
            require(not _text(toks, k).replace(",", "").strip(), "published scores (mp)")
        elif kind == KIND["mn"] and title is None and _text(toks, k).strip():
            title = _text(toks, k).strip()
        elif kind == KIND["pn"]:
            names.append(k)
    for k in names:
        if lineup < 0 and _text(toks, k).count(",") >= 7:
            lineup = k
        else:
            carry = k
    return Header(vg=vg, rs=rs, lineup=lineup, carry=carry, title=title)


def _values(toks: Tokens, picked: Ints) -> pl.Series:
    return series(string_views(toks.raw, toks.key_end[picked] + 1, toks.length[picked]))


def _one(toks: Tokens, key: str, required: bool) -> Ints:
    """The token of `key` in each block (-1: none), declining two (or none, when `required`)."""
    picked = toks.of(key)
    count = per_board(toks, picked)
    require(bool((count >= int(required)).all()) and int(picked.size - count.sum()) == 0, f"{key} outside a block")
    return by_board(count, picked, width=1)[:, 0]


def read_blocks(toks: Tokens, lines: Lines) -> Blocks:
    """Resolve every block (see the module docstring); declines what the careful reader would report."""
    header = read_header(toks)
    md = _one(toks, "md", required=True)
    require(bool(_values(toks, md).str.contains(MD_GRAMMAR).all()), "a deal the fast path does not read")
    vugraph = toks.kind[toks.first[0]] == KIND["qx"]
    ah = _one(toks, "ah", required=not vugraph)
    present = ah >= 0
    headings = _values(toks, ah[present])
    require(bool(headings.str.contains(_HEADING).all()), "a heading that is not 'Board N'")
    numbered = headings.str.slice(6).cast(pl.Int64).to_numpy()
    number = np.zeros(toks.boards, dtype=np.int64)
    number[present] = numbered
    room = np.full(toks.boards, -1, dtype=np.int64)
    if vugraph:
        slots = _values(toks, toks.first).str.extract_groups(_SLOT)
        require(slots.struct.field("1").null_count() == 0, "a board slot that is not o<N> or c<N>")
        slot_number = slots.struct.field("2").cast(pl.Int64).to_numpy()
        room = (slots.struct.field("1").str.to_lowercase() == "c").cast(pl.Int64).to_numpy()
        require(bool((slot_number >= 1).all()), "board slot 0")
        require(bool((~present | (number == slot_number)).all()), "a heading that differs from the slot")
        number = slot_number
    require(bool((number >= 1).all()), "board number 0")
    token, side = _name_tokens(toks, header, vugraph, room)
    names = _names(toks, token, side)
    rs = _rs_entries(header, number, room) if vugraph else pl.Series("rs", [""] * toks.boards)
    team = vugraph and (bool(header.vg[5] or header.vg[7]) or bool((room == 1).any()))
    if team:
        _check_rooms(names, number, room, header.lineup >= 0 and _lineup(toks, header))
    else:
        room = np.full(toks.boards, -1, dtype=np.int64)
    line = lines.line(toks.key_end[toks.first] - 2)
    return Blocks(line=line, number=number, md=md, room=room, names=names, rs=rs, header=header)


def _lineup(toks: Tokens, header: Header) -> list[str]:
    return [name.strip() for name in _text(toks, header.lineup).split(",")]


def _name_tokens(toks: Tokens, header: Header, vugraph: bool, room: Ints) -> tuple[Ints, Ints]:
    """The `pn` token naming each block's players (-1: none) and which four of eight names it gives."""
    ends = np.append(toks.first[1:], toks.kind.size)
    pn = toks.of("pn")

    def last_pn_before(at: Ints) -> Ints:
        index = np.searchsorted(pn, at) - 1
        found: Ints = np.where(index >= 0, pn[np.maximum(index, 0)] if pn.size else -1, -1)
        return found

    if not vugraph:
        own = last_pn_before(ends)
        token = np.where(own >= toks.first, own, header.carry)
        return np.where(token >= 0, token, header.lineup), np.zeros(toks.boards, dtype=np.int64)
    # A block's own `pn` stands before its trailing layout keys; a `pn` among those names the
    # next block's players (`parsers.lin.reader._Reader._block_pn`).
    content = toks.of("content")
    trail = content[np.searchsorted(content, ends) - 1] + 1  # (the block's `qx` is content)
    own, trailing = last_pn_before(trail), last_pn_before(ends)
    own = np.where(own >= toks.first, own, -1)
    trailing = np.where(trailing >= trail, trailing, -1)
    carry = np.concatenate([[header.carry], trailing[:-1]])
    token = np.where(own >= 0, own, carry)
    return np.where(token >= 0, token, header.lineup), room


def _names(toks: Tokens, token: Ints, side: Ints) -> Names:
    """The four names (S, W, N, E) of each block from its `pn` token: four names, or the four of
    `side` among eight; empty names where the token is -1."""
    have = np.flatnonzero(token >= 0)
    text, offsets = toks.joined(token[have])
    commas = np.flatnonzero(text == ord(","))
    first_comma = np.searchsorted(commas, offsets[:-1])
    count = np.searchsorted(commas, offsets[1:]) - first_comma
    require(bool(np.isin(count, (3, 7)).all()), "a player list of other than four or eight names")
    field = np.where(count == 7, 4 * side[have], 0)[:, None] + np.arange(4)  # (rows, 4): the names' places
    bounds = np.concatenate([commas, [0]])
    start = np.where(field == 0, offsets[:-1, None], bounds[first_comma[:, None] + field - 1] + 1)
    stop = np.where(field == count[:, None], offsets[1:, None], bounds[first_comma[:, None] + field])
    starts = np.zeros((token.size, 4), dtype=np.int64)
    length = np.zeros((token.size, 4), dtype=np.int64)
    starts[have], length[have] = start, stop - start
    picked = series(string_views(text, starts.ravel(), length.ravel()))
    require(bool(picked.str.contains(f"^{NAME}$").all()), "a player name with spaces at an end or control characters")
    return Names(text=text, views=views(text, starts.ravel(), length.ravel()).reshape(-1, 4, 4), length=length)


def _rs_entries(header: Header, number: Ints, room: Ints) -> pl.Series:
    """Each block's entry of the `rs` list: slot 2 x (board - first board) + room."""
    first = header.first_board
    slot = 2 * np.where(number >= first, number - first, number - 1) + np.maximum(room, 0)
    entries = pl.Series("rs", header.rs, dtype=pl.String).str.strip_chars()
    inside = (slot >= 0) & (slot < len(entries))
    picked = entries.gather(np.where(inside, slot, 0)) if len(entries) else pl.Series("rs", [""] * slot.size)
    rs = pl.select(pl.when(pl.Series(inside)).then(picked).otherwise(pl.lit("")).alias("rs")).to_series()
    require(bool(rs.str.contains(_RS_TEXT).all()), "an rs entry with unusual characters")
    return rs


def _check_rooms(names: Names, number: Ints, room: Ints, lineup: list[str] | bool) -> None:
    """Decline what the careful reader warns of in a team match: a North-South player in both rooms
    of a board, and a closed room listing the open room's players when the header lines them up."""
    every = np.arange(number.size)
    seats = {seat: series(names.of(every, (k,))).cast(pl.String) for k, seat in enumerate("swne")}
    frame = pl.DataFrame({"index": every, "number": number, "room": room, **seats})
    require(not frame.select(pl.struct("number", "room").is_duplicated().any()).item(), "a board slot twice")
    pairs = frame.filter(pl.col("room") == 1).join(frame.filter(pl.col("room") == 0), on="number", suffix="_o")
    pairs = pairs.filter(pl.col("index_o") < pl.col("index"))

    def north_south(seat: str, end: str = "") -> pl.Expr:
        """The player at `seat` counts as North-South (named, and not also East-West)."""
        player = pl.col(seat + end)
        return (player != "") & (player != pl.col("w" + end)) & (player != pl.col("e" + end))

    both = pl.any_horizontal(
        (pl.col(closed) == pl.col(open_ + "_o")) & north_south(closed) & north_south(open_, "_o")
        for closed in "sn" for open_ in "sn")
    require(not pairs.select(both.any()).item(), "a player North-South in both rooms")
    if isinstance(lineup, list) and len(lineup) >= 8:
        closed = sorted(lineup[4:8])
        named = pl.concat_list("s", "w", "n", "e")
        repeats = pairs.select((named.list.sort() == pl.concat_list("s_o", "w_o", "n_o", "e_o").list.sort())
                               & (pl.concat_list("s_o", "w_o", "n_o", "e_o").list.sort()
                                  != pl.lit(closed, dtype=pl.List(pl.String)))
                               & named.list.eval(pl.element() != "").list.any())
        require(not repeats.to_series().any(), "a closed room listing the open room's players")
