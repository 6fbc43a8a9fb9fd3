"""Where each vectorised fast path starts to pay: the file size `parsers.formats.Reader.columnar_from`.

For PBN and LIN files of 1 to 1,024 boards from the second generators (`benchmarks.wild_pbn`,
`benchmarks.wild_lin`), prints the careful reader's time with its records turned into frames, the
fast path's time, and which of the two `pipelines.files.ingest.read_columnar` now uses. In process and
warm, best of five after one untimed run: the figure compared is the reading alone, which is all the choice changes (a
command's start-up is the same either way).

    .venv/bin/python -m benchmarks.reader_crossover [--seed 3] [--runs 5]
"""

from __future__ import annotations

import argparse
import logging

from benchmarks import wild_lin, wild_pbn
from benchmarks.ingest_vs_endplay import best_seconds
from parsers.columnar import columnar_from_parsed
from parsers.formats import READERS, Reader

SIZES = (1, 4, 16, 32, 64, 128, 256, 1024)


def _line(reader: Reader, boards: int, data: bytes, runs: int) -> str:
    """One size's figures, and the reading `read_columnar` chooses for it."""
    fast_path = reader.loads_columnar
    assert fast_path is not None
    source = f"w{reader.suffix}"
    careful = best_seconds(runs, lambda: columnar_from_parsed(reader.loads(data, source=source)))
    fast = best_seconds(runs, lambda: fast_path(data, source=source))
    taken = fast_path(data, source=source) is not None
    chosen = "fast path" if taken and len(data) >= reader.columnar_from else "careful"
    return (f"  {boards:5d} boards {len(data):9,d} bytes: careful + frames {careful * 1000:7.1f} ms, "
            f"fast path {fast * 1000:7.1f} ms{'' if taken else ' (declined)'}; read_columnar uses: {chosen}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    logging.disable(logging.WARNING)  # a declined file is logged; the figures are what matters here
    writers = {".pbn": wild_pbn.text, ".lin": wild_lin.text}
    for suffix, write in writers.items():
        reader = READERS[suffix]
        print(f"{reader.name}: fast path from {reader.columnar_from:,} bytes")
        for boards in SIZES:
            print(_line(reader, boards, write(boards, args.seed).encode(), args.runs))


if __name__ == "__main__":
    main()
