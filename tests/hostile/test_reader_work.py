"""Issue #36 item 10: a hostile file costs a reader work in proportion to its size, never more.

A 20 MB LIN of `|` took 192 s and 2.4 GB (a part, a skip and a diagnostic per `|`), and 10 MB of
random bytes read as PBN 54-100 s (every stray-text issue of a garbled game located by scanning the
whole game's text for line breaks again). What is measured here is work, not time: characters
scanned for line breaks and bytes allocated, per byte of input. `benchmarks/hostile_readers.py`
times the issue's own files.
"""

from __future__ import annotations

import random
import re
import tracemalloc
from collections.abc import Iterator
from typing import Any

import pytest

import parsers.positions as positions
from parsers.lin.lexer import tokenize
from pipelines.files.ingest import read_columnar

MB = 1 << 20


class _CountingBreaks:
    """Stands in for the line-break pattern every `LineIndex` scans with; counts what it scans."""

    def __init__(self, pattern: re.Pattern[str]) -> None:
        self.pattern = pattern
        self.scanned = 0

    def finditer(self, text: str, *args: Any) -> Iterator[re.Match[str]]:
        self.scanned += len(text)
        return self.pattern.finditer(text, *args)


@pytest.fixture
def line_breaks(monkeypatch: pytest.MonkeyPatch) -> _CountingBreaks:
    counting = _CountingBreaks(positions._LINE_BREAK)
    monkeypatch.setattr(positions, "_LINE_BREAK", counting)
    return counting


def _random_bytes(size: int) -> bytes:
    return random.Random(7).randbytes(size)


def _peak_bytes(data: bytes, source: str) -> int:
    tracemalloc.start()
    try:
        read_columnar(data, source)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_random_bytes_as_pbn_are_scanned_for_line_breaks_about_once(line_breaks: _CountingBreaks) -> None:
    data = _random_bytes(MB)
    read = read_columnar(data, "noise.pbn")
    assert read.errors  # garbage is said to be garbage
    # Each garbled game's text was scanned again for every issue in it: 427 characters per byte.
    assert line_breaks.scanned <= 3 * len(data)


def test_a_run_of_separators_is_one_skip_however_long() -> None:
    tokens = tokenize("pn|a,b,c,d|" + "|" * 500_000 + "md|3SAK,,,|")
    assert tokens.keys == ["pn", "md"]
    assert [(skip.offset, skip.count) for skip in tokens.skips] == [(11, 500_000)]


def test_separators_with_blanks_between_them_are_one_skip() -> None:
    tokens = tokenize("pn|a|" + "| \n" * 1000 + "md|3|")
    assert tokens.keys == ["pn", "md"]
    assert [skip.count for skip in tokens.skips] == [1000]


@pytest.mark.parametrize(("data", "source"), [
    (b"|" * MB, "pipes.lin"),
    (b"| " * (MB // 2), "spaced.lin"),
])
def test_a_hostile_file_allocates_a_bounded_multiple_of_its_size(data: bytes, source: str) -> None:
    # 105 bytes a byte for `|` runs before (2.4 GB for the 20 MB), 54 for `| `.
    assert _peak_bytes(data, source) <= 32 * len(data)
