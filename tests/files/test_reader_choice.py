"""`read_columnar` takes a file by the careful reader below its format's `Reader.columnar_from`
(where the fast path's fixed cost is more than the careful reading) and by the fast path from
there on; either way the frames are the careful reader's."""

from __future__ import annotations

from collections.abc import Callable

import pytest

import parsers.lin
import parsers.pbn
from benchmarks import wild_lin, wild_pbn
from parsers.columnar import ColumnarFile, assert_same, columnar_from_parsed
from parsers.formats import READERS
from pipelines.files.ingest import parse_bytes, read_columnar

FORMATS = [(".pbn", parsers.pbn, wild_pbn.text), (".lin", parsers.lin, wild_lin.text)]


def _sized(write: Callable[[int, int], str], at_least: int | None = None, below: int | None = None) -> bytes:
    """A file from the second generator, with as many boards as it takes to be at least (or below) a size."""
    boards = 1
    while True:
        data = write(boards, 5).encode()
        if at_least is not None and len(data) >= at_least:
            return data
        if below is not None and len(write(boards * 2, 5).encode()) >= below:
            return data
        boards *= 2


def _counting(monkeypatch: pytest.MonkeyPatch, module: object) -> list[int]:
    calls: list[int] = []
    original = module.loads_columnar  # type: ignore[attr-defined]

    def counted(data: bytes, **options: object) -> ColumnarFile | None:
        calls.append(len(data))
        return original(data, **options)  # type: ignore[no-any-return]

    monkeypatch.setattr(module, "loads_columnar", counted)
    return calls


@pytest.mark.parametrize(("suffix", "module", "write"), FORMATS, ids=[f[0] for f in FORMATS])
def test_a_small_file_is_read_carefully_and_a_large_one_by_the_fast_path(
        suffix: str, module: object, write: Callable[[int, int], str], monkeypatch: pytest.MonkeyPatch) -> None:
    start = READERS[suffix].columnar_from
    assert start > 0
    calls = _counting(monkeypatch, module)
    small, large = _sized(write, below=start), _sized(write, at_least=start)
    assert len(small) < start <= len(large)
    for data in (small, large):
        read = read_columnar(data, f"w{suffix}")
        assert read.results.height > 0
        assert_same(read, columnar_from_parsed(parse_bytes(data, f"w{suffix}")))
    assert calls == [len(large)]
    assert module.loads_columnar(large, source=f"w{suffix}") is not None  # type: ignore[attr-defined]
