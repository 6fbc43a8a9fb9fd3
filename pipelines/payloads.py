"""Event payloads built column-wise: canonical JSON for a whole frame of events at once.

The store hashes payloads as `encode_payload` writes them (orjson, keys sorted, compact). A large
file's tens of thousands of payloads are built here with polars expressions instead, and must come
out byte for byte the same: keys are sorted at every level, and values whose JSON polars would
write differently from orjson (floats) are passed in already encoded, as `Raw`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import polars as pl


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
