"""Vetting: the stored events replay cannot use are reported and left out, never a crash.

The log keeps whatever was appended, and an event appended by older code, by a bug, or by hand
through a writable connection may hold values no session can be scored with: a correction period
of 10^12 minutes, a board numbered -5, an award of 150 %, a penalty of 1e308 in an unknown unit, a
time in the year 9999. Such an event must not break every `score` and `audit` of the whole store.
Replay passes each event type's frame through `vetted` (its one hook, in `pipelines.replay.frames`):
rows that fail a check are dropped from that replay, and reported (position, type, why) to
whoever is collecting (`collecting`), so that `score` and `audit` show them.

The checks are pure polars expressions over the frames replay reads; they use the same bounds as
the event catalogue (`models.events`), so anything the catalogue accepts passes.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, get_args

import orjson
import polars as pl

from models.awards import AWARD_SPELLINGS, MAX_AWARD
from models.events import EARLIEST, LATEST, MAX_PENALTY, MAX_PERIOD_MINUTES, PenaltyAwarded
from parsers.numbers import MAX_WHOLE

log = logging.getLogger(__name__)

_PENALTY_UNITS: tuple[str, ...] = get_args(PenaltyAwarded.model_fields["unit"].annotation)
"""The units a penalty may be given in: the event model's, the one list."""

_EPOCH_US = 1_000_000
EARLIEST_US = int(EARLIEST.timestamp()) * _EPOCH_US
LATEST_US = int(LATEST.timestamp()) * _EPOCH_US

LEFT_OUT_SCHEMA = {"position": pl.Int64, "type": pl.String, "event_id": pl.String, "session_id": pl.String,
                   "reason": pl.String}
"""What is reported of each event left out."""

CONTRACTS = ["PASS", *(f"{level}{strain}{doubling}" for level in range(1, 8) for strain in ("C", "D", "H", "S", "NT")
                       for doubling in ("", "X", "XX"))]
"""Every contract as the log writes it."""

_IDS = ("event_id", "session_id", "table_id", "contestant_id", "correction_id")
_TIMES = ("occurred_us", "requested_at")


UNREADABLE_TIME_US = -(2**63) + 1
"""What a stored time that is not one becomes in replay's frames: far outside any bound, so that
vetting leaves its event out (`unreadable_time_sql`)."""


def unreadable_time_sql(field: str) -> str:
    """SQL for a payload's ISO time `field` in epoch microseconds: NULL when absent, and
    `UNREADABLE_TIME_US` when it is no time DuckDB can read (`garbage`, the year 294276), instead
    of an error that would stop the whole replay."""
    return (f"CASE WHEN {field} IS NULL THEN NULL"
            f" ELSE coalesce(epoch_us(TRY_CAST({field} AS TIMESTAMPTZ)), {UNREADABLE_TIME_US}) END")


def _outside(column: str, low: float, high: float, *, floating: bool = False) -> pl.Expr:
    """A value present and not in [low, high] (NaN included, for a float column)."""
    value = pl.col(column)
    beyond = ~value.is_between(low, high)
    return (beyond | value.is_nan() if floating else beyond).fill_null(False)


