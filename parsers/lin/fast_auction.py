"""Calls for the vectorised LIN reader: `mb` spellings to call numbers.

The auction's rules over those numbers are the bridge engine's (`parsers.bridge.auction_arrays`, the
only place they are written, for every reader); the file is declined on any problem it finds.
"""

from __future__ import annotations

import numpy as np

from parsers.bridge.calls import CALL_NAMES, CALL_SPELLINGS
from parsers.lin.fast_bytes import Ints, require

SPELLING_WIDTH = 5
"""The longest call spelling read (the grammar allows four characters and an alert mark)."""


def _spelling_table() -> tuple[Ints, Ints]:
    """Every spelling `CALL_SPELLINGS` knows (up to five bytes), packed into a number, sorted; and its call."""
    number = {call: i for i, call in enumerate(CALL_NAMES)}
    packed = {sum(byte << 8 * i for i, byte in enumerate(text.encode())): number[call]
              for text, call in CALL_SPELLINGS.items() if text.isascii() and len(text) <= SPELLING_WIDTH}
    keys = np.array(sorted(packed), dtype=np.uint64)
    return keys, np.array([packed[int(key)] for key in keys], dtype=np.int8)


_SPELLINGS, _SPELLED = _spelling_table()


def call_numbers(packed: Ints) -> Ints:
    """Call numbers of `mb` values packed by `Tokens.packed`; declines an unknown spelling.

    Only the spellings the careful reader looks up directly are accepted (`p`, `1N`, `2S!` ...);
    the others it normalises first, and the fast path leaves those files to it.
    """
    at = np.minimum(np.searchsorted(_SPELLINGS, packed), _SPELLINGS.size - 1)
    require(bool((_SPELLINGS[at] == packed).all()), "a call spelled in an unusual way")
    return _SPELLED[at]
