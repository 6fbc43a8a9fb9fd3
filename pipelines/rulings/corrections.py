"""Law 79C and Law 92B as executable policy, evaluated from the events alone.

- `ScoresPublished` at T opens the correction period; it ends at T + period (conditions of
  contest, default 30 minutes, Law 79C1; a session's publication may override it). The boundary
  is exclusive: a request raised exactly at the deadline is late.
- A correction raised before the deadline applies; one raised at or after it is kept and shown as
  rejected, unless a `LateCorrectionApproved` for it exists (Law 79C2).
- A correction raised before the session's (first) publication applies: fixing a score before
  publication is an ordinary fix, and the audit says so, even once the session has been published.
- A director's ruling (artificial or weighted score) requested after publication + the Law 92B
  period is rejected the same way; rulings with no request time (from files) stand. Of the rulings
  that stand for one table, the latest given replaces the earlier ones.
- A session is `provisional` while its period is open at the as-of time, `final` after. A final
  session stays final: a republication after the period names no new period (`decide_publications`).
- A correction recorded after its session became final, but claiming a time before that, is
  back-dated: it applies only when acknowledged (`BackDatedCorrectionAcknowledged`, who and why)
  or approved under Law 79C2. The audit shows both times and the acknowledgement.
- Every other director fact that changes a final session's scores follows the same rule
  (`late_facts`): a ruling (Law 12) recorded after the session became final and after its Law 92B
  period, claiming a request time before both, and a fouled board (Law 87) or a penalty (Laws
  90/91) recorded after the session became final, whatever time it claims, apply only when
  acknowledged by the fact's stream version. A ruling requested after its Law 92B period stays
  rejected: no acknowledgement lets it in. Facts read from files (rulings without a request time)
  are the results themselves, not late director facts.

Every decision depends on `occurred_at` (when things happened) and, for back-dating, on
`recorded_at` (when the log received a request), both facts in the log; never on the order in
which the events were ingested, and never on the wall clock: `as_of` is an argument.
"""

from __future__ import annotations

from collections.abc import Mapping

import polars as pl

from pipelines.base.keyed import join_small

MINUTE_US = 60_000_000
DEFAULT_PERIOD_MINUTES = 30.0
_SESSION = ["event_id", "session_id"]
_TABLE = ["event_id", "session_id", "section", "board", "table_id"]


def periods_frame(periods: Mapping[str, tuple[float, float]]) -> pl.DataFrame:
    """(correction, appeal) minutes per event id, from the conditions of contest."""
    return pl.DataFrame(
        {"event_id": list(periods), "correction_minutes": [p[0] for p in periods.values()],
         "appeal_minutes": [p[1] for p in periods.values()]},
        schema={"event_id": pl.String, "correction_minutes": pl.Float64, "appeal_minutes": pl.Float64},
    )


def decide_publications(publications: pl.DataFrame, periods: pl.DataFrame) -> pl.DataFrame:
    """Each publication with whether the correction period it names applies, and the rule that decided.

    The session's first publication opens the period, for the minutes it names or else the
    conditions of contest's. A later publication (a republication after a correction) may name a
    period only while the session is still provisional, before the deadline of the first: once
    final, a session stays final (Law 79C), and a period named then is kept in the log but not
    applied; only a Law 79C2 approval lets a correction in after the period. Of the periods that
    apply, the first named sets the deadline. A republication must also have been recorded before
    that deadline (`recorded_us`, where `publications` has it): back-dating one does not reopen
    a final session.
    """
    ordered = publications.sort(["occurred_us", "position"]).join(
        periods.select("event_id", "correction_minutes"), on="event_id", how="left", maintain_order="left")
    first = pl.int_range(pl.len()).over(_SESSION) == 0
    base_minutes = pl.coalesce(pl.col("correction_period_minutes").first(), pl.col("correction_minutes").first(),
                               pl.lit(DEFAULT_PERIOD_MINUTES)).over(_SESSION)
    base_deadline = pl.col("occurred_us").first().over(_SESSION) + (base_minutes * MINUTE_US).cast(pl.Int64)
    named = pl.col("correction_period_minutes").is_not_null()
    # Claimed and recorded before the deadline: a republication typed once the session was final,
    # claiming an earlier time, names no period either (`recorded_us`, where given).
    recorded = pl.col("recorded_us") if "recorded_us" in publications.columns else pl.lit(None, pl.Int64)
    in_time = first | ((pl.col("occurred_us") < base_deadline) & (recorded < base_deadline).fill_null(True))
    return ordered.with_columns(
        first_publication=first,
        period_applies=pl.when(named).then(in_time),
        rule=pl.when(first).then(pl.lit("first publication: opens the Law 79C1 correction period"))
        .when(in_time).then(pl.lit("republished while provisional"))
        .otherwise(pl.lit("republished after the correction period ended: the session stays final "
                          "(Law 79C); a period named now is not applied")),
    ).drop("correction_minutes")


