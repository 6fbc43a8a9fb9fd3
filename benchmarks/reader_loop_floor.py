"""The floor of a one-loop reader (python-chess's shape) on the 50,000-board files of issue #17.

A reader that walks a file in one Python loop costs at least the loop itself. This times the
barest such loop, which reads no value: every PBN tag pair (`[Name "value"]`) or LIN pair
(`mb|1S|`, `pc|SA|`: every call and card is one) matched by one compiled regex and its value
appended to a column, nothing checked, converted or built. Beside it: the careful reader (the loop
with checks, records and diagnostics) and the vectorised reader on the same text, and endplay's
parse, in process, warm, best of `--runs`.

The issue's targets leave the reader at most the target's time for the whole command less what
storing the events costs; `benchmarks.ingest_vs_endplay` prints both (its "the target leaves the
whole command" and "the store alone" lines). Pass their difference as `--left-pbn` / `--left-lin`
to have the loop set beside it: it is what a reader may spend if building the events cost nothing.

    .venv/bin/python -m benchmarks.reader_loop_floor [--boards 50000] [--left-pbn 0.34] [--left-lin 0.48]
"""

from __future__ import annotations

import argparse
import io
import logging
import re
from collections.abc import Callable

from benchmarks import wild_lin, wild_pbn
from benchmarks.ingest_vs_endplay import TARGETS, best_seconds

_PAIRS = {"pbn": re.compile(r'\[(\w+)\s+"([^"]*)"\]'), "lin": re.compile(r"(\w\w)\|([^|]*)\|")}
"""The barest pair each format's loop must visit."""


CAREFUL = "our careful reader (records, diagnostics)"


def bare_loop(text: str, fmt: str) -> int:
    """Every pair of `text` matched and its value appended to its name's column; the number of pairs."""
    columns: dict[str, list[str]] = {}
    count = 0
    for match in _PAIRS[fmt].finditer(text):
        name, value = match.groups()
        columns.setdefault(name, []).append(value)
        count += 1
    return count


def readers(fmt: str, text: str) -> dict[str, Callable[[], object]]:
    """The loop, our two readers and endplay's parse, each a call reading all of `text`."""
    from endplay.parsers import lin as endplay_lin
    from endplay.parsers import pbn as endplay_pbn

    import parsers.lin as lin
    import parsers.pbn as pbn

    data = text.encode()
    ours = pbn if fmt == "pbn" else lin
    peer = endplay_pbn if fmt == "pbn" else endplay_lin
    return {
        "the bare loop (no value read)": lambda: bare_loop(text, fmt),
        CAREFUL: lambda: ours.loads(text),
        "our vectorised reader (what ingest takes)": lambda: ours.loads_columnar(data, source=f"bench.{fmt}"),
        "endplay's parse": lambda: peer.load(io.StringIO(text)),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--boards", type=int, default=50_000)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--left-pbn", type=float, default=None, help="seconds the PBN target leaves the reader")
    parser.add_argument("--left-lin", type=float, default=None, help="seconds the LIN target leaves the reader")
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    for fmt, left in (("pbn", args.left_pbn), ("lin", args.left_lin)):
        text = (wild_pbn if fmt == "pbn" else wild_lin).text(args.boards, args.seed)
        print(f"{fmt.upper()}: {args.boards:,} boards from the wild generator, {len(text.encode()) / 1e6:.1f} MB, "
              f"{bare_loop(text, fmt):,} pairs; in process, warm, best of {args.runs}")
        seconds = {label: best_seconds(args.runs, read) for label, read in readers(fmt, text).items()}
        for label, spent in seconds.items():
            print(f"  {label:<44} {spent:6.2f} s")
        if left is not None and left > 0:
            loop = seconds["the bare loop (no value read)"]
            print(f"  the {TARGETS[fmt]:g}x target leaves the reader {left:.2f} s: the bare loop alone takes "
                  f"{loop / left:.1f}x that, the careful reader {seconds[CAREFUL] / left:.0f}x")


if __name__ == "__main__":
    main()
