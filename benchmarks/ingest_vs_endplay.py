"""Shared body of the format benchmarks: our whole ingest against endplay's parse, same file, same run."""

from __future__ import annotations

import argparse
import tempfile
import time
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TextIO

from pipelines.ingest import ingest_file
from pipelines.store import EventStore


def compare(fmt: str, text: Callable[[int], str], peer: Callable[[TextIO], Iterable[Any]], target: float,
            description: str | None) -> None:
    """Write `text(boards)` to a file; time `ingest` of it (into a fresh store each time) and `peer` on
    it, best of `--runs` each, alternating; print boards/s and the ratio."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--boards", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=3, help="runs of each side; the best counts")
    args = parser.parse_args()
    ours: list[float] = []
    theirs: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"bench.{fmt}"
        path.write_text(text(args.boards), encoding="utf-8")
        for run in range(args.runs):
            started = time.perf_counter()
            report = ingest_file(EventStore(Path(tmp) / f"bench{run}.duckdb"), path,
                                 recorded_at=datetime(2026, 11, 21, tzinfo=UTC))
            ours.append(time.perf_counter() - started)
            started = time.perf_counter()
            with path.open(encoding="utf-8") as handle:
                theirs_boards = len(list(peer(handle)))
            theirs.append(time.perf_counter() - started)
    best_ours, best_theirs = min(ours), min(theirs)
    print(f"boards                          {args.boards:>10,}  ({report.events:,} events appended, "
          f"{report.quarantined} quarantined); best of {args.runs} runs each")
    print(f"bridgeledger ingest             {best_ours:>8.2f} s  {args.boards / best_ours:>10,.0f} boards/s"
          f"   (runs: {', '.join(f'{s:.2f}' for s in ours)})")
    print(f"endplay {fmt}.load (parse only)   {best_theirs:>8.2f} s  {theirs_boards / best_theirs:>10,.0f} boards/s"
          f"   (runs: {', '.join(f'{s:.2f}' for s in theirs)})")
    print(f"ratio (target >= {target:g})           {best_theirs / best_ours:>8.1f}x")
