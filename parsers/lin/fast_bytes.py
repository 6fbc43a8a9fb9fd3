"""Lexing for the vectorised LIN reader (`parsers.lin.fast`): every board of the text at once.

The fast path reads one shape only, the one BBO's "my hands" export and `parsers.lin.writer` write:
one board per line, keys in this order (`?` optional, `*` repeated)

    pn|S,W,N,E|  st|..|?  md|..|  rh|..|?  ah|Board N|  sv|x|?  (mb|call| an|..|?)*  pg||*
    (pc|card| pg||*)*  (mc|N| pg||*)?

with blank lines allowed between boards. `LINE_GRAMMAR` says exactly which lines are accepted, and
a file with any other line is declined: the careful reader takes it.

Matching that expression against whole lines would cost a regex pass over every byte of the text,
as much as the rest of the reading together. It is checked in parts that say the same instead,
over the UTF-8 bytes of the whole text with numpy:
- shape (`tokens`): the '|' pair up into `key|value|` tokens (even-numbered pipes end keys, a key
  is the two bytes just before its pipe, a value is whatever lies between its key's pipe and the
  next one), tokens follow each other without a gap within a line, and the bytes between lines
  are line ends and nothing else;
- key order (`tokens`): which key may follow which on a line, and which may end it;
- values: the head of each line, `pn` to `ah`, by `HEAD_GRAMMAR` (a regex over the heads only);
  every value after it by the reader that decodes it (`sv` in `vulnerabilities`, `mb`, `pc` and
  `mc` in `parsers.lin.fast`), `pg` (empty) and `pc` (two letters) by `tokens`, and `an` (any
  text without a line end) by `_require_notes_on_their_line`.
`tests/parsers_lin/test_lin_fast.py` holds the parts to `LINE_GRAMMAR`: a text with a line
outside it is declined.

What the readers then take from the tokens (keys, values, the board of each token) relies on
those checks. The arrays are kept narrow (bytes, 32-bit steps) and lookups go through
`bytes.translate`: in this process, fresh memory costs more than the arithmetic done in it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt
import polars as pl
import pyarrow as pa
from numpy.lib.stride_tricks import sliding_window_view

Ints = npt.NDArray[np.integer[Any]]
"""An integer array: card, seat and call numbers are int8, positions int64."""
Bools = npt.NDArray[np.bool_]
"""A boolean array (masks and check results)."""
Bytes = npt.NDArray[np.uint8]
"""A byte array (text)."""


class Declined(Exception):
    """The fast path does not vouch for this file (the message says which check failed).

    Not an error: the careful reader takes the file and reports whatever is wrong with it.
    """


def require(condition: bool | np.bool_, reason: str) -> None:
    """Decline the file unless `condition` holds."""
    if not condition:
        raise Declined(reason)


# A player name: no separator, no control character, and no white space at either end, so that
# `str.strip` (what the careful reader applies) leaves it unchanged. (Python and the regex engine
# disagree on whether \x1c-\x1f are white space; control characters are excluded outright.)
_INNER = r"[^,|\x00-\x1f\x7f-\x9f]"
_EDGE = r"[^\s,|\x00-\x1f\x7f-\x9f]"
_NAME = rf"(?:{_EDGE}(?:{_INNER}*{_EDGE})?)?"
_RANKS = r"(?:[2-9TJQKA]|10)*"
_HAND = rf"S{_RANKS}H{_RANKS}D{_RANKS}C{_RANKS}"
_PAGE = r"(?:pg\|\|)*"

HEAD_GRAMMAR = (
    rf"^pn\|{_NAME},{_NAME},{_NAME},{_NAME}\|"
    r"(?:st\|[^|\n]*\|)?"
    rf"md\|[1-4]{_HAND},{_HAND},{_HAND}(?:,(?:{_HAND})?)?\|"
    r"(?:rh\|[^|\n]*\|)?"
    r"ah\|Board [0-9]{1,9}\|"
)
"""The start of every board line, up to its heading (a line must start with a match)."""

LINE_GRAMMAR = HEAD_GRAMMAR + (
    r"(?:sv\|[oOnNeEbB0]\|)?"
    r"(?:mb\|[0-9A-Za-z]{1,4}!?\|(?:an\|[^|]*\|)?)*"
    rf"{_PAGE}(?:pc\|[SHDC][2-9TJQKA]\|{_PAGE})*"
    rf"(?:mc\|[0-9]{{1,2}}\|{_PAGE})?$"
)
"""One board per line, as described in the module docstring (a line must match it whole)."""

KEYS: tuple[str, ...] = ("pn", "st", "md", "rh", "ah", "sv", "mb", "an", "pg", "pc", "mc")
"""The keys of `LINE_GRAMMAR`; a token's `kind` is its key's index here."""
_KIND: dict[str, int] = {key: kind for kind, key in enumerate(KEYS)}
_PN = _KIND["pn"]
_HEAD = ("pn", "md", "ah", "sv")  # the keys every line's head has, and `sv`, in order
# Which keys may follow each key on a line, and which may end a line (LINE_GRAMMAR's order). One
# rule is not about neighbours, and `_require_claim_last` checks it: after `mc` come pages only.
_MAY_FOLLOW: dict[str, str] = {
    "pn": "st md", "st": "md", "md": "rh ah", "rh": "ah",
    "ah": "sv mb pg pc mc", "sv": "mb pg pc mc", "mb": "an mb pg pc mc", "an": "mb pg pc mc",
    "pg": "pg pc mc", "pc": "pg pc mc", "mc": "pg",
}
_MAY_END = "ah sv mb an pg pc mc"


def byte_table(table: dict[str, int]) -> Ints:
    """A byte -> small number lookup table (-1 for any byte not in `table`)."""
    out = np.full(256, -1, dtype=np.int8)
    for char, value in table.items():
        out[ord(char)] = value
    return out


def lookup(values: Ints, table: bytes) -> Bytes:
    """`table[values]` for an array of bytes and a table of 256, as `bytes.translate` does it.

    A plain C loop over the bytes: numpy's `take` first widens every index to 64 bits (an index
    array eight times the size of the bytes), and fancy indexing is slower still.
    """
    return np.frombuffer(bytearray(np.ascontiguousarray(values)).translate(table), dtype=np.uint8).reshape(values.shape)


def translation(table: dict[str, int]) -> bytes:
    """A `lookup` table: each character of `table` to its number, any other byte to 255."""
    return byte_table(table).astype(np.uint8).tobytes()


# A key is looked up in three steps of one byte each: its first letter and its second letter to
# their places among the grammar's first and second letters (15: none), then the pair of places.
_FIRSTS, _SECONDS = sorted({key[0] for key in KEYS}), sorted({key[1] for key in KEYS})
_FIRST_OF = translation({letter: i for i, letter in enumerate(_FIRSTS)})
_SECOND_OF = translation({letter: i for i, letter in enumerate(_SECONDS)})


def _kind_table() -> bytes:
    """A `lookup` table: (first letter's place << 4 | second letter's place) -> the key's kind (255: none)."""
    out = bytearray([255] * 256)
    for key, kind in _KIND.items():
        out[_FIRSTS.index(key[0]) << 4 | _SECONDS.index(key[1])] = kind
    return bytes(out)


