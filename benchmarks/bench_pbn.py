"""PBN benchmark: `bridgeledger ingest` (parse + validate + append) against endplay's `pbn.load`.

Generates a 10,000-board PBN with auction and play (one game per board, export style), then times,
in the same run, our whole ingest into a fresh store and endplay's parse alone. Prints boards/s for
both and the ratio. Target: ingest >= 15x endplay's parse. A script, not a test.

    .venv/bin/python -m benchmarks.bench_pbn [--boards 10000]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

from endplay.parsers import pbn as endplay_pbn

from benchmarks.boards import boards, to_pbn
from pipelines.ingest import ingest_file
from pipelines.store import EventStore


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--boards", type=int, default=10_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "bench.pbn"
        path.write_text("% PBN 2.1\n% EXPORT\n\n" + "".join(to_pbn(b) for b in boards(args.boards)),
                        encoding="utf-8")
        started = time.perf_counter()
        report = ingest_file(EventStore(Path(tmp) / "bench.duckdb"), path,
                             recorded_at=datetime(2026, 11, 21, tzinfo=UTC))
        ours = time.perf_counter() - started
        started = time.perf_counter()
        with path.open(encoding="utf-8") as handle:
            theirs_boards = endplay_pbn.load(handle)
        theirs = time.perf_counter() - started
    n = args.boards
    print(f"boards                          {n:>10,}  ({report.events:,} events appended, "
          f"{report.quarantined} quarantined)")
    print(f"bridgeledger ingest             {ours:>8.2f} s  {n / ours:>10,.0f} boards/s")
    print(f"endplay pbn.load (parse only)   {theirs:>8.2f} s  {len(theirs_boards) / theirs:>10,.0f} boards/s")
    print(f"ratio (target >= 15)            {theirs / ours:>8.1f}x")


if __name__ == "__main__":
    main()
