"""Long fuzz run over the four readers and the ingest path (not a test: `tests/test_hostile_readers.py`
runs a small fixed budget of the same checks on every `make test`).

Each input is a seed file (sample data and the shared corpus) mutated by a seeded generator: bytes
flipped, spans cut, doubled or spliced from another seed, and hostile tokens inserted (Unicode
digits, numbers of 10^30 or 5,000 digits, runs of `|`, rich markup, control bytes, line separators).
Every input goes through the careful reader (`parse_bytes`) and the path ingest takes
(`read_columnar`: the fast path where it vouches for the file, and then its frames must equal the
careful reader's, else the careful reader's records as frames; the careful reading is shared
between the two), and every
`--ingest-every`-th one through a real `ingest_bytes` into a scratch store.

A failure is an exception escaping a reader, a reader's catch-all diagnostic (the whole file lost
at 0:0), or an exception a fast path caught and logged before handing the file to the careful reader
(no data is lost then, but it is a bug all the same). Prints per reader: inputs, failures, the
slowest input and its size; `--keep DIR` keeps every failing input as a file to reproduce it with.

    nice -n 10 python scripts/fuzz_readers.py --inputs 1000000 --seed 16
"""

from __future__ import annotations

import argparse
import logging
import multiprocessing
import random
import sys
import tempfile
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from models.diagnostics import Diagnostic  # noqa: E402
from parsers.columnar import ColumnarFile, assert_same, columnar_from_parsed  # noqa: E402
from parsers.records import ParsedFile  # noqa: E402
from pipelines.files.ingest import IngestRejected, ingest_bytes, parse_bytes, reader_for  # noqa: E402
from pipelines.log.store import EventStore  # noqa: E402

CATCH_ALL_CODES = frozenset({"pbn.internal", "lin.reader.internal-error", "usebio.reader.internal-error"})
"""Diagnostics a reader's last-resort handler gives when it loses a whole file to its own bug."""

HOSTILE = [b"\xc2\xb2", "\u0661".encode(), b"1" + b"0" * 30, b"9" * 5000, str(2**63).encode(), b"-1",
           b"|" * 2000, b"[/x]", b"[bold]", b"\x1b[31m", b"\x00", b"\x0c", "\u2028".encode(), b"\r",
           b'"', b"]", b"[", b"<", b"&", b"nan", b"inf", b"1e999", b"\xff\xfe", b",,,,", b"=cmd|'/c calc'!A1",
           b"md|", b"pg||", b"qx|o1|", b"ah|Board 99999999999999999999|", b'[Board "\xd9\xa1"]',
           b"<BOARD_NUMBER>1" + b"0" * 40 + b"</BOARD_NUMBER>", b"A+/A-", b"150/-50", b"x" * 140_000]
SUFFIXES = {"csv": ".csv", "pbn": ".pbn", "lin": ".lin", "usebio": ".xml"}


def seeds(limit_bytes: int) -> dict[str, list[bytes]]:
    """Seed files per reader: the sample data and the shared corpus (each cut to `limit_bytes`)."""
    corpus = ROOT.parent / "shared" / "corpus"
    found: dict[str, list[bytes]] = {name: [] for name in SUFFIXES}
    for path in sorted([*(ROOT / "sample_data").iterdir(), *corpus.rglob("*")]):
        for name, suffix in SUFFIXES.items():
            if path.is_file() and path.suffix.lower() == suffix:
                found[name].append(path.read_bytes()[:limit_bytes])
    return found


def mutate(rng: random.Random, data: bytes, others: list[bytes]) -> bytes:
    """One to four random edits of `data`."""
    out = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        at = rng.randint(0, len(out))
        kind = rng.randrange(7)
        if kind == 0 and out:
            out[min(at, len(out) - 1)] = rng.randrange(256)
        elif kind == 1:
            out[at:at] = rng.choice(HOSTILE)
        elif kind == 2:
            del out[at:at + rng.randint(1, 200)]
        elif kind == 3:
            span = bytes(out[at:at + rng.randint(1, 400)])
            out[at:at] = span * rng.randint(1, 5)
        elif kind == 4:
            other = rng.choice(others)
            start = rng.randint(0, len(other))
            out[at:at] = other[start:start + rng.randint(1, 2000)]
        elif kind == 5:
            digits = str(rng.choice([0, 1, 13, 14, 32, 33, 255, 256, 2**31, 2**63, 10**30]))
            out[at:at] = digits.encode()
        else:
            out = out[:at]
    return bytes(out)


