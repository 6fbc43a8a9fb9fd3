"""An event's shape, read from its pydantic model: the one source of every column list.

The payload of a stored event is its model's fields but `type` and `schema_version`
(`models.events.event_payload`). Everything that handles payloads as columns — the readers' frames
(`parsers.columnar`), ingest's payload expressions, replay's extraction from DuckDB, the scoring
frames — takes its field names, order and types from here, so a field added to a model reaches
all of them without another list to edit.

A field's annotation becomes a small `Shape` (string, integer, float, boolean, time, date, JSON
object, list, record); `polars_dtype` and `json_transform_type` translate a shape for polars and
for DuckDB's `json_transform`. A field marked `DETAIL` (`Annotated[..., DETAIL]`) is kept in the log
for reports and exports but not read by replay's hot path (a result's auction, play and lead).
"""

from __future__ import annotations

import types
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date, datetime
from enum import Enum
from functools import cache
from typing import Annotated, Any, Literal, Union, get_args, get_origin

import orjson
import polars as pl
from pydantic import BaseModel
from pydantic.fields import FieldInfo


def canonical_text(value: Any) -> str:
    """The canonical JSON of a payload (or of a JSON field inside one): keys sorted at every level,
    no whitespace, UTF-8 unescaped, floats in their shortest round-trip form. Hashes cover these
    bytes, so this is the definition every writer follows: `pipelines.log.payloads.canonical_json`
    builds the same text column-wise and is held to this function byte for byte."""
    return orjson.dumps(value, option=orjson.OPT_SORT_KEYS).decode()


ENVELOPE = frozenset({"type", "schema_version"})
"""Model fields stored in their own columns, not in the payload."""


@dataclass(frozen=True)
class _Detail:
    """Marks a payload field that replay does not read (see the module docstring)."""


DETAIL = _Detail()
"""`Annotated[T, DETAIL]`: a field kept in the log for reports and exports, not read by replay."""

Kind = Literal["string", "integer", "float", "boolean", "time", "date", "json", "list", "record"]


@dataclass(frozen=True)
class Shape:
    """What a payload field holds, as JSON: a scalar kind, a list of `item`, or a record of `fields`."""

    kind: Kind
    item: Shape | None = None
    """The shape of a list's elements."""
    fields: tuple[tuple[str, Shape], ...] = ()
    """A record's fields, in model order."""
    mixed: bool = False
    """A value of several kinds (an artificial award: `A+` or 60.0): read as text, written only
    from its JSON text."""

    @property
    def prewritten(self) -> bool:
        """Whether a column of it must hold the value's canonical JSON text: polars would write
        floats, objects and mixed values differently from the canonical form."""
        return self.kind in ("json", "float") or self.mixed


@dataclass(frozen=True)
class PayloadField:
    """One payload field of an event model."""

    name: str
    shape: Shape
    default: Any
    """The value pydantic fills in when the payload lacks the field; `REQUIRED` when it must be given."""
    detail: bool
    """Not read by replay (`DETAIL`)."""

    @property
    def required(self) -> bool:
        """Whether every payload must carry the field."""
        return self.default is REQUIRED


REQUIRED: Any = object()
"""The `PayloadField.default` of a field without a default."""


def shape_of(annotation: Any) -> Shape:
    """The shape of a type annotation as pydantic serialises it to JSON (`mode="json"`)."""
    origin = get_origin(annotation)
    if origin is Annotated:
        return shape_of(get_args(annotation)[0])
    if origin in (Union, types.UnionType):
        shapes = {shape_of(arg) for arg in get_args(annotation) if arg is not type(None)}
        # A value that may be a word or a number (an artificial award: A+ or 60.0) is read as text.
        return shapes.pop() if len(shapes) == 1 else Shape("string", mixed=True)
    if origin is Literal:
        return _scalar(type(get_args(annotation)[0]))
    if origin in (tuple, list, frozenset, set):
        args = [arg for arg in get_args(annotation) if arg is not Ellipsis]
        return Shape("list", item=shape_of(args[0]) if args else Shape("json"))
    if origin in (dict, Mapping) or annotation is Any:
        return Shape("json")
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return Shape("record", fields=tuple((f.name, f.shape) for f in model_fields(annotation)))
    return _scalar(annotation)


def _scalar(python_type: Any) -> Shape:
    if isinstance(python_type, type) and issubclass(python_type, Enum):
        python_type = type(next(iter(python_type)).value)
    kinds: dict[Any, Kind] = {str: "string", bool: "boolean", int: "integer", float: "float",
                              datetime: "time", date: "date", dict: "json"}
    if python_type not in kinds:
        raise TypeError(f"no payload shape for {python_type!r}")
    return Shape(kinds[python_type])


@cache
def model_fields(model: type[BaseModel]) -> tuple[PayloadField, ...]:
    """Every field of `model` but the envelope's, in declaration order."""
    return tuple(_field(name, info) for name, info in model.model_fields.items() if name not in ENVELOPE)


def _field(name: str, info: FieldInfo) -> PayloadField:
    if info.is_required():
        default = REQUIRED
    elif info.default_factory is not None:
        default = info.default_factory()  # type: ignore[call-arg]
    else:
        default = info.default
    return PayloadField(name, shape_of(info.annotation), default, DETAIL in info.metadata)


def payload_fields(model: type[BaseModel]) -> dict[str, PayloadField]:
    """`model_fields` by name."""
    return {field.name: field for field in model_fields(model)}


def replayed_fields(model: type[BaseModel]) -> dict[str, PayloadField]:
    """The payload fields replay reads: all but those marked `DETAIL`."""
    return {field.name: field for field in model_fields(model) if not field.detail}


def polars_dtype(shape: Shape) -> pl.DataType:
    """The polars type of a field's column. JSON objects travel as their canonical JSON text."""
    if shape.kind == "list":
        assert shape.item is not None
        return pl.List(polars_dtype(shape.item))
    if shape.kind == "record":
        return pl.Struct({name: polars_dtype(inner) for name, inner in shape.fields})
    scalars: dict[str, pl.DataType] = {"string": pl.String(), "integer": pl.Int64(), "float": pl.Float64(),
                                       "boolean": pl.Boolean(), "time": pl.String(), "date": pl.String(),
                                       "json": pl.String()}
    return scalars[shape.kind]


def json_transform_type(shape: Shape) -> str:
    """The type DuckDB's `json_transform` extracts a field as (a JSON fragment of its structure
    argument). JSON objects come out as JSON text; times as their ISO text."""
    if shape.kind == "list":
        assert shape.item is not None
        return f"[{json_transform_type(shape.item)}]"
    if shape.kind == "record":
        return "{" + ", ".join(f'"{name}": {json_transform_type(inner)}' for name, inner in shape.fields) + "}"
    sql = {"string": "VARCHAR", "integer": "BIGINT", "float": "DOUBLE", "boolean": "BOOLEAN",
           "time": "VARCHAR", "date": "VARCHAR", "json": "JSON"}
    return f'"{sql[shape.kind]}"'


def polars_columns(model: type[BaseModel], names: list[str] | None = None) -> dict[str, pl.DataType]:
    """Name -> polars type of `model`'s payload fields (`names`, in that order, or every field)."""
    fields = payload_fields(model)
    return {name: polars_dtype(fields[name].shape) for name in (names if names is not None else fields)}
