"""Upcasters: how a payload stored under an older schema version becomes the current one.

Stored rows are never rewritten; they are brought up to date on read. An upcaster is the step of
one event type from `from_version` to `from_version + 1`, written as a few declared changes
(`Renamed`, `Filled`, `Dropped`, `Computed`) rather than as code over a dict, so that the same
declaration applies both ways a payload is read:

- `Upcasters.upcast`: one payload (a dict), for the few events read one by one (`EventStore.read`);
- `Upcasters.upcast_frame`: a whole batch as columns (replay reads millions of rows; each change is
  one polars expression over all of them).

When a step is needed (models/events.py): an optional field added with a default is *not* a new
version: a payload without it reads as the default (pydantic fills it, and replay fills it in
`pipelines.log.payload_frames`). Renaming, removing, retyping a field, or adding a required one, is a
new `schema_version`, and its upcaster is registered beside the event's model in
`models.events` (`UPCASTERS.add(Upcaster("Type", from_version, (...)))`), with a frozen old payload
in the tests.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import polars as pl

from models.shape import Shape, polars_dtype, shape_of


class MissingUpcaster(LookupError):
    """A stored payload's version has no step to the next version: it cannot be brought up to date."""


@dataclass(frozen=True)
class Renamed:
    """The field `old` is now called `new` (same values)."""

    old: str
    new: str


@dataclass(frozen=True)
class Filled:
    """`field` became required: older payloads without it take `value`."""

    field: str
    value: Any


@dataclass(frozen=True)
class Dropped:
    """`field` is no longer part of the payload."""

    field: str


@dataclass(frozen=True)
class Computed:
    """`field` is computed from older fields by `expr`, a polars expression over `reads` (old field
    name -> its type annotation as stored; scalars only)."""

    field: str
    expr: pl.Expr
    reads: Mapping[str, Any]


Change = Renamed | Filled | Dropped | Computed
"""One declared change of a payload from one version to the next."""


@dataclass(frozen=True)
class Upcaster:
    """The step of `event_type` payloads from `from_version` to `from_version + 1`."""

    event_type: str
    from_version: int
    changes: tuple[Change, ...]

    def old_fields(self, current: Mapping[str, Shape]) -> dict[str, Shape]:
        """The fields this step reads that `current` (the newer version's fields) does not name."""
        wanted: dict[str, Shape] = {}
        for change in self.changes:
            if isinstance(change, Renamed) and change.new in current:
                wanted[change.old] = current[change.new]
            elif isinstance(change, Computed):
                wanted.update({name: shape_of(annotation) for name, annotation in change.reads.items()})
        return {name: shape for name, shape in wanted.items() if name not in current}

    def payload(self, body: Mapping[str, Any]) -> dict[str, Any]:
        """One payload of `from_version`, as `from_version + 1`."""
        result = dict(body)
        for change in self.changes:
            if isinstance(change, Renamed):
                if change.old in result:
                    result[change.new] = result.pop(change.old)
            elif isinstance(change, Filled):
                if result.get(change.field) is None:
                    result[change.field] = change.value
            elif isinstance(change, Dropped):
                result.pop(change.field, None)
            else:
                row = pl.DataFrame({name: [result.get(name)] for name in change.reads},
                                   schema={name: polars_dtype(shape_of(a)) for name, a in change.reads.items()})
                result[change.field] = row.select(change.expr).item()
        return result

    def frame(self, rows: pl.DataFrame) -> pl.DataFrame:
        """Every row of `rows` whose `schema_version` is at most `from_version`, taken one step up;
        the others unchanged. One expression per change over the whole batch."""
        due = pl.col("schema_version") <= self.from_version
        for change in self.changes:
            if isinstance(change, Renamed):
                rows = _set(rows, change.new, due, _column(rows, change.old))
            elif isinstance(change, Filled):
                target = rows.schema.get(change.field)
                filled = pl.lit(change.value) if target is None else pl.lit(change.value).cast(target)
                rows = _set(rows, change.field, due & _column(rows, change.field).is_null(), filled)
            elif isinstance(change, Computed):
                rows = _set(rows, change.field, due, change.expr)
        return rows.with_columns(schema_version=pl.when(due).then(self.from_version + 1)
                                 .otherwise(pl.col("schema_version")).cast(rows.schema["schema_version"]))


def _column(rows: pl.DataFrame, name: str) -> pl.Expr:
    return pl.col(name) if name in rows.columns else pl.lit(None)


def _set(rows: pl.DataFrame, name: str, due: pl.Expr, new: pl.Expr) -> pl.DataFrame:
    """`name` := `new` on the due rows, the others' own value (null when the column is new)."""
    value = pl.when(due).then(new).otherwise(_column(rows, name))
    target = rows.schema.get(name)
    return rows.with_columns((value if target is None else value.cast(target)).alias(name))


@dataclass
class Upcasters:
    """The upcasters a reader applies, per (event type, from_version)."""

    steps: dict[tuple[str, int], Upcaster] = field(default_factory=dict)

    def add(self, upcaster: Upcaster) -> Upcaster:
        """Register `upcaster` (one per type and version)."""
        key = (upcaster.event_type, upcaster.from_version)
        if key in self.steps:
            raise ValueError(f"{upcaster.event_type} v{upcaster.from_version} already has an upcaster")
        self.steps[key] = upcaster
        return upcaster

    def chain(self, event_type: str, version: int, target: int) -> list[Upcaster]:
        """The steps from `version` to `target`, in order."""
        steps = []
        for step_version in range(version, target):
            step = self.steps.get((event_type, step_version))
            if step is None:
                raise MissingUpcaster(f"no upcaster for {event_type} v{step_version} -> v{step_version + 1}")
            steps.append(step)
        return steps

    def upcast(self, event_type: str, version: int, payload: dict[str, Any], target: int) -> dict[str, Any]:
        """One payload of `version` brought up to `target`."""
        for step in self.chain(event_type, version, target):
            payload = step.payload(payload)
        return payload

    def old_fields(self, event_type: str, version: int, target: int,
                   current: Mapping[str, Shape]) -> dict[str, Shape]:
        """Every older field the steps from `version` to `target` read, beyond `current`."""
        wanted: dict[str, Shape] = {}
        for step in reversed(self.chain(event_type, version, target)):
            wanted.update(step.old_fields({**current, **wanted}))
        return wanted

    def upcast_frame(self, event_type: str, rows: pl.DataFrame, target: int) -> pl.DataFrame:
        """A batch of `event_type` rows (payload fields as columns, with `schema_version`) brought up
        to `target`: each step once over the rows it concerns."""
        if rows.is_empty():
            return rows
        lowest = int(rows["schema_version"].min())  # type: ignore[arg-type]
        for step in self.chain(event_type, lowest, target):
            rows = step.frame(rows)
        return rows