@dataclass
class Tally:
    """What one reader's inputs did."""

    inputs: int = 0
    failures: int = 0
    slowest: float = 0.0
    slowest_size: int = 0
    examples: list[str] = field(default_factory=list)

    def record(self, seconds: float, size: int) -> None:
        self.inputs += 1
        if seconds > self.slowest:
            self.slowest, self.slowest_size = seconds, size


class Thrown(logging.Handler):
    """The exceptions readers caught and logged (a fast path's own bugs: it logs them and declines)."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.caught: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        if record.exc_info:
            self.caught.append(f"{record.getMessage()}\n{self.format(record)}")


THROWN = Thrown()


def check(read: Callable[[], object]) -> str | None:
    """None when `read()` returned without a catch-all diagnostic or a logged exception, else what
    went wrong."""
    THROWN.caught.clear()
    try:
        parsed = read()
    except Exception:  # the point of the run: count what escapes
        return traceback.format_exc(limit=3)
    if THROWN.caught:
        return f"caught and logged: {THROWN.caught[0][-1500:]}"
    diagnostics: tuple[Diagnostic, ...] = getattr(parsed, "diagnostics", ())
    lost = [d for d in diagnostics if d.code in CATCH_ALL_CODES]
    return f"catch-all: {lost[0]}" if lost else None


def read_both_ways(data: bytes, source: str) -> str | None:
    """What `read_columnar` (the ingest path) does, with the careful reading shared with the careful
    reader's own check: the careful reader, the fast path (where the format has one), and the
    careful records as frames when the fast path declines. When the fast path takes the file, its
    frames must equal the careful records' (`assert_same`). None, or the first thing that went wrong."""
    read: dict[str, object] = {}

    def careful() -> ParsedFile:
        read["parsed"] = parsed = parse_bytes(data, source)
        return parsed

    problem = check(careful)
    if problem is not None:
        return problem
    reader = reader_for(source)
    fast = reader.loads_columnar if reader is not None else None
    if fast is not None:
        problem = check(lambda: read.setdefault("fast", fast(data, source=source)))
        if problem is not None:
            return f"fast path: {problem}"
    parsed = read["parsed"]
    assert isinstance(parsed, ParsedFile)
    fast_file = read.get("fast")
    if fast_file is None:
        return check(lambda: columnar_from_parsed(parsed))
    assert isinstance(fast_file, ColumnarFile)
    try:
        assert_same(fast_file, columnar_from_parsed(parsed))
    except AssertionError as difference:
        return f"the fast path and the careful reader differ: {difference}"
    return None


