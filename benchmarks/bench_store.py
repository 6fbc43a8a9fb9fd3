"""Event store benchmark: bulk append of 1M events, replay, and hash-chain verification.

Prints figures; it is not a test. The peer measured in the same run is DuckDB's own bulk insert of
the same rows into a bare table (no hash chain, no versions, no unique key): the floor any
DuckDB-backed log could reach on this machine. Target: >= 300k events/s appended in bulk.

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

from pipelines.replay import replay
from pipelines.store import EventStore, NewEvent, encode_payload

START = datetime(2026, 11, 21, 19, 0, tzinfo=UTC)


def make_events(n: int) -> list[NewEvent]:
    """Results of 50-table sessions, 24 boards each, one stream per session."""
    contracts = ["4S", "3NT", "2H", "4HX", "PASS", "6NT", "1NT", "3D"]
    events = []
    for i in range(n):
        session, table, board = divmod(i, 1200)[0], i % 50, (i // 50) % 24 + 1
        contract = contracts[i % len(contracts)]
        events.append(NewEvent(
            f"session:bench/{session}", "ResultRecorded",
            {"event_id": "bench", "session_id": str(session), "section": "A", "board": board,
             "table_id": str(table + 1), "ns_id": str(table + 1), "ew_id": str((table + board) % 50 + 1),
             "contract": contract, "declarer": None if contract == "PASS" else "NESW"[i % 4],
             "tricks": None if contract == "PASS" else 6 + i % 8},
            START + timedelta(minutes=session)))
    return events


def peer_bulk_insert(events: list[NewEvent], path: Path) -> float:
    """The same rows inserted by DuckDB into a bare table, payload encoding included."""
    started = time.perf_counter()
    frame = pl.DataFrame({"stream_id": [e.stream_id for e in events], "type": [e.type for e in events],
                          "payload": [encode_payload(e.payload) for e in events]})
    con = duckdb.connect(str(path))
    con.execute("CREATE TABLE bare (stream_id VARCHAR, type VARCHAR, payload JSON)")
    con.register("frame", frame)
    con.execute("INSERT INTO bare SELECT * FROM frame")
    con.close()
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--events", type=int, default=1_000_000)
    args = parser.parse_args()
    events = make_events(args.events)
    with tempfile.TemporaryDirectory() as tmp:
        store = EventStore(Path(tmp) / "bench.duckdb")
        started = time.perf_counter()
        store.append(events, recorded_at=START)
        append_s = time.perf_counter() - started
        started = time.perf_counter()
        projection = replay(store)
        replay_s = time.perf_counter() - started
        started = time.perf_counter()
        report = store.verify()
        verify_s = time.perf_counter() - started
        peer_s = peer_bulk_insert(events, Path(tmp) / "peer.duckdb")
    n = len(events)
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"events                      {n:>12,}")
    print(f"append (bridgeledger)       {append_s:>10.2f} s  {n / append_s:>12,.0f} events/s   (target >= 300,000)")
    print(f"bulk insert (bare DuckDB)   {peer_s:>10.2f} s  {n / peer_s:>12,.0f} events/s   (peer)")
    print(f"ratio bridgeledger / peer   {peer_s / append_s:>10.2f}")
    print(f"replay to frames            {replay_s:>10.2f} s  {projection.results.height:>12,} results")
    print(f"verify hash chain           {verify_s:>10.2f} s  ok={report.ok}")
    print(f"peak RSS                    {peak_mb:>10.0f} MB")


if __name__ == "__main__":
    main()
