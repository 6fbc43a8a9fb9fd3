"""The low-level PBN game: ordered tag pairs with their raw sections, parsed auction/play/notes.

`PbnGame` is what `iter_games` yields and what the writer writes. It keeps the tags exactly as the
file has them (repeats included, in file order), the game's own text for positioning, and parses
the auction, play and tables on first use. Calls and cards are kept as plain strings; annotations
(suffixes, note references, NAGs, irregularity prefixes, comments) are stored sparsely by token
index, so a plain play section costs one `str.split`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from itertools import islice
from types import MappingProxyType
from typing import NamedTuple

from parsers.numbers import whole_number
from parsers.pbn.issues import Anchor, Issue, at_position, at_token, strict
from parsers.pbn.lexer import (
    Chunk,
    Layout,
    TagPair,
    fast_layout,
    fast_tags,
    iter_chunks,
    scan_chunk,
    section_tokens,
)
from parsers.pbn.tables import Table, is_element, parse_table
from parsers.positions import LineIndex

SECTION_TAGS = frozenset({"Auction", "Play"})
"""Tags whose section data are calls or cards."""

_PIECE = re.compile(r"(\^[A-Za-z]?)|(=[^=\s]*=?)|(\$[^\s$=!?^*+]*)|([!?]{1,2})|([*+])|([A-Za-z0-9-]+)|(.)")
_SPECIAL = re.compile(r'[=$!?^{};"%]')
_WORD = re.compile(r"\S+")
_EMPTY: Mapping[int, Annotation] = MappingProxyType({})


class Annotation(NamedTuple):
    """What the file added to one call or card (all optional)."""

    prefix: str = ""
    """Irregularity prefix: ^I (insufficient bid), ^R (revoke), ^L (lead out of turn)."""
    suffix: str = ""
    """Suffix annotation: !, ?, !!, ??, !? or ?!."""
    note: int | None = None
    """Note reference =n=."""
    nags: tuple[int, ...] = ()
    """Numeric annotation glyphs $n."""
    comments: tuple[str, ...] = ()
    """Comments that follow the token, as written ({...} or ;...)."""


@dataclass(frozen=True, slots=True)
class CallSection:
    """An auction or play section: the seat of the tag and the tokens in file order."""

    seat: str
    """The tag value: the first caller (auction) or the opening leader (play)."""
    tokens: tuple[str, ...]
    """Calls or cards as written, plus -, AP, ^S, * and + markers."""
    annotations: Mapping[int, Annotation] = field(default_factory=lambda: _EMPTY)
    """Annotations by token index; index -1 holds comments before the first token."""
    issues: tuple[Issue, ...] = ()
    """Lexical problems (bad note references, NAGs, doubled suffixes, stray text)."""


def parse_call_section(seat: str, section: str, tag_index: int = 0) -> CallSection:
    """Tokenise auction or play section data; plain data (the usual case) is one `split`. (A kept
    result is shared between callers: it is frozen.)"""
    if _SPECIAL.search(section) is None:  # no annotations, comments, strings or escapes
        return CallSection(seat, tuple(section.split()))
    if len(section) > _KEPT_LENGTH:
        return _parse_annotated(seat, section, tag_index)[0]
    return _annotated_section(seat, section, tag_index)


_KEPT_LENGTH = 4096
"""Annotated sections up to this length are kept once parsed (a few MB at most)."""


@lru_cache(maxsize=1024)
def _annotated_section(seat: str, section: str, tag_index: int) -> CallSection:
    """An annotated section, parsed once: a game's sections are read several times, and the PBN
    reader reads a file's auction and play sections ahead, to have its auctions judged and its
    plays replayed at once."""
    return _parse_annotated(seat, section, tag_index)[0]


def token_offsets(section: str) -> list[int]:
    """Offset (within the section data) of each token of `parse_call_section`."""
    return _parse_annotated("", section, 0)[1]


def _parse_annotated(seat: str, section: str, tag_index: int) -> tuple[CallSection, list[int]]:
    tokens: list[str] = []
    offsets: list[int] = []
    notes: dict[int, Annotation] = {}
    issues: list[Issue] = []
    prefix = ""
    for token in section_tokens(section):
        last = len(tokens) - 1
        if token.kind == "comment":
            ann = notes.get(last, Annotation())
            notes[last] = ann._replace(comments=(*ann.comments, token.text))
            continue
        if token.kind != "word":
            issues.append(strict("pbn.section.text", f"{token.text[:20]!r} does not belong in an "
                                 "auction or play section.", at_token(tag_index, max(last, 0))))
            continue
        for piece in _PIECE.finditer(token.text):
            text, kind = piece.group(), piece.lastindex
            last = len(tokens) - 1
            if kind == 1 and text in ("^I", "^R", "^L"):
                if prefix:
                    issues.append(strict("pbn.irregularity.double",
                                         f"Two irregularity marks ({prefix} {text}) on one token.",
                                         at_token(tag_index, last + 1)))
                prefix = text
            elif kind in (1, 5, 6):
                tokens.append(text)
                offsets.append(token.offset + piece.start())
                if prefix:
                    notes[last + 1] = notes.get(last + 1, Annotation())._replace(prefix=prefix)
                    prefix = ""
            elif kind in (2, 3, 4):
                ann, problem = _annotate(notes.get(last, Annotation()), kind, text)
                notes[last] = ann
                if problem:
                    issues.append(strict("pbn.annotation", problem, at_token(tag_index, max(last, 0))))
            else:
                issues.append(strict("pbn.section.text", f"Character {text!r} is not allowed here.",
                                     at_token(tag_index, max(last, 0))))
    if prefix:
        issues.append(strict("pbn.irregularity.dangling", f"{prefix} is not followed by a call or card.",
                             at_token(tag_index, max(len(tokens) - 1, 0))))
    annotations = MappingProxyType(notes) if notes else _EMPTY
    return CallSection(seat, tuple(tokens), annotations, tuple(issues)), offsets


def _annotate(ann: Annotation, kind: int, text: str) -> tuple[Annotation, str]:
    """Add a note reference (2), NAG (3) or suffix (4) to an annotation; return any problem."""
    if kind == 2:
        digits = text.strip("=")
        if not (text.endswith("=") and len(text) > 2 and whole_number(digits) is not None):
            return ann, f"{text!r} is not a note reference; write =1= to =32=."
        if ann.note is not None:
            return ann, f"Two note references ({ann.note} and {digits}) on one token."
        if not 1 <= int(digits) <= 32:
            return ann._replace(note=int(digits)), f"Note reference {text} is out of range 1-32."
        return ann._replace(note=int(digits)), ""
    if kind == 3:
        digits = text[1:]
        if whole_number(digits) is None:
            return ann, f"{text[:20]!r} is not a NAG; write $0 to $255."
        nags = (*ann.nags, int(digits))
        if int(digits) > 255:
            return ann._replace(nags=nags), f"NAG {text} is out of range 0-255."
        return ann._replace(nags=nags), ""
    if ann.suffix:
        return ann, f"Two suffixes ({ann.suffix} and {text}) on one token."
    return ann._replace(suffix=text), ""


@dataclass(frozen=True)
class PbnGame:
    """One PBN game: its tag pairs in file order with their sections, and where it is."""

    index: int
    """0-based index of the game in the file (tagless chunks do not count)."""
    line: int
    """1-based line of the game's first tag."""
    offset: int
    """Offset of the game's text in the file text."""
    chunk_line: int
    """1-based line where the game's text starts (comments and escapes included)."""
    text: str
    """The game's text, from the line after the previous semi-empty line."""
    tags: tuple[TagPair, ...]
    """Tag pairs in file order, repeats included."""
    escapes: tuple[str, ...] = ()
    """% escape lines seen since the previous game (including those in this game)."""
    preamble: tuple[str, ...] = ()
    """Comments before the first tag."""
    issues: tuple[Issue, ...] = ()
    """Syntax problems found while scanning this game."""
    orphans: tuple[Issue, ...] = ()
    """Problems in text between the previous game and this one that belongs to no game."""
    inherited: frozenset[str] = frozenset()
    """Tags that `inheritance.resolve` added from a ## header (they have no position)."""

    def get(self, name: str) -> str | None:
        """Value of the first tag `name` (a repeated tag is ignored, as the standard says)."""
        for tag_name, value, _ in self.tags:
            if tag_name == name:
                return value
        return None

    def index_of(self, name: str) -> int | None:
        """Index in `tags` of the first tag `name`."""
        for i, tag in enumerate(self.tags):
            if tag[0] == name:
                return i
        return None

    @cached_property
    def layout(self) -> Layout:
        """Offsets of tags, values and sections (computed on demand)."""
        own = self.tags[:len(self.tags) - len(self.inherited)]
        return fast_layout(self.text, own) or scan_chunk(self.text).layout

    @cached_property
    def auction(self) -> CallSection | None:
        """The auction section, if any."""
        return self._call_section("Auction")

    @cached_property
    def play(self) -> CallSection | None:
        """The play section, if any."""
        return self._call_section("Play")

    def _call_section(self, name: str) -> CallSection | None:
        i = self.index_of(name)
        return None if i is None else parse_call_section(self.tags[i][1], self.tags[i][2], i)

    @cached_property
    def tables(self) -> dict[str, Table]:
        """Table sections by tag name (first occurrence), e.g. ScoreTable, TotalScoreTable."""
        found: dict[str, Table] = {}
        for i, (name, value, section) in enumerate(self.tags):
            if is_table_tag(name) and name not in found:
                found[name] = parse_table(name, value, section, i)
        return found

    @cached_property
    def notes(self) -> tuple[tuple[str, int, str, str], ...]:
        """Note tags as (section, tag index, number text, note text); section is Auction, Play or ''."""
        found: list[tuple[str, int, str, str]] = []
        section = ""
        for i, (name, value, _) in enumerate(self.tags):
            if name in SECTION_TAGS:
                section = name
            elif name == "Note":
                number, _, text = value.partition(":")
                found.append((section, i, number.strip(), text))
        return tuple(found)

    def element_lines(self, tag_index: int) -> list[int]:
        """1-based line of each element (word or string) of a tag's section data."""
        cache: dict[int, list[int]] = self.__dict__.setdefault("_element_lines", {})
        found = cache.get(tag_index)
        if found is None and tag_index >= len(self.layout.section_starts):
            # A tag carried into this game by `##` inheritance: no section of it in this game's text.
            found = cache[tag_index] = []
        if found is None:
            section = self.tags[tag_index][2]
            line, _ = self.locate(("offset", self.layout.section_starts[tag_index], 0))
            found, last = [], 0
            for token in section_tokens(section):
                if is_element(token):
                    line += section.count("\n", last, token.offset)
                    last = token.offset
                    found.append(line)
            cache[tag_index] = found
        return found

    def _offsets(self, kind: str, tag_index: int, needed: int) -> list[int]:
        """Offsets of a section's tokens (calls/cards) or elements (tables), computed once per section."""
        cache: dict[tuple[str, int], list[int]] = self.__dict__.setdefault("_offsets_cache", {})
        found = cache.get((kind, tag_index))
        if found is not None and (len(found) > needed or found[-1:] == [-1]):
            return [o for o in found if o >= 0]
        section = self.tags[tag_index][2]
        if _SPECIAL.search(section) is None:
            # Plain data: tokens are the whitespace-separated words; only go as far as needed.
            found = [m.start() for m in islice(_WORD.finditer(section), 2 * needed + 64)]
            if len(found) < 2 * needed + 64:
                found.append(-1)  # complete
        elif kind == "token":
            found = [*token_offsets(section), -1]
        else:
            found = [*(t.offset for t in section_tokens(section) if is_element(t)), -1]
        cache[(kind, tag_index)] = found
        return [o for o in found if o >= 0]

    def locate(self, anchor: Anchor) -> tuple[int, int]:
        """1-based (line, column) in the file for an issue anchor of this game."""
        kind, first, second = anchor
        if kind == "pos":
            return first, second
        if kind == "offset":
            return self._at(first)
        layout = self.layout
        if first < 0 or first >= len(layout.tag_starts):
            return self.line, 0
        if kind == "tag":
            return self._at(layout.tag_starts[first])
        if kind == "value":
            return self._at(layout.value_starts[first])
        base = layout.section_starts[first]
        offsets = self._offsets(kind, first, second)
        if not offsets:
            return self._at(base)
        return self._at(base + offsets[max(0, min(second, len(offsets) - 1))])

    @cached_property
    def _lines(self) -> LineIndex:
        # Built once per game: a game with many issues locates each in the same index, not in a
        # fresh scan of the whole text per issue (which made a large garbled game quadratic).
        return LineIndex(self.text, self.chunk_line)

    def _at(self, offset: int) -> tuple[int, int]:
        return self._lines.position(max(0, min(offset, len(self.text))))


