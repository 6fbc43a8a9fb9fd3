"""Line ends for the vectorised LIN reader: where they may stand, taken out, and line numbers kept.

LIN's line ends carry no meaning (formats-notes §2.1): files break lines between tokens, before a
`|` (TMPbn2LinVG writes `sv|o` CR LF `|sa|0|`) and inside free text. The careful reader strips keys
and the values it reads, and ignores the values of the layout keys. So a line end (LF, CR or CRLF)
changes nothing it reads when it stands
- before a key (between one token's closing `|` and the next key) or after the last `|`;
- anywhere in a value the reader ignores, or removes line ends from (`rs`, `mp`);
- at the end of a value the reader strips (`md`, `sv`, `ah`, `mb`, `mc`, `pn`, `qx`, `vg`, `mn`).
`without_line_ends` takes them all out, so that the rest of the fast path reads one line of
adjacent `key|value|` tokens, and `require_harmless` declines a file with a line end anywhere else
(in a card, in the middle of a name or a deal). `Lines` keeps what is needed to give a token its line in the file.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from parsers.lin.fast_bytes import KIND, Bytes, Ints, Tokens, require

_LF, _CR = ord("\n"), ord("\r")
ANYWHERE: frozenset[str] = frozenset({"st", "rh", "pg", "nt", "an", "at", "bt", "ht", "sa", "sk", "va", "tu",
                                      "bn", "pw", "rs", "mp"})
"""Keys whose values may hold line ends anywhere (ignored, or read with the line ends removed)."""
AT_THE_END: frozenset[str] = frozenset({"md", "sv", "ah", "mb", "mc", "pn", "qx", "vg", "mn"})
"""Keys whose values may end in line ends (the careful reader strips them)."""


@dataclass(frozen=True)
class Lines:
    """Where the line ends of the original text were: enough to number the lines of the text without them."""

    removed: Ints
    """Offsets (in the original bytes) of the CR and LF bytes taken out."""
    breaks: Ints
    """Offsets of the line ends: each LF, and each CR not followed by an LF (as `parsers.positions` counts)."""

    def line(self, offsets: Ints) -> Ints:
        """The 1-based line of each offset into the text without line ends."""
        # Removed byte k would stand at `removed[k] - k` in the shorter text; those at or before an
        # offset were before it in the original.
        shift = np.searchsorted(self.removed - np.arange(self.removed.size), offsets, side="right")
        lines: Ints = np.searchsorted(self.breaks, offsets + shift) + 1
        return lines


def without_line_ends(data: bytes) -> tuple[Bytes, Lines]:
    """The text (UTF-8 bytes) without its CR and LF bytes, and where they were.

    `require_harmless` must then check, on the tokens of the text without them, that each stood
    where it changes nothing.
    """
    raw = np.frombuffer(data, dtype=np.uint8)
    ends = np.flatnonzero((raw == _LF) | (raw == _CR) if b"\r" in data else raw == _LF)
    if ends.size == 0:
        return raw, Lines(removed=ends, breaks=ends)
    cr = raw[ends] == _CR
    after = ends + 1
    lone = cr & ((after == raw.size) | (raw[np.minimum(after, raw.size - 1)] != _LF))
    breaks = ends[~cr | lone]
    return np.frombuffer(data.translate(None, b"\r\n"), dtype=np.uint8), Lines(removed=ends, breaks=breaks)


def require_harmless(lines: Lines, toks: Tokens) -> None:
    """Decline unless each line end taken out stood before a key, after the last token, anywhere in
    a value of `ANYWHERE` or at the end of a value of `AT_THE_END` (see the module docstring)."""
    if lines.removed.size == 0:
        return
    # Where each would stand in the text without them: just before byte `at` (one past the end: after it).
    at = lines.removed - np.arange(lines.removed.size)
    token = np.searchsorted(toks.end, at)  # the first token ending at or after it
    inside = token < toks.end.size
    token, at = token[inside], at[inside]
    key_end = toks.key_end[token]
    before_key = at <= key_end - 2
    kinds = toks.kind[token]
    anywhere = np.isin(kinds, _kinds(ANYWHERE)) & (at > key_end)
    at_end = np.isin(kinds, _kinds(AT_THE_END)) & (at == toks.end[token])
    require(bool((before_key | anywhere | at_end).all()), "a line end inside a key or a value the reader reads")


def _kinds(keys: frozenset[str]) -> list[int]:
    return [KIND[key] for key in keys]