def run(inputs: int, seed: int, ingest_every: int, report_every: int, *, seconds: float,
        seed_bytes: int, keep: Path | None = None) -> dict[str, Tally]:
    rng = random.Random(seed)
    logging.getLogger().addHandler(THROWN)  # also keeps the tracebacks of caught bugs off stderr
    pool = seeds(seed_bytes)
    everything = [data for datas in pool.values() for data in datas]
    tallies = {name: Tally() for name in pool}
    ingests = Tally()
    scratch = Path(tempfile.mkdtemp(prefix="fuzz-store-"))
    now = datetime.now(UTC)
    started = time.monotonic()
    for number in range(inputs):
        if time.monotonic() - started > seconds:
            break
        for name, suffix in SUFFIXES.items():
            data = mutate(rng, rng.choice(pool[name]), everything)
            source = f"fuzz{suffix}"
            begun = time.perf_counter()
            problem = read_both_ways(data, source)
            tallies[name].record(time.perf_counter() - begun, len(data))
            if problem is not None:
                tallies[name].failures += 1
                if keep is not None:
                    keep.mkdir(parents=True, exist_ok=True)
                    (keep / f"{seed}-{number}-{name}{suffix}").write_bytes(data)
                if len(tallies[name].examples) < 5:
                    tallies[name].examples.append(f"{data[:200]!r}\n{problem}")
            if ingest_every and number % ingest_every == 0:
                store = EventStore(scratch / f"{name}.duckdb")
                begun = time.perf_counter()
                try:
                    ingest_bytes(store, data, source=source, recorded_at=now)
                    problem = None
                except IngestRejected:
                    problem = None
                except Exception:
                    problem = traceback.format_exc(limit=3)
                ingests.record(time.perf_counter() - begun, len(data))
                if problem is not None:
                    ingests.failures += 1
                    if len(ingests.examples) < 5:
                        ingests.examples.append(f"{name} {data[:200]!r}\n{problem}")
        if report_every and (number + 1) % report_every == 0:
            print(f"{number + 1} rounds, {time.monotonic() - started:.0f}s: "
                  + ", ".join(f"{n} {t.failures} failures" for n, t in tallies.items()), flush=True)
    tallies["ingest"] = ingests
    return tallies


def merged(parts: list[dict[str, Tally]]) -> dict[str, Tally]:
    """The tallies of several processes as one per reader."""
    total: dict[str, Tally] = {}
    for part in parts:
        for name, tally in part.items():
            into = total.setdefault(name, Tally())
            into.inputs += tally.inputs
            into.failures += tally.failures
            into.examples.extend(tally.examples[:5 - len(into.examples)])
            if tally.slowest > into.slowest:
                into.slowest, into.slowest_size = tally.slowest, tally.slowest_size
    return total


def _job(args: tuple[int, int, int, int, float, int, Path | None]) -> dict[str, Tally]:
    inputs, seed, ingest_every, report_every, seconds, seed_bytes, keep = args
    return run(inputs, seed, ingest_every, report_every, seconds=seconds, seed_bytes=seed_bytes, keep=keep)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--inputs", type=int, default=10_000, help="mutated inputs per reader (all jobs together)")
    parser.add_argument("--seed", type=int, default=16, help="job k runs seed + k")
    parser.add_argument("--jobs", type=int, default=1, help="processes, each with its own seed and share of inputs")
    parser.add_argument("--ingest-every", type=int, default=500, help="also ingest every n-th input")
    parser.add_argument("--report-every", type=int, default=10_000)
    parser.add_argument("--seconds", type=float, default=float("inf"), help="stop after this long")
    parser.add_argument("--seed-bytes", type=int, default=16_000, help="cut each seed file to this size")
    parser.add_argument("--keep", type=Path, default=None, help="write every failing input into this folder")
    args = parser.parse_args()
    started = time.monotonic()
    shares = [args.inputs // args.jobs + (k < args.inputs % args.jobs) for k in range(args.jobs)]
    work = [(share, args.seed + k, args.ingest_every, args.report_every, args.seconds, args.seed_bytes, args.keep)
            for k, share in enumerate(shares)]
    if args.jobs == 1:
        tallies = _job(work[0])
    else:
        with multiprocessing.get_context("spawn").Pool(args.jobs) as pool:
            tallies = merged(pool.map(_job, work))
    seeds_run = f"{args.seed}..{args.seed + args.jobs - 1}" if args.jobs > 1 else str(args.seed)
    print(f"seed {seeds_run}, {args.jobs} job(s), seed files cut to {args.seed_bytes} bytes, "
          f"{time.monotonic() - started:.0f}s in all")
    for name, tally in tallies.items():
        reads = "ingests" if name == "ingest" else "inputs, each read by the careful reader and the ingest path"
        print(f"{name}: {tally.inputs} {reads}, {tally.failures} failures (escaped, catch-all, caught bug, "
              f"disagreement), slowest {tally.slowest:.3f}s on {tally.slowest_size} bytes")
        for example in tally.examples:
            print("  example:", example.replace("\n", "\n    "))
    if any(t.failures for t in tallies.values()):
        sys.exit(1)


if __name__ == "__main__":
    main()
