"""LIN benchmark on the independent generator's files (`benchmarks.wild_lin`): a vugraph team match
with comments, claims, page breaks and line ends where real programs put them.

Times, in the same run, our whole ingest into a fresh store and endplay's `lin.load` alone, and
prints the figures and the ratio (see `benchmarks.ingest_vs_endplay.compare`). A script, not a test.

    .venv/bin/python -m benchmarks.bench_wild_lin [--boards 10000]
"""

from __future__ import annotations

from endplay.parsers import lin as endplay_lin

from benchmarks.ingest_vs_endplay import compare
from benchmarks.wild_lin import text

if __name__ == "__main__":
    compare("lin", text, endplay_lin.load, 20, __doc__)