def _follow_table() -> bytes:
    """A `lookup` table: kind before * len(KEYS) + kind after -> 1 if they may stand next to each other on a line."""
    out = bytearray(256)
    for key, followers in _MAY_FOLLOW.items():
        for follower in followers.split():
            out[_KIND[key] * len(KEYS) + _KIND[follower]] = 1
    return bytes(out)


_KIND_OF, _FOLLOWS = _kind_table(), _follow_table()
_ENDS = np.isin(np.arange(len(KEYS)), [_KIND[key] for key in _MAY_END.split()])

_VULNERABILITIES: tuple[str, ...] = ("None", "NS", "EW", "All")
_VULNERABILITY_OF = byte_table({letter: i for i, letters in enumerate(("oO0", "nN", "eE", "bB")) for letter in letters})

_LOW_BYTES = np.array([(1 << 8 * n) - 1 for n in range(9)], dtype=np.uint64)  # n: the n low bytes set
_ONES, _HIGHS = np.uint64(0x0101010101010101), np.uint64(0x8080808080808080)


@dataclass(frozen=True)
class Tokens:
    """Every `key|value|` token of a checked text, as parallel arrays in text order."""

    raw: Bytes
    """The UTF-8 bytes of the text."""
    kind: Ints
    """The key of each token, as its index in `KEYS`."""
    key_end: Ints
    """Byte offset of the '|' after each key (the value starts one byte later)."""
    end: Ints
    """Byte offset of the '|' after each value."""
    length: Ints
    """The length of each value in bytes."""
    first: Ints
    """Index of each board's first token (its `pn`)."""
    line: Ints
    """1-based line number of each board."""
    _of: dict[str, Ints] = field(default_factory=dict, compare=False, repr=False)

    @property
    def boards(self) -> int:
        """The number of boards (non-blank lines)."""
        return self.first.size

    def board_of(self, picked: Ints) -> Ints:
        """The 0-based board (line) of each picked token."""
        return np.searchsorted(self.first, picked, side="right") - 1

    def of(self, key: str) -> Ints:
        """Indices of the `key` tokens (found once per key: several readers ask for the same)."""
        if key not in self._of:
            self._of[key] = self._head(key) if key in _HEAD else np.flatnonzero(self.kind == _KIND[key])
        return self._of[key]

    def _head(self, key: str) -> Ints:
        """The `key` tokens of a line's head (`pn` to `sv`), found from the line's first token: the
        key order fixes where they stand (`pn st? md rh? ah sv?`), so only these few are read."""
        if key == "pn":
            return self.first
        before = self.of(_HEAD[_HEAD.index(key) - 1] if key != "md" else "pn")
        if key == "sv":
            after: Ints = np.minimum(before + 1, self.kind.size - 1)
            present: Ints = after[(self.kind[after] == _KIND["sv"]) & (after > before)]
            return present
        optional = {"md": "st", "ah": "rh"}[key]
        at: Ints = before + 1 + (self.kind[before + 1] == _KIND[optional])
        return at

    def packed(self, picked: Ints, width: int) -> Ints:
        """The picked tokens' values (at most `width` <= 8 bytes) as numbers: byte i in bits 8i..8i+7.

        Declines a longer value, and one with a NUL byte (it would pack like the end of the value;
        no value of the grammar holds one).
        """
        length = self.length[picked]
        require(int(length.max(initial=0)) <= width, "a value longer than expected")
        # Eight bytes from each value's start, read as one little-endian number, cut to the value.
        word = window(self.raw, self.key_end[picked] + 1, 8).view("<u8")[:, 0]
        mask = _LOW_BYTES[length]
        # The classic test for a zero byte in a word, with the bytes past the value set to 0xFF.
        rest = word | ~mask
        require(not ((rest - _ONES) & ~rest & _HIGHS).any(), "a NUL byte in a value")
        return word & mask

    def letters(self, picked: Ints) -> tuple[Bytes, Bytes]:
        """The first and the second byte of the picked tokens' values (for `pc`)."""
        before = self.key_end[picked]  # the value starts right after
        return self.raw[1:][before], self.raw[2:][before]

    def values(self, picked: Ints, width: int) -> Bytes:
        """The picked tokens' values (declined if longer than `width` bytes) as rows of bytes,
        zero-padded to the longest."""
        length = self.length[picked]
        longest = int(length.max(initial=0))
        require(longest <= width, "a value longer than expected")
        rows = window(self.raw, self.key_end[picked] + 1, max(longest, 1))
        rows *= np.arange(rows.shape[1], dtype=np.int64) < length[:, None]
        return rows

    def joined(self, picked: Ints) -> tuple[Bytes, Ints]:
        """The picked tokens' values one after another, and where each starts (one more: the end)."""
        return _gather(self.raw, self.key_end[picked] + 1, self.length[picked])


