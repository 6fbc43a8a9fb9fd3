"""The ranking edition the site shows, as the results pages read it: which players have a ranking
page to link their names to, and the ranking points each result earned.

The edition is the newest one the ranking pages show (`ranking_pages.ranking_editions`, cut at the
log position and time the site shows). Its award rows are read from `projection_ranking_awards`
(written once when it was published; rebuilt from the log when this store lacks them), one event at
a time. A result earns its `award`: the curve's award for the place times the event's weight and
the player's share, before decay (what the result earned, the same in every later edition; the
player's page shows what it is worth now).

A session's pages change with a new edition only where the edition's rows for them change, so a
session's pages record a digest of those rows (`session_part`): a build renders again the sessions
whose rows moved, and no other, though no event of theirs was appended.
"""

from __future__ import annotations

import hashlib
import logging
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

import polars as pl

from pipelines.base.query_frames import frame_of
from pipelines.log.store import EventStore, table_columns

if TYPE_CHECKING:
    from pipelines.ranking.edition import RankingEdition
    from pipelines.ranking.publish import PublishedEdition

log = logging.getLogger(__name__)

ROWS_SCHEMA = pl.Schema({
    "event_id": pl.String(), "session_id": pl.String(), "section": pl.String(), "direction": pl.String(),
    "contestant_id": pl.String(), "player_name": pl.String(), "player_id": pl.String(), "award": pl.Float64(),
    "ranked": pl.Boolean()})
"""An award row as the results pages read it: the unit (`session_id` '' for an award on the event's
overall standings), the contestant, the player as the file names them and as the ranking knows them,
the points the result earned, and whether the player is in the edition's ranking (has a page)."""
_ORDER = ["event_id", "session_id", "section", "direction", "contestant_id", "player_name", "player_id"]
_TABLES = ["projection_ranking_awards", "projection_ranking"]



def no_rows() -> pl.DataFrame:
    """No award rows (a site without a ranking, or a session none of whose players is in one)."""
    return pl.DataFrame(schema=ROWS_SCHEMA)


@dataclass
class ShownRanking:
    """The edition the site's results pages link to and take points from (none: `key` is '')."""

    store: EventStore | None = None
    label: str = ""
    key: str = ""
    """The edition's label and output hash: what a session's manifest entry notes it was built with."""

    def of_event(self, event_id: str) -> pl.DataFrame:
        """The edition's award rows of one event (`ROWS_SCHEMA`), in a set order."""
        if self.store is None or not self.key:
            return no_rows()
        if self._held:
            return _stored_rows(self.store, self.label, event_id)
        return self._rebuilt.filter(pl.col("event_id") == event_id)

    def session_part(self, event_id: str, session_id: str) -> str:
        """The digest of what a session's pages show of the edition (`session_part`)."""
        return session_part(self._by_event.get(event_id, no_rows()), session_id)

    def event_part(self, event_id: str) -> str:
        """The digest of what an event's page shows of the edition (`event_part`)."""
        return event_part(self._by_event.get(event_id, no_rows()))

    @cached_property
    def _by_event(self) -> dict[str, pl.DataFrame]:
        """Every row of the edition by event: read only when a build meets pages built with another
        edition (once per new edition, not at every build)."""
        if self.store is None or not self.key:
            return {}
        rows = _stored_rows(self.store, self.label, None) if self._held else self._rebuilt
        return {str(key[0]): frame for key, frame in rows.partition_by("event_id", as_dict=True).items()}

    @cached_property
    def _held(self) -> bool:
        """Whether the store holds the rows the edition's publication wrote."""
        assert self.store is not None
        with self.store.reader() as con:
            if len(table_columns(con, _TABLES)) < len(_TABLES):
                return False
            held = con.execute("SELECT EXISTS (SELECT 1 FROM projection_ranking WHERE edition = ?) OR "
                               "EXISTS (SELECT 1 FROM projection_ranking_awards WHERE edition = ?)",
                               [self.label, self.label]).fetchall()
        return bool(held[0][0])

    @cached_property
    def _rebuilt(self) -> pl.DataFrame:
        """Every row of the edition rebuilt from the log (derived rows this store lacks), once; none
        when it does not rebuild to what was published (the ranking pages say why and stay as they were)."""
        from pipelines.ranking.publish import EditionError, rebuild_edition

        assert self.store is not None
        log.info("site: the rows of ranking edition %s are not in the store: rebuilding it", self.label)
        try:
            return _edition_rows(rebuild_edition(self.store, self.label)).sort(_ORDER)
        except EditionError as exc:
            log.error("site: no ranking links or points on the results pages: %s", exc)
            return no_rows()


