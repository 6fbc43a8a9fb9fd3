"""PBN benchmark: `bridgeledger ingest` (parse + validate + append) against endplay's `pbn.load`.

Generates a 10,000-board PBN with auction and play (one game per board, export style), then times,
in the same run, our whole ingest into a fresh store and endplay's parse alone. Prints boards/s for
both and the ratio. Target: ingest >= 15x endplay's parse. A script, not a test.

    .venv/bin/python -m benchmarks.bench_pbn [--boards 10000]
"""

from __future__ import annotations

from endplay.parsers import pbn as endplay_pbn

from benchmarks.boards import boards, to_pbn
from benchmarks.in_process import compare


def pbn_text(count: int) -> str:
    """`count` generated boards as one PBN file."""
    return "% PBN 2.1\n% EXPORT\n\n" + "".join(to_pbn(b) for b in boards(count))


if __name__ == "__main__":
    compare("pbn", pbn_text, endplay_pbn.load, 15, __doc__)
