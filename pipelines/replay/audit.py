"""The audit report: every correction, ruling, fouled board and penalty of a session, before and
after, and why; a fact entered after the session became final shows whether it was back-dated,
and who acknowledged it.

Before = the table as recorded, scored without any correction; after = the table as it stands in
the edition. Rejected requests show what was asked and leave the score unchanged.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import polars as pl
from jinja2 import Environment, select_autoescape

from pipelines.base.neutralise import safe_file_name, spreadsheet_safe
from pipelines.log.reads import recorded_times_of_types
from pipelines.log.store import EventStore
from pipelines.replay.audit_before import before_key
from pipelines.replay.projections import ScoredEdition, score_results

_TABLE = ["event_id", "session_id", "section", "board", "table_id"]
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)

AUDIT_COLUMNS = [
    "kind", "id", "event_id", "session_id", "section", "board", "table_id", "raised_at", "recorded_at",
    "back_dated", "requested_by",
    "reason", "window", "decision", "rule", "before_contract", "before_declarer", "before_tricks",
    "before_score_ns", "before_mp_ns", "before_imp_ns", "asked", "after_contract", "after_declarer",
    "after_tricks", "after_score_ns", "after_mp_ns", "after_imp_ns", "published_at", "deadline",
]

_TEMPLATE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Audit: {{ event_id }} / {{ session_id }}</title>
<style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}td,th{border:1px solid #bbb;
padding:.25em .5em;font-size:90%}.rejected{background:#fdecea}.applied{background:#eaf7ea}</style></head>
<body><h1>Audit report: {{ event_id }} / session {{ session_id }}</h1>
<p>Published: {{ published_at or "not published" }}. Correction period ends: {{ deadline or "-" }}.
Status as of {{ as_of }}: <strong>{{ status }}</strong>. Log position {{ position }}.</p>
{% if rows %}<table><tr>{% for c in columns %}<th>{{ c }}</th>{% endfor %}</tr>
{% for r in rows %}<tr class="{{ r.decision }}">{% for c in columns %}<td>{{ r[c] if r[c] is not none else "" }}</td>
{% endfor %}</tr>{% endfor %}</table>{% else %}<p>No corrections or rulings.</p>{% endif %}
{% if left_out %}<h2>Events left out of replay</h2><p>The log holds these events, but they cannot be used
as recorded; scores are computed without them.</p><ul>{% for e in left_out %}<li>position {{ e.position }}
({{ e.type }}): {{ e.reason }}</li>{% endfor %}</ul>{% endif %}
</body></html>
"""


@dataclass(frozen=True)
class AuditReport:
    """The audit rows of one session, and where they were written."""

    rows: pl.DataFrame
    csv_path: Path
    html_path: Path

    @property
    def csv_name(self) -> str:
        """File name of the CSV report."""
        return self.csv_path.name

    @property
    def html_name(self) -> str:
        """File name of the HTML report."""
        return self.html_path.name


def iso(micros: int | None) -> str | None:
    """An epoch-microsecond time as ISO 8601 UTC."""
    return None if micros is None else (_EPOCH + timedelta(microseconds=micros)).isoformat()


def recorded_times(store: EventStore) -> pl.DataFrame:
    """When the log received each correction request, ruling, fouled board and penalty (position, recorded_us).

    Replay never reads `recorded_at`; only the audit shows it beside the time each one claims.
    """
    if not store.exists():
        return pl.DataFrame(schema=_RECORDED_SCHEMA)
    with store.reader() as con:
        return recorded_times_of_types(con, _RECORDED_TYPES)


Remember = Callable[[str, Callable[[], pl.DataFrame]], pl.DataFrame]
"""Given a key of the inputs and a way to score them, the scores (kept ones, or freshly scored)."""


def audit_rows(edition: ScoredEdition, event_id: str, session_id: str,
               recorded: pl.DataFrame | None = None, *, remember: Remember | None = None) -> pl.DataFrame:
    """One row per correction request and per ruling in the session.

    With `recorded` (`recorded_times`), each row also shows when the log received it, and
    `back_dated` flags a claim older than the period it asks to fall in: raised (as claimed)
    before the period ended, but recorded only after. With `remember` (`pipelines.replay.audit_before`),
    the "before" scores are looked up by what they are computed from, and scored only when new.
    """
    projection = edition.projection
    in_session = (pl.col("event_id") == event_id) & (pl.col("session_id") == session_id)
    # A session's board scores are its own tables' alone, so only its results are scored again.
    original = projection.original_results.filter(in_session)
    inputs = _rulings_only(original, projection).filter(in_session)

    def score() -> pl.DataFrame:
        return score_results(projection, inputs)[0].select(*_TABLE, "mp_ns", "imp_ns")

    if remember is None:
        before_scores = score()
    else:
        key = before_key(inputs, projection.sessions.filter(in_session),
                         {k: v for k, v in projection.conditions.items() if k == event_id},
                         projection.penalties.filter(in_session))
        before_scores = remember(key, score)
    before = _table_view(original, before_scores, "before")
    after = _table_view(edition.projection.results.filter(in_session), edition.board_scores, "after")
    corrections = _correction_rows(projection.corrections.filter(in_session)) \
        if projection.corrections.height else None
    rulings = _ruling_rows(projection.rulings.filter(in_session)) if projection.rulings.height else None
    late = _late_fact_rows(projection.late_facts.filter(in_session)) if projection.late_facts.height else None
    parts = [p for p in (corrections, rulings, late) if p is not None and p.height]
    if not parts:
        return pl.DataFrame(schema={c: pl.String for c in AUDIT_COLUMNS})
    rows = _with_recorded(pl.concat(parts, how="diagonal_relaxed"), recorded).join(
        before, on=_TABLE, how="left").join(after, on=_TABLE, how="left")
    windows = projection.windows.filter(in_session)
    published = windows["published_us"][0] if windows.height else None
    deadline = windows["deadline_us"][0] if windows.height else None
    return rows.with_columns(published_at=pl.lit(iso(published)), deadline=pl.lit(iso(deadline))).select(
        [pl.col(c) if c in rows.columns or c in ("published_at", "deadline") else pl.lit(None).alias(c)
         for c in AUDIT_COLUMNS]).sort(["raised_at", "id"])