def _gather(raw: Bytes, start: Ints, length: Ints) -> tuple[Bytes, Ints]:
    """The byte ranges (`start`, `length`) of `raw` one after another, and where each starts (and the end)."""
    offsets = np.zeros(start.size + 1, dtype=np.int64)
    np.cumsum(length, out=offsets[1:])
    # Byte k of the result is byte k - offsets[i] of range i, at start[i] + that.
    at = np.repeat(start - offsets[:-1], length) + np.arange(offsets[-1])
    return raw[at], offsets


def tokens(data: bytes) -> Tokens:
    """Split UTF-8 bytes into tokens, declining unless the text has the shape and key order of
    `LINE_GRAMMAR` (see the module docstring: the values are checked by their readers)."""
    raw = np.frombuffer(data, dtype=np.uint8)
    require(raw.size < 1 << 31, "a text too long for 32-bit offsets")
    pipes = np.flatnonzero(raw == ord("|"))
    require(pipes.size > 0 and pipes.size % 2 == 0, "no board, or a '|' too many")
    key_end, end = pipes[0::2], pipes[1::2]
    # From each pipe to the next, in 32 bits (half the memory: in this process fresh memory costs
    # more than the arithmetic): from a key's pipe to its value's, the value's length + 1; from
    # a value's pipe to the next key's, 3 on a line (the key), more across lines.
    steps = np.empty(pipes.size - 1, dtype=np.int32)
    np.subtract(pipes[1:], pipes[:-1], out=steps, casting="unsafe")
    length, step = steps[0::2], steps[1::2]
    length -= 1
    require(int(key_end[0]) >= 2 and int(step.min(initial=3)) >= 3, "a key that is not two letters")
    starts_line = np.empty(key_end.size, dtype=np.bool_)
    starts_line[0] = True
    np.greater(step, 3, out=starts_line[1:])
    first = np.flatnonzero(starts_line)
    kind = _kinds(raw, key_end, end, first)
    require(int(kind.min()) >= 0, "a key the fast path does not read")
    require(bool(np.array_equal(starts_line, kind == _PN)), "a line that does not start with pn, or pn inside one")
    line = _require_line_ends_only(raw, key_end, end, first)
    _require_key_order(kind, first)
    require(not ((kind == _KIND["pg"]) & (length != 0)).any(), "a page with a value")
    require(not ((kind == _KIND["pc"]) & (length != 2)).any(), "a card that is not two letters")
    toks = Tokens(raw=raw, kind=kind, key_end=key_end, end=end, length=length, first=first, line=line)
    _require_claim_last(toks)
    _require_notes_on_their_line(toks)
    return toks


