"""Event payloads as canonical JSON: one payload (`encode_payload`) or a whole frame at once.

The canonical form is defined once, by `models.shape.canonical_text` (keys sorted at every level,
compact, UTF-8); the store hashes payloads in that form. One payload (a director's ruling, a
file's `SourceFileIngested`) is encoded by that function itself. A large file's tens of thousands
of payloads, or a bulk load's millions, are built here as polars expressions instead, which write
the same bytes by the same rules: keys sorted (`sorted_struct`), and values whose JSON polars
would write differently (floats, JSON objects) passed in already encoded, as `Raw`. Measured on
`bench_store`'s million results, encoding them one by one instead (orjson over each row's dict)
costs several times the polars expression, so both forms stay, and the tests hold the column form
to the row form on generated payloads.

`model_payload` builds the expression from an event model: its fields, from the frame's columns
of the same names, the values a caller gives, or the field's default.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import polars as pl
from pydantic import BaseModel

from models.shape import REQUIRED, PayloadField, canonical_text, model_fields, polars_dtype


def encode_payload(payload: Mapping[str, Any]) -> str:
    """The canonical JSON of one payload (`models.shape.canonical_text`)."""
    return canonical_text(payload)


@dataclass(frozen=True)
class Raw:
    """A string expression that already holds canonical JSON; spliced in verbatim."""

    json: pl.Expr


Field = pl.Expr | Raw
"""A payload field: a plain value (string, integer, boolean, null, list of those, nested struct
built with `sorted_struct`) or pre-encoded JSON."""


def sorted_struct(fields: Mapping[str, pl.Expr]) -> pl.Expr:
    """A struct whose fields are in key order, so that its JSON has sorted keys."""
    return pl.struct([fields[key].alias(key) for key in sorted(fields)])


def canonical_json(fields: Mapping[str, Field]) -> pl.Expr:
    """A string expression: the JSON object of `fields` exactly as `encode_payload` would write it."""
    if fields and not any(isinstance(value, Raw) for value in fields.values()):
        return sorted_struct({key: value for key, value in fields.items() if isinstance(value, pl.Expr)}) \
            .struct.json_encode()  # one object, nothing to splice: polars writes it whole
    parts: list[pl.Expr] = []
    run: dict[str, pl.Expr] = {}
    for key in sorted(fields):
        value = fields[key]
        if isinstance(value, Raw):
            if run:
                parts.append(_members(run))
                run = {}
            parts.append(pl.concat_str([pl.lit(f'"{key}":'), value.json]))
        else:
            run[key] = value
    if run:
        parts.append(_members(run))
    if not parts:
        return pl.lit("{}")
    return pl.concat_str([pl.lit("{"), pl.concat_str(parts, separator=","), pl.lit("}")])


def _members(fields: dict[str, pl.Expr]) -> pl.Expr:
    """`"a":1,"b":"x"` for a run of plain fields (their object's JSON without the braces)."""
    encoded = sorted_struct(fields).struct.json_encode()
    return encoded.str.strip_prefix("{").str.strip_suffix("}")


def model_payload(model: type[BaseModel], columns: Mapping[str, pl.DataType],
                  given: Mapping[str, Field]) -> pl.Expr:
    """The canonical JSON expression of `model`'s payload over a frame with `columns`.

    Each field is the expression `given` for it, else the frame's column of the same name (a JSON
    object's column holds its canonical text), else the field's default; a required field with
    neither is an error naming it. So a field added to the model is written as soon as a reader's
    frame carries it, and as its default until then.
    """
    return canonical_json({field.name: _field_value(model, field, columns, given) for field in model_fields(model)})


def _field_value(model: type[BaseModel], field: PayloadField, columns: Mapping[str, pl.DataType],
                 given: Mapping[str, Field]) -> Field:
    if field.name in given:
        return given[field.name]
    if field.name in columns:
        if field.shape.prewritten:
            if columns[field.name] != pl.String:
                raise TypeError(f"{model.__name__}.{field.name}: pass its canonical JSON text (polars writes "
                                "floats and objects differently)")
            return Raw(pl.col(field.name))
        return pl.col(field.name)
    if field.default is REQUIRED:
        raise ValueError(f"{model.__name__}.{field.name} is required: the frame has no such column")
    return default_value(field)


def default_value(field: PayloadField) -> Field:
    """A field's default as a payload value."""
    if field.shape.prewritten and field.default is not None:
        return Raw(pl.lit(canonical_text(field.default)))
    if isinstance(field.default, tuple):
        return pl.lit(pl.Series([list(field.default)], dtype=polars_dtype(field.shape))).first()
    return pl.lit(field.default, dtype=polars_dtype(field.shape))
