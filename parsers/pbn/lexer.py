"""Scanning PBN text: games (chunks), tag pairs, section data and section tokens, with offsets.

Everything here is a small pure function over (text, offset). Scanning is regex-driven over whole
chunks; the hot path (`fast_tags`) handles canonical games with one `findall`, and anything unusual
(comments, escape lines, malformed tags) goes through the careful scanner `scan_chunk`, which also
records the offsets needed to position diagnostics.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import NamedTuple

from parsers.pbn.issues import Issue, at_offset, error
from parsers.positions import locate as locate_in

# A semi-empty line (only spaces/tabs) ends a game; runs of them count as one separator.
_SEPARATOR = re.compile(r"\n(?:[ \t\v\f]*\n)+")
# Tokens that can hide a "{": strings, ;-comments, %-escape lines. Used to find unclosed braces.
_BRACE_SCAN = re.compile(
    r'"[^"\\\n]*(?:\\.[^"\\\n]*)*"?|;[^\n]*|^%[^\n]*|\{[^}]*\}?', re.MULTILINE
)
_TOP = re.compile(
    r"""
    (?P<tag>\[[ \t\n]*(?P<name>[A-Za-z0-9_]+)[ \t\n]*
        "(?P<value>[^"\\\n]*(?:\\.[^"\\\n]*)*)"[ \t\n]*\])
  | (?P<badtag>\[[^\]\n]*\]?)
  | (?P<brace>\{[^}]*\}?)
  | (?P<semi>;[^\n]*)
  | (?P<esc>^%[^\n]*)
  | (?P<string>"[^"\\\n]*(?:\\.[^"\\\n]*)*"?)
  | (?P<other>[^\[{;"\n%]+|[\n%])
    """,
    re.VERBOSE | re.MULTILINE,
)
_FAST_TAG = re.compile(r'\[([A-Za-z0-9_]+) "([^"\\\n]*)"\]([^\[]*)')
_SECTION = re.compile(
    r"""
    (?P<brace>\{[^}]*\}?)
  | (?P<semi>;[^\n]*)
  | (?P<esc>(?<=\n)%[^\n]*)
  | (?P<string>"[^"\\\n]*(?:\\.[^"\\\n]*)*"?)
  | (?P<word>[^\s{};"]+)
    """,
    re.VERBOSE,
)
_ESCAPED = re.compile(r"\\([\\\"])")
_BRACKET = re.compile(r"\[")
_MAX_ISSUES = 500  # per chunk: binary garbage must not turn into millions of findings
_ESCAPE_LINE = re.compile(r"^%[^\n]*", re.MULTILINE)
_SKIPPABLE = re.compile(r"(?:\s+|\{[^}]*\}|;[^\n]*|^%[^\n]*)*", re.MULTILINE)


class Chunk(NamedTuple):
    """A run of lines between semi-empty lines: one game, or comments/escapes only."""

    offset: int
    """Offset of the first character in the file text."""
    line: int
    """1-based line of the first character."""
    text: str
    """The chunk's text."""


TagPair = tuple[str, str, str]
"""A tag pair as (name, value, section): the name as written, the value with its escapes undone,
and the raw text between this tag and the next one (section data, comments, escape lines). Plain
tuples, because a file can hold hundreds of thousands of them."""


class Layout(NamedTuple):
    """Offsets (relative to the chunk) of each tag's `[`, value and section data."""

    tag_starts: tuple[int, ...]
    value_starts: tuple[int, ...]
    section_starts: tuple[int, ...]


class Scan(NamedTuple):
    """What the careful scanner found in one chunk."""

    tags: tuple[TagPair, ...]
    layout: Layout
    escapes: tuple[str, ...]
    preamble: tuple[str, ...]
    """Comments before the first tag."""
    issues: tuple[Issue, ...]


class SectionToken(NamedTuple):
    """A token of section data."""

    kind: str
    """word, string, comment or bad."""
    text: str
    """The token as written (strings keep their quotes)."""
    offset: int
    """Offset relative to the start of the section data."""


def unescape(value: str) -> str:
    """Undo the two escapes PBN strings know: backslash-quote and double backslash."""
    return _ESCAPED.sub(r"\1", value) if "\\" in value else value


def escape(value: str) -> str:
    """Escape a value for writing inside double quotes."""
    return value.replace("\\", "\\\\").replace('"', '\\"') if ("\\" in value or '"' in value) else value


def iter_chunks(text: str) -> Iterator[Chunk]:
    """Split text at semi-empty lines, keeping a brace comment that spans them in one chunk."""
    pos, line, size = 0, 1, len(text)
    while pos < size:
        end, after = _chunk_end(text, pos)
        chunk = text[pos:end]
        if chunk.strip():
            yield Chunk(pos, line, chunk)
        line += text.count("\n", pos, after)
        pos = after


def _chunk_end(text: str, pos: int) -> tuple[int, int]:
    """End of the chunk starting at `pos` and where the next one starts."""
    scan_from, size = pos, len(text)
    while True:
        sep = _SEPARATOR.search(text, scan_from)
        end, after = (sep.start(), sep.end()) if sep else (size, size)
        if text.find("{", scan_from, end) < 0:
            return end, after
        open_at = _unclosed_brace(text, scan_from, end)
        if open_at < 0:
            return end, after
        # The comment runs past the semi-empty line: the game goes on after its closing brace.
        close = text.find("}", open_at)
        if close < 0:
            return size, size
        scan_from = close + 1


def _unclosed_brace(text: str, start: int, end: int) -> int:
    """Offset of a `{` opened in text[start:end] and not closed there, or -1."""
    for match in _BRACE_SCAN.finditer(text, start, end):
        token = match.group()
        if token[0] == "{" and token[-1] != "}":
            return match.start()
    return -1


def fast_tags(chunk: str) -> tuple[TagPair, ...] | None:
    """Tags of a canonical chunk in one pass, or None when the careful scanner is needed."""
    if "{" in chunk or "%" in chunk:
        return None
    found = _FAST_TAG.findall(chunk)
    count = len(found)
    if not count or chunk.count("[") != count or chunk.count("]") != count:
        return None
    first = chunk.index("[")
    if first and not chunk[:first].isspace():
        return None
    if ";" in chunk:
        for _, _, section in found:
            if ";" in section:
                return None
    return tuple(found)


def fast_layout(chunk: str, tags: tuple[TagPair, ...]) -> Layout | None:
    """Layout of a chunk that `fast_tags` accepted (every `[` starts a canonical tag), else None."""
    starts = [m.start() for m in _BRACKET.finditer(chunk)]
    if len(starts) != len(tags) or "{" in chunk or "%" in chunk:
        return None
    values = tuple(start + len(tag[0]) + 3 for start, tag in zip(starts, tags, strict=True))
    sections = tuple(value + len(tag[1]) + 2 for value, tag in zip(values, tags, strict=True))
    if any(chunk[v - 2:v] != ' "' or chunk[s - 2:s] != '"]' for v, s in zip(values, sections, strict=True)):
        return None
    return Layout(tuple(starts), values, sections)


def scan_chunk(chunk: str) -> Scan:
    """Carefully scan one chunk: tags with offsets, escapes, comments and syntax problems."""
    if "[" not in chunk:
        return _tagless(chunk)
    tags: list[TagPair] = []
    starts: list[int] = []
    values: list[int] = []
    sections: list[int] = []
    escapes: list[str] = []
    preamble: list[str] = []
    issues: list[Issue] = []
    section_end = -1  # end of the current tag's section data, when a bad tag cut it short
    for match in _TOP.finditer(chunk):
        kind = match.lastgroup
        if kind == "tag":
            _close_section(chunk, tags, sections, match.start(), section_end)
            section_end = -1
            tags.append((match.group("name"), unescape(match.group("value")), ""))
            starts.append(match.start())
            values.append(match.start("value"))
            sections.append(match.end())
        elif kind == "badtag":
            if len(issues) < _MAX_ISSUES:
                issues.append(_bad_tag(match.group(), match.start()))
            if tags and section_end < 0:
                section_end = match.start()
        elif kind == "esc":
            escapes.append(match.group())
        elif kind in ("brace", "semi"):
            if not tags:
                preamble.append(match.group())
            if kind == "brace" and match.group()[-1] != "}":
                issues.append(error("pbn.syntax.comment", "A { comment is never closed with }.",
                                    at_offset(match.start())))
        elif not tags and not match.group().isspace() and len(issues) < _MAX_ISSUES:
            issues.append(error("pbn.syntax.stray-text",
                                f"Text {match.group().strip()[:30]!r} is outside any tag pair.",
                                at_offset(match.start())))
    _close_section(chunk, tags, sections, len(chunk), section_end)
    layout = Layout(tuple(starts), tuple(values), tuple(sections))
    return Scan(tuple(tags), layout, tuple(escapes), tuple(preamble), tuple(issues))


def _tagless(chunk: str) -> Scan:
    """A chunk without any tag: its escapes, and at most one finding for text outside comments."""
    escapes = tuple(_ESCAPE_LINE.findall(chunk))
    skipped = _SKIPPABLE.match(chunk)
    end = skipped.end() if skipped else 0
    issues: tuple[Issue, ...] = ()
    if end < len(chunk) and chunk[end] == "{":
        issues = (error("pbn.syntax.comment", "A { comment is never closed with }.", at_offset(end)),)
    elif end < len(chunk):
        text = chunk[end:end + 30].split("\n")[0].strip()
        issues = (error("pbn.syntax.stray-text", f"Text {text!r} is outside any tag pair.", at_offset(end)),)
    return Scan((), Layout((), (), ()), escapes, (), issues)


def _close_section(chunk: str, tags: list[TagPair], sections: list[int], end: int, cut: int) -> None:
    if tags:
        stop = cut if cut >= 0 else end
        name, value, _ = tags[-1]
        tags[-1] = (name, value, chunk[sections[-1]:stop])


def _bad_tag(text: str, offset: int) -> Issue:
    if '"' not in text:
        message = f"Tag pair {text[:40]!r} has no value in double quotes; expected [Name \"value\"]."
    elif text.count('"') % 2 or not text.endswith("]"):
        message = f"Tag pair {text[:40]!r} is not closed: a quote or ] is missing."
    else:
        message = f"Tag pair {text[:40]!r} is malformed; expected [Name \"value\"]."
    return error("pbn.syntax.tag", message, at_offset(offset))


def section_tokens(section: str) -> list[SectionToken]:
    """Tokens of section data with offsets: words, strings and comments (escape lines dropped)."""
    tokens: list[SectionToken] = []
    for match in _SECTION.finditer(section):
        kind = match.lastgroup or "word"
        if kind == "esc":
            continue
        text = match.group()
        if kind in ("brace", "semi"):
            kind = "comment" if kind == "semi" or text[-1] == "}" else "bad"
        elif kind == "string" and (len(text) < 2 or text[-1] != '"'):
            kind = "bad"
        tokens.append(SectionToken(kind, text, match.start()))
    return tokens


def locate(chunk: Chunk | tuple[int, str], offset: int) -> tuple[int, int]:
    """1-based (line, column) of `offset` within a chunk given as Chunk or (first line, text)."""
    line, text = (chunk.line, chunk.text) if isinstance(chunk, Chunk) else chunk
    return locate_in(text, offset, line)
