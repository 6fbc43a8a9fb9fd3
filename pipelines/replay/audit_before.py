"""The audit's "before" scores, kept as derived data keyed by everything they are computed from.

A session's audit shows each corrected table's score before any correction: the session's results as
recorded, scored again (`pipelines.replay.audit.audit_rows`). That second scoring of the whole session is
a tenth of a second on a 1,250-result session, paid by every rewrite of the session's pages, though
a correction changes none of its inputs: only a new result, ruling, condition or a new version of
the scoring code does. So the scores are kept in the store's `derived_audit_before` table, one row
per key: the SHA-256 of the inputs (the rows scored, the session's schedule, its event's conditions
and penalties) and of the scoring code. Derived data, never the truth: a row whose key nobody asks
for again is harmless, and dropping the table only costs the next audit its scoring.
"""

from __future__ import annotations

import hashlib
import io
import logging
from collections.abc import Callable, Mapping
from functools import cache
from pathlib import Path
from typing import Any

import orjson
import polars as pl

from pipelines.log.store import EventStore, table_columns

log = logging.getLogger(__name__)

TABLE = "derived_audit_before"
"""Store table of kept "before" scores."""

_CREATE = f"CREATE TABLE IF NOT EXISTS {TABLE} (key VARCHAR PRIMARY KEY, scores BLOB NOT NULL)"

_REPO = Path(__file__).resolve().parents[2]
_SCORING_CODE = ("pipelines/scoring/*.py", "pipelines/replay/projections.py", "pipelines/replay/audit.py",
                 "models/*.py")
"""What the scores are computed with: new code gives a new key, so no score of older code is shown."""


def before_key(rows: pl.DataFrame, sessions: pl.DataFrame, conditions: Mapping[str, Any],
               penalties: pl.DataFrame) -> str:
    """SHA-256 of what `score_results` reads to score `rows`, and of the code that scores them."""
    digest = hashlib.sha256(_code_digest())
    for part in (_ipc(rows), _ipc(sessions), orjson.dumps(conditions, option=orjson.OPT_SORT_KEYS),
                 _ipc(penalties)):
        digest.update(len(part).to_bytes(8, "little") + part)
    return digest.hexdigest()


def remembered(store: EventStore, key: str, score: Callable[[], pl.DataFrame]) -> pl.DataFrame:
    """The scores kept under `key`, or `score()` (then kept under it)."""
    with store.writer() as con:
        if table_columns(con, [TABLE]):
            kept = con.execute(f"SELECT scores FROM {TABLE} WHERE key = ?", [key]).fetchall()
            if kept:
                return pl.read_ipc(io.BytesIO(kept[0][0]))
    scores = score()
    with store.writer() as con:
        con.execute(_CREATE)
        con.execute(f"INSERT INTO {TABLE} VALUES (?, ?) ON CONFLICT (key) DO NOTHING", [key, _ipc(scores)])
    log.debug("audit: before scores kept under %s", key[:12])
    return scores


def _ipc(frame: pl.DataFrame) -> bytes:
    sink = io.BytesIO()
    frame.write_ipc(sink, compression="uncompressed")
    return sink.getvalue()


@cache
def _code_digest() -> bytes:
    digest = hashlib.sha256()
    for path in sorted(p for pattern in _SCORING_CODE for p in _REPO.glob(pattern)):
        digest.update(str(path.relative_to(_REPO)).encode() + b"\0" + path.read_bytes())
    return digest.digest()