_RECORDED_SCHEMA = {"position": pl.Int64, "recorded_us": pl.Int64}
_RECORDED_TYPES = ("ScoreCorrectionRequested", "ArtificialScoreAwarded", "WeightedScoreAwarded", "BoardFouled",
                   "PenaltyAwarded")
"""The facts the audit shows with the time the log received them."""


def _with_recorded(rows: pl.DataFrame, recorded: pl.DataFrame | None) -> pl.DataFrame:
    received = recorded if recorded is not None else pl.DataFrame(schema=_RECORDED_SCHEMA)
    joined = rows.join(received, on="position", how="left")
    late = (pl.col("claimed_us") < pl.col("period_end_us")) & (pl.col("recorded_us") >= pl.col("period_end_us"))
    acknowledged = pl.lit("; acknowledged by ") + pl.col("acknowledged_by") + pl.lit(": ") + pl.col("acknowledgement")
    for column in ("acknowledged_by", "acknowledgement"):  # none from a policy frame that predates them
        if column not in joined.columns:
            joined = joined.with_columns(pl.lit(None, pl.String).alias(column))
    # A fouled board or penalty recorded after the session became final, claiming a time after it too.
    entered_late = pl.col("entered_late").fill_null(False) if "entered_late" in joined.columns else pl.lit(False)
    return joined.with_columns(
        recorded_at=_iso_expr("recorded_us"),
        back_dated=pl.when(late.fill_null(False)).then(
            pl.lit("yes: claims a time inside the period but was recorded after it ended ")
            + _iso_expr("period_end_us") + acknowledged.fill_null(pl.lit("")))
        .when(entered_late).then(pl.lit("no, but recorded after the session became final ")
                                 + _iso_expr("period_end_us") + acknowledged.fill_null(pl.lit("")))
        .otherwise(pl.lit("")),
    )


def _rulings_only(original: pl.DataFrame, projection: object) -> pl.DataFrame:
    # "Before" keeps the rulings that stand so that only the corrections differ.
    from pipelines.replay.frames import Projection

    assert isinstance(projection, Projection)
    artificial = projection.results.filter(pl.col("kind") == "artificial")
    keys = artificial.select(_TABLE)
    return pl.concat([original.join(keys, on=_TABLE, how="anti"), artificial], how="vertical_relaxed")


def _table_view(results: pl.DataFrame, scores: pl.DataFrame, prefix: str) -> pl.DataFrame:
    joined = results.select(*_TABLE, "contract", "declarer", "tricks", "score_ns").join(
        scores.select(*_TABLE, "mp_ns", "imp_ns"), on=_TABLE, how="left")
    return joined.rename({c: f"{prefix}_{c}" for c in ("contract", "declarer", "tricks", "score_ns",
                                                          "mp_ns", "imp_ns")})


def _correction_rows(decided: pl.DataFrame) -> pl.DataFrame:
    asked = pl.concat_str([pl.col("contract").fill_null(""), pl.col("declarer").fill_null(""),
                           pl.lit(" tricks "), pl.col("tricks").cast(pl.String).fill_null("-")])
    return decided.select(
        pl.lit("correction").alias("kind"), pl.col("correction_id").alias("id"), *_TABLE,
        _iso_expr("occurred_us").alias("raised_at"), "position", pl.col("occurred_us").alias("claimed_us"),
        pl.col("deadline_us").alias("period_end_us"),
        "requested_by", "reason", "window",
        _decision(decided), "rule", asked.alias("asked"), *_acknowledgement_columns(decided),
    )


def _decision(decided: pl.DataFrame) -> pl.Expr:
    """applied, awaiting acknowledgement (a late fact the policy holds back) or rejected."""
    awaiting = pl.col("awaiting") == "acknowledgement" if "awaiting" in decided.columns else pl.lit(False)
    return (pl.when(pl.col("applied")).then(pl.lit("applied"))
            .when(awaiting.fill_null(False)).then(pl.lit("awaiting acknowledgement"))
            .otherwise(pl.lit("rejected")).alias("decision"))


