"""Fast path helpers: a text as numpy bytes read in place, and string columns made without copying them.

Every stage of the fast path reads the UTF-8 bytes of the file, never Python strings: `Source` holds
them with the position of every line, unaligned views to read 2 or 8 bytes at any position in one
gather, and `string_column`/`list_column` (and `parsers.arrow.named`) turn positions and codes into polars String
columns through Arrow string views (16 bytes a string, pointing into the text or holding the string
itself), so no string is built or copied one at a time.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
import polars as pl
import pyarrow as pa

from parsers.arrow import INLINE
from parsers.arrow import series as arrow_series
from parsers.declined import Declined as Declined

IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]
ByteArray = npt.NDArray[np.uint8]
WordArray = npt.NDArray[np.uint64]
Codes = npt.NDArray[np.integer[Any]]
"""Indices into a table of names, of any integer type."""

PADDING = 16
"""Bytes after the text (a line feed, then zeros) so that 8-byte reads near its end stay in the buffer."""
_OFFSET_LIMIT = 1 << 31
MASKS = np.array([(1 << (8 * count)) - 1 for count in range(9)], dtype=np.uint64)
"""Byte count (0-8) -> mask keeping that many low (first) bytes of a little-endian word."""
_MIX = np.uint64(0x9E3779B97F4A7C15)


@dataclass(frozen=True)
class Source:
    """A text as bytes, and where its lines are (split at every line feed, as `str.split("\\n")`)."""

    data: ByteArray
    """The UTF-8 bytes, then `PADDING` bytes: a line feed (so the last line ends like the others), zeros."""
    size: int
    """Length of the text in bytes."""
    words: WordArray
    """`words[i]` is `data[i:i + 8]` as a little-endian integer: names and calls are read as one word."""
    pairs: npt.NDArray[np.uint16]
    """`pairs[i]` is `data[i:i + 2]` as a little-endian integer: cards are read as one pair."""
    start: IntArray
    """First byte of each line."""
    end: IntArray
    """Byte after each line (its line feed, or the end of the text)."""

    @staticmethod
    def of(text: str | bytes) -> Source:
        """The bytes of `text` (a str, or its UTF-8 bytes), and its lines."""
        encoded = text.encode("utf-8") if isinstance(text, str) else text
        size = len(encoded)
        if size >= _OFFSET_LIMIT:
            raise Declined("a file too big for 32-bit string offsets")
        # Copied once into a buffer with the padding (`bytes + bytes` is many times slower at this size).
        data = np.empty(size + PADDING, dtype=np.uint8)
        data[:size] = np.frombuffer(encoded, dtype=np.uint8)
        data[size], data[size + 1:] = ord("\n"), 0
        # Views at every byte offset (stride 1): numpy reads unaligned items, so a gather reads words.
        words = np.ndarray((data.size - 7,), dtype="<u8", buffer=data, strides=(1,))
        pairs = np.ndarray((data.size - 1,), dtype="<u2", buffer=data, strides=(1,))
        feeds = np.flatnonzero(data[:size] == ord("\n"))
        start = np.concatenate(([0], feeds + 1))
        end = np.append(feeds, size)
        return Source(data, size, words, pairs, start, end)

    def word(self, start: IntArray, length: IntArray) -> WordArray:
        """The first `length` (at most 8) bytes at each `start`, as a word with the rest zero."""
        return self.words[start] & np.take(MASKS, length, mode="clip")  # (`take` clips to 0-8, and is faster)

    def text(self, start: int, end: int) -> str:
        """The bytes [start, end) as text (they must end on a character boundary)."""
        return self.data[start:end].tobytes().decode("utf-8")


@dataclass(frozen=True)
class Lines:
    """Some lines of a `Source`, in file order, and the game each belongs to."""

    record: IntArray
    start: IntArray
    end: IntArray


@dataclass(frozen=True)
class Tokens:
    """The whitespace-separated words of some lines, in file order."""

    record: IntArray
    start: IntArray
    length: IntArray


def run_starts(values: IntArray) -> IntArray:
    """Index of the first item of each run of equal values (`np.diff` with `prepend` is much slower)."""
    change = np.empty(values.size, dtype=bool)
    change[:1] = True
    np.not_equal(values[1:], values[:-1], out=change[1:])
    return np.flatnonzero(change)


def segments(start: IntArray, length: IntArray) -> IntArray:
    """Positions of every byte of the segments (start, length), one segment after another."""
    ends = np.cumsum(length)
    at: IntArray = np.arange(int(ends[-1]) if ends.size else 0) + np.repeat(start - (ends - length), length)
    return at


def tokens(source: Source, lines: Lines, allowed: BoolArray | None = None) -> Tokens:
    """The runs of bytes above space (space, tab and line feed separate them) in `lines`; with
    `allowed` (a table of 256 bytes), `Declined` for any byte of the lines it leaves out."""
    length = lines.end - lines.start + 1  # each line with the line feed after it
    at = segments(lines.start, length)
    written = source.data[at]
    if allowed is not None and not np.take(allowed, written).all():  # (`take`: twice as fast as indexing)
        raise Declined("section data other than plain calls and cards")
    inside = np.zeros(written.size + 2, dtype=np.int8)  # 1 on a byte of a token, with a space either side
    np.greater(written, ord(" "), out=inside[1:-1].view(bool))
    edge = inside[1:] - inside[:-1]  # 1 where a token starts, -1 just after it
    first, after = np.flatnonzero(edge == 1), np.flatnonzero(edge == -1)
    line = np.repeat(np.arange(length.size), length)[first]  # the line of each byte, at each token's first
    return Tokens(lines.record[line], at[first], after - first)


class Vocabulary:
    """A few ASCII words (tag names, calls) to look byte strings up in, up to 8 * `words` bytes long.

    A word's hash picks its slot in a table (a multiplier is chosen so that no two words share
    one); the slot gives a candidate, and the candidate's bytes are compared with the key's, so a
    lookup is exact whatever the hash does."""

    _SLOT_BITS = 12

    def __init__(self, names: Sequence[str], words: int) -> None:
        table = np.zeros((len(names) + 1, 8 * words), dtype=np.uint8)
        for row, name in enumerate(names):
            encoded = name.encode("ascii")
            table[row, :len(encoded)] = np.frombuffer(encoded, dtype=np.uint8)
        table[-1] = 0xFF  # the row of an empty slot: 0xFF is never in UTF-8, so no key equals it
        self.names = tuple(names)
        self.rows: WordArray = table.view("<u8")
        hashes = self._hash(self.rows[:-1])
        for attempt in range(1, 1000, 2):
            self._multiplier = np.uint64((0x9E3779B97F4A7C15 * attempt) % (1 << 64))
            slots = self._slot(hashes)
            if np.unique(slots).size == len(names):
                break
        else:
            raise ValueError("no multiplier puts every name in a slot of its own")
        self._code = np.full(1 << self._SLOT_BITS, -1, dtype=np.int64)
        self._code[slots] = np.arange(len(names))
        self._columns = [np.ascontiguousarray(self.rows[:, column]) for column in range(words)]

    def find(self, keys: WordArray) -> IntArray:
        """Index of each row of `keys` (shape (n, words): the bytes as words, zero padded), -1 for none."""
        at = self._code[self._slot(self._hash(keys))]
        same = self._columns[0][at] == keys[:, 0]
        for column in range(1, keys.shape[1]):
            same &= self._columns[column][at] == keys[:, column]
        return np.where(same, at, -1)

    def _slot(self, hashes: WordArray) -> IntArray:
        return (hashes * self._multiplier >> np.uint64(64 - self._SLOT_BITS)).astype(np.int64)

    @staticmethod
    def _hash(rows: WordArray) -> WordArray:
        found = rows[:, 0].copy()
        for column in range(1, rows.shape[1]):
            found ^= rows[:, column] * _MIX + np.uint64(column)
        return found


def string_column(source: Source, start: IntArray, length: IntArray) -> pl.Series:
    """The strings `source.data[start:start + length]` (valid UTF-8 there) as a String column, without
    copying them: short ones sit in their views, long ones point into the text (which the column
    keeps alive)."""
    return view_column(views(source, start, length), source)


def views(source: Source, start: IntArray, length: IntArray) -> WordArray:
    """Arrow string views of `source.data[start:start + length]`, shape (n, 2): the length and the
    first 4 bytes, then the next 8 bytes (up to `INLINE` bytes in all) or buffer 0 and the offset."""
    head = source.word(start, length)  # bytes 0-7: the prefix, and bytes 4-7 of a short string
    found = np.empty((start.size, 2), dtype=np.uint64)
    found[:, 0] = length.astype(np.uint64) | (head << np.uint64(32))
    found[:, 1] = np.where(length <= INLINE, head >> np.uint64(32), start.astype(np.uint64) << np.uint64(32))
    tail = np.flatnonzero((length > 8) & (length <= INLINE))  # bytes 8-11 of a short string (few have them)
    found[tail, 1] |= source.word(start[tail] + 8, length[tail] - 8) << np.uint64(32)
    return found


def row_strings(rows: ByteArray) -> pl.Series:
    """Each row of a byte matrix (valid UTF-8, wider than `INLINE` bytes) as a string of a String
    column, the views pointing into the matrix."""
    count, width = rows.shape
    if width <= INLINE:
        raise ValueError("rows this short sit in their views")
    data = np.ascontiguousarray(rows)
    found = np.empty((count, 2), dtype=np.uint64)
    found[:, 0] = np.uint64(width) | (data[:, :4].copy().view("<u4").ravel().astype(np.uint64) << np.uint64(32))
    found[:, 1] = (np.arange(count, dtype=np.uint64) * np.uint64(width)) << np.uint64(32)  # buffer 0, row start
    return string_series(_arrow_views(found, None, data.ravel()))


def view_column(found: WordArray, source: Source | None, valid: BoolArray | None = None) -> pl.Series:
    """A String column from Arrow string views pointing into `source` (null where not `valid`)."""
    return string_series(_arrow_views(found, valid, None if source is None else source.data))


def list_column(values: pa.Array, offsets: IntArray) -> pl.Series:
    """A List(String) column: row i holds `values[offsets[i]:offsets[i + 1]]`."""
    return arrow_series(pa.LargeListArray.from_arrays(pa.array(offsets.astype(np.int64)), values))


def string_series(values: pa.Array) -> pl.Series:
    """An Arrow string array as a polars String column (the views are taken over, not copied)."""
    return arrow_series(values)


def _arrow_views(found: WordArray, valid: BoolArray | None, data: ByteArray | None) -> pa.Array:
    """An Arrow string-view array from its views, its validity and its one data buffer."""
    bitmap = None if valid is None else pa.py_buffer(np.packbits(valid, bitorder="little"))
    buffers = [bitmap, pa.py_buffer(found)] + ([] if data is None else [pa.py_buffer(data)])
    return pa.Array.from_buffers(pa.string_view(), found.shape[0], buffers)
