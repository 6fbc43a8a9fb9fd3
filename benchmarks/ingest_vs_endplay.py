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
    """Write `text(boards)` to a file, time `ingest` on it and `peer` on it, print boards/s and the ratio."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--boards", type=int, default=10_000)
    boards = parser.parse_args().boards
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"bench.{fmt}"
        path.write_text(text(boards), encoding="utf-8")
        started = time.perf_counter()
        report = ingest_file(EventStore(Path(tmp) / "bench.duckdb"), path,
                             recorded_at=datetime(2026, 11, 21, tzinfo=UTC))
        ours = time.perf_counter() - started
        started = time.perf_counter()
        with path.open(encoding="utf-8") as handle:
            theirs_boards = len(list(peer(handle)))
        theirs = time.perf_counter() - started
    print(f"boards                          {boards:>10,}  ({report.events:,} events appended, "
          f"{report.quarantined} quarantined)")
    print(f"bridgeledger ingest             {ours:>8.2f} s  {boards / ours:>10,.0f} boards/s")
    print(f"endplay {fmt}.load (parse only)   {theirs:>8.2f} s  {theirs_boards / theirs:>10,.0f} boards/s")
    print(f"ratio (target >= {target:g})           {theirs / ours:>8.1f}x")
