"""The federation ranking's pages: the latest published edition with movement, and a page per player.

The pages are a pure function of the published editions of one rule set (immutable events) and
of this package's code: the latest edition and the one before it are rebuilt from the log (which
proves them byte for byte), and a player's history reads each edition's points from the
`ranking` table its publication wrote once. `ranking_digest` names those inputs, so a site build
renders the ranking again only when an edition was published (or the code changed).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

import polars as pl

from pipelines.base.query_frames import frame_of
from pipelines.log.store import EventStore, table_columns
from pipelines.site.labels import labels, language_code
from pipelines.site.paths import RANKING_DIR, card_page, event_dir, player_page, session_dir
from pipelines.site.plots import history_plot
from pipelines.site.render import render
from pipelines.site.views import fmt, place_text

if TYPE_CHECKING:
    from pipelines.ranking.edition import RankingEdition
    from pipelines.ranking.publish import PublishedEdition

ROOT = "../"
"""From the ranking's folder back to the site's root."""
Row = dict[str, Any]


@dataclass(frozen=True)
class RankingSource:
    """What the ranking pages are made from."""

    label: str
    edition: RankingEdition
    previous_label: str | None
    previous_places: pl.DataFrame | None
    """player_id, place in the edition before (None when there is none)."""
    history: pl.DataFrame
    """edition, player_id, points: every published edition of the rule set, oldest first."""
    labels: list[str]
    """The rule set's published editions, oldest first."""


def ranking_editions(store: EventStore) -> list[PublishedEdition]:
    """The published editions of the latest edition's rule set, oldest first; empty when none.

    The ranking's package (its rule sets and computation) is imported only when the log holds an
    edition: a results site without a ranking, or a rebuild after a correction, does not load it.
    """
    if not store.read(types=["RankingPublished"]):
        return []
    from pipelines.ranking.publish import published_editions

    every = list(published_editions(store).values())
    if not every:
        return []
    rule_set = every[-1].event.rule_set
    return [e for e in every if e.event.rule_set == rule_set]


def ranking_digest(editions: list[PublishedEdition], code: bytes) -> str:
    """SHA-256 of what the ranking pages are made from: the editions' publications and the code."""
    digest = hashlib.sha256(code)
    for published in editions:
        event = published.event
        digest.update(f"{published.label}\0{published.event_position}\0{event.output_sha256}\0".encode())
    return digest.hexdigest()


def ranking_source(store: EventStore, editions: list[PublishedEdition]) -> RankingSource:
    """The latest edition and the one before it, rebuilt, and every edition's points by player."""
    from pipelines.ranking.publish import rebuild_edition

    latest = editions[-1]
    before = editions[-2] if len(editions) > 1 else None
    names = [e.label for e in editions]
    edition = rebuild_edition(store, latest.label)
    history = _published_rows(store, names)
    rebuilt = {latest.label: edition}
    # An edition whose rows the table lacks (derived data, maybe not written here) is rebuilt.
    for label in names:
        if label not in set(history["edition"]) and label not in rebuilt:
            rebuilt[label] = rebuild_edition(store, label)
    parts = [history] + [rebuilt[label].ranking.select(pl.lit(label).alias("edition"), "player_id", "points", "place")
                         .cast(history.schema) for label in names if label not in set(history["edition"])]
    every = pl.concat(parts)
    # The edition before gives only its places (the movement): the rows its publication wrote, or
    # its rebuild, are the same rows (a rebuild that differs from what was published is refused).
    previous = every.filter(pl.col("edition") == before.label).select("player_id", "place") if before else None
    return RankingSource(latest.label, edition, before.label if before else None, previous,
                         every.select("edition", "player_id", "points"), names)


def _published_rows(store: EventStore, names: list[str]) -> pl.DataFrame:
    """edition, player_id, points, place of the named editions, from the rows their publication wrote."""
    empty = pl.DataFrame(schema={"edition": pl.String, "player_id": pl.String, "points": pl.Float64,
                                 "place": pl.Int64})
    with store.reader() as con:
        if not table_columns(con, ["projection_ranking"]):
            return empty
        found = frame_of(con.sql("SELECT edition, player_id, points, place FROM projection_ranking"
                                 " WHERE list_contains(?, edition)", params=[names]))
    return found.cast(empty.schema) if found.height else empty


