"""Lexing for the vectorised LIN reader (`parsers.lin.fast`): every token of the text at once.

The text reaches `tokens` without line ends (`parsers.lin.fast_text` took out those that change
nothing and declined the others), so it must be one run of adjacent `key|value|` tokens, each key
one of `KEYS`. Over the UTF-8 bytes of the whole text, with numpy: the '|' pair up into tokens
(even-numbered pipes end keys, a key is the two bytes just before its pipe, a value is whatever
lies between its key's pipe and the next one), and the tokens are cut into board blocks as the
careful reader cuts them (`_block_starts`): at each `qx` in a vugraph file, else at the `pn` that
introduces each deal. What each block holds, and the values of the keys read, are checked by
`parsers.lin.fast_blocks` and the readers of each value (`fast_deals`, `fast_auction`, `fast_play`).

The arrays are kept narrow (bytes, 32-bit steps) and lookups go through `bytes.translate`: in
this process, fresh memory costs more than the arithmetic done in it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt
import polars as pl
import pyarrow as pa
from numpy.lib.stride_tricks import sliding_window_view

from parsers.arrow import INLINE, named, series
from parsers.declined import Declined as Declined
from parsers.declined import require as require

Ints = npt.NDArray[np.integer[Any]]
"""An integer array: card, seat and call numbers are int8, positions int64."""
Bools = npt.NDArray[np.bool_]
"""A boolean array (masks and check results)."""
Bytes = npt.NDArray[np.uint8]
"""A byte array (text)."""




KEYS: tuple[str, ...] = ("pn", "st", "md", "rh", "ah", "sv", "mb", "an", "pg", "pc", "mc", "qx", "vg", "rs", "pw",
                         "mp", "bn", "mn", "nt", "at", "bt", "ht", "sa", "sk", "va", "tu")
"""The keys the fast path reads or knowingly ignores (`parsers.lin.lexer.KNOWN_KEYS` but `up`, an
undo the careful reader reports); a token's `kind` is its key's index here."""
KIND: dict[str, int] = {key: kind for kind, key in enumerate(KEYS)}
"""Key -> kind."""
# Keys that carry no board content (`parsers.lin.reader._PREAMBLE`): what may stand between one
# board's content and the next deal.
PREAMBLE: list[int] = [KIND[key] for key in ("pn", "st", "rh", "ah", "pg", "nt", "at", "bt", "ht", "mn", "sa", "sk",
                                              "va", "tu")]
_IS_CONTENT = bytes(int(kind not in PREAMBLE) for kind in range(256))


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
    for key, kind in KIND.items():
        out[_FIRSTS.index(key[0]) << 4 | _SECONDS.index(key[1])] = kind
    return bytes(out)


_KIND_OF = _kind_table()

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
    """Index of each block's first token (its `qx`, or the `pn` before its deal); the tokens
    before the first block are the file's header."""
    _of: dict[str, Ints] = field(default_factory=dict, compare=False, repr=False)

    @property
    def boards(self) -> int:
        """The number of board blocks."""
        return self.first.size

    def board_of(self, picked: Ints) -> Ints:
        """The 0-based block of each picked token (-1: the header)."""
        return np.searchsorted(self.first, picked, side="right") - 1

    def of(self, key: str) -> Ints:
        """Indices of the `key` tokens (found once per key: several readers ask for the same); key
        "content": of the tokens that are not layout (`PREAMBLE`)."""
        if key not in self._of:
            self._of[key] = np.flatnonzero(self.kind == KIND[key])
        return self._of[key]

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


def tokens(raw: Bytes) -> Tokens:
    """Split UTF-8 bytes without line ends into tokens and blocks, declining unless the text is
    one run of adjacent `key|value|` tokens with keys of `KEYS`, `pg` and `pc` of the right length."""
    require(raw.size < 1 << 31, "a text too long for 32-bit offsets")
    pipes = np.flatnonzero(raw == ord("|"))
    require(pipes.size > 0 and pipes.size % 2 == 0 and int(pipes[-1]) == raw.size - 1,
            "no board, a '|' too many, or text after the last one")
    key_end, end = pipes[0::2], pipes[1::2]
    # From each pipe to the next, in 32 bits: from a key's pipe to its value's, the value's
    # length + 1; from a value's pipe to the next key's, 3 (the key).
    steps = np.empty(pipes.size - 1, dtype=np.int32)
    np.subtract(pipes[1:], pipes[:-1], out=steps, casting="unsafe")
    length, step = steps[0::2], steps[1::2]
    length -= 1
    require(int(key_end[0]) == 2 and bool((step == 3).all()), "a key that is not two letters")
    kind = key_kinds(raw, key_end)
    require(int(kind.min()) >= 0, "a key the fast path does not read")
    require(not ((kind == KIND["pg"]) & (length != 0)).any(), "a page with a value")
    require(not ((kind == KIND["pc"]) & (length != 2)).any(), "a card that is not two letters")
    content = np.flatnonzero(lookup(kind, _IS_CONTENT))
    toks = Tokens(raw=raw, kind=kind, key_end=key_end, end=end, length=length, first=_block_starts(kind, content))
    toks._of["content"] = content
    require(toks.boards > 0, "no deal")
    _require_claim_last(toks)
    return toks