def _kinds(raw: Bytes, key_end: Ints, end: Ints, first: Ints) -> Ints:
    """The kind of every token's key (-1: none of `KEYS`); its two letters end at its pipe.

    A token that goes on a line starts right after the previous value's pipe, so its letters are
    read at that pipe's offset plus one and two (no index array to build); a token that starts a
    line is read where it starts.
    """
    firsts, seconds = np.empty(key_end.size, dtype=np.uint8), np.empty(key_end.size, dtype=np.uint8)
    firsts[1:], seconds[1:] = raw[1:][end[:-1]], raw[2:][end[:-1]]
    firsts[first], seconds[first] = raw[key_end[first] - 2], raw[key_end[first] - 1]
    pair = lookup(firsts, _FIRST_OF) << 4
    pair |= lookup(seconds, _SECOND_OF)
    return lookup(pair, _KIND_OF).view(np.int8)


def window(raw: Bytes, start: Ints, width: int) -> Bytes:
    """(starts, width): `width` bytes of `raw` from each of `start` (in increasing order), 0 past its end.

    Rows of a sliding window over the text: one copy of `width` bytes per start, where a table
    of byte indices costs ten times that.
    """
    rows = np.empty((start.size, width), dtype=np.uint8)
    # The starts near the end read from a copy of the last bytes with zeros after them.
    near = int(np.searchsorted(start, raw.size - width, side="right"))
    base = max(raw.size - width, 0)
    tail = np.concatenate([raw[base:], np.zeros(width, dtype=np.uint8)])
    if near:
        rows[:near] = sliding_window_view(raw, width)[start[:near]]
    rows[near:] = sliding_window_view(tail, width)[start[near:] - base]
    return rows


def _require_line_ends_only(text: Bytes, key_end: Ints, end: Ints, first: Ints) -> Ints:
    """Decline unless all the bytes between lines of tokens (and before and after them) are line
    ends; tokens follow each other on a line (the caller checked that).

    No line end may stand inside a token either; the values say so: `HEAD_GRAMMAR` for the head,
    the readers for the values after it, and `_require_notes_on_their_line` for the notes.
    Returns the 1-based line number of each line (`first` indexes its first token).
    """
    # The bytes before each line, and after the last one.
    gap_start = np.concatenate([[0], end[first[1:] - 1] + 1, [end[-1] + 1]])
    gap_length = np.append(key_end[first] - 2, text.size) - gap_start
    between, _ = _gather(text, gap_start, gap_length)
    require(bool((between == ord("\n")).all()), "text outside the key|value| tokens")
    return np.cumsum(gap_length[:-1]) + 1


