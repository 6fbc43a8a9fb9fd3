"""The log's anchor: its head (position, hash) kept outside the events table as well.

The hash chain shows any row edited, inserted or removed in the middle, but not rows cut from the
end: a log whose last rows (or all of them) are deleted, or whose write-ahead log was lost with
committed events in it, is still a valid chain. So every append also writes the new head to a
small sidecar file beside the store (`<store>.head`, replaced atomically), and publications carry
the head they were made at (`log_head` in `ScoresPublished` and `RankingPublished` payloads).
`verify` then says when the log is shorter than a head it has seen.

An attacker who can write the store can delete the sidecar too; a copy of it (or of a publication)
kept elsewhere is what makes a truncation provable. Within this machine it catches accidents: a cut
or deleted WAL, a restored older copy of the store, rows deleted through a writable connection.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb
import polars as pl

from pipelines.log.fields import PayloadField, payload_fields
from pipelines.log.reads import hashes_at

log = logging.getLogger(__name__)

ANCHORING_TYPES = ("ScoresPublished", "RankingPublished")
"""Events whose payload may carry the log head they were made at (`log_head`)."""


@dataclass(frozen=True, slots=True)
class Head:
    """A log position and the hash of the event there."""

    position: int
    hash: str

    def as_payload(self) -> dict[str, Any]:
        """The `log_head` field of a publication's payload."""
        return {"position": self.position, "hash": self.hash}


def anchor_path(store_path: Path) -> Path:
    """The sidecar file of the store at `store_path`."""
    return store_path.with_name(store_path.name + ".head")


def write_anchor(store_path: Path, head: Head) -> None:
    """Record `head` as the latest head seen (never moves back: an older head is ignored)."""
    seen = read_anchor(store_path)
    if seen is not None and seen.position > head.position:
        return
    target = anchor_path(store_path)
    temporary = target.with_name(target.name + ".tmp")
    try:
        temporary.write_text(json.dumps({"position": head.position, "hash": head.hash}) + "\n", encoding="utf-8")
        os.replace(temporary, target)  # atomic: a reader sees the old head or the new one, never half
    except OSError as exc:
        # The events are committed by now; failing the append would misreport them as lost.
        log.warning("could not write the anchor %s (%s); verify cannot check the log's end past position %d",
                    target, exc, head.position)


def read_anchor(store_path: Path) -> Head | None:
    """The head last written beside the store; None when there is none or it cannot be read."""
    try:
        data = json.loads(anchor_path(store_path).read_text(encoding="utf-8"))
        return Head(int(data["position"]), str(data["hash"]))
    except FileNotFoundError:
        return None
    except (OSError, ValueError, KeyError, TypeError) as exc:
        log.warning("the anchor beside %s cannot be read (%s); verify checks the chain only", store_path, exc)
        return None


def published_heads(con: duckdb.DuckDBPyConnection) -> list[tuple[Head, str]]:
    """The log heads publications carry (`log_head`), with where each was seen."""
    heads = payload_fields(con, list(ANCHORING_TYPES), (PayloadField("head", "log_head.position", pl.Int64()),
                                                          PayloadField("hash", "log_head.hash")))
    rows = heads.filter(pl.col("head").is_not_null() & pl.col("hash").is_not_null())
    return [(Head(int(head_position), str(head_hash)), f"{typ} at position {position}")
            for position, typ, head_position, head_hash in rows.select("position", "type", "head", "hash").iter_rows()]


def missing_heads(con: duckdb.DuckDBPyConnection, anchor: Head | None) -> list[tuple[Head, str]]:
    """Every head seen (the sidecar's, and those publications carry) that the log does not hold,
    with where it was seen."""
    seen = ([(anchor, "the anchor file")] if anchor is not None else []) + published_heads(con)
    if not seen:
        return []
    held = hashes_at(con, [head.position for head, _ in seen])
    return unheld_heads(seen, held)


def unheld_heads(seen: Sequence[tuple[Head, str]], held: Mapping[int, str]) -> list[tuple[Head, str]]:
    """The heads in `seen` whose position the log does not hold with that hash (`held`: position -> hash)."""
    return [(head, where) for head, where in seen if held.get(head.position) != head.hash]
