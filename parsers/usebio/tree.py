"""Hardened XML for the USEBIO reader: a small positioned element tree built by defusedxml.

`defusedxml` refuses entity declarations (billion laughs, external entities) and external
references; the reader never fetches the USEBIO DTD named in `<!DOCTYPE ...>`. Elements carry the
line and column where they start, and whether their end tag was seen, so that records can be
positioned and a truncated file still yields the elements it completed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any
from xml.etree.ElementTree import ParseError

from defusedxml import DefusedXmlException
from defusedxml.ElementTree import DefusedXMLParser

MAX_BYTES = 50 * 1024 * 1024
"""Largest input the reader accepts (a club session is well under 1 MB)."""


@dataclass(slots=True, eq=False)
class Node:
    """One XML element: tag, attributes, text, children and where it starts."""

    tag: str
    """Element name."""
    attrib: dict[str, str]
    """Attributes."""
    line: int
    """1-based line of the start tag."""
    column: int
    """1-based column of the start tag."""
    children: list[Node] = field(default_factory=list)
    """Child elements in document order."""
    parts: list[str] = field(default_factory=list)
    """Character data directly inside the element."""
    closed: bool = False
    """True once the end tag was read (False in a truncated file)."""

    @property
    def text(self) -> str:
        """The element's own text, stripped."""
        return "".join(self.parts).strip()

    def find(self, name: str) -> Node | None:
        """First child called `name`."""
        return next((child for child in self.children if child.tag == name), None)

    def find_all(self, name: str) -> list[Node]:
        """Children called `name`."""
        return [child for child in self.children if child.tag == name]

    def descendants(self, tag: str) -> list[Node]:
        """Elements called `tag` anywhere below, not looking inside a match."""
        found: list[Node] = []
        pending = list(reversed(self.children))
        while pending:
            node = pending.pop()
            if node.tag == tag:
                found.append(node)
            else:
                pending.extend(reversed(node.children))
        return found

    def get(self, name: str) -> str | None:
        """Text of child element `name`, else attribute `name`; None when neither is there.

        USEBIO puts some facts (EVENT_TYPE) in attributes, some in elements, some in both.
        """
        child = self.find(name)
        if child is not None:
            return child.text
        value = self.attrib.get(name)
        return None if value is None else value.strip()


class _Builder:
    """ElementTree parser target that builds `Node`s and reads positions from expat."""

    def __init__(self) -> None:
        self.root: Node | None = None
        self.stack: list[Node] = []
        self.expat: Any = None

    def start(self, tag: str, attrib: dict[str, str]) -> None:
        line = getattr(self.expat, "CurrentLineNumber", 0)
        column = getattr(self.expat, "CurrentColumnNumber", -1) + 1
        node = Node(tag=tag, attrib=dict(attrib), line=line, column=column)
        if self.stack:
            self.stack[-1].children.append(node)
        elif self.root is None:
            self.root = node
        self.stack.append(node)

    def end(self, tag: str) -> None:
        if self.stack:
            self.stack.pop().closed = True

    def data(self, text: str) -> None:
        if self.stack:
            self.stack[-1].parts.append(text)

    def close(self) -> Node | None:
        return self.root


@dataclass(slots=True)
class XmlProblem:
    """Why the XML could not be read to the end."""

    code: str
    """Stable code suffix (malformed, forbidden, too-large, encoding)."""
    message: str
    """What went wrong, in words."""
    line: int = 0
    """1-based line, 0 when unknown."""
    column: int = 0
    """1-based column, 0 when unknown."""


_DECLARED_ENCODING = re.compile(rb"^\s*<\?xml[^>]*encoding=[\"']([A-Za-z0-9._-]+)[\"']")
_DECLARATION_ENCODING_TEXT = re.compile(r"^(\s*<\?xml[^>]*?)\s+encoding=[\"'][^\"']*[\"']")


def to_bytes(data: str | bytes) -> tuple[bytes, XmlProblem | None]:
    """Bytes for expat: text is re-encoded as UTF-8 (dropping its declared encoding); undeclared
    non-UTF-8 bytes are read as cp1252, with a problem noted."""
    if isinstance(data, str):
        return _DECLARATION_ENCODING_TEXT.sub(r"\1", data, count=1).encode("utf-8"), None
    if _DECLARED_ENCODING.match(data) is not None:
        return data, None
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        text = data.decode("cp1252", errors="replace")
        return text.encode("utf-8"), XmlProblem("encoding", "the file is not UTF-8 and declares no encoding; "
                                                            "it was read as Windows-1252")
    return data, None


def parse(data: bytes) -> tuple[Node | None, XmlProblem | None]:
    """Parse XML bytes into `Node`s. On failure returns what was built so far and the problem."""
    if len(data) > MAX_BYTES:
        return None, XmlProblem("too-large", f"the file has {len(data):,} bytes; the limit is {MAX_BYTES:,}")
    builder = _Builder()
    parser = DefusedXMLParser(target=builder, forbid_dtd=False, forbid_entities=True, forbid_external=True)
    builder.expat = getattr(parser, "parser", None)
    try:
        parser.feed(data)
        parser.close()
    except DefusedXmlException as exc:
        line = getattr(builder.expat, "CurrentLineNumber", 0)
        return builder.root, XmlProblem("forbidden", f"the file declares entities or refers to external "
                                                     f"resources, which are refused for safety ({type(exc).__name__})",
                                        line=line)
    except ParseError as exc:
        line, column = getattr(exc, "position", (0, -1))
        return builder.root, XmlProblem("malformed", f"the XML is not well-formed: {_reason(exc)}",
                                        line=line, column=column + 1)
    return builder.root, None


def _reason(exc: ParseError) -> str:
    """Expat's message without its own position suffix (we report the position separately)."""
    return re.sub(r":\s*line \d+, column \d+$", "", str(exc))