def _require_notes_on_their_line(toks: Tokens) -> None:
    """No line end in an alert note (`an`), the one value after the head that may hold any text."""
    notes, _ = toks.joined(toks.of("an"))
    require(not (notes == ord("\n")).any(), "a value across lines")


def _require_key_order(kind: Ints, first: Ints) -> None:
    """Decline unless each line's keys follow each other as `LINE_GRAMMAR` orders them."""
    pair = kind[:-1] * np.int8(len(KEYS))  # (at most 120: a byte will do)
    pair += kind[1:]
    follows = lookup(pair.view(np.uint8), _FOLLOWS).view(np.bool_)
    follows[first[1:] - 1] = True  # the last key of a line and the first of the next: no constraint
    require(bool(follows.all()), "keys out of order")
    last = np.append(first[1:] - 1, kind.size - 1)
    require(bool(_ENDS[kind[last]].all()), "a line that stops before its heading")


def _require_claim_last(toks: Tokens) -> None:
    """At most one claim per line and no card after it (so that only pages follow it)."""
    mc = toks.of("mc")
    if mc.size:
        pc = toks.of("pc")
        board = toks.board_of(mc)
        require(bool((np.diff(board) > 0).all()), "two claims on a line")
        after = np.searchsorted(pc, mc)
        later = toks.board_of(pc[np.minimum(after, pc.size - 1)]) if pc.size else np.full(mc.size, -1)
        require(bool(((after == pc.size) | (later != board)).all()), "a card after the claim")


def require_heads(toks: Tokens) -> None:
    """Decline unless the head of every line, its tokens up to the heading `ah`, matches `HEAD_GRAMMAR`."""
    ah = toks.of("ah")
    require(ah.size == toks.boards, "not one heading per board")
    start = toks.key_end[toks.first] - 2
    heads = pl.Series(string_views(toks.raw, start, toks.end[ah] + 1 - start))
    require(bool(heads.str.contains(HEAD_GRAMMAR + "$").all()), "a line is not a plain board")


@dataclass(frozen=True)
class Names:
    """The four names of every board (`pn`: South, West, North, East), as Arrow string views."""

    text: Bytes
    """The `pn` values one after another: the bytes the views of long names refer to."""
    views: Ints
    """(boards, 4, 4) int32: the string view of each name (see `string_views`)."""
    length: Ints
    """(boards, 4): each name's length in bytes."""

    def of(self, rows: Ints, seats: tuple[int, ...]) -> pa.Array:
        """The names at `seats` (positions in `pn`) of the boards `rows`, board by board."""
        views = np.ascontiguousarray(self.views[rows][:, list(seats)])
        return pa.Array.from_buffers(pa.string_view(), views.shape[0] * views.shape[1],
                                     [None, pa.py_buffer(views), pa.py_buffer(self.text)])


def names(toks: Tokens) -> Names:
    """The four names of every `pn` value (as `require_heads` checked them)."""
    text, offsets = toks.joined(toks.first)
    found = np.flatnonzero(text == ord(","))
    require(found.size == 3 * toks.boards, "not four names")
    commas = found.reshape(-1, 3)
    require(bool((commas[:, 0] >= offsets[:-1]).all() and (commas[:, 2] < offsets[1:]).all()), "not four names")
    start = np.concatenate([offsets[:-1, None], commas + 1], axis=1)
    length = np.concatenate([commas, offsets[1:, None]], axis=1) - start
    return Names(text=text, views=_views(text, start.ravel(), length.ravel()).reshape(-1, 4, 4), length=length)


_INLINE = 12  # a string view holds a text of up to 12 bytes itself
_PREFIXES = np.tri(_INLINE + 1, _INLINE, -1, dtype=np.uint8)  # row n: n ones, then zeros


def string_views(data: Bytes, start: Ints, length: Ints) -> pa.Array:
    """The byte ranges (`start`, `length`) of `data` as an Arrow string array that refers to `data`.

    Each range must be UTF-8, and the starts in increasing order. Polars takes string
    views as they are, where it copies other string arrays one string at a time.
    """
    return pa.Array.from_buffers(pa.string_view(), start.size,
                                 [None, pa.py_buffer(_views(data, start, length)), pa.py_buffer(data)])


