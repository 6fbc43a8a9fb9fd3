"""Where our standings and the totals and places a file published differ, contestant by contestant.

Readers keep what a file publishes about each contestant (`ContestantRegistered.published`: USEBIO
`TOTAL_SCORE`, `PERCENTAGE`, `PLACE`; PBN `TotalScoreTable` totals, percentages and ranks) as a
reference. This module lines them up against an edition's standings:

- `total` with our score (our cumulative score when the event carries scores over), `percentage`
  with our percentage, `rank` with our place and whether it is shared;
- a file that publishes a session's values beside the event's running ones (Magic Contest's
  `SessionScoreMP`, `SessionPercentage`, `SessionRank`) is compared on the session's values, and on
  its running total only where our edition carries scores over (`cumulative_score`): the running
  percentage and place cover sessions a single file does not hold.

A place is shared when the file says so (`3=`, `=3`, `3-4`) or gives the same place to two
contestants ranked together; ours is shared when our standings mark it tied. Both must agree.
"""

from __future__ import annotations

import polars as pl

from pipelines.log.fields import PayloadField, payload_fields
from pipelines.log.store import EventStore
from pipelines.replay.projections import ScoredEdition

_KEY = ["event_id", "session_id", "section", "contestant_id"]
_PUBLISHED = ("total", "percentage", "rank", "session_total", "session_percentage", "session_rank")
"""The published keys compared (`parsers.records.PublishedValues`)."""

STANDING_DIFF_SCHEMA = {
    "event_id": pl.String, "session_id": pl.String, "section": pl.String, "direction": pl.String,
    "contestant_id": pl.String, "measure": pl.String, "ours": pl.String, "theirs": pl.String,
}
"""One row per published total, percentage or place we do not reproduce; values as text (a place
may be `3=`); `ours` null when our standings have no row for the contestant."""

_TOLERANCE = 0.0051
"""The least tolerance of a total or percentage: files round to two decimals at most."""


def published_standings(store: EventStore, position: int) -> pl.DataFrame:
    """Each contestant's published values as text, one row per registration (the latest wins)."""
    fields = [PayloadField(name, name) for name in ("event_id", "session_id", "section")]
    fields += [PayloadField("theirs_direction", "direction"), PayloadField("contestant_id", "contestant_id"),
               PayloadField("_published", "published"), *[PayloadField(key, f"published.{key}") for key in _PUBLISHED]]
    with store.reader() as con:
        wide = payload_fields(con, ["ContestantRegistered"], fields, where="position <= ?", params=[position])
    wide = wide.filter(pl.col("_published").fill_null("{}") != "{}").drop("position", "stream_id", "type", "_published")
    return wide.unique([*_KEY, "theirs_direction"], keep="last", maintain_order=True)


def standing_differences(store: EventStore, edition: ScoredEdition) -> pl.DataFrame:
    """Every published total, percentage and place our edition does not reproduce."""
    theirs = published_standings(store, edition.position)
    if theirs.is_empty():
        return pl.DataFrame(schema=STANDING_DIFF_SCHEMA)
    ours = edition.standings.select(*_KEY, "direction", "tied", "cumulative_score", rank_ours=pl.col("rank"),
                                    score_ours=pl.col("score"), percentage_ours=pl.col("percentage"))
    joined = theirs.join(ours, on=_KEY, how="left", nulls_equal=True).filter(
        pl.col("direction").is_null() | (pl.col("direction") == "ALL") | pl.col("theirs_direction").is_null()
        | (pl.col("direction") == pl.col("theirs_direction")))
    # A contestant our standings do not hold is still listed, once, with nothing of ours.
    missing = theirs.join(joined.select(*_KEY, "theirs_direction"), on=[*_KEY, "theirs_direction"],
                          how="anti", nulls_equal=True)
    joined = pl.concat([joined, missing], how="diagonal_relaxed")
    rows = pl.concat([_numbers(joined), _places(joined)])
    return rows.filter(pl.col("differs")).select(
        *_KEY[:3], pl.coalesce(pl.col("direction"), pl.col("theirs_direction")).alias("direction"),
        "contestant_id", "measure", "ours", "theirs",
    ).select(list(STANDING_DIFF_SCHEMA)).sort([*_KEY, "measure", "direction", "ours", "theirs"],
                                                 nulls_last=True)  # on every column: one order


