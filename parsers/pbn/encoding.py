"""Bytes to text: PBN says ISO-8859-1, real files are UTF-8 or Latin-1/cp1252 with no marker.

We try UTF-8 first (a Latin-1 file with accents is almost never valid UTF-8), then cp1252, whose
five undefined bytes fall back to their Latin-1 code points so decoding never fails. Line ends are
normalised to LF; columns are unaffected and line numbers stay those of the file.
"""

from __future__ import annotations

import codecs
from typing import NamedTuple

_LATIN1_FALLBACK = "bridgeledger-latin1-fallback"


def _latin1_fallback(exc: UnicodeError) -> tuple[str, int]:
    # cp1252 leaves 0x81, 0x8D, 0x8F, 0x90, 0x9D undefined; Latin-1 maps every byte.
    if not isinstance(exc, UnicodeDecodeError):
        raise exc
    bad = exc.object[exc.start:exc.end]
    return bytes(bad).decode("latin-1"), exc.end


codecs.register_error(_LATIN1_FALLBACK, _latin1_fallback)


class Decoded(NamedTuple):
    """Text of a file and how it was read."""

    text: str
    """The text with LF line ends."""
    encoding: str
    """utf-8, utf-8-sig, utf-16 or cp1252."""


def decode(data: bytes | str) -> Decoded:
    """Decode file bytes (a str passes through) and normalise CRLF and CR line ends to LF."""
    if isinstance(data, str):
        text, encoding = data.removeprefix("\ufeff"), "str"
    elif data.startswith(codecs.BOM_UTF8):
        text, encoding = data[3:].decode("utf-8", errors="replace"), "utf-8-sig"
    elif data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        text, encoding = data.decode("utf-16", errors="replace"), "utf-16"
    else:
        try:
            text, encoding = data.decode("utf-8"), "utf-8"
        except UnicodeDecodeError:
            text, encoding = data.decode("cp1252", errors=_LATIN1_FALLBACK), "cp1252"
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return Decoded(text, encoding)