def _acknowledgement_columns(decided: pl.DataFrame) -> list[pl.Expr]:
    """Who let a back-dated request in, and why (none from a policy frame that predates them)."""
    return [pl.col(c) if c in decided.columns else pl.lit(None, pl.String).alias(c)
            for c in ("acknowledged_by", "acknowledgement")]


def _ruling_rows(decided: pl.DataFrame) -> pl.DataFrame:
    asked = pl.when(pl.col("kind") == "weighted").then(pl.lit("weighted score (Law 12C1)")).otherwise(
        pl.concat_str([pl.lit("NS "), pl.col("ns_award"), pl.lit(" / EW "), pl.col("ew_award")]))
    return decided.filter(pl.col("requested_us").is_not_null()).select(
        pl.lit("ruling").alias("kind"), pl.col("position").cast(pl.String).alias("id"), *_TABLE,
        _iso_expr("requested_us").alias("raised_at"), "position", pl.col("requested_us").alias("claimed_us"),
        _ruling_period_end(decided).alias("period_end_us"),
        pl.col("director").alias("requested_by"), "reason", "window",
        _decision(decided), "rule", asked.alias("asked"), *_acknowledgement_columns(decided),
    )


def _ruling_period_end(decided: pl.DataFrame) -> pl.Expr:
    """Until when a ruling typed is not late: the later of its Law 92B period's end and the
    session's finality (`pipelines.rulings.corrections.decide_rulings`; a policy frame from before it kept
    the finality has the 92B period alone)."""
    if "deadline_us" not in decided.columns:
        return pl.col("appeal_deadline_us")
    return pl.max_horizontal("appeal_deadline_us", "deadline_us")


def _late_fact_rows(decided: pl.DataFrame) -> pl.DataFrame:
    """Fouled boards and penalties: neither has a period of its own; each is judged against the
    session's becoming final (`pipelines.rulings.corrections.decide_late_facts`)."""
    return decided.select(
        pl.when(pl.col("kind") == "BoardFouled").then(pl.lit("fouled board")).otherwise(pl.lit("penalty"))
        .alias("kind"), pl.col("position").cast(pl.String).alias("id"), "event_id", "session_id", "section",
        "board", pl.lit(None, pl.String).alias("table_id"), _iso_expr("occurred_us").alias("raised_at"), "position",
        pl.col("occurred_us").alias("claimed_us"), pl.col("deadline_us").alias("period_end_us"),
        (pl.col("late") & ~pl.col("back_dated")).alias("entered_late"), "reason",
        pl.lit(None, pl.String).alias("window"), _decision(decided), "rule", "asked",
        *_acknowledgement_columns(decided),
    )


def _of_session(left_out: pl.DataFrame | None, event_id: str, session_id: str) -> list[dict[str, object]]:
    if left_out is None or left_out.is_empty():
        return []
    mine = left_out.filter((pl.col("event_id").is_null() | (pl.col("event_id") == event_id))
                           & (pl.col("session_id").is_null() | (pl.col("session_id") == session_id)))
    return mine.to_dicts()


def _iso_expr(column: str) -> pl.Expr:
    return pl.col(column).cast(pl.Datetime("us", "UTC")).dt.to_string("%Y-%m-%dT%H:%M:%S%z")


def write_audit(edition: ScoredEdition, event_id: str, session_id: str, outdir: str | Path, *,
                recorded: pl.DataFrame | None = None, left_out: pl.DataFrame | None = None) -> AuditReport:
    """Write audit_<event>_<session>.csv and .html; return the rows and the paths.

    `recorded`: see `audit_rows`. `left_out`: events replay could not use (`pipelines.log.vetting`);
    those of this session (or of none) are listed in the HTML report.
    """
    rows = audit_rows(edition, event_id, session_id, recorded)
    out = Path(outdir)
    out.mkdir(parents=True, exist_ok=True)
    stem = f"audit_{safe_file_name(event_id)}_{safe_file_name(session_id)}"
    csv_path, html_path = out / f"{stem}.csv", out / f"{stem}.html"
    spreadsheet_safe(rows).write_csv(csv_path, float_precision=2)
    windows = edition.projection.windows.filter(
        (pl.col("event_id") == event_id) & (pl.col("session_id") == session_id))
    env = Environment(autoescape=select_autoescape(default=True, default_for_string=True))
    html = env.from_string(_TEMPLATE).render(
        event_id=event_id, session_id=session_id, columns=AUDIT_COLUMNS, rows=rows.to_dicts(),
        published_at=iso(windows["published_us"][0]) if windows.height else None,
        deadline=iso(windows["deadline_us"][0]) if windows.height else None,
        status=windows["status"][0] if windows.height else "provisional",
        as_of=iso(edition.as_of_us), position=edition.position,
        left_out=_of_session(left_out, event_id, session_id),
    )
    html_path.write_text(html, encoding="utf-8")
    return AuditReport(rows, csv_path, html_path)