def ranking_files(source: RankingSource, language: str = "en") -> dict[str, bytes]:
    """Relative path (from the site's root) -> bytes of the ranking page, each player's page and plot."""
    words = ranking_words(language)
    rows = movement_rows(source.edition.ranking, source.previous_places, words)
    files: dict[str, bytes] = {}
    context = {"lang": language, "t": words, "root": ROOT, "title": f"{words['ranking']} {source.label}"}
    files[f"{RANKING_DIR}/index.html"] = render(
        "ranking.html", **context, crumbs=[{"text": words["ranking"], "href": ""}], label=source.label,
        previous=source.previous_label, as_of=source.edition.as_of.isoformat(timespec="minutes"),
        as_of_text=_written(source.edition.as_of),
        rules=f"{source.edition.rules.name} {source.edition.rules.version}", rows=rows)
    awards_by_player = source.edition.awards.partition_by("player_id", as_dict=True)
    history = _history_by_player(source)
    for row in rows:
        awards = awards_by_player.get((row["player_id"],), source.edition.awards.clear())
        files.update(_player_files(source, row, awards, history.get(row["player_id"], {}), context, words))
    return files


def movement_rows(ranking: pl.DataFrame, previous: pl.DataFrame | None,
                  words: Mapping[str, str] | None = None) -> list[Row]:
    """The ranking's rows in place order, each with its movement since `previous` (said in `words`,
    default English)."""
    words = words or ranking_words("en")
    before = (previous.select("player_id", previous_place="place") if previous is not None
              else pl.DataFrame(schema={"player_id": pl.String, "previous_place": pl.Int64}))
    joined = ranking.join(before, on="player_id", how="left").sort(["place", "player_id"])
    shared = set(joined.filter(pl.col("place").is_duplicated())["place"].to_list())
    return [{
        "place": place_text(row["place"], row["place"] in shared), "player_id": row["player_id"],
        "name": row["name"], "club": row["club"], "points": fmt(row["points"]), "awards": row["awards"],
        "href": player_page(row["player_id"]),
        **(_movement(row["place"], row["previous_place"], words) if previous is not None else _NO_MOVEMENT),
    } for row in joined.iter_rows(named=True)]  # a page row each: the table is what the reader gets


_NO_MOVEMENT = {"move": "", "move_text": "", "move_label": ""}


def _movement(place: int, previous_place: int | None, words: Mapping[str, str]) -> dict[str, str]:
    """The arrow as text, and what a screen reader says for it."""
    if previous_place is None:
        return {"move": "new", "move_text": words["move_new"], "move_label": words["move_new_label"]}
    change = previous_place - place
    if change > 0:
        return {"move": "up", "move_text": f"▲ {change}",
                "move_label": words["move_up_label"].format(n=change, places=_places(change, words))}
    if change < 0:
        return {"move": "down", "move_text": f"▼ {-change}",
                "move_label": words["move_down_label"].format(n=-change, places=_places(-change, words))}
    return {"move": "same", "move_text": "=", "move_label": words["move_same_label"]}


def _written(moment: datetime) -> str:
    """A time as every page writes one, `2026-11-23 09:00 CET` (the edition's own offset, `UTC+01:00`,
    when it names no zone)."""
    zone = moment.tzname() or ""
    return f"{moment:%Y-%m-%d %H:%M} {'UTC' + zone if zone[:1] in '+-' else zone}".rstrip()


def _history_by_player(source: RankingSource) -> dict[str, dict[str, float]]:
    by_player: dict[str, dict[str, float]] = {}
    for edition, player_id, points in source.history.iter_rows():
        by_player.setdefault(player_id, {})[edition] = points
    # The latest edition's points as rebuilt, whatever the table holds.
    for player_id, points in source.edition.ranking.select("player_id", "points").iter_rows():
        by_player.setdefault(player_id, {})[source.label] = points
    return by_player


def _award_href(award: Row) -> str:
    """Where the result an award was earned for is, from the ranking's folder: the contestant's
    score card in that session, or the event's page for an award on the event's overall standings."""
    if not award["session_id"]:
        return f"../{event_dir(award['event_id'])}/index.html"
    folder = session_dir(award["event_id"], award["session_id"])
    if award["contestant_id"] is None or award["direction"] is None:
        return f"../{folder}/index.html"
    return f"../{folder}/{card_page(award['section'] or '', award['direction'], award['contestant_id'])}"