def session_windows(publications: pl.DataFrame, periods: pl.DataFrame, as_of_us: int) -> pl.DataFrame:
    """Per published session: when it was published, its deadlines, and its status at `as_of_us`.

    The earliest publication opens the period (a republication after a correction does not
    reopen it); a publication that names its own period overrides the conditions of contest, when
    it is the first or came while the session was provisional (`decide_publications`).
    """
    first = (
        decide_publications(publications, periods)
        .group_by(_SESSION, maintain_order=True)
        .agg(published_us=pl.col("occurred_us").first(),
             override_minutes=pl.col("correction_period_minutes").filter(pl.col("period_applies")).first())
    )
    return (
        first.join(periods, on="event_id", how="left")
        .with_columns(
            correction_minutes=pl.coalesce("override_minutes", "correction_minutes",
                                           pl.lit(DEFAULT_PERIOD_MINUTES)),
            appeal_minutes=pl.col("appeal_minutes").fill_null(DEFAULT_PERIOD_MINUTES),
        )
        .with_columns(
            deadline_us=pl.col("published_us") + (pl.col("correction_minutes") * MINUTE_US).cast(pl.Int64),
            appeal_deadline_us=pl.col("published_us") + (pl.col("appeal_minutes") * MINUTE_US).cast(pl.Int64),
        )
        .with_columns(status=pl.when(pl.lit(as_of_us) >= pl.col("deadline_us")).then(pl.lit("final"))
                      .otherwise(pl.lit("provisional")))
        .select(*_SESSION, "published_us", "correction_minutes", "deadline_us", "appeal_minutes",
                "appeal_deadline_us", "status")
    )


BACK_DATED_RULE = ("back-dated: claims a time before the session became final but was recorded after; "
                   "not applied without an acknowledgement (bridgeledger acknowledge-back-dated)")