def shown_ranking(store: EventStore, editions: list[PublishedEdition]) -> ShownRanking:
    """The newest of `editions` (the ranking pages' own), or none."""
    if not editions:
        return ShownRanking()
    latest = editions[-1]
    return ShownRanking(store, latest.label, f"{latest.label}\0{latest.event.output_sha256 or ''}")


def _stored_rows(store: EventStore, label: str, event_id: str | None) -> pl.DataFrame:
    """The edition's rows its publication wrote to the store (of one event, or all)."""
    with store.reader() as con:
        found = frame_of(con.sql(
            "SELECT event_id, coalesce(session_id, '') AS session_id, coalesce(section, '') AS section, direction, "
            "contestant_id, player_name, player_id, award, player_id IN "
            "(SELECT player_id FROM projection_ranking WHERE edition = $label) AS ranked "
            "FROM projection_ranking_awards WHERE edition = $label"
            + (" AND event_id = $event" if event_id is not None else "")
            + " ORDER BY " + ", ".join(_ORDER),
            params={"label": label, **({"event": event_id} if event_id is not None else {})}))
    return found.cast(ROWS_SCHEMA) if found.height else no_rows()


def _edition_rows(edition: RankingEdition) -> pl.DataFrame:
    ranked = edition.ranking.get_column("player_id").implode()
    return edition.awards.select(
        "event_id", pl.col("session_id").fill_null(""), pl.col("section").fill_null(""), "direction",
        "contestant_id", "player_name", "player_id", "award", ranked=pl.col("player_id").is_in(ranked),
    ).cast(ROWS_SCHEMA)


def session_rows(rows: pl.DataFrame, session_id: str) -> pl.DataFrame:
    """What a session's pages read of an event's rows: its own awards, and who its event's overall
    awards (a multi-session event's) name, for the links (their points are on the event's page)."""
    own = rows.filter(pl.col("session_id") == session_id)
    overall = rows.filter(pl.col("session_id") == "").with_columns(award=pl.lit(None, dtype=pl.Float64))
    return pl.concat([own, overall]).sort(_ORDER)


def session_part(rows: pl.DataFrame, session_id: str) -> str:
    """SHA-256 of what a session's pages show of an event's rows (`session_rows`): the same rows
    give the same digest whether read for one event or for the whole edition."""
    return _digest(session_rows(rows, session_id))


def event_part(rows: pl.DataFrame) -> str:
    """SHA-256 of an event's rows: what its page shows of them (its overall awards, its winners' links)."""
    return _digest(rows)


def _digest(rows: pl.DataFrame) -> str:
    return hashlib.sha256(rows.select(list(ROWS_SCHEMA)).sort(_ORDER).write_csv().encode()).hexdigest()


def contestant_points(rows: pl.DataFrame, session_id: str) -> dict[tuple[str, str, str], float]:
    """(section, direction, contestant) -> the points its result in that unit (`session_id`, '' for
    the event's overall standings) earned: a pair's, each player's; a team's, a member's who played
    enough boards (the most any of its players earned; each player's own is on their page)."""
    mine = rows.filter(pl.col("session_id") == session_id)
    grouped = mine.group_by("section", "direction", "contestant_id").agg(pl.col("award").max())
    return {(str(s), str(d), str(c)): float(a) for s, d, c, a in grouped.iter_rows() if a is not None}
