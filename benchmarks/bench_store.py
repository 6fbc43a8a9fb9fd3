"""Event store benchmark: bulk append of 1M events, replay, and hash-chain verification.

Prints figures; it is not a test. Two ways in are measured:
- bulk: the events as columns, payloads built column-wise (`pipelines.log.payloads`), appended with
  `append_frame`, which is how ingest writes a large file. Target: >= 300k events/s.
- one by one: the same events as `NewEvent` objects whose payload dicts the store encodes itself
  (`append`), as the director's commands write their few events.
The peer, measured in the same run, is DuckDB's own bulk insert of the same stream, type and
payload columns into a bare table (no hash chain, no versions, no unique key, no timestamps):
the floor any DuckDB-backed log could reach on this machine. The bulk append and the peer run
`--runs` times each, alternating, into fresh files, and the best run of each counts.

    .venv/bin/python -m benchmarks.bench_store [--events 1000000]
"""

from __future__ import annotations

import argparse
import resource
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import duckdb
import polars as pl

from pipelines.log.payloads import canonical_json, encode_payload
from pipelines.log.store import EventStore, NewEvent, to_epoch_us
from pipelines.replay.frames import replay

START = datetime(2026, 11, 21, 19, 0, tzinfo=UTC)
CONTRACTS = ["4S", "3NT", "2H", "4HX", "PASS", "6NT", "1NT", "3D"]


