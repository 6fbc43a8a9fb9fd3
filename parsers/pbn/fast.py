"""Vectorised PBN reading for well-formed files: the same frames as the careful reader, many times faster.

    columnar = parsers.pbn.loads_columnar(data, source="session.pbn")
    if columnar is None:                       # not vouched for: read it the careful way
        columnar = columnar_from_parsed(parsers.pbn.loads(data, source="session.pbn"))

The careful reader (`parsers.pbn.loads`) walks a file game by game in Python. This path reads the
whole text at once, as bytes (`fast_bytes`): lines, tag pairs and tokens are positions found with
numpy, tag values become a String column per tag that points into the text, deals 52-bit card
masks, auctions judged by the bridge engine (`parsers.bridge.auction_arrays`) and plays replayed one
trick per step, for all games together.
It takes only files the careful reader reads without a single diagnostic, and checks at least what
that reader's strict mode checks on them (deals, auction legality and agreement with the Contract
and Declarer tags, play legality, Result against the play). For anything else it returns None,
never a partial result, and says why in a debug log line.
"""

from __future__ import annotations

import logging
import sys

import numpy as np

from parsers.columnar import ColumnarFile
from parsers.pbn.encoding import decode
from parsers.pbn.fast_bytes import Declined
from parsers.pbn.fast_deals import read_deals
from parsers.pbn.fast_lines import read_games
from parsers.pbn.fast_meta import metadata
from parsers.pbn.fast_records import boards, check_values, contestants, results
from parsers.pbn.reader import PARSER_VERSION

logger = logging.getLogger(__name__)

_CONTROLS = bytes(b for b in range(128) if (b < 32 and b not in (9, 10, 13)) or b == 127)
_PRINTABLE = bytes(b for b in range(256) if b not in _CONTROLS)
_READABLE = ("str", "utf-8", "utf-8-sig", "cp1252")


def loads_columnar(data: str | bytes, *, source: str = "<string>", strict: bool = False) -> ColumnarFile | None:
    """The file as frames, equal to `columnar_from_parsed(loads(data, source=source, strict=strict))`,
    or None when the fast path does not vouch for the file. Never raises."""
    try:
        if strict:
            # Strict mode is for the `check` command, whose point is every finding with its position.
            raise Declined("strict mode")
        if sys.byteorder != "little":
            raise Declined("a big-endian machine: the byte-level readers assume little-endian words")
        games = read_games(_text(data))
        check_values(games.tags)
        deals = read_deals(games.tags)
        board_frame = boards(games.tags, deals)
        result_rows = results(games, deals)
        return ColumnarFile(source=source, format="pbn", parser_version=PARSER_VERSION,
                            metadata=metadata(games), boards=board_frame, results=result_rows.drop("team"),
                            contestants=contestants(result_rows, games.tags))
    except Declined as reason:
        logger.debug("PBN fast path declined %s: %s", source, reason)
        return None
    except Exception:  # a bug here must not take the ingest down: the careful reader takes the file
        logger.exception("PBN fast path failed on %s", source)
        return None


def _text(data: str | bytes) -> bytes:
    """The UTF-8 bytes of the text as the careful reader decodes it, when there is no doubt about the bytes."""
    raw = data.encode("utf-8", errors="surrogatepass") if isinstance(data, str) else data
    if _has_controls(raw):
        raise Declined("control characters")
    decoded = decode(data)
    text = decoded.text
    if decoded.encoding not in _READABLE or "\ufffd" in text:
        raise Declined(f"encoding {decoded.encoding}, or a character that is not one")
    if not text.isascii() and any(c in text for c in "\x85\u2028\u2029\ufeff"):
        raise Declined("a Unicode line or word separator")
    # One character first: searching for it is much faster than for a longer string.
    for first, mark, why in (("<", "<PBN>", "PBN embedded in HTML"), ("#", '"#', "tag value inheritance")):
        if first in text and mark in text:
            raise Declined(why)
    if isinstance(data, bytes) and decoded.encoding == "utf-8" and b"\r" not in data:
        return data  # the bytes are the text's UTF-8 already (no marker, no line end to normalise)
    return text.encode("utf-8")


def _has_controls(raw: bytes) -> bool:
    """Whether the bytes hold a control character other than tab, line feed and carriage return."""
    codes = np.frombuffer(raw, dtype=np.uint8)
    if np.count_nonzero(codes < 32) != np.count_nonzero(codes == ord("\n")):
        # Bytes below space besides line feeds (tabs, carriage returns or worse): look at each.
        return bool(raw.translate(None, _PRINTABLE))
    return bool((codes == 127).any())