def award_rows(awards: pl.DataFrame) -> list[Row]:
    """A player's awards, oldest first: event, date, place, field, base award, weight, decay, points now."""
    # Two awards can tie on these keys after an identity merge: they keep the edition's order.
    ordered = awards.sort(["award_date", "event_id", "session_id", "section", "direction", "contestant_id"],
                          nulls_last=True, maintain_order=True)
    return [{
        "event": row["event_name"] or row["event_id"], "session": row["session_id"] or "", "href": _award_href(row),
        "date": row["award_date"].isoformat() if row["award_date"] else "",
        "place": place_text(row["place"], row["tied"]), "field": row["field"],
        "base_award": fmt(row["base_award"]), "weight": fmt(row["weight"], 3), "share": fmt(row["share"], 3),
        "decay": f"{row['decay'] * 100:.0f} %" if row["decay"] is not None else "",
        "points": fmt(row["points"]), "corrections": row["corrections"] or "",
    } for row in ordered.iter_rows(named=True)]  # a player's awards: a handful of rows


def _player_files(source: RankingSource, row: Row, awards: pl.DataFrame, history: Mapping[str, float],
                  context: Row, words: Mapping[str, str]) -> dict[str, bytes]:
    page = row["href"]
    plot = f"plots/{page.removesuffix('.html')}.svg"
    points = [history.get(label, 0.0) for label in source.labels]
    divisor = source.edition.rules.points_divisor
    files = {f"{RANKING_DIR}/{plot}": history_plot(source.labels, points, ylabel=words["points"],
                                                             xlabel=words["plot_editions"])}
    crumbs = [{"text": words["ranking"], "href": "index.html"}, {"text": row["name"] or row["player_id"], "href": ""}]
    files[f"{RANKING_DIR}/{page}"] = render(
        "player.html", **{**context, "title": f"{row['name'] or row['player_id']} · {words['ranking']}"},
        crumbs=crumbs, player=row, label=source.label, awards=award_rows(awards), plot=plot,
        divisor=f"{divisor:g}" if divisor != 1 else "",
        history=[{"edition": label, "points": fmt(p) if label in history else ""}
                 for label, p in zip(source.labels, points, strict=True)])
    return files


RANKING_WORDS: dict[str, dict[str, str]] = {
    "en": {
        "ranking": "Federation ranking", "edition": "Edition", "previous_edition": "Movement since",
        "player": "Player", "club": "Club", "movement": "Move", "awards": "Awards", "field": "Field",
        "base_award": "Base award", "weight": "Weight", "share": "Share", "decay": "Decay",
        "points_now": "Points now", "history": "Points by published edition", "rules": "Rules",
        "as_of_time": "As of", "not_ranked": "not ranked",
        "divided": "The ranking's points are the awards' points divided by", "no_awards": "No awards in this edition.",
        "move_new": "new", "move_new_label": "new in the ranking", "move_same_label": "same place",
        "move_up_label": "up {n} {places}", "move_down_label": "down {n} {places}",
        "places_one": "place", "places_few": "places", "places_many": "places",
    },
    "pl": {
        "ranking": "Ranking federacji", "edition": "Wydanie", "previous_edition": "Zmiana od wydania",
        "player": "Zawodnik", "club": "Klub", "movement": "Zmiana", "awards": "Punkty za turnieje",
        "field": "Uczestników", "base_award": "Punkty za miejsce", "weight": "Waga", "share": "Udział",
        "decay": "Wygasanie", "points_now": "Punkty teraz", "history": "Punkty w kolejnych wydaniach",
        "rules": "Zasady", "as_of_time": "Stan na", "not_ranked": "poza rankingiem",
        "divided": "Punkty rankingu to punkty za turnieje podzielone przez",
        "no_awards": "Brak punktów w tym wydaniu.",
        "move_new": "nowy", "move_new_label": "nowy w rankingu", "move_same_label": "to samo miejsce",
        "move_up_label": "w górę o {n} {places}", "move_down_label": "w dół o {n} {places}",
        "places_one": "miejsce", "places_few": "miejsca", "places_many": "miejsc",
    },
}
"""The ranking pages' own words per language (the pages take the site's language for the rest)."""


def ranking_words(language: str) -> dict[str, str]:
    """Every word the ranking pages show, for a BCP 47 tag (English when it has none)."""
    return {**labels(language), **RANKING_WORDS.get(language_code(language), RANKING_WORDS["en"])}


def _places(count: int, words: Mapping[str, str]) -> str:
    """`count` and the word for places in its plural form: one, few (Polish 2-4, 22-24, ...), many."""
    if count == 1:
        form = "one"
    elif count % 10 in (2, 3, 4) and count % 100 not in (12, 13, 14):
        form = "few"
    else:
        form = "many"
    return words[f"places_{form}"]