def result_columns(n: int) -> pl.DataFrame:
    """Results of 50-table sessions, 24 boards each, one session per 1,200 results."""
    i = pl.int_range(n, dtype=pl.Int64)
    contract = pl.lit(pl.Series(CONTRACTS)).gather(i % len(CONTRACTS))
    passed = contract == "PASS"
    return pl.select(
        session=(i // 1200).cast(pl.String), board=(i // 50) % 24 + 1, table=i % 50 + 1,
        contract=contract,
        declarer=pl.when(passed).then(None).otherwise(pl.lit(pl.Series(list("NESW"))).gather(i % 4)),
        tricks=pl.when(passed).then(None).otherwise(6 + i % 8),
        minute=i // 1200,
    ).with_columns(ew=((pl.col("table") - 1 + pl.col("board")) % 50 + 1))


def bulk_events(columns: pl.DataFrame) -> pl.DataFrame:
    """The results as `ResultRecorded` rows for `append_frame`, payloads built column-wise."""
    payload = canonical_json({
        "event_id": pl.lit("bench"), "session_id": pl.col("session"), "section": pl.lit("A"),
        "board": pl.col("board"), "table_id": pl.col("table").cast(pl.String),
        "ns_id": pl.col("table").cast(pl.String), "ew_id": pl.col("ew").cast(pl.String),
        "contract": pl.col("contract"), "declarer": pl.col("declarer"), "tricks": pl.col("tricks"),
    })
    return columns.select(
        stream_id=pl.concat_str([pl.lit("session:bench/"), pl.col("session")]),
        type=pl.lit("ResultRecorded"), payload=payload,
        occurred_us=pl.col("minute") * 60_000_000 + to_epoch_us(START),
    )


def new_events(columns: pl.DataFrame) -> list[NewEvent]:
    """The same results as `NewEvent` objects with payload dicts."""
    return [
        NewEvent(f"session:bench/{r['session']}", "ResultRecorded",
                 {"event_id": "bench", "session_id": r["session"], "section": "A", "board": r["board"],
                  "table_id": str(r["table"]), "ns_id": str(r["table"]), "ew_id": str(r["ew"]),
                  "contract": r["contract"], "declarer": r["declarer"], "tricks": r["tricks"]},
                 START + timedelta(minutes=r["minute"]))
        for r in columns.iter_rows(named=True)
    ]


def timed_encodings(columns: pl.DataFrame, events: list[NewEvent]) -> tuple[float, float, bool]:
    """Seconds to encode every payload column-wise (the polars expression ingest uses) and one by one
    (`encode_payload`, orjson, over dicts read out of the same columns), and whether the bytes agree:
    the measurement behind keeping the column form beside the row form (`pipelines.log.payloads`)."""
    started = time.perf_counter()
    column = bulk_events(columns)["payload"]
    column_s = time.perf_counter() - started
    started = time.perf_counter()
    rows = [encode_payload(e.payload) for e in events]
    row_s = time.perf_counter() - started
    return column_s, row_s, rows == column.to_list()


def timed_bulk_append(columns: pl.DataFrame, store: EventStore) -> float:
    """Seconds to build the payload column and append the batch."""
    started = time.perf_counter()
    store.append_frame(bulk_events(columns), recorded_at=START)
    return time.perf_counter() - started


def timed_append(events: list[NewEvent], store: EventStore) -> float:
    """Seconds to append `NewEvent`s (the store encodes each payload)."""
    started = time.perf_counter()
    store.append(events, recorded_at=START)
    return time.perf_counter() - started


def timed_peer(columns: pl.DataFrame, path: Path) -> float:
    """Seconds for DuckDB to bulk insert the same columns, payloads built the same way, into a bare table."""
    started = time.perf_counter()
    frame = bulk_events(columns).select("stream_id", "type", "payload")
    con = duckdb.connect(str(path))
    con.execute("CREATE TABLE bare (stream_id VARCHAR, type VARCHAR, payload JSON)")
    con.register("frame", frame)
    con.execute("INSERT INTO bare SELECT * FROM frame")
    con.close()
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--events", type=int, default=1_000_000)
    parser.add_argument("--runs", type=int, default=3, help="runs of the bulk append and the peer; the best counts")
    args = parser.parse_args()
    columns = result_columns(args.events)
    events = new_events(columns)
    n = columns.height
    with tempfile.TemporaryDirectory() as tmp:
        bulk_runs, peer_runs = [], []
        for run in range(args.runs):  # alternating, each into a fresh file
            bulk_runs.append(timed_bulk_append(columns, EventStore(Path(tmp) / f"bulk{run}.duckdb")))
            peer_runs.append(timed_peer(columns, Path(tmp) / f"peer{run}.duckdb"))
        bulk_s, peer_s = min(bulk_runs), min(peer_runs)
        store = EventStore(Path(tmp) / "bulk0.duckdb")
        one_by_one_s = timed_append(events, EventStore(Path(tmp) / "objects.duckdb"))
        column_s, row_s, same = timed_encodings(columns, events)
        started = time.perf_counter()
        projection = replay(store)
        replay_s = time.perf_counter() - started
        started = time.perf_counter()
        report = store.verify()
        verify_s = time.perf_counter() - started
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"events                          {n:>12,}   (bulk append and peer: best of {args.runs} runs; "
          f"bulk runs {', '.join(f'{t:.2f}' for t in bulk_runs)} s)")
    print(f"bulk append (columns)           {bulk_s:>10.2f} s  {n / bulk_s:>12,.0f} events/s   (target >= 300,000)")
    print(f"append (NewEvent objects)       {one_by_one_s:>10.2f} s  {n / one_by_one_s:>12,.0f} events/s")
    print(f"bulk insert (bare DuckDB)       {peer_s:>10.2f} s  {n / peer_s:>12,.0f} events/s   (peer)")
    print(f"ratio bulk append / peer        {peer_s / bulk_s:>10.2f}")
    print(f"payloads column-wise (polars)   {column_s:>10.2f} s   one by one (orjson, dicts given) {row_s:.2f} s;"
          f" same bytes={same}")
    print(f"replay to frames                {replay_s:>10.2f} s  {projection.results.height:>12,} results")
    print(f"verify hash chain               {verify_s:>10.2f} s  ok={report.ok}")
    print(f"peak RSS                        {peak_mb:>10.0f} MB")


if __name__ == "__main__":
    main()
