"""Where a store's parts are: the log of record and the analytics store (`bridgeledger info`)."""

from __future__ import annotations

from typing import Any

from pipelines.log.store import EventStore


def describe_store(store: EventStore) -> dict[str, dict[str, Any]]:
    """The log (backend, location, head) and the analytics store: the DuckDB file the pipeline
    keeps, and the snapshot of it that analysts and BI tools open (`snapshot`, with its position)."""
    from pipelines.log.snapshot import read_snapshot_position, snapshot_path

    tip = store.tip() if store.exists() else None
    snapshot = snapshot_path(store).resolve()
    made = read_snapshot_position(snapshot)
    return {
        "log": {"backend": store.backend, "location": store.shown_location,
                "head": tip.position if tip else 0, "hash": tip.hash if tip else None},
        "analytics": {"backend": "duckdb", "location": str(store.analytics_path.resolve()),
                      "snapshot": str(snapshot), "snapshot_position": made.position if made else None},
    }
