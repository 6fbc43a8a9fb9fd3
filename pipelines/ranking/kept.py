"""Awards kept per tournament between editions: derived rows, recomputed wherever their inputs moved.

An edition's awards are a union over tournaments: each tournament's rows (its units, places,
players, base awards, weights, shares, award dates and corrections) depend only on its own streams
(`session:<event>/...`, `tournament:<event>`, `players:<event>` for links), on the status of its
sessions at the edition's time, on the member list and on the rule set. Only identity merges and
decay (applied to every row at the edition's time, `pipelines.ranking.edition`) and the ranking
itself are whole-federation steps. So an edition keeps, per rule set, what each tournament gave
before merges and decay (`TournamentAwards`), stamped with the log position and time it was
computed at, in the derived table `ranking_kept_awards`; the next edition recomputes only the
tournaments whose inputs differ between that stamp and its own (`changed_events`):

- a tournament with an event that one of the two counts and the other does not (appended, or a
  correction, a link, a late result; or an edition in the past), as `standings_source` finds them;
- a tournament with a session whose Law 79C deadline lies between the two times (its status
  differs, and provisional sessions give no awards);
- everything, when a member registration differs (matching by id and by name reads every member),
  when no rows were kept for this rule set (a new rule version is a new hash), or when they were
  written by another version of this module (`KEPT_VERSION`).

The rows are kept as Parquet inside the table (one row per rule set), as a large `base` and a small
`delta` of the tournaments recomputed since: an edition after a weekend rewrites a few hundred
kilobytes, not the whole federation's awards, and the delta is folded into the base once it grows.
They are derived data: dropping the table only makes the next edition compute everything. The event
log itself is never written here.
"""

from __future__ import annotations

import io
import logging
from collections.abc import Sequence
from dataclasses import dataclass

import duckdb
import polars as pl

from models.ranking_rules import RuleSet
from pipelines.log.store import EventStore, StoreError, table_columns
from pipelines.ranking.standings_source import differing_streams

log = logging.getLogger(__name__)

KEPT_VERSION = "3"
"""Bumped whenever what a tournament's kept rows hold, or how they are computed, changes."""
KEPT_TABLE = "ranking_kept_awards"
PIECES = ("awards", "unmatched", "provisional", "corrections", "deadlines")
_COMPACT_SHARE = 0.2
"""The delta is folded into the base once it holds this share of the base's award rows."""
_TOURNAMENT_PREFIXES = ("session:", "tournament:", "players:")
_MEMBER_PREFIX = "members:"

_TABLE_SQL = f"""
CREATE TABLE IF NOT EXISTS {KEPT_TABLE} (
    rules_hash VARCHAR, version VARCHAR, position BIGINT, as_of_us BIGINT, delta_events VARCHAR[],
    {", ".join(f"base_{piece} BLOB, delta_{piece} BLOB" for piece in PIECES)})
"""


@dataclass(frozen=True)
class TournamentAwards:
    """What an edition takes from a set of tournaments before merges and decay, one frame per piece."""

    awards: pl.DataFrame
    """`pipelines.ranking.edition.KEPT_AWARD_COLUMNS`: each matched player's award, by original id."""
    unmatched: pl.DataFrame
    """`players.unmatched_players` rows."""
    provisional: pl.DataFrame
    """Sessions left out as not final: event_id, session_id, status."""
    corrections: pl.DataFrame
    """Applied corrections behind the awards."""
    deadlines: pl.DataFrame
    """Each published session's Law 79C deadline: event_id, session_id, deadline_us."""

    def without(self, events: Sequence[str]) -> TournamentAwards:
        """The rows of every tournament but `events`."""
        if not events:
            return self
        outside = ~pl.col("event_id").is_in(list(events))
        return TournamentAwards(*(getattr(self, piece).filter(outside) for piece in PIECES))

    def cleared(self) -> TournamentAwards:
        """No rows, the same columns."""
        return TournamentAwards(*(getattr(self, piece).clear() for piece in PIECES))

    def plus(self, other: TournamentAwards) -> TournamentAwards:
        """Both sets of rows (of different tournaments)."""
        return TournamentAwards(*(pl.concat([getattr(self, piece), getattr(other, piece)], how="vertical_relaxed")
                                  for piece in PIECES))


@dataclass(frozen=True)
class KeptAwards:
    """The kept rows of one rule set: right for every tournament at (`position`, `as_of_us`)."""

    position: int
    as_of_us: int
    base: TournamentAwards
    delta: TournamentAwards
    delta_events: tuple[str, ...]
    """Tournaments whose rows are in `delta` (and whose rows in `base` are stale)."""
    base_blobs: tuple[bytes, ...] | None = None
    """`base` as stored (Parquet, one per piece) while it is unchanged since it was read: then only
    the stamp and the delta are written (encoding a federation's awards again, or even writing the
    same bytes back, would cost more than the rest of a weekend's edition)."""

    def current(self) -> TournamentAwards:
        """Every tournament's rows."""
        return self.base.without(self.delta_events).plus(self.delta)

    def updated(self, changed: Sequence[str], part: TournamentAwards, *, position: int,
                as_of_us: int) -> KeptAwards:
        """The rows after the `changed` tournaments were recomputed as `part` at (position, as_of_us)."""
        delta = self.delta.without(changed).plus(part)
        events = tuple(sorted(set(self.delta_events) | set(changed)))
        if delta.awards.height > _COMPACT_SHARE * max(self.base.awards.height, 1):
            return KeptAwards(position, as_of_us, self.base.without(events).plus(delta), delta.cleared(), ())
        return KeptAwards(position, as_of_us, self.base, delta, events, self.base_blobs)