def _checks(frame: pl.DataFrame) -> list[tuple[pl.Expr, pl.Expr]]:
    """(row fails, why) for each check that applies to `frame`'s columns."""
    columns = set(frame.columns)
    checks: list[tuple[pl.Expr, pl.Expr]] = []
    for name in _IDS:
        if name in columns:
            empty = pl.col(name).str.len_bytes().fill_null(0) == 0
            if name == "correction_id" and "fact_version" in columns:  # an acknowledgement names one or the other
                checks.append((empty & pl.col("fact_version").is_null(),
                               pl.lit("names no fact: correction_id is empty and fact_version is not given")))
                continue
            checks.append((empty, pl.lit(f"{name} is empty")))
    if "fact_version" in columns:
        checks.append((_outside("fact_version", 1, MAX_WHOLE), pl.lit("fact_version is not a stream version")))
    for name in _TIMES:
        if name in columns:
            checks.append((_outside(name, EARLIEST_US, LATEST_US - 1),
                           pl.lit(f"{name.removesuffix('_us')} is no time within {EARLIEST.year}-{LATEST.year - 1}")))
    if "board" in columns:
        checks.append((pl.col("board").is_null() | _outside("board", 1, MAX_WHOLE),
                       pl.format("board {} is not a number from 1 to {}", pl.col("board"), pl.lit(MAX_WHOLE))))
    if "contract" in columns:
        checks.append((~pl.col("contract").is_in(CONTRACTS).fill_null(True),
                       pl.format("contract {} is not a bid (1C to 7NTXX) or PASS", pl.col("contract"))))
    if "declarer" in columns:
        checks.append((~pl.col("declarer").is_in(["N", "E", "S", "W"]).fill_null(True),
                       pl.format("declarer {} is not N, E, S or W", pl.col("declarer"))))
    if "tricks" in columns:
        checks.append((_outside("tricks", 0, 13), pl.format("{} tricks is not 0 to 13", pl.col("tricks"))))
    if "correction_period_minutes" in columns:
        checks.append((_outside("correction_period_minutes", 0, MAX_PERIOD_MINUTES, floating=True),
                       pl.format("a correction period of {} minutes is outside 0-{}",
                                 pl.col("correction_period_minutes"), pl.lit(MAX_PERIOD_MINUTES))))
    for side in ("ns_award", "ew_award"):
        if side in columns:
            checks.append((~_award_ok(pl.col(side)), pl.format("{} {} is not A+, A, A- or a number within ±{}",
                                                               pl.lit(side), pl.col(side), pl.lit(MAX_AWARD))))
    if "amount" in columns:
        checks.append((pl.col("amount").is_null() | _outside("amount", 1e-9, MAX_PENALTY, floating=True),
                       pl.format("a penalty of {} is not above 0 and at most {}", pl.col("amount"),
                                 pl.lit(MAX_PENALTY))))
    if "unit" in columns:
        checks.append((~pl.col("unit").is_in(list(_PENALTY_UNITS)).fill_null(False),
                       pl.format(f"unit {{}} is not {', '.join(_PENALTY_UNITS)}", pl.col("unit"))))
    for side in ("ns_components", "ew_components"):
        if side in columns:
            weights = pl.col(side).list.eval(pl.element().struct.field("weight"))
            bad = weights.list.eval(pl.element().is_null() | pl.element().is_nan() | (pl.element() <= 0)
                                    | (pl.element() > 1)).list.any().fill_null(False)
            tricks = pl.col(side).list.eval(pl.element().struct.field("tricks"))
            bad = bad | tricks.list.eval((pl.element() < 0) | (pl.element() > 13)).list.any().fill_null(False)
            checks.append((bad, pl.lit(f"an outcome in {side} has a weight outside (0, 1] or tricks outside 0-13")))
    if "groups" in columns:
        checks.append((~pl.col("_groups_ok"), pl.lit("groups is not a map of version labels to lists of tables")))
    if "conditions" in columns:
        checks.append((~pl.col("_conditions_ok"), pl.lit("conditions are not valid conditions of contest")))
        for period in ("correction_period_minutes", "appeal_period_minutes"):
            value = pl.col("conditions").str.json_path_match(f"$.{period}").cast(pl.Float64, strict=False)
            checks.append((value.is_not_null() & (value.is_nan() | (value < 0) | (value > MAX_PERIOD_MINUTES)),
                           pl.lit(f"the conditions' {period} is outside 0-{MAX_PERIOD_MINUTES}")))
    return checks


def _with_json_checks(frame: pl.DataFrame) -> pl.DataFrame:
    """`frame` with `_groups_ok` / `_conditions_ok` flags when it has those JSON columns."""
    if "groups" in frame.columns:
        frame = frame.with_columns(_each(frame["groups"], _groups_ok).alias("_groups_ok"))
    if "conditions" in frame.columns:
        frame = frame.with_columns(_each(frame["conditions"], _conditions_ok).alias("_conditions_ok"))
    return frame


def _each(column: pl.Series, valid: Callable[[Any], bool]) -> pl.Series:
    """Whether each JSON value of `column` is `valid`.

    Only for event types that come a handful per event (fouled boards, registrations): their JSON
    maps are checked one by one, as replay reads them one by one.
    """
    flags = []
    for text in column.to_list():
        try:
            flags.append(text is None or valid(orjson.loads(text)))
        except (orjson.JSONDecodeError, ValueError, TypeError):
            flags.append(False)
    return pl.Series(flags, dtype=pl.Boolean)


