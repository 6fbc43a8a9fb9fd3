"""The shared corpus read and ingested once per test run, for every test module that needs it.

Reading the whole corpus takes seconds (one file of 7,632 games most of them) and many modules
read the same files, so each file is read once per run (per worker under pytest-xdist) and the
records shared: a `ParsedFile` is frozen. Ingesting is cached the same way, into a template store
per file that each test gets a copy of (`tests.store_files.copy_store`), never the template itself.
"""

from __future__ import annotations

import functools
import importlib
from pathlib import Path

from parsers.records import ParsedFile
from pipelines.files.ingest import IngestReport, ingest_file, parse_bytes
from pipelines.log.store import EventStore
from tests.conftest import RECORDED_AT
from tests.store_files import copy_store

_READERS = {".pbn": "parsers.pbn", ".lin": "parsers.lin", ".xml": "parsers.usebio"}


@functools.cache
def read(path: Path, *, strict: bool = False) -> ParsedFile:
    """`load(path)` of the reader of the file's format (`parsers.pbn`, `.lin`, `.usebio`)."""
    reader = importlib.import_module(_READERS[path.suffix.lower()])
    parsed: ParsedFile = reader.load(path, strict=strict)
    return parsed


@functools.cache
def parsed(path: Path, *, strict: bool = False) -> ParsedFile:
    """`pipelines.files.ingest.parse_bytes` of the file: what ingesting it reads."""
    return parse_bytes(path.read_bytes(), path.name, strict=strict)


class IngestedCorpus:
    """Corpus files ingested (leniently, recorded at `RECORDED_AT`), each into a template store of
    its own the first time a test asks for it."""

    def __init__(self, root: Path) -> None:
        self._root = root
        self._ingested: dict[Path, tuple[Path, IngestReport]] = {}

    def _ingest_once(self, path: Path) -> tuple[Path, IngestReport]:
        if path not in self._ingested:
            template = self._root / f"{len(self._ingested)}-{path.stem}.duckdb"
            self._ingested[path] = template, ingest_file(EventStore(template), path, recorded_at=RECORDED_AT)
        return self._ingested[path]

    def store(self, path: Path, target: Path) -> EventStore:
        """A store at `target` holding what ingesting `path` into an empty store appends."""
        return copy_store(self._ingest_once(path)[0], target)

    def report(self, path: Path) -> IngestReport:
        """What that ingest reported."""
        return self._ingest_once(path)[1]
