"""Dump the events every corpus and sample file becomes: the oracle of a refactoring of the readers.

Each file (`../shared/corpus/**` and `sample_data/**`, the formats ingest reads) is ingested alone
into a fresh store at a fixed time, and the store's rows are written as JSON lines: per file, one
line per event (type, stream, payload as stored, hash), or the rejection's diagnostics. Two runs on
code that reads every file the same way give byte-identical output, so `diff` (or `--compare`)
names each file whose events changed.

Three modes, each its own output file:

- `ingest`: what `bridgeledger ingest FILE` appends, with the fast path tried on every file (the
  command leaves files under `Reader.columnar_from` to the careful reader, which gives the same
  events; here the fast path is checked on every file it vouches for);
- `careful`: the same with the vectorised fast path switched off, so every file goes through the
  careful reader (`parse_bytes`) and `columnar_from_parsed`;
- `strict`: `ingest --strict`.

    python scripts/dump_events.py --out /work/engine-oracle/main
    python scripts/dump_events.py --out /tmp/now --compare /work/engine-oracle/main
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import pipelines.files.ingest as ingest  # noqa: E402
from pipelines.log.store import EventStore  # noqa: E402

RECORDED_AT = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)
"""The fixed time every file is recorded at, so that hashes do not depend on the clock."""

SUFFIXES = (".csv", ".pbn", ".lin", ".xml")
MODES = ("ingest", "careful", "strict")


def input_files(corpus: Path, samples: Path) -> list[Path]:
    """Every file of the formats ingest reads, corpus first, in a stable order."""
    found = [p for root in (corpus, samples) for p in sorted(root.rglob("*"))]
    return [p for p in found if p.is_file() and p.suffix.lower() in SUFFIXES]


def careful_only() -> Callable[..., Any]:
    """`read_columnar` without the vectorised fast path: the careful reader's records as frames."""
    from parsers.columnar import columnar_from_parsed

    def read(data: bytes, source: str, *, strict: bool = False) -> Any:
        return columnar_from_parsed(ingest.parse_bytes(data, source, strict=strict))

    return read


def fast_at_every_size() -> Callable[[str], Any]:
    """`reader_for` with each fast path tried whatever the file's size."""
    import dataclasses

    chosen = ingest.reader_for

    def reader_for(name: str) -> Any:
        reader = chosen(name)
        return None if reader is None else dataclasses.replace(reader, columnar_from=0)

    return reader_for


def dump_file(path: Path, label: str, strict: bool, store_path: Path) -> Iterator[dict[str, Any]]:
    """The JSON lines of one file ingested alone into a fresh store at `store_path`."""
    store = EventStore(store_path)
    try:
        ingest.ingest_file(store, path, recorded_at=RECORDED_AT, options=ingest.IngestOptions(strict=strict))
    except ingest.IngestRejected as exc:
        yield {"file": label, "rejected": [str(d) for d in exc.diagnostics]}
        return
    with store.reader() as con:
        rows = con.execute("SELECT position, stream_id, stream_version, type, schema_version, payload::VARCHAR,"
                           " prev_hash, hash FROM events ORDER BY position").fetchall()
    for position, stream, version, kind, schema, payload, prev_hash, digest in rows:
        yield {"file": label, "position": position, "stream": stream, "version": version, "type": kind,
               "schema_version": schema, "payload": json.loads(payload), "prev_hash": prev_hash, "hash": digest}


def dump(mode: str, files: list[Path], out: Path) -> None:
    """Write `out/<mode>.jsonl` for `files`."""
    original, original_reader_for = ingest.read_columnar, ingest.reader_for
    if mode == "careful":
        ingest.read_columnar = careful_only()
    if mode == "ingest":
        ingest.reader_for = fast_at_every_size()
    try:
        with tempfile.TemporaryDirectory() as scratch, (out / f"{mode}.jsonl").open("w") as sink:
            for index, path in enumerate(files):
                label = str(path.relative_to(path.parents[1])) if "corpus" in path.parts else str(
                    path.relative_to(ROOT))
                for line in dump_file(path, label, mode == "strict", Path(scratch) / f"{index}.duckdb"):
                    sink.write(json.dumps(line, sort_keys=True, ensure_ascii=False) + "\n")
    finally:
        ingest.read_columnar, ingest.reader_for = original, original_reader_for


def compare(out: Path, oracle: Path) -> int:
    """Name each file whose lines differ from the oracle's; the number of such files."""
    differing = 0
    for mode in MODES:
        ours, theirs = _by_file(out / f"{mode}.jsonl"), _by_file(oracle / f"{mode}.jsonl")
        for name in sorted(set(ours) | set(theirs)):
            if ours.get(name) != theirs.get(name):
                differing += 1
                print(f"{mode}: {name} differs")
        print(f"{mode}: {len(ours)} files, {sum(len(v) for v in ours.values())} lines compared")
    return differing


def _by_file(path: Path) -> dict[str, list[str]]:
    grouped: dict[str, list[str]] = {}
    for line in path.read_text().splitlines():
        grouped.setdefault(json.loads(line)["file"], []).append(line)
    return grouped


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, required=True, help="folder for ingest/careful/strict.jsonl")
    parser.add_argument("--corpus", type=Path, default=ROOT.parent / "shared" / "corpus")
    parser.add_argument("--samples", type=Path, default=ROOT / "sample_data")
    parser.add_argument("--compare", type=Path, help="an earlier --out to compare with")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    files = input_files(args.corpus, args.samples)
    for mode in MODES:
        dump(mode, files, args.out)
    print(f"{len(files)} files dumped to {args.out}")
    return 1 if args.compare and compare(args.out, args.compare) else 0


if __name__ == "__main__":
    raise SystemExit(main())
