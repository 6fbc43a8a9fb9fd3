"""Lexing for the vectorised LIN reader (`parsers.lin_fast`): every board of the text at once.

The fast path reads one shape only, the one BBO's "my hands" export and `parsers.lin_writer` write:
one board per line, keys in this order (`?` optional, `*` repeated)

    pn|S,W,N,E|  st|..|?  md|..|  rh|..|?  ah|Board N|  sv|x|?  (mb|call| an|..|?)*  pg||*
    (pc|card| pg||*)*  (mc|N| pg||*)?

with blank lines allowed between boards. One regular expression per line (`LINE_GRAMMAR`) checks
that shape, and a file with any other line is declined: the careful reader takes it.

Two views of the same text follow:
- polars, one row per board line, for the grammar and the values that stay text (player names);
- numpy, over the UTF-8 bytes of the whole text: the positions of every '|' give every token's key
  and value at once. This relies on the grammar: every line is a run of `key|value|` pairs, so
  even-numbered pipes end keys, a key is the two letters just before its pipe, and a value is
  whatever lies between its key's pipe and the next one.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
import polars as pl

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

LINE_GRAMMAR = (
    rf"^pn\|{_NAME},{_NAME},{_NAME},{_NAME}\|"
    r"(?:st\|[^|]*\|)?"
    rf"md\|[1-4]{_HAND},{_HAND},{_HAND}(?:,(?:{_HAND})?)?\|"
    r"(?:rh\|[^|]*\|)?"
    r"ah\|Board [0-9]{1,9}\|"
    r"(?:sv\|[oOnNeEbB0]\|)?"
    r"(?:mb\|[0-9A-Za-z]{1,4}!?\|(?:an\|[^|]*\|)?)*"
    rf"{_PAGE}(?:pc\|[SHDC][2-9TJQKA]\|{_PAGE})*"
    rf"(?:mc\|[0-9]{{1,2}}\|{_PAGE})?$"
)
"""One board per line, as described in the module docstring (a line must match it whole)."""



def byte_table(table: dict[str, int]) -> Ints:
    """A byte -> small number lookup table (-1 for any byte not in `table`)."""
    out = np.full(256, -1, dtype=np.int8)
    for char, value in table.items():
        out[ord(char)] = value
    return out


_VULNERABILITIES: tuple[str, ...] = ("None", "NS", "EW", "All")
_VULNERABILITY_OF = byte_table({letter: i for i, letters in enumerate(("oO0", "nN", "eE", "bB")) for letter in letters})


def board_lines(text: str) -> pl.DataFrame:
    """One row per board line: `line` (1-based) and the names `south`, `west`, `north`, `east`.

    Declines unless every non-blank line matches `LINE_GRAMMAR`.
    """
    lines = pl.DataFrame({"text": text.split("\n")}).with_row_index("line", offset=1)
    lines = lines.filter(pl.col("text") != "")
    require(lines.height > 0, "no board")
    require(bool(lines.get_column("text").str.contains(LINE_GRAMMAR).all()), "a line is not a plain board")
    names = lines.get_column("text").str.split_exact("|", 1).struct.field("field_1").str.split_exact(",", 3)
    seats = names.struct.rename_fields(["south", "west", "north", "east"]).struct.unnest()
    return pl.concat([lines.select(pl.col("line").cast(pl.Int64)), seats], how="horizontal")


_PADDING = 16


def _key(name: str) -> int:
    return ord(name[0]) << 8 | ord(name[1])


@dataclass(frozen=True)
class Tokens:
    """Every `key|value|` token of a grammar-checked text, as parallel arrays in text order."""

    raw: Bytes
    """The UTF-8 bytes of the text (and some zero padding)."""
    key: Ints
    """The two key letters packed into one number (`_key`)."""
    key_end: Ints
    """Byte offset of the '|' after each key (the value starts one byte later)."""
    end: Ints
    """Byte offset of the '|' after each value."""
    board: Ints
    """0-based board (line) each token belongs to."""

    def of(self, key: str) -> Ints:
        """Indices of the `key` tokens."""
        return np.flatnonzero(self.key == _key(key))

    def packed(self, picked: Ints, width: int) -> Ints:
        """The picked tokens' values (at most `width` bytes) as numbers: byte i in bits 8i..8i+7.

        Declines a longer value. One pass per byte column (a handful), each over every token.
        """
        start = self.key_end[picked] + 1
        length = self.end[picked] - start
        require(int(length.max(initial=0)) <= width, "a value longer than expected")
        out = np.zeros(picked.size, dtype=np.uint64)
        for i in range(width):
            byte = self.raw[i:][start].astype(np.uint64)  # (a view from byte i: no index array to build)
            out |= np.where(length > i, byte, 0) << np.uint64(8 * i)
        return out

    def pairs(self, picked: Ints) -> Ints:
        """The first two bytes of the picked tokens' values as numbers, first byte low (for `pc`)."""
        before = self.key_end[picked]  # the value starts right after
        return self.raw[1:][before].astype(np.uint16) | self.raw[2:][before].astype(np.uint16) << 8

    def values(self, picked: Ints) -> Bytes:
        """The picked tokens' values as rows of bytes, zero-padded to the longest."""
        start = self.key_end[picked] + 1
        length = self.end[picked] - start
        columns = np.arange(int(length.max(initial=0)))
        at = start[:, None] + columns
        if at.size and int(at[-1, -1]) >= self.raw.size:  # the last rows can reach past the end
            at = np.minimum(at, self.raw.size - 1)
        return np.where(columns < length[:, None], self.raw[at], 0).astype(np.uint8)


