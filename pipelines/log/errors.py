"""The log's errors: what went wrong, named after the rule it guards."""

from __future__ import annotations


class StoreError(Exception):
    """Base class of the event store's errors."""


class ConcurrencyError(StoreError):
    """Another writer appended to the same stream version first (UNIQUE(stream_id, stream_version))."""


class StoreBusy(StoreError):
    """Another process holds the DuckDB file's lock and did not release it within the wait."""


class StoreMissing(StoreError):
    """A read-only operation was asked of a store that does not exist."""


class MirrorMismatch(StoreError):
    """The analytics store holds events that the log of record does not (it mirrors another log)."""
