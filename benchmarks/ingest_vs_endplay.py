"""Shared body of the format benchmarks: our whole ingest against endplay's parse, same file, same run.

Besides the headline ratio it reports our two readers alone on the same file: the vectorised fast
path that ingest takes on a well-formed file, and the careful reader that takes any file the fast
path declines (with positioned diagnostics). Figures only; nothing here is a pass/fail test.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import Any, TextIO, TypeVar

from pipelines.ingest import IngestReport, ingest_file, parse_bytes, reader_function
from pipelines.store import EventStore

T = TypeVar("T")
RECORDED_AT = datetime(2026, 11, 21, tzinfo=UTC)


def compare(fmt: str, text: Callable[[int], str], peer: Callable[[TextIO], Iterable[Any]], target: float,
            description: str | None) -> None:
    """Write `text(boards)` to a file; time `ingest` of it (into a fresh store each time), endplay's
    `peer` on it, and our two readers alone, best of `--runs` each, interleaved; print the figures."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--boards", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=3, help="runs of each side; the best counts")
    args = parser.parse_args()
    times: dict[str, list[float]] = {"ingest": [], "peer": [], "fast": [], "careful": []}
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"bench.{fmt}"
        path.write_text(text(args.boards), encoding="utf-8")
        data = path.read_bytes()
        fast = reader_function(path.name, "loads_columnar")
        if fast(data, source=path.name) is None:
            raise SystemExit(f"the {fmt} fast path declined the benchmark file; fix the generator or the reader")
        report: IngestReport | None = None
        peer_boards = 0
        for run in range(args.runs):
            store = EventStore(Path(tmp) / f"bench{run}.duckdb")
            report = _timed(times["ingest"], partial(ingest_file, store, path, recorded_at=RECORDED_AT))
            peer_boards = _timed(times["peer"], lambda: _count(peer, path))
            _timed(times["fast"], lambda: fast(data, source=path.name))
            _timed(times["careful"], lambda: parse_bytes(data, path.name))
    assert report is not None
    best = {side: min(runs) for side, runs in times.items()}
    print(f"boards                            {args.boards:>10,}  ({report.events:,} events appended, "
          f"{report.quarantined} quarantined); best of {args.runs} runs each")
    print(f"bridgeledger ingest               {_line(best['ingest'], args.boards, times['ingest'])}")
    print(f"  its parse: vectorised fast path {_line(best['fast'], args.boards, times['fast'])}")
    print(f"  careful reader (the fallback)   {_line(best['careful'], args.boards, times['careful'])}")
    print(f"endplay {fmt}.load (parse only)     {_line(best['peer'], peer_boards, times['peer'])}")
    print(f"ratio (target >= {target:g})             {best['peer'] / best['ingest']:>8.1f}x")


def _timed(runs: list[float], work: Callable[[], T]) -> T:
    started = time.perf_counter()
    result = work()
    runs.append(time.perf_counter() - started)
    return result


def _count(peer: Callable[[TextIO], Iterable[Any]], path: Path) -> int:
    with path.open(encoding="utf-8") as handle:
        return len(list(peer(handle)))


def _line(best: float, boards: int, runs: list[float]) -> str:
    return (f"{best:>8.2f} s  {boards / best:>10,.0f} boards/s   "
            f"(runs: {', '.join(f'{s:.2f}' for s in runs)})")
