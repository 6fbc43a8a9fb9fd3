"""LIN benchmark: `bridgeledger ingest` (parse + validate + append) against endplay's `lin.load`.

Generates a 10,000-board BBO "my hands" LIN with full auction and play, then times, in the same
run, our whole ingest into a fresh store and endplay's parse alone. Prints boards/s for both and
the ratio. Target: ingest >= 20x endplay's parse. A script, not a test.

    .venv/bin/python -m benchmarks.bench_lin [--boards 10000]
"""

from __future__ import annotations

from endplay.parsers import lin as endplay_lin

from benchmarks.boards import boards, to_lin
from benchmarks.in_process import compare


def lin_text(count: int) -> str:
    """`count` generated boards as one LIN file, one board per line."""
    return "".join(to_lin(b) for b in boards(count))


if __name__ == "__main__":
    compare("lin", lin_text, endplay_lin.load, 20, __doc__)