def decide_corrections(corrections: pl.DataFrame, windows: pl.DataFrame, approvals: pl.DataFrame,
                       acknowledgements: pl.DataFrame | None = None) -> pl.DataFrame:
    """Each correction request with its window, decision and the rule that decided it.

    `corrections` may carry `recorded_us` (when the log received each request). A request
    recorded once its session was final but claiming a time before that (inside the period, or
    before publication) is back-dated: it applies only with a `BackDatedCorrectionAcknowledged`
    (`acknowledgements`) or a Law 79C2 approval. `awaiting` says what a request not applied
    waits for: a Law 79C2 approval, or an acknowledgement of its back-dating; `acknowledged_by` and
    `acknowledgement` who let a back-dated request in, and why. `rule` is one of a fixed set of texts.
    """
    approved = approvals.select("correction_id", approved_by=pl.col("organiser"),
                                director=pl.col("director"), statement=pl.col("statement")).unique(
        "correction_id", keep="first", maintain_order=True)
    framed = _with_acknowledgements(corrections, acknowledgements).join(
        windows.select(*_SESSION, "published_us", "deadline_us"), on=_SESSION, how="left",
        maintain_order="left").join(approved, on="correction_id", how="left", maintain_order="left")
    # Raised before the official score was available (whether or not it has been published since):
    # an ordinary fix, which Law 79C does not govern.
    unpublished = pl.col("published_us").is_null() | (pl.col("occurred_us") < pl.col("published_us"))
    inside = pl.col("occurred_us") < pl.col("deadline_us")
    late_approved = pl.col("approved_by").is_not_null()
    # When the log received it is a fact of the log, like the time it claims: never the wall clock.
    # One claiming a time after the period is a late correction (Law 79C2), not a back-dated one.
    _, back_dated = entered_late(claimed=pl.col("occurred_us"), reference=pl.col("deadline_us"))
    held = back_dated & pl.col("acknowledged_by").is_null() & ~late_approved
    applied = (unpublished | inside | late_approved) & ~held
    return framed.with_columns(
        window=pl.when(unpublished).then(pl.lit("before publication"))
        .when(inside).then(pl.lit("inside correction period"))
        .otherwise(pl.lit("after correction period")),
        applied=applied,
        back_dated=back_dated,
        awaiting=pl.when(applied).then(pl.lit(None, pl.String)).when(held).then(pl.lit("acknowledgement"))
        .otherwise(pl.lit("Law 79C2 approval")),
        rule=pl.when(held).then(pl.lit(BACK_DATED_RULE))
        .when(back_dated & late_approved).then(pl.lit("Law 79C2: late correction approved by the organiser"))
        .when(unpublished).then(pl.lit("ordinary fix before publication"))
        .when(inside).then(pl.lit("Law 79C1: raised within the correction period"))
        .when(late_approved).then(pl.lit("Law 79C2: late correction approved by the organiser"))
        .otherwise(pl.lit("Law 79C1: correction period had expired; no Law 79C2 approval")),
    )


def _with_acknowledgements(corrections: pl.DataFrame, acknowledgements: pl.DataFrame | None) -> pl.DataFrame:
    """The requests with `recorded_us` (null when not given) and who acknowledged each back-dating, why."""
    if "recorded_us" not in corrections.columns:
        corrections = corrections.with_columns(recorded_us=pl.lit(None, pl.Int64))
    if acknowledgements is None or acknowledgements.is_empty():
        return corrections.with_columns(acknowledged_by=pl.lit(None, pl.String),
                                        acknowledgement=pl.lit(None, pl.String))
    # An acknowledgement of another fact names no correction (`fact_version` instead).
    named = acknowledgements.filter(pl.col("correction_id").is_not_null())
    first = named.sort("position").unique("correction_id", keep="first", maintain_order=True).select(
        "correction_id", "acknowledged_by", acknowledgement=pl.col("reason"))
    return corrections.join(first, on="correction_id", how="left", maintain_order="left")


def decide_rulings(rulings: pl.DataFrame, windows: pl.DataFrame,
                   acknowledgements: pl.DataFrame | None = None) -> pl.DataFrame:
    """Director's rulings with their Law 92B window and whether they stand.

    A ruling that Law 92B lets stand but that was typed late (`late_facts`: its request time is
    claimed before the session became final and its period ended, but it was recorded after both)
    stands only once acknowledged; a ruling held so does not supersede an earlier one. Each row
    keeps the session's `deadline_us` beside its `appeal_deadline_us`: the later one is when a
    ruling typed since is late.
    """
    framed = rulings.join(windows.select(*_SESSION, "published_us", "deadline_us", "appeal_deadline_us"),
                          on=_SESSION, how="left", maintain_order="left")
    no_request_time = pl.col("requested_us").is_null()
    unpublished = pl.col("published_us").is_null() | (pl.col("requested_us") < pl.col("published_us"))
    inside = pl.col("requested_us") < pl.col("appeal_deadline_us")
    decided = framed.with_columns(
        window=pl.when(no_request_time).then(pl.lit("recorded with the results"))
        .when(unpublished).then(pl.lit("before publication"))
        .when(inside).then(pl.lit("inside ruling period"))
        .otherwise(pl.lit("after ruling period")),
        applied=no_request_time | unpublished | inside,
        rule=pl.when(no_request_time).then(pl.lit("adjusted score recorded with the results"))
        .when(unpublished).then(pl.lit("ruling before publication: stands"))
        .when(inside).then(pl.lit("Law 92B: ruling requested within the period"))
        .otherwise(pl.lit("Law 92B: period for requesting a ruling had expired")),
    )
    # The later of the two: while either period is open, the request could have been typed honestly.
    reference = pl.max_horizontal("deadline_us", "appeal_deadline_us")
    held = late_facts(decided, acknowledgements, claimed=pl.col("requested_us"), reference=reference,
                      director_fact=pl.col("requested_us").is_not_null() & pl.col("applied"))
    return _latest_ruling_stands(held)