def _groups_ok(groups: Any) -> bool:
    return isinstance(groups, dict) and all(
        isinstance(tables, list) and all(isinstance(table, str) for table in tables) for tables in groups.values())


def _conditions_ok(conditions: Any) -> bool:
    from models.conditions import ConditionsOfContest

    if not isinstance(conditions, dict):
        return False
    settings = {k: v for k, v in conditions.items() if k not in ("scoring_tag", "program")}
    if settings:
        ConditionsOfContest.model_validate(settings)  # raises ValueError (ValidationError) when invalid
    return True


def _award_ok(award: pl.Expr) -> pl.Expr:
    number = award.cast(pl.Float64, strict=False)
    # Any spelling scoring reads (`models.awards`), as an older event may have stored it.
    named = award.str.strip_chars().str.to_uppercase().str.replace_all(r"[_\s]+", "-").is_in(list(AWARD_SPELLINGS))
    return (named | (number.is_not_null() & ~number.is_nan() & (number.abs() <= MAX_AWARD))).fill_null(False)


def unusable(event_type: str, frame: pl.DataFrame) -> pl.DataFrame:
    """The rows of `frame` (one event type, as replay reads it) that replay cannot use, with why
    (`LEFT_OUT_SCHEMA`). Pure: no I/O."""
    checks = _checks(frame)
    if not checks or frame.is_empty():
        return pl.DataFrame(schema=LEFT_OUT_SCHEMA)
    frame = _with_json_checks(frame)
    # The usual case (nothing wrong) costs one pass of cheap comparisons; reasons are written out
    # only for the rows that failed.
    failing = frame.filter(pl.any_horizontal([failed.fill_null(True) for failed, _ in checks]))
    if failing.is_empty():
        return pl.DataFrame(schema=LEFT_OUT_SCHEMA)
    problems = [pl.when(failed.fill_null(True)).then(reason.fill_null("a value is missing"))
                for failed, reason in checks]
    reasons = failing.select(
        pl.col("position").cast(pl.Int64),
        pl.lit(event_type).alias("type"),
        (pl.col("event_id").cast(pl.String) if "event_id" in frame.columns else pl.lit(None, pl.String))
        .alias("event_id"),
        (pl.col("session_id").cast(pl.String) if "session_id" in frame.columns else pl.lit(None, pl.String))
        .alias("session_id"),
        pl.concat_str(problems, separator="; ", ignore_nulls=True).alias("reason"),
    )
    return reasons


@dataclass
class LeftOut:
    """The events a replay left out, gathered while `collecting`."""

    parts: list[pl.DataFrame] = field(default_factory=list)

    @property
    def events(self) -> pl.DataFrame:
        """One row per event left out, in log order (`LEFT_OUT_SCHEMA`)."""
        if not self.parts:
            return pl.DataFrame(schema=LEFT_OUT_SCHEMA)
        return pl.concat(self.parts).unique("position", keep="first").sort("position")

    def lines(self) -> list[str]:
        """Each event left out, as a line for a person to read."""
        return [f"position {position} ({typ}): {reason}; left out of replay"
                for position, typ, reason in self.events.select("position", "type", "reason").iter_rows()]


_COLLECTOR: ContextVar[LeftOut | None] = ContextVar("vetting_collector", default=None)


@contextmanager
def collecting() -> Iterator[LeftOut]:
    """Gather what every replay inside the block leaves out (a replay outside one still leaves
    the same events out; it just reports them nowhere but the log)."""
    found = LeftOut()
    token = _COLLECTOR.set(found)
    try:
        yield found
    finally:
        _COLLECTOR.reset(token)


def vetted(event_type: str, frame: pl.DataFrame) -> pl.DataFrame:
    """`frame` without the rows replay cannot use; those are reported to the current collector."""
    bad = unusable(event_type, frame)
    if bad.is_empty():
        return frame
    collector = _COLLECTOR.get()
    if collector is not None:
        collector.parts.append(bad)
    else:  # nobody is collecting (a scheduled job): the task's log says it
        log.warning("%d %s event(s) left out of replay: %s", bad.height, event_type,
                    "; ".join(f"position {p}: {r}" for p, r in bad.head(5).select("position", "reason").iter_rows()))
    return frame.filter(~pl.col("position").is_in(bad["position"].implode()))