def key_kinds(raw: Bytes, key_end: Ints) -> Ints:
    """The kind of each key (-1: none of `KEYS`) whose two letters end at `key_end`."""
    pair = lookup(raw[key_end - 2], _FIRST_OF) << 4
    pair |= lookup(raw[key_end - 1], _SECOND_OF)
    return lookup(pair, _KIND_OF).view(np.int8)


def _block_starts(kind: Ints, content: Ints) -> Ints:
    """The first token of each board block, as the careful reader cuts them: each `qx` in a vugraph
    file; else, for each deal, the first `pn` among the layout keys just before it (or the deal)."""
    qx = np.flatnonzero(kind == KIND["qx"])
    if qx.size:
        return qx
    md = np.flatnonzero(kind == KIND["md"])  # (among the content tokens)
    # The layout run before each deal starts after the content token before it.
    at = np.searchsorted(content, md)
    run = np.where(at > 0, content[np.maximum(at - 1, 0)] + 1, 0)
    pn = np.flatnonzero(kind == KIND["pn"])
    found = np.minimum(np.searchsorted(pn, run), max(pn.size - 1, 0))
    introduced: Ints = pn[found] if pn.size else md
    starts: Ints = np.where((introduced >= run) & (introduced < md), introduced, md)
    return starts


def window(raw: Bytes, start: Ints, width: int) -> Bytes:
    """(starts, width): `width` bytes of `raw` from each of `start` (in any order), 0 past its end.

    Rows of a sliding window over the text: one copy of `width` bytes per start, where a table
    of byte indices costs ten times that.
    """
    base = max(raw.size - width, 0)
    if raw.size >= width:
        rows: Bytes = sliding_window_view(raw, width)[np.minimum(start, base)]
    else:
        rows = np.zeros((start.size, width), dtype=np.uint8)
    # The starts near the end read from a copy of the last bytes with zeros after them.
    near = np.flatnonzero(start > raw.size - width)
    if near.size:
        tail = np.concatenate([raw[base:], np.zeros(width, dtype=np.uint8)])
        rows[near] = sliding_window_view(tail, width)[start[near] - base]
    return rows


def _require_claim_last(toks: Tokens) -> None:
    """At most one claim per block and no card after it in the block."""
    mc = toks.of("mc")
    if mc.size:
        pc = toks.of("pc")
        board = toks.board_of(mc)
        require(bool((np.diff(board) > 0).all()), "two claims in a block")
        after = np.searchsorted(pc, mc)
        later = toks.board_of(pc[np.minimum(after, pc.size - 1)]) if pc.size else np.full(mc.size, -1)
        require(bool(((after == pc.size) | (later != board)).all()), "a card after the claim")


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


_PREFIXES = np.tri(INLINE + 1, INLINE, -1, dtype=np.uint8)  # row n: n ones, then zeros


def string_views(data: Bytes, start: Ints, length: Ints) -> pa.Array:
    """The byte ranges (`start`, `length`) of `data` as an Arrow string array that refers to `data`.

    Each range must be UTF-8, and the starts in increasing order. Polars takes string
    views as they are, where it copies other string arrays one string at a time.
    """
    return pa.Array.from_buffers(pa.string_view(), start.size,
                                 [None, pa.py_buffer(views(data, start, length)), pa.py_buffer(data)])


def views(data: Bytes, start: Ints, length: Ints) -> Ints:
    """(ranges, 4) int32: the Arrow string view of each byte range of `data` (see `string_views`)."""
    require(data.size < 1 << 31, "a text too long for 32-bit offsets")
    # A view: the length (int32), then the text itself if it fits in 12 bytes, else its first four
    # bytes, the buffer (0: `data`) and the offset.
    views = np.zeros((start.size, 4), dtype=np.int32)
    views[:, 0] = length
    # (Masks from a table: comparing with a 12-wide row is slow, numpy's inner loops being 12 long.)
    views.view(np.uint8)[:, 4:] = window(data, start, INLINE) * np.take(
        _PREFIXES, np.minimum(length, INLINE), axis=0)
    long = np.flatnonzero(length > INLINE)
    views[long, 2] = 0
    views[long, 3] = start[long]
    return views


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


def vulnerabilities(toks: Tokens) -> pl.Series:
    """Each board's vulnerability as `Vulnerability` values (`sv`); null where the board does not say."""
    sv = toks.of("sv")
    letters = _VULNERABILITY_OF[toks.raw[toks.key_end[sv] + 1]]
    require(bool((toks.length[sv] == 1).all() and (letters >= 0).all()), "a vulnerability that is none")
    codes = by_board(per_board(toks, sv), letters, width=1)[:, 0]
    return series(named(codes, _VULNERABILITIES, codes >= 0)).alias("vulnerability")