def _latest_ruling_stands(decided: pl.DataFrame) -> pl.DataFrame:
    """A table has one adjusted score: of the rulings that stand for it (an artificial score and a
    weighted one, say), the latest given replaces the earlier ones."""
    standing = (
        decided.filter(pl.col("applied")).sort(["occurred_us", "position"])
        .unique(_TABLE, keep="last", maintain_order=True).select("position", _latest=pl.lit(True))
    )
    superseded = pl.col("applied") & pl.col("_latest").is_null()
    return decided.join(standing, on="position", how="left", maintain_order="left").with_columns(
        applied=pl.col("applied") & ~superseded,
        rule=pl.when(superseded).then(pl.lit("superseded by a later ruling for the same table"))
        .otherwise(pl.col("rule")),
    ).drop("_latest")


BACK_DATED_FACT_RULE = ("back-dated: claims a time before the session became final (Law 79C) but was recorded "
                        "after; not applied without an acknowledgement (bridgeledger acknowledge-back-dated "
                        "--position)")
LATE_FACT_RULE = ("recorded after the session became final (Law 79C): not applied without an acknowledgement "
                  "(bridgeledger acknowledge-back-dated --position)")
ACKNOWLEDGED_RULE = "entered after the session became final; acknowledged"
IN_TIME_RULE = "recorded before the session became final"
UNPUBLISHED_RULE = "recorded before the session was published"


def decide_late_facts(facts: pl.DataFrame, windows: pl.DataFrame,
                      acknowledgements: pl.DataFrame | None = None) -> pl.DataFrame:
    """Fouled boards (Law 87) and penalties (Laws 90/91), each with whether it applies and why.

    Neither has a period of its own in the Laws; both change a session's scores, so once the
    session is final (Law 79C) one recorded after that applies only when acknowledged, whether it
    claims an earlier time (back-dated) or not. `facts` carries `position`, the session keys,
    `occurred_us`, `recorded_us` and `stream_version` (the fact's version in its session's stream,
    which an acknowledgement names).
    """
    framed = facts.join(windows.select(*_SESSION, "deadline_us"), on=_SESSION, how="left", maintain_order="left")
    decided = late_facts(framed.with_columns(applied=pl.lit(True)), acknowledgements,
                         claimed=pl.col("occurred_us"), reference=pl.col("deadline_us"), director_fact=pl.lit(True))
    return decided.with_columns(
        rule=pl.when(pl.col("awaiting").is_not_null()).then(pl.col("rule"))
        .when(pl.col("acknowledged_by").is_not_null()).then(pl.lit(ACKNOWLEDGED_RULE))
        .when(pl.col("deadline_us").is_null()).then(pl.lit(UNPUBLISHED_RULE))
        .otherwise(pl.lit(IN_TIME_RULE)))


def entered_late(*, claimed: pl.Expr, reference: pl.Expr) -> tuple[pl.Expr, pl.Expr]:
    """(late, back-dated): recorded (`recorded_us`) at or after `reference`, the moment from which
    the session's scores stand (its finality, or a later period's end); and so recorded while
    claiming a time before it. False where either is unknown (an unpublished session). The one
    test of lateness for corrections and every other director fact."""
    late = (pl.col("recorded_us") >= reference).fill_null(False)
    return late, late & (claimed < reference).fill_null(False)


