"""The hash chain: what each row's hash covers, how rows are chained, and how a chain is checked.

`hash = sha256(prev_hash || canonical event)`, the same on every backend, so a log moved from
DuckDB to PostgreSQL (and back) keeps every hash.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from itertools import accumulate
from typing import Any

import polars as pl

from pipelines.log.anchor import Head


@dataclass(frozen=True, slots=True)
class VerifyReport:
    """Result of recomputing the hash chain."""

    events: int
    first_bad_position: int | None
    reason: str | None
    notes: tuple[str, ...] = ()
    """What the check could not cover (a missing head file), said even when the chain holds."""

    @property
    def ok(self) -> bool:
        """True when every row is where the chain says it should be, unedited."""
        return self.first_bad_position is None


GENESIS_HASH = "0" * 64
"""The `prev_hash` of the first event."""

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)

CANONICAL_COLUMNS = ["position", "stream_id", "stream_version", "type", "schema_version", "occurred_us",
                     "recorded_us", "source_sha256", "payload"]
"""The columns a row's hash covers, in the order they are joined."""

ROW_COLUMNS = ["position", "stream_id", "stream_version", "type", "schema_version", "payload",
               "occurred_us", "recorded_us", "source_sha256", "prev_hash", "hash"]
"""A stored row as every backend hands it over (times as microseconds since the epoch)."""

ROW_SCHEMA = {"position": pl.Int64, "stream_id": pl.String, "stream_version": pl.Int64, "type": pl.String,
              "schema_version": pl.Int32, "payload": pl.String, "occurred_us": pl.Int64,
              "recorded_us": pl.Int64, "source_sha256": pl.String, "prev_hash": pl.String, "hash": pl.String}


def to_epoch_us(moment: datetime) -> int:
    """Microseconds since the Unix epoch; naive datetimes are refused (time must carry its zone)."""
    if moment.tzinfo is None or moment.utcoffset() is None:
        raise ValueError(f"time {moment.isoformat()} has no timezone; give one (e.g. +01:00 or Z)")
    return (moment - _EPOCH) // timedelta(microseconds=1)


def from_epoch_us(micros: int) -> datetime:
    """The UTC datetime `micros` microseconds after the Unix epoch."""
    return _EPOCH + timedelta(microseconds=micros)


def canonical_bytes(position: int, stream_id: str, stream_version: int, event_type: str,
                    schema_version: int, payload_json: str, occurred_us: int, recorded_us: int,
                    source_sha256: str | None) -> bytes:
    """The bytes a row's hash covers: every column but the hashes themselves."""
    return (
        f"{position}\x1f{stream_id}\x1f{stream_version}\x1f{event_type}\x1f{schema_version}\x1f"
        f"{occurred_us}\x1f{recorded_us}\x1f{source_sha256 or ''}\x1f{payload_json}"
    ).encode()


def chain(prev_hash: str, canonical: Iterable[bytes]) -> list[bytes]:
    """The raw SHA-256 digest of each row in order, each chained on the one before.

    Link i is sha256(digest of row i-1 || 0x1E || canonical bytes of row i); the stored `hash`
    column is the hex form. Sequential by nature: each link needs the one before.
    """
    sha256 = hashlib.sha256
    links = accumulate(canonical, lambda prev, line: sha256(prev + b"\x1e" + line).digest(),
                       initial=bytes.fromhex(prev_hash))
    next(links)  # the initial value is the previous row's digest, not a new link
    return list(links)


def with_hashes(frame: pl.DataFrame, prev_hash: str) -> pl.DataFrame:
    """`frame` (positions and versions assigned) with `prev_hash` and `hash` chained on `prev_hash`,
    and its times as UTC datetimes (`occurred_at`, `recorded_at`)."""
    canonical = frame.select(
        pl.concat_str([pl.col(c).cast(pl.String).fill_null("") for c in CANONICAL_COLUMNS], separator="\x1f")
    ).to_series()
    digests = pl.Series(chain(prev_hash, canonical.cast(pl.Binary).to_list()), dtype=pl.Binary)
    hashes = digests.bin.encode("hex")
    return frame.with_columns(
        hash=hashes,
        prev_hash=hashes.shift(1, fill_value=prev_hash),
        occurred_at=pl.col("occurred_us").cast(pl.Datetime("us", "UTC")),
        recorded_at=pl.col("recorded_us").cast(pl.Datetime("us", "UTC")),
    )


class ChainCheck:
    """Checks a log's rows batch by batch, in position order, against the chain."""

    def __init__(self) -> None:
        self.expected_prev = GENESIS_HASH
        self.events = 0
        self.broken: VerifyReport | None = None

    def feed(self, rows: Iterable[Sequence[Any]]) -> bool:
        """Check rows in `ROW_COLUMNS` order; False (and `broken` set) at the first bad one."""
        for row in rows:
            position, stream, version, typ, schema, payload, occ, rec, sha, prev_hash, stored = row
            self.events += 1
            if prev_hash != self.expected_prev:
                self.broken = VerifyReport(self.events, int(position),
                                           "the row before it was removed, inserted or edited")
                return False
            digest = chain(prev_hash, [canonical_bytes(position, stream, version, typ, schema,
                                                       payload, occ, rec, sha)])[0]
            if digest.hex() != stored:
                self.broken = VerifyReport(self.events, int(position),
                                           "this row was edited after it was written")
                return False
            self.expected_prev = stored
        return True

    def report(self) -> VerifyReport:
        """The verdict so far."""
        return self.broken or VerifyReport(self.events, None, None)


def arrow_rows(batches: Iterable[Any]) -> Iterator[tuple[Any, ...]]:
    """The rows of Arrow record batches, as tuples."""
    for batch in batches:
        columns = [batch.column(i).to_pylist() for i in range(batch.num_columns)]
        yield from zip(*columns, strict=True)


def shorter_message(head: Head, where: str, found: str) -> str:
    """Why a log that lacks a head it has seen is shorter than it was."""
    return (f"the log is shorter than a head it has seen: {where} says position {head.position} "
            f"(hash {head.hash[:12]}) was written, but the log {found}, without that event; "
            "events were cut from its end, or its write-ahead log (.wal) was lost")


def rewritten_message(head: Head, where: str, held: str) -> str:
    """Why a log that holds a head's position with another hash was rewritten, not cut."""
    return (f"the log was rewritten: {where} says position {head.position} had hash {head.hash[:12]}, but the "
            f"log holds position {head.position} with hash {held[:12]}; rows at or before it were edited and "
            "the chain after them recomputed (the chain alone cannot show that: the heads seen can)")


def missing_anchor_note(anchor: str, latest: Head | None) -> str:
    """What `verify` cannot check when the head file is gone."""
    covered = (f"can be detected only up to the latest head a publication carries (position {latest.position})"
               if latest else "cannot be detected (no publication carries a head)")
    return f"the head file {anchor} is missing: rows cut from the log's end {covered}; the next append writes it again"
