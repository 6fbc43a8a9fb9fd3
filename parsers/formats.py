"""The file formats bridgeledger reads and writes: one typed registry, light to import.

`READERS` maps a file's extension to its `Reader`, `WRITERS` a format's name to its `Writer`. The
functions they hold import their reader or writer when first called, so that choosing a format (or
listing them in the CLI's help) loads none of them; each is a plain function, so mypy checks every
call against the reader's signature instead of trusting an import path in a string.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from parsers.columnar import ColumnarFile
    from parsers.records import ParsedFile


class Loads(Protocol):
    """A careful reader: bytes in, records and positioned diagnostics out; never raises on bad input."""

    def __call__(self, data: bytes, *, source: str, strict: bool = False) -> ParsedFile: ...


class LoadsColumnar(Protocol):
    """A vectorised fast path: the frames the careful reader's records become, or None to decline."""

    def __call__(self, data: bytes, *, source: str, strict: bool = False) -> ColumnarFile | None: ...


class Dumps(Protocol):
    """A writer: a session's records as the format's text."""

    def __call__(self, parsed: ParsedFile) -> str: ...


@dataclass(frozen=True, slots=True)
class Reader:
    """How files of one format are read."""

    name: str
    """The format's name (`pbn`), as `SourceFileIngested.format` records it."""
    suffix: str
    """The file extension that selects this reader, lower case with its dot (`.pbn`)."""
    max_bytes: int
    """The largest file read; a larger one is refused whole with a diagnostic."""
    loads: Loads
    """The careful reader."""
    loads_columnar: LoadsColumnar | None = None
    """The vectorised fast path, for the formats that have one."""
    columnar_from: int = 0
    """The smallest file (in bytes) the fast path is tried on. Below it the careful reader and its
    records turned into frames are faster: the fast path costs 15-35 ms whatever the file's size
    (some sixty small polars steps), as much as the careful reading of 30-60 KB
    (`benchmarks/reader_crossover.py`). A club's session file, or one board of a BBO tournament,
    is read carefully; a championship's, or a season's, by the fast path."""


@dataclass(frozen=True, slots=True)
class Writer:
    """How a session is written in one format."""

    name: str
    """The format's name, as `bridgeledger export FORMAT` takes it."""
    dumps: Dumps
    """The writer."""


def _csv_loads(data: bytes, *, source: str, strict: bool = False) -> ParsedFile:
    from parsers.csv import loads

    return loads(data, source=source, strict=strict)


def _pbn_loads(data: bytes, *, source: str, strict: bool = False) -> ParsedFile:
    from parsers.pbn import loads

    return loads(data, source=source, strict=strict)


def _pbn_columnar(data: bytes, *, source: str, strict: bool = False) -> ColumnarFile | None:
    from parsers.pbn import loads_columnar

    return loads_columnar(data, source=source, strict=strict)


def _lin_loads(data: bytes, *, source: str, strict: bool = False) -> ParsedFile:
    from parsers.lin import loads

    return loads(data, source=source, strict=strict)


def _lin_columnar(data: bytes, *, source: str, strict: bool = False) -> ColumnarFile | None:
    from parsers.lin import loads_columnar

    return loads_columnar(data, source=source, strict=strict)


def _usebio_loads(data: bytes, *, source: str, strict: bool = False) -> ParsedFile:
    from parsers.usebio import loads

    return loads(data, source=source, strict=strict)


def _pbn_dumps(parsed: ParsedFile) -> str:
    from parsers.pbn.writer import dumps

    return dumps(parsed)


def _lin_dumps(parsed: ParsedFile) -> str:
    from parsers.lin.writer import dumps

    return dumps(parsed)


# The CSV reader builds a record per row (20 MB took 31 s and 2.2 GB); the others read a
# 10,000-board file of a few megabytes in well under a second, and no session's file comes near
# these sizes. Where each fast path starts: measured by `benchmarks/reader_crossover.py`.
READERS: Mapping[str, Reader] = MappingProxyType({reader.suffix: reader for reader in (
    Reader("csv", ".csv", 16 << 20, _csv_loads),
    Reader("pbn", ".pbn", 64 << 20, _pbn_loads, _pbn_columnar, columnar_from=64 << 10),
    Reader("lin", ".lin", 64 << 20, _lin_loads, _lin_columnar, columnar_from=32 << 10),
    Reader("usebio", ".xml", 64 << 20, _usebio_loads),
)})
"""File extension -> its reader."""

WRITERS: Mapping[str, Writer] = MappingProxyType({writer.name: writer for writer in (
    Writer("pbn", _pbn_dumps),
    Writer("lin", _lin_dumps),
)})
"""Format name -> its writer."""