def is_table_tag(name: str) -> bool:
    """True for table sections (ScoreTable, OptimumResultTable, ...), not the plain Table tag."""
    return name.endswith("Table") and name != "Table"


def read_games(text: str) -> Iterator[PbnGame | tuple[Issue, ...]]:
    """Games of normalised text; problems in trailing text that belongs to no game come last."""
    index = 0
    escapes: list[str] = []
    orphans: list[Issue] = []
    for chunk in iter_chunks(_unwrap_embedding(text)):
        game = _game_from_chunk(chunk, index, escapes, orphans)
        if game is None:
            continue
        escapes, orphans = [], []
        index += 1
        yield game
    if orphans:
        yield tuple(orphans)


def _game_from_chunk(chunk: Chunk, index: int, escapes: list[str], orphans: list[Issue]) -> PbnGame | None:
    tags = fast_tags(chunk.text)
    if tags is not None:
        start = chunk.text.index("[")
        line = chunk.line + chunk.text.count("\n", 0, start)
        return PbnGame(index, line, chunk.offset, chunk.line, chunk.text, tags, tuple(escapes))
    scan = scan_chunk(chunk.text)
    escapes.extend(scan.escapes)
    lines = LineIndex(chunk.text, chunk.line)  # one index for every issue of the chunk (see `PbnGame._lines`)
    if not scan.tags:
        last = len(chunk.text)
        orphans.extend(issue._replace(anchor=at_position(*lines.position(max(0, min(issue.anchor[1], last)))))
                       for issue in scan.issues)
        return None
    line = lines.line(scan.layout.tag_starts[0])
    game = PbnGame(index, line, chunk.offset, chunk.line, chunk.text, scan.tags, tuple(escapes),
                   scan.preamble, scan.issues, tuple(orphans))
    game.__dict__["layout"] = scan.layout  # already computed: seed the cached property
    return game


def _unwrap_embedding(text: str) -> str:
    """Blank out text outside <PBN> ... </PBN> delimiters (same length, so positions hold)."""
    start = text.find("<PBN>")
    if start < 0:
        return text
    end = text.find("</PBN>", start)
    end = len(text) if end < 0 else end
    blank = re.compile(r"[^\n]")
    return blank.sub(" ", text[:start + 5]) + text[start + 5:end] + blank.sub(" ", text[end:])