def late_facts(framed: pl.DataFrame, acknowledgements: pl.DataFrame | None, *, claimed: pl.Expr,
               reference: pl.Expr, director_fact: pl.Expr) -> pl.DataFrame:
    """The one rule for a director fact typed once its session is final, over `framed` (which has
    `applied`, `rule`, `recorded_us`, `stream_version` and the session keys).

    A fact that `director_fact` marks and that was recorded at or after `reference` (the end of the
    session's correction period, or a later period that governs the fact) is late: it stays in the
    log but does not apply until acknowledged. It is `back_dated` when it claims a time before
    `reference`. `awaiting` is "acknowledgement" for a late fact not let in; `acknowledged_by` and
    `acknowledgement` say who let it in, and why.
    """
    if "rule" not in framed.columns:
        framed = framed.with_columns(rule=pl.lit(None, pl.String))
    for column in ("recorded_us", "stream_version"):  # not given: no fact is late
        if column not in framed.columns:
            framed = framed.with_columns(pl.lit(None, pl.Int64).alias(column))
    acknowledged = _fact_acknowledgements(framed, acknowledgements)
    late, back_dated = entered_late(claimed=claimed, reference=reference)
    late = late & director_fact.fill_null(False)
    back_dated = back_dated & late
    held = late & pl.col("acknowledged_by").is_null()
    return acknowledged.with_columns(
        late=late, back_dated=back_dated,
        awaiting=pl.when(held).then(pl.lit("acknowledgement")).otherwise(pl.lit(None, pl.String)),
        rule=pl.when(held & back_dated).then(pl.lit(BACK_DATED_FACT_RULE))
        .when(held).then(pl.lit(LATE_FACT_RULE)).otherwise(pl.col("rule")),
        applied=pl.col("applied") & ~held,
    )


def _fact_acknowledgements(framed: pl.DataFrame, acknowledgements: pl.DataFrame | None) -> pl.DataFrame:
    """`framed` with who acknowledged each fact (by its session and stream version), and why."""
    none = framed.with_columns(acknowledged_by=pl.lit(None, pl.String), acknowledgement=pl.lit(None, pl.String))
    if acknowledgements is None or acknowledgements.is_empty() or "fact_version" not in acknowledgements.columns:
        return none
    by_fact = acknowledgements.filter(pl.col("fact_version").is_not_null()).sort("position").unique(
        [*_SESSION, "fact_version"], keep="first", maintain_order=True).select(
        *_SESSION, stream_version=pl.col("fact_version").cast(pl.Int64), acknowledged_by=pl.col("acknowledged_by"),
        acknowledgement=pl.col("reason"))
    if by_fact.is_empty():
        return none
    return framed.join(by_fact, on=[*_SESSION, "stream_version"], how="left", maintain_order="left")


def apply_corrections(results: pl.DataFrame, decided: pl.DataFrame) -> pl.DataFrame:
    """Results with every applied correction in place (the latest raised wins for a table)."""
    latest = (
        decided.filter(pl.col("applied"))
        .sort(["occurred_us", "position"])
        .unique(_TABLE, keep="last", maintain_order=True)
        .select(*_TABLE, new_contract=pl.col("contract"), new_declarer=pl.col("declarer"),
                new_tricks=pl.col("tricks"), correction_id=pl.col("correction_id"))
    )
    if latest.is_empty():  # the usual case: nothing to rewrite, so no column is copied
        return results.with_columns(correction_id=pl.lit(None, dtype=pl.String))
    merged = join_small(results, latest, _TABLE)
    corrected = pl.col("correction_id").is_not_null()
    passed = pl.col("new_contract") == "PASS"
    return merged.with_columns(
        contract=pl.when(corrected).then(pl.coalesce("new_contract", "contract")).otherwise("contract"),
        declarer=pl.when(corrected & passed).then(pl.lit(None, pl.String))
        .when(corrected).then(pl.coalesce("new_declarer", "declarer")).otherwise("declarer"),
        tricks=pl.when(corrected & passed).then(pl.lit(None, pl.Int64))
        .when(corrected).then(pl.coalesce("new_tricks", "tricks")).otherwise("tricks"),
    ).drop("new_contract", "new_declarer", "new_tricks")