def fresh(part: TournamentAwards, *, position: int, as_of_us: int) -> KeptAwards:
    """Rows computed for every tournament at (position, as_of_us)."""
    return KeptAwards(position, as_of_us, part, part.cleared(), ())


def read_kept(store: EventStore, rules: RuleSet) -> KeptAwards | None:
    """The rows kept for `rules` (None when there are none this version can use)."""
    if not store.exists():
        return None
    with store.reader() as con:
        if not _has_table(con):
            return None
        row = con.execute(
            f"SELECT position, as_of_us, delta_events, {', '.join(f'base_{p}, delta_{p}' for p in PIECES)}"
            f" FROM {KEPT_TABLE} WHERE rules_hash = ? AND version = ?", [rules.content_hash(), KEPT_VERSION]).fetchone()
    if row is None:
        return None
    position, as_of_us, delta_events, *blobs = row
    base = TournamentAwards(*(_frame(blob) for blob in blobs[0::2]))
    delta = TournamentAwards(*(_frame(blob) for blob in blobs[1::2]))
    return KeptAwards(int(position), int(as_of_us), base, delta, tuple(delta_events), tuple(blobs[0::2]))


def changed_events(store: EventStore, kept: KeptAwards, *, up_to: int, as_of_us: int) -> list[str] | None:
    """Tournaments whose kept rows are not the edition's at (`up_to`, `as_of_us`); None when every
    tournament's are in doubt (a member registration differs). See the module docstring."""
    with store.reader() as con:
        streams = differing_streams(con, (kept.position, kept.as_of_us), up_to=up_to, as_of_us=as_of_us,
                                    prefixes=(*_TOURNAMENT_PREFIXES, _MEMBER_PREFIX))
    if any(stream.startswith(_MEMBER_PREFIX) for stream, _ in streams):
        log.info("ranking: the member list differs from the kept awards': every tournament is recomputed")
        return None
    earlier, later = sorted((kept.as_of_us, as_of_us))
    deadlines = kept.current().deadlines
    crossing = deadlines.filter((pl.col("deadline_us") > earlier) & (pl.col("deadline_us") <= later))["event_id"]
    return sorted({event_id for _, event_id in streams if event_id is not None} | set(crossing.to_list()))


def save_kept(store: EventStore, rules: RuleSet, kept: KeptAwards) -> bool:
    """Write `kept` as the rows of `rules` (replacing the previous ones); False, and nothing written,
    when the store cannot be written now (another process writing, or read-only)."""
    rules_hash = rules.content_hash()
    delta = {f"delta_{piece}": _blob(getattr(kept.delta, piece)) for piece in PIECES}
    busy = store.with_busy_timeout(0.0)
    try:
        with busy.writer() as con:
            con.execute(_TABLE_SQL)
            con.execute("BEGIN TRANSACTION")
            if kept.base_blobs is not None:  # the base as read: only the stamp and the delta change
                con.execute(f"UPDATE {KEPT_TABLE} SET position = ?, as_of_us = ?, delta_events = ?, "
                            f"{', '.join(f'{name} = ?' for name in delta)} WHERE rules_hash = ? AND version = ?",
                            [kept.position, kept.as_of_us, list(kept.delta_events), *delta.values(), rules_hash,
                             KEPT_VERSION])
            else:
                values: list[object] = [rules_hash, KEPT_VERSION, kept.position, kept.as_of_us,
                                        list(kept.delta_events)]
                for piece in PIECES:
                    values += [_blob(getattr(kept.base, piece)), delta[f"delta_{piece}"]]
                con.execute(f"DELETE FROM {KEPT_TABLE} WHERE rules_hash = ?", [rules_hash])
                con.execute(f"INSERT INTO {KEPT_TABLE} VALUES ({', '.join('?' for _ in values)})", values)
            con.execute("COMMIT")
    except (StoreError, duckdb.Error) as exc:
        log.info("ranking: awards not kept for the next edition (%s)", exc)
        return False
    return True


def _blob(frame: pl.DataFrame) -> bytes:
    sink = io.BytesIO()
    frame.write_parquet(sink, compression="snappy", statistics=False)
    return sink.getvalue()


def _frame(blob: bytes) -> pl.DataFrame:
    return pl.read_parquet(io.BytesIO(blob))


def _has_table(con: duckdb.DuckDBPyConnection) -> bool:
    return bool(table_columns(con, [KEPT_TABLE]))
