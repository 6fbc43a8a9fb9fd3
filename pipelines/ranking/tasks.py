"""The ranking call an orchestrator makes on a schedule: small values in, a log position out."""

from __future__ import annotations

import logging
from datetime import UTC, datetime

from pipelines.log.store import EventStore
from pipelines.ranking.edition import compute_edition
from pipelines.ranking.publish import (
    EditionError,
    default_label,
    publish_edition,
    published_editions,
    refresh_standings,
)
from pipelines.ranking.rules import load_rules

log = logging.getLogger(__name__)


def publish_ranking(store_path: str, rules: str, as_of: str, label: str | None = None,
                    position: int | None = None) -> int:
    """Publish the edition `label` (default `name-version@as-of`) of `rules` as of `as_of` (ISO
    time with zone) at log position `position` (default: the log's head when it runs).

    Idempotent: when `label` is already published with the same rule set, as-of time and position,
    nothing is appended and the publication's log position is returned; a different edition under
    the same label is refused. A scheduled run passes its data interval end as `as_of` and the log
    position it read, so a rerun makes the same edition.
    """
    store = EventStore(store_path)
    rule_set, moment = load_rules(rules), datetime.fromisoformat(as_of)
    label = label or default_label(rule_set, moment)
    existing = published_editions(store).get(label)
    if existing is not None:
        event = existing.event
        same = (event.rule_hash == rule_set.content_hash() and event.as_of == moment
                and position in (None, event.position))
        if same:
            log.info("edition %s already published at log position %d", label, existing.event_position)
            return existing.event_position
        raise EditionError(f"edition {label!r} was already published with other rules, time or position")
    refresh_standings(store)
    edition = compute_edition(store, rule_set, as_of=moment, up_to=position, keep=True)
    return publish_edition(store, edition, label=label, at=datetime.now(UTC))  # the edge: when it was published
