"""Shared body of the in-process format benchmarks: our whole ingest against endplay's parse, same file, same run.

Besides the headline ratio it reports our two readers alone on the same file: the vectorised fast
path that ingest takes on a well-formed file, and the careful reader that takes any file the fast
path declines (with positioned diagnostics). Figures only; nothing here is a pass/fail test.
"""

from __future__ import annotations

import argparse
import gc
import tempfile
import time
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TextIO, TypeVar

from pipelines.files.ingest import ingest_file, parse_bytes, reader_for
from pipelines.log.store import EventStore

T = TypeVar("T")
RECORDED_AT = datetime(2026, 11, 21, tzinfo=UTC)


def compare(fmt: str, text: Callable[[int], str], peer: Callable[[TextIO], Iterable[Any]], target: float,
            description: str | None) -> None:
    """Write `text(boards)` to a file; time `ingest` of it (into a fresh store each time), endplay's
    `peer` on it, and our two readers alone, best of `--runs` each after a warm-up; print the figures."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--boards", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=5,
                        help="timed runs of each side (as timeit's repeat); the best counts")
    args = parser.parse_args()
    times: dict[str, list[float]] = {"ingest": [], "peer": [], "fast": [], "careful": []}
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"bench.{fmt}"
        path.write_text(text(args.boards), encoding="utf-8")
        data = path.read_bytes()
        reader = reader_for(path.name)
        fast = reader.loads_columnar if reader is not None else None
        if fast is None or fast(data, source=path.name) is None:
            raise SystemExit(f"the {fmt} fast path declined the benchmark file; fix the generator or the reader")
        stores = (EventStore(Path(tmp) / f"bench{run}.duckdb") for run in range(args.runs + 1))
        report = _best_of(args.runs, times["ingest"], lambda: ingest_file(next(stores), path, recorded_at=RECORDED_AT))
        peer_boards = _best_of(args.runs, times["peer"], lambda: _count(peer, path))
        _best_of(args.runs, times["fast"], lambda: fast(data, source=path.name))
        _best_of(args.runs, times["careful"], lambda: parse_bytes(data, path.name))
    best = {side: min(runs) for side, runs in times.items()}
    print(f"boards                            {args.boards:>10,}  ({report.events:,} events appended, "
          f"{report.quarantined} quarantined); best of {args.runs} runs each")
    print(f"bridgeledger ingest               {_line(best['ingest'], args.boards, times['ingest'])}")
    print(f"  its parse: vectorised fast path {_line(best['fast'], args.boards, times['fast'])}")
    print(f"  careful reader (the fallback)   {_line(best['careful'], args.boards, times['careful'])}")
    print(f"endplay {fmt}.load (parse only)     {_line(best['peer'], peer_boards, times['peer'])}")
    print(f"ratio (target >= {target:g})             {best['peer'] / best['ingest']:>8.1f}x")


def _best_of(count: int, runs: list[float], work: Callable[[], T]) -> T:
    """Run `work` once untimed, then `count` times timed into `runs`, back to back: each side is
    timed in its own steady state, not just after the other side has churned the heap and caches
    (our ingest, short and multi-threaded, suffered most from that). Collection stays on."""
    result = work()
    for _ in range(count):
        gc.collect()
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
