"""Line ends for the vectorised LIN reader: where they may stand, taken out, and line numbers kept.

LIN's line ends carry no meaning (formats-notes §2.1): files break lines between tokens, before a
`|` (TMPbn2LinVG writes `sv|o` CR LF `|sa|0|`) and inside free text. The careful reader strips keys
and the values it reads, and ignores the values of the layout keys. So a line end (LF, CR or CRLF)
changes nothing it reads when it stands
- before a key (between one token's closing `|` and the next key) or after the last `|`;
- anywhere in a value the reader ignores, or removes line ends from (`rs`, `mp`);
- at the end of a value the reader strips (`md`, `sv`, `ah`, `mb`, `mc`, `pn`, `qx`, `vg`, `mn`).
`without_line_ends` declines a file with a line end anywhere else (in a card, in the middle of a
name or a deal), and takes them all out otherwise: the rest of the fast path reads one line of
adjacent `key|value|` tokens. `Lines` keeps what is needed to give a token its line in the file.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from parsers.lin.fast_bytes import KEYS, Bytes, Ints, key_kinds, require

_LF, _CR, _PIPE = ord("\n"), ord("\r"), ord("|")
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


def without_line_ends(raw: Bytes) -> tuple[Bytes, Lines]:
    """The text without its CR and LF bytes, declining unless each stands where it changes nothing."""
    ends = np.flatnonzero((raw == _LF) | (raw == _CR))
    if ends.size == 0:
        return raw, Lines(removed=ends, breaks=ends)
    cr = raw[ends] == _CR
    after = ends + 1
    lone = cr & ((after == raw.size) | (raw[np.minimum(after, raw.size - 1)] != _LF))
    breaks = ends[~cr | lone]
    pipes = np.flatnonzero(raw == _PIPE)
    require(pipes.size >= 2, "no board")
    before = np.searchsorted(pipes, ends)  # pipes before each line end: odd inside a value
    inside = np.flatnonzero(before & 1)
    if inside.size:
        token = before[inside] >> 1
        key_end = pipes[0::2]
        kinds = key_kinds(raw, key_end[token])
        anywhere = np.isin(kinds, _kinds(ANYWHERE))
        at_end = np.isin(kinds, _kinds(AT_THE_END))
        # At the end of its value: every byte from it to the value's closing '|' is a line end.
        close = pipes[np.minimum(2 * token + 1, pipes.size - 1)]
        run = np.searchsorted(ends, close) - inside
        require(bool((anywhere | (at_end & (run == close - ends[inside]))).all()),
                "a line end inside a value the reader reads")
    keep = np.ones(raw.size, dtype=np.bool_)
    keep[ends] = False
    return raw[keep], Lines(removed=ends, breaks=breaks)


def _kinds(keys: frozenset[str]) -> list[int]:
    return [KEYS.index(key) for key in keys]
