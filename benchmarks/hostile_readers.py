"""Hostile files against the readers: the inputs of issue #36 item 10, timed.

A 20 MB LIN of `|` (192 s and 2.4 GB before), 10 MB of random bytes as PBN (54-100 s before) and as
LIN, and 16 MB of `[Board "1"]`-only PBN games. Prints seconds and seconds per MB for each, against
the target: a reader needs at most `TARGET_SECONDS_PER_MB` a megabyte of anything. A script, not a
test (the tests, `tests/hostile/test_reader_work.py`, count work instead of timing it).

    .venv/bin/python -m benchmarks.hostile_readers [--scale 1.0]
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable

from pipelines.files.ingest import read_columnar

TARGET_SECONDS_PER_MB = 1.0
MB = 1 << 20

CASES: dict[str, tuple[str, Callable[[int], bytes]]] = {
    "LIN of |": (".lin", lambda size: b"|" * size),
    "random bytes as PBN": (".pbn", lambda size: random.Random(1).randbytes(size)),
    "random bytes as LIN": (".lin", lambda size: random.Random(2).randbytes(size)),
    "[Board]-only PBN games": (".pbn", lambda size: b'[Board "1"]\n\n' * (size // 13)),
}
SIZES = {"LIN of |": 20 * MB, "random bytes as PBN": 10 * MB, "random bytes as LIN": 10 * MB,
         "[Board]-only PBN games": 16 * MB}


def main() -> None:
    """Time each case and say whether it meets the target."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--scale", type=float, default=1.0, help="multiply every size by this")
    scale = parser.parse_args().scale
    for name, (suffix, make) in CASES.items():
        data = make(int(SIZES[name] * scale))
        started = time.perf_counter()
        read_columnar(data, f"hostile{suffix}")
        seconds = time.perf_counter() - started
        per_mb = seconds / (len(data) / MB)
        verdict = "ok" if per_mb <= TARGET_SECONDS_PER_MB else "OVER TARGET"
        print(f"{name:<24} {len(data) / MB:6.1f} MB {seconds:7.2f} s {per_mb:5.2f} s/MB  {verdict}")


if __name__ == "__main__":
    main()
