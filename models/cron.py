"""Cron expressions, checked without a scheduler installed.

A rule set says when its editions are published as a cron expression; the scheduler that runs it
(Airflow's `publish_ranking` DAG) is an optional extra, so the rule set is checked here, by the
rules every cron reader shares: five fields (minute, hour, day of month, month, day of week), each
a comma list of `*`, a value or a range `a-b`, any of them with a step `/n`; months and days may be
named (`JAN`, `MON`); day of week 0 and 7 are both Sunday. Airflow's presets (`@daily`, `@monthly`,
...) are accepted as they are. Anything else is refused naming the field, so a mistyped schedule
stops the rule set from loading instead of publishing at a time nobody chose.
"""

from __future__ import annotations

from typing import NamedTuple

CRON_PRESETS: dict[str, str] = {
    "@hourly": "0 * * * *",
    "@daily": "0 0 * * *",
    "@weekly": "0 0 * * 0",
    "@monthly": "0 0 1 * *",
    "@quarterly": "0 0 1 */3 *",
    "@yearly": "0 0 1 1 *",
}
"""The presets Airflow 3 reads (`airflow.utils.dates.cron_presets`), with what they stand for."""

_MONTHS = ("JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC")
_DAYS = ("SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT")


class _Field(NamedTuple):
    name: str
    low: int
    high: int
    names: dict[str, int]


_FIELDS = (
    _Field("minute", 0, 59, {}),
    _Field("hour", 0, 23, {}),
    _Field("day of month", 1, 31, {}),
    _Field("month", 1, 12, {name: i for i, name in enumerate(_MONTHS, start=1)}),
    _Field("day of week", 0, 7, {name: i for i, name in enumerate(_DAYS)}),
)


def check_cron(text: str) -> str:
    """`text` as a cron expression (runs of spaces made one) or a preset; raises `ValueError` naming
    the field that cannot be read."""
    expression = " ".join(text.split())
    if expression in CRON_PRESETS:
        return expression
    parts = expression.split(" ") if expression else []
    if len(parts) != len(_FIELDS):
        raise ValueError(f"cron {text!r}: expected 5 fields (minute hour day-of-month month day-of-week) "
                         f"or one of {', '.join(CRON_PRESETS)}; got {len(parts)} field(s)")
    for part, field in zip(parts, _FIELDS, strict=True):
        for item in part.split(","):
            _check_item(item, field, text)
    return expression


def _check_item(item: str, field: _Field, text: str) -> None:
    base, slash, step = item.partition("/")
    if slash and not (step.isdigit() and 1 <= int(step) <= field.high):
        raise ValueError(f"cron {text!r}: the {field.name} step {step!r} is not a number from 1 to {field.high}")
    if base == "*":
        return
    first, dash, last = base.partition("-")
    low = _value(first, field, text)
    if dash and _value(last, field, text) < low:
        raise ValueError(f"cron {text!r}: the {field.name} range {base!r} runs backwards")


def _value(word: str, field: _Field, text: str) -> int:
    value = field.names.get(word.upper()) if field.names else None
    if value is None and word.isdigit():
        value = int(word)
    if value is None or not field.low <= value <= field.high:
        raise ValueError(f"cron {text!r}: the {field.name} {word!r} is not "
                         f"{'a name or ' if field.names else ''}a number from {field.low} to {field.high}")
    return value
