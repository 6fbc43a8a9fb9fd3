"""Moving a federation's log between backends (DuckDB file <-> PostgreSQL), verified hash for hash.

The rows are copied exactly as they are (positions, times, payload bytes, hashes), a batch at a
time, into an empty log; the idempotency keys go with them. Then both logs are read again and
compared row by row, and the copy's chain is recomputed: a move that does not give back every hash
says where, and the source is never changed.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

import polars as pl

from pipelines.log.errors import StoreError
from pipelines.log.store import EventStore

log = logging.getLogger(__name__)

BATCH_ROWS = 200_000


@dataclass(frozen=True, slots=True)
class TransferReport:
    """What a move copied and what the check of the copy found."""

    events: int
    commands: int
    last_position: int
    last_hash: str | None
    mismatch: str | None

    @property
    def ok(self) -> bool:
        """True when the copy holds every row of the source, hash for hash, and its chain verifies."""
        return self.mismatch is None


def copy_log(source: EventStore, target: EventStore, *, batch_rows: int = BATCH_ROWS) -> TransferReport:
    """Copy every event and idempotency key of `source` into the empty log `target`, then compare."""
    if target.exists() and target.head() != 0:
        raise StoreError(f"the target log {_name(target)} already holds events (up to position "
                         f"{target.head()}); a log is copied into an empty one only")
    if not source.exists():
        raise StoreError(f"there is no log at {_name(source)} to copy")
    position, copied = 0, 0
    while True:
        rows = source.rows_after(position, limit=batch_rows)
        if rows.height == 0:
            break
        target.import_rows(rows)
        copied += rows.height
        position = int(rows["position"][-1])
        log.info("copied %d events (up to position %d)", copied, position)
    commands = source.commands()
    if commands.height:
        target.import_commands(commands)
    return TransferReport(copied, commands.height, position, _tip_hash(target),
                          compare_logs(source, target, batch_rows=batch_rows))


def compare_logs(first: EventStore, second: EventStore, *, batch_rows: int = BATCH_ROWS) -> str | None:
    """None when both logs hold the same rows, hash for hash, and `second`'s chain verifies;
    otherwise where they differ."""
    position = 0
    while True:
        ours, theirs = first.rows_after(position, limit=batch_rows), second.rows_after(position, limit=batch_rows)
        if not ours.equals(theirs):
            return first_difference(ours, theirs)
        if ours.height == 0:
            break
        position = int(ours["position"][-1])
    report = second.verify(batch_size=batch_rows)
    if not report.ok:
        return f"the copy's chain breaks at position {report.first_bad_position}: {report.reason}"
    return None


def first_difference(ours: pl.DataFrame, theirs: pl.DataFrame) -> str:
    """The first position at which two pages of rows differ, and in which columns."""
    both = ours.join(theirs, on="position", how="full", coalesce=True, suffix="_copy")
    columns = [c for c in ours.columns if c != "position"]
    differs = [pl.col(c).ne_missing(pl.col(f"{c}_copy")).alias(c) for c in columns]
    flagged = both.select("position", *differs).filter(pl.any_horizontal(columns)).sort("position")
    if flagged.height == 0:
        return "the logs hold the same rows in a different order"
    row = flagged.row(0, named=True)
    return f"position {row['position']}: the copy differs in {', '.join(c for c in columns if row[c])}"


def _tip_hash(store: EventStore) -> str | None:
    tip = store.tip()
    return tip.hash if tip else None


def _name(store: EventStore) -> str:
    from pipelines.log.postgres import redacted

    return redacted(store.location)