def tokens(data: bytes) -> Tokens:
    """Split the UTF-8 bytes of a grammar-checked text into tokens (see the module docstring)."""
    # Padding, so that reading a few bytes past the last value stays inside the array.
    raw = np.frombuffer(data + bytes(_PADDING), dtype=np.uint8)
    pipes = np.flatnonzero(raw == ord("|"))
    key_end = pipes[0::2]
    at = key_end - 1  # the key's second letter, then (moved in place) its first
    second = raw[at]
    at -= 1
    key = raw[at].astype(np.uint16) << 8 | second
    board = np.cumsum(key == _key("pn"), dtype=np.int32) - 1
    return Tokens(raw=raw, key=key, key_end=key_end, end=pipes[1::2], board=board)


def by_board(board: Ints, values: Ints, boards: int, width: int) -> Ints:
    """Values of consecutive tokens laid out one row per board, in order, padded with -1.

    `board` is non-decreasing (tokens are in text order), so each board's values are a run and
    value i lands at flat position i + (board * width - first value of that board).
    """
    counts = np.bincount(board, minlength=boards)
    require(int(counts.max(initial=0)) <= width, "too many values on one board")
    if board.size == boards * width:  # every row full (52 cards each, one heading each): already laid out
        return values.reshape(boards, width)
    shift = np.arange(boards) * width - (np.cumsum(counts) - counts)
    out = np.full(boards * width, -1, dtype=values.dtype)
    out[np.arange(board.size) + shift[board]] = values
    return out.reshape(boards, width)


def widest(board: Ints, boards: int) -> int:
    """The most tokens any board has (at least 1, so that rows are never empty)."""
    return max(1, int(np.bincount(board, minlength=boards).max(initial=0)))


def board_numbers(toks: Tokens, boards: int) -> Ints:
    """The number of each board, from its heading `ah|Board N|` (declines a board 0)."""
    ah = toks.of("ah")
    require(bool(np.array_equal(toks.board[ah], np.arange(boards))), "not one heading per board")
    digits = toks.values(ah)[:, len("Board "):]
    number = np.zeros(boards, dtype=np.int64)
    for column in digits.T:  # at most nine digits, each a column for all boards
        number = np.where(column > 0, number * 10 + column - ord("0"), number)
    require(bool((number >= 1).all()), "board number 0")
    return number


def vulnerabilities(toks: Tokens, boards: int) -> pl.Series:
    """Each board's vulnerability as `Vulnerability` values (`sv`); null where the board does not say."""
    sv = toks.of("sv")
    codes = by_board(toks.board[sv], _VULNERABILITY_OF[toks.packed(sv, 1)], boards, width=1)[:, 0]
    return pl.Series("vulnerability", codes).replace_strict(dict(enumerate(_VULNERABILITIES)), default=None,
                                                             return_dtype=pl.String)
