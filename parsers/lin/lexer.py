"""Lexical layer of the BBO LIN reader: bytes to text, text to (key, value) tokens with their offsets.

A LIN stream is `key|value|key|value|...` with two-letter lower-case keys. Newlines carry no meaning
and turn up around keys, before a `|` and inside free-text values, so the text is split on `|` once
and the keys are cleaned afterwards. A stray separator (`||` where a key should be) or a token that
cannot be a key breaks the key/value alternation; the slow path re-synchronises on the next
two-letter key and records where it had to skip.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from itertools import accumulate

from models.diagnostics import MAX_PER_CODE, Diagnostic, Severity
from parsers.positions import LineIndex

KNOWN_KEYS: frozenset[str] = frozenset({
    "pn", "st", "md", "sv", "ah", "mb", "an", "pc", "mc", "rh", "qx", "vg", "rs", "pw", "bn", "mn",
    "pg", "nt", "sk", "at", "bt", "ht", "sa", "va", "tu", "up", "mp",
})
"""Keys the reader understands or knowingly ignores; any other two-letter key is kept and ignored."""

_KEY = re.compile(r"[a-z]{2}")
_SEPARATORS = re.compile(r"\|+")
# Double-encoded UTF-8 read as cp1252 shows up as a lead byte Ã/Â/Ä/Å... followed by a continuation
# byte rendered as Latin-1 or a cp1252 punctuation character.
_MOJIBAKE = re.compile("[\u00c2-\u00f4][\u0080-\u00bf\u0152\u0153\u0160\u0161\u0178\u017d\u017e"
                       "\u0192\u02c6\u02dc\u2013\u2014\u2018-\u201e\u2020-\u2022\u2026\u2030\u2039"
                       "\u203a\u20ac\u2122]")


def decode(data: bytes) -> tuple[str, str]:
    """Decode LIN bytes: UTF-8 (BOM dropped) when valid, else cp1252, else Latin-1.

    Returns the text and the encoding used.
    """
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    for encoding in ("utf-8", "cp1252"):
        try:
            return data.decode(encoding), encoding
        except UnicodeDecodeError:
            continue
    return data.decode("latin-1"), "latin-1"


def repair_mojibake(value: str) -> str | None:
    """Undo UTF-8 that was decoded as cp1252/Latin-1 once too often (`intÃ©rÃ©ssÃ©` -> `intéréssé`).

    Returns the repaired text, or None when `value` does not look double-encoded.
    """
    if value.isascii() or _MOJIBAKE.search(value) is None:
        return None
    for encoding in ("cp1252", "latin-1"):
        try:
            fixed = value.encode(encoding).decode("utf-8")
        except UnicodeError:
            continue
        return fixed if fixed != value else None
    return None


NORMALISED = frozenset({"lin.encoding.not-utf8", "lin.pn.unnamed-pair"})
"""What real programs write and the reader normalises without losing anything (BBO's own files in
Windows-1252, pairs with no names): said at its own severity in strict mode too, never a refusal."""


class Reporter:
    """Collects positioned diagnostics for one file and remembers which records got errors.

    In strict mode every warning and info is reported as an error (but `NORMALISED` ones), so the
    record it belongs to is quarantined like any other record with an error.
    """

    def __init__(self, source: str, strict: bool, lines: LineIndex | None = None) -> None:
        self.source = source
        self.strict = strict
        self.lines = lines
        self.diagnostics: list[Diagnostic] = []
        self._failed: set[tuple[int, str]] = set()
        self._per_code: dict[str, int] = {}
        self._unlisted: dict[str, tuple[Diagnostic, int]] = {}

    def report(self, severity: Severity, code: str, message: str, *, offset: int | None = None,
               record: int | None = None, part: str = "board") -> None:
        """Add a diagnostic at character `offset`; `part` (board/result) says what an error spoils."""
        if self.strict and code not in NORMALISED:
            severity = Severity.ERROR
        if severity is Severity.ERROR and record is not None:
            self._failed.add((record, part))
        count = self._per_code.get(code, 0) + 1
        self._per_code[code] = count
        if count > MAX_PER_CODE and code in self._unlisted:
            first, more = self._unlisted[code]
            self._unlisted[code] = (first, more + 1)  # counted, not built: a run of them costs nothing
            return
        line = column = 0
        if offset is not None and self.lines is not None:
            line, column = self.lines.position(offset)
        diagnostic = Diagnostic(source=self.source, line=line, column=column, severity=severity, code=code,
                                message=message, record=record)
        if count > MAX_PER_CODE:
            self._unlisted[code] = (diagnostic, 1)
            return
        self.diagnostics.append(diagnostic)

    def unlisted(self) -> list[Diagnostic]:
        """One `diagnostics.more` line per code reported more than `MAX_PER_CODE` times."""
        return [
            Diagnostic(source=first.source, line=first.line, column=first.column, severity=first.severity,
                       code="diagnostics.more", message=f"{more} more [{first.code}] from here on are not listed",
                       record=first.record)
            for first, more in self._unlisted.values()
        ]

    def failed(self, record: int, part: str) -> bool:
        """True when an error was reported against `part` ('board' or 'result') of `record`."""
        return (record, part) in self._failed


@dataclass(slots=True)
class Skip:
    """A token that was dropped while re-synchronising on keys."""

    token: int
    """Index of the next kept key (the skipped text sits just before it)."""
    offset: int
    """Character offset of the skipped text."""
    text: str
    """What was skipped (empty for a stray separator)."""
    count: int = 1
    """How many stray separators in a row this skip stands for (one skip for a run of them)."""


@dataclass(slots=True)
class Tokens:
    """The key/value pairs of a LIN text as parallel lists, with lazily computed offsets."""

    text: str
    """The text the tokens come from."""
    keys: list[str]
    """Cleaned keys (lower-case two-letter)."""
    values: list[str]
    """Raw values (free text keeps its newlines)."""
    skips: list[Skip] = field(default_factory=list)
    """Where the slow path dropped tokens."""
    truncated_at: int | None = None
    """Offset of a trailing key or value cut off by the end of the text."""
    _parts: list[str] | None = None
    _cum: list[int] | None = None
    _key_offsets: list[int] | None = None
    _value_offsets: list[int] | None = None

    def key_offset(self, k: int) -> int:
        """Character offset of key `k`."""
        if self._key_offsets is not None:
            return self._key_offsets[k]
        assert self._parts is not None
        raw = self._parts[2 * k]
        # A key often follows a line break; point at the key itself, not at the break.
        return self._part_offset(2 * k) + len(raw) - len(raw.lstrip())

    def value_offset(self, k: int) -> int:
        """Character offset of the value of key `k`."""
        if self._value_offsets is not None:
            return self._value_offsets[k]
        return self._part_offset(2 * k + 1)

    def _part_offset(self, j: int) -> int:
        if self._cum is None:
            assert self._parts is not None
            self._cum = list(accumulate(map(len, self._parts), initial=0))
        return self._cum[j] + j


def tokenize(text: str) -> Tokens:
    """Split a LIN text into keys and values.

    The fast path handles the common case where keys and values alternate (keys may carry
    surrounding whitespace); anything else goes through the re-synchronising slow path.
    """
    tokens = _tokenize_fast(text) or _tokenize_slow(text)
    if tokens.truncated_at is None and tokens.values and not text.rstrip().endswith("|"):
        tokens.truncated_at = tokens.value_offset(len(tokens.values) - 1)
    return tokens


def _tokenize_fast(text: str) -> Tokens | None:
    parts = text.split("|")
    if len(parts) % 2:
        if parts[-1].strip():
            return None
        parts.pop()
    keys, values = parts[0::2], parts[1::2]
    irregular = set(keys) - KNOWN_KEYS
    if irregular:
        cleaned = {key: key.strip() for key in irregular}
        if any(_KEY.fullmatch(key) is None for key in cleaned.values()):
            return None
        keys = list(map(cleaned.get, keys, keys))
    return Tokens(text=text, keys=keys, values=values, _parts=parts)


def _tokenize_slow(text: str) -> Tokens:
    parts = text.split("|")
    keys: list[str] = []
    values: list[str] = []
    key_offsets: list[int] = []
    value_offsets: list[int] = []
    skips: list[Skip] = []
    truncated_at: int | None = None
    offset, i, n = 0, 0, len(parts)
    while i < n:
        raw = parts[i]
        key = raw.strip()
        start = offset + len(raw) - len(raw.lstrip())
        offset += len(raw) + 1
        if not raw and i < n - 1:
            # A run of `|` where keys should be is one skip, passed over at the regex engine's
            # speed: a part (and a Skip) per `|` made 20 MB of `|` take minutes and gigabytes.
            run = _SEPARATORS.match(text, start)
            count = run.end() - start if run is not None else 1
            count = min(count, n - 1 - i)
            skips.append(Skip(token=len(keys), offset=start, text="", count=count))
            offset = start + count
            i += count
            continue
        if _KEY.fullmatch(key) is None:
            if not key and i < n - 1 and skips and not skips[-1].text and skips[-1].token == len(keys):
                skips[-1].count += 1  # `| | |`: one skip for the run, as above
            elif key or i < n - 1:
                skips.append(Skip(token=len(keys), offset=start, text=key))
            i += 1
            continue
        if i + 1 >= n:
            truncated_at = start
            break
        keys.append(key)
        values.append(parts[i + 1])
        key_offsets.append(start)
        value_offsets.append(offset)
        offset += len(parts[i + 1]) + 1
        i += 2
    return Tokens(text=text, keys=keys, values=values, skips=skips, truncated_at=truncated_at,
                  _key_offsets=key_offsets, _value_offsets=value_offsets)