def _views(data: Bytes, start: Ints, length: Ints) -> Ints:
    """(ranges, 4) int32: the Arrow string view of each byte range of `data` (see `string_views`)."""
    require(data.size < 1 << 31, "a text too long for 32-bit offsets")
    # A view: the length (int32), then the text itself if it fits in 12 bytes, else its first four
    # bytes, the buffer (0: `data`) and the offset.
    views = np.zeros((start.size, 4), dtype=np.int32)
    views[:, 0] = length
    # (Masks from a table: comparing with a 12-wide row is slow, numpy's inner loops being 12 long.)
    views.view(np.uint8)[:, 4:] = window(data, start, _INLINE) * np.take(
        _PREFIXES, np.minimum(length, _INLINE), axis=0)
    long = np.flatnonzero(length > _INLINE)
    views[long, 2] = 0
    views[long, 3] = start[long]
    return views


def short_views(names: tuple[str, ...]) -> Bytes:
    """The Arrow string view of each of `names` (each at most 12 bytes, so held inline), 16 bytes a row."""
    out = np.zeros((len(names), 16), dtype=np.uint8)
    for row, name in zip(out, names, strict=True):
        data = name.encode()
        row[:4] = np.frombuffer(np.array(len(data), dtype="<i4").tobytes(), dtype=np.uint8)
        row[4:4 + len(data)] = np.frombuffer(data, dtype=np.uint8)
    return out


def texts(codes: Ints, views: Bytes, valid: Bools | None = None) -> pa.Array:
    """Codes as an Arrow string array of the names whose `short_views` are `views`, null where not `valid`.

    Views of short names are the names themselves, so this is one gather (`np.take` along the
    rows: fancy indexing `views[codes]` is ~10x slower on rows of bytes).
    """
    picked = np.take(views, codes if valid is None else np.where(valid, codes, 0), axis=0)
    bitmap = None if valid is None else pa.py_buffer(np.packbits(valid, bitorder="little"))
    return pa.Array.from_buffers(pa.string_view(), codes.size, [bitmap, pa.py_buffer(picked)])


def per_board(toks: Tokens, picked: Ints) -> Ints:
    """How many of the picked tokens (indices in text order) each board has."""
    return np.diff(np.searchsorted(picked, np.append(toks.first, toks.kind.size)))


def by_board(counts: Ints, values: Ints, width: int) -> Ints:
    """Values of consecutive tokens laid out one row per board, in order, padded with -1.

    `counts` says how many values each board has (`per_board`): each board's values are a run,
    and value i lands at flat position i + (board * width - first value of that board).
    """
    boards = counts.size
    require(int(counts.max(initial=0)) <= width and int(counts.sum()) == values.size, "too many values on one board")
    if values.size == boards * width:  # every row full (52 cards each, one heading each): already laid out
        return values.reshape(boards, width)
    shift = np.arange(boards) * width - (np.cumsum(counts) - counts)
    out = np.full(boards * width, -1, dtype=values.dtype)
    out[np.arange(values.size) + np.repeat(shift, counts)] = values
    return out.reshape(boards, width)


def board_numbers(toks: Tokens) -> Ints:
    """The number of each board, from its heading `ah|Board N|` (declines a board 0)."""
    ah = toks.of("ah")
    boards = toks.boards
    require(bool(np.array_equal(toks.board_of(ah), np.arange(boards))), "not one heading per board")
    digits = toks.values(ah, len("Board 123456789"))[:, len("Board "):]
    number = np.zeros(boards, dtype=np.int64)
    for column in digits.T:  # at most nine digits, each a column for all boards
        number = np.where(column > 0, number * 10 + column - ord("0"), number)
    require(bool((number >= 1).all()), "board number 0")
    return number


_VULNERABILITY_VIEWS = short_views(_VULNERABILITIES)


def vulnerabilities(toks: Tokens) -> pl.Series:
    """Each board's vulnerability as `Vulnerability` values (`sv`); null where the board does not say."""
    sv = toks.of("sv")
    letters = _VULNERABILITY_OF[toks.raw[toks.key_end[sv] + 1]]
    require(bool((toks.length[sv] == 1).all() and (letters >= 0).all()), "a vulnerability that is none")
    codes = by_board(per_board(toks, sv), letters, width=1)[:, 0]
    return pl.Series("vulnerability", texts(codes, _VULNERABILITY_VIEWS, codes >= 0))
