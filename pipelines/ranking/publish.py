"""Publishing an edition (`RankingPublished`), rebuilding a published one, and the analyst views.

A publication records the rule set (whole, with its hash), the log position and the as-of time:
enough to rebuild the edition from the log alone. The edition's output hash is recorded too, so a
rebuild proves it produced the same bytes. The `ranking` and `awards` tables are derived data:
rows for an edition are written once, when it is published, and never changed.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime

import polars as pl

from models.events import RankingPublished, event_payload
from models.ranking_rules import RuleSet
from pipelines.log.store import EventStore, NewEvent
from pipelines.log.views import RANKING_LOG_VIEWS_SQL
from pipelines.ranking.edition import RankingEdition, compute_edition

log = logging.getLogger(__name__)


class EditionError(ValueError):
    """An edition that cannot be published or rebuilt as asked."""


class EditionMismatch(EditionError):
    """A rebuilt edition's output differs from what was published."""


@dataclass(frozen=True)
class PublishedEdition:
    """A `RankingPublished` event as read back."""

    label: str
    event_position: int
    published_at: datetime
    event: RankingPublished

    def rules(self) -> RuleSet:
        """The rule set the edition was computed under."""
        return RuleSet.model_validate(self.event.rules)


def published_editions(store: EventStore) -> dict[str, PublishedEdition]:
    """Every published edition by label, in log order."""
    editions = {}
    for stored in store.read(types=["RankingPublished"]):
        event = RankingPublished.model_validate(stored.payload)
        editions[event.edition] = PublishedEdition(event.edition, stored.position, stored.occurred_at, event)
    return editions


def default_label(rules: RuleSet, as_of: datetime) -> str:
    """`name-version@as-of`: what an edition is called unless the publisher names it."""
    return f"{rules.name}-{rules.version}@{as_of.isoformat()}"


def refresh_standings(store: EventStore) -> None:
    """Bring the live projection tables up to the log before an edition that will be published.

    An edition only reads (`standings_source`), so it replays every tournament the tables do not
    hold; a publication appends anyway, so it refreshes the tables first (derived rows, never events)
    and the edition reads them. The edition's bytes are the same either way.
    """
    from pipelines.replay.live import refresh

    refresh(store)


def publish_edition(store: EventStore, edition: RankingEdition, *, label: str, at: datetime) -> int:
    """Append `RankingPublished` for `edition` and write its rows to the analyst tables."""
    existing = published_editions(store)
    if label in existing:
        raise EditionError(f"edition {label!r} was already published at log position "
                           f"{existing[label].event_position}; name the new one differently")
    rules = edition.rules
    event = RankingPublished(rule_version=rules.version, edition=label, position=edition.position,
                             rule_set=rules.name, rule_hash=rules.content_hash(),
                             rules=rules.model_dump(mode="json"), as_of=edition.as_of,
                             output_sha256=edition.output_sha256())
    stream = f"ranking:{rules.name}"
    result = store.append([NewEvent(stream, event.type, event_payload(event), at)], recorded_at=at,
                          expected_versions={stream: store.stream_version(stream)})
    assert result.last_position is not None
    previous = [e for e in existing.values() if e.event.rule_set == rules.name]
    write_edition_tables(store, label, edition, previous[-1].label if previous else None)
    return result.last_position


def rebuild_edition(store: EventStore, label: str) -> RankingEdition:
    """A published edition computed again from the log; raises `EditionMismatch` if its output
    is not byte for byte what was published."""
    published = published_editions(store).get(label)
    if published is None:
        raise EditionError(f"no published edition {label!r}; published: {', '.join(published_editions(store))}")
    event = published.event
    if event.as_of is None:
        raise EditionError(f"edition {label!r} was published without an as-of time and cannot be rebuilt")
    edition = compute_edition(store, published.rules(), as_of=event.as_of, up_to=event.position,
                              check_categories=False)
    if event.output_sha256 is not None and edition.output_sha256() != event.output_sha256:
        raise EditionMismatch(f"edition {label!r} rebuilt to {edition.output_sha256()}, "
                              f"published as {event.output_sha256}")
    return edition


# --- analyst tables and views ----------------------------------------------------------------------

# A store whose awards table predates match points gains `team_match` (null on its earlier editions).
_TABLES_SQL = """
CREATE TABLE IF NOT EXISTS projection_ranking (
    edition VARCHAR, place BIGINT, player_id VARCHAR, name VARCHAR, club VARCHAR, region VARCHAR,
    gender VARCHAR, birth_year BIGINT, points DOUBLE, awards BIGINT, previous_place BIGINT,
    movement BIGINT, previous_points DOUBLE);
CREATE TABLE IF NOT EXISTS projection_ranking_awards (
    edition VARCHAR, player_id VARCHAR, original_id VARCHAR, player_name VARCHAR, event_id VARCHAR,
    event_name VARCHAR, session_id VARCHAR, section VARCHAR, direction VARCHAR, contestant_id VARCHAR,
    team_match VARCHAR, place BIGINT, tied BOOLEAN, field BIGINT, category VARCHAR, base_award DOUBLE, weight DOUBLE,
    share DOUBLE, award DOUBLE, award_date DATE, award_kind VARCHAR, age_years BIGINT, decay DOUBLE,
    points DOUBLE, corrections VARCHAR);
ALTER TABLE projection_ranking_awards ADD COLUMN IF NOT EXISTS team_match VARCHAR;
"""

VIEWS_SQL = RANKING_LOG_VIEWS_SQL + """
CREATE OR REPLACE VIEW ranking AS SELECT * FROM projection_ranking;
CREATE OR REPLACE VIEW awards AS SELECT * FROM projection_ranking_awards;
"""
"""The ranking's analyst views: those over the log (`pipelines.log.views`), then its own tables'."""


def write_views(store: EventStore) -> None:
    """(Re)create the ranking's analyst views (and the empty tables behind them)."""
    with store.writer() as con:
        con.execute(_TABLES_SQL)
        con.execute(VIEWS_SQL)


def write_edition_tables(store: EventStore, label: str, edition: RankingEdition, previous: str | None) -> None:
    """Insert an edition's ranking (with movement since `previous`) and awards, once."""
    with store.writer() as con:
        con.execute(_TABLES_SQL)
        before = con.sql("SELECT player_id, place AS previous_place, points AS previous_points"
                         " FROM projection_ranking WHERE edition = ?", params=[previous or ""]).pl()
        ranking = (edition.ranking.join(before, on="player_id", how="left")
                   .with_columns(movement=pl.col("previous_place") - pl.col("place"))
                   .select(pl.lit(label).alias("edition"), pl.all()))
        awards = edition.awards.select(pl.lit(label).alias("edition"), pl.all())
        con.register("new_ranking", ranking)
        con.register("new_awards", awards)
        con.execute("BEGIN TRANSACTION")
        con.execute("INSERT INTO projection_ranking BY NAME SELECT * FROM new_ranking")
        con.execute("INSERT INTO projection_ranking_awards BY NAME SELECT * FROM new_awards")
        con.execute(VIEWS_SQL)
        con.execute("COMMIT")
    log.info("edition %s: %d players, %d awards in the ranking views", label, ranking.height, awards.height)