def _numbers(joined: pl.DataFrame) -> pl.DataFrame:
    """Totals and percentages: ours within half a unit of the last decimal the file published."""
    session = pl.col("session_total").is_not_null() | pl.col("session_percentage").is_not_null()
    measures = {
        "total": (pl.when(session).then(pl.col("cumulative_score")).otherwise(
            pl.coalesce("cumulative_score", "score_ours")), ~session | pl.col("cumulative_score").is_not_null()),
        "percentage": (pl.col("percentage_ours"), ~session),
        "session_total": (pl.col("score_ours"), pl.lit(True)),
        "session_percentage": (pl.col("percentage_ours"), pl.lit(True)),
    }
    frames = [joined.filter(pl.col(key).is_not_null() & compared).select(
        *_KEY, "direction", "theirs_direction", measure=pl.lit(key), ours_value=ours,
        theirs_value=pl.col(key).cast(pl.Float64, strict=False), theirs=pl.col(key))
        for key, (ours, compared) in measures.items()]
    found = pl.concat(frames)
    differs = pl.col("ours_value").is_null() | pl.col("theirs_value").is_null() | (
        (pl.col("ours_value") - pl.col("theirs_value")).abs() > _tolerance(pl.col("theirs_value")))
    return found.with_columns(differs=differs, ours=pl.col("ours_value").round(2).cast(pl.String),
                              theirs=_shown(pl.col("theirs"))).drop("ours_value", "theirs_value")


def _tolerance(theirs: pl.Expr) -> pl.Expr:
    """Half a unit of the last decimal `theirs` was published to (whole, one or two decimals)."""
    decimals = (pl.when((theirs - theirs.round(0)).abs() < 1e-9).then(0)
                .when((theirs - theirs.round(1)).abs() < 1e-9).then(1).otherwise(2))
    return pl.max_horizontal(0.5 * pl.lit(10.0).pow(-decimals) + 1e-6, pl.lit(_TOLERANCE))


def _places(joined: pl.DataFrame) -> pl.DataFrame:
    """Places: the same number, shared on both sides or on neither."""
    session = pl.col("session_rank").is_not_null()
    frames = [joined.filter(pl.col("rank").is_not_null() & ~session).with_columns(
                  measure=pl.lit("rank"), theirs=pl.col("rank")),
              joined.filter(session).with_columns(measure=pl.lit("session_rank"), theirs=pl.col("session_rank"))]
    found = pl.concat(frames).with_columns(
        place=pl.col("theirs").str.extract(r"(\d+)", 1).cast(pl.Int64, strict=False),
        marked=pl.col("theirs").str.contains(r"=|\d\s*-\s*\d"))
    # Programs that write a shared place as the same number twice (no mark) still share it.
    group: list[pl.Expr] = [pl.col("event_id"), pl.col("session_id"), pl.col("section"), pl.col("measure"),
                            pl.coalesce("direction", "theirs_direction"), pl.col("place")]
    found = found.with_columns(shared=pl.col("marked") | (pl.len().over(group) > 1))
    differs = pl.col("rank_ours").is_null() | (pl.col("rank_ours") != pl.col("place")) | (
        pl.col("tied").fill_null(False) != pl.col("shared"))
    return found.with_columns(
        differs=differs,
        ours=pl.when(pl.col("tied")).then(pl.format("{}=", pl.col("rank_ours"))).otherwise(
            pl.col("rank_ours").cast(pl.String)),
        theirs=pl.when(pl.col("shared") & ~pl.col("marked")).then(pl.format("{} (shared)", _shown(pl.col("theirs"))))
        .otherwise(_shown(pl.col("theirs"))),
    ).select(*_KEY, "direction", "theirs_direction", "measure", "theirs", "differs", "ours")


def _shown(text: pl.Expr) -> pl.Expr:
    """A published value as the file wrote it: a whole number without `.0`."""
    return text.str.replace(r"^(-?\d+)\.0$", "${1}")
