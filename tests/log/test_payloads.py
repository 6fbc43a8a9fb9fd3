"""Column-wise payloads must be byte-identical to the store's canonical encoding of the same dicts."""

from __future__ import annotations

from typing import Any

import orjson
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from models.events import ArtificialScoreAwarded, BoardDealt, ResultRecorded, event_payload
from models.shape import model_fields
from pipelines.log.payloads import Raw, canonical_json, encode_payload, model_payload, sorted_struct
from tests.conftest import examples

TEXT = st.text(st.characters(codec="utf-8"), max_size=12)
ROWS = st.lists(
    st.fixed_dictionaries({
        "name": TEXT, "count": st.integers(-(2**62), 2**62) | st.none(), "flag": st.booleans(),
        "tags": st.lists(TEXT, max_size=4), "where": st.fixed_dictionaries({"line": st.integers(0, 10**6),
                                                                             "file": TEXT}),
        "published": st.dictionaries(st.sampled_from(["mp_ns", "score_ns", "pct_ew"]),
                                     st.floats(allow_nan=False, allow_infinity=False) | TEXT),
    }),
    min_size=1, max_size=20,
)


@settings(max_examples=examples(60), deadline=None)
@given(ROWS)
def test_canonical_json_equals_the_store_encoding(rows: list[dict[str, Any]]) -> None:
    frame = pl.DataFrame(
        {
            "name": [r["name"] for r in rows], "count": [r["count"] for r in rows],
            "flag": [r["flag"] for r in rows], "tags": [r["tags"] for r in rows],
            "line": [r["where"]["line"] for r in rows], "file": [r["where"]["file"] for r in rows],
            "published": [orjson.dumps(r["published"], option=orjson.OPT_SORT_KEYS).decode() for r in rows],
        },
        schema={"name": pl.String, "count": pl.Int64, "flag": pl.Boolean, "tags": pl.List(pl.String),
                "line": pl.Int64, "file": pl.String, "published": pl.String},
    )
    encoded = frame.select(canonical_json({
        "where": sorted_struct({"line": pl.col("line"), "file": pl.col("file")}),
        "name": pl.col("name"), "published": Raw(pl.col("published")), "count": pl.col("count"),
        "tags": pl.col("tags"), "flag": pl.col("flag"), "constant": pl.lit("e"),
    })).to_series().to_list()
    assert encoded == [encode_payload({**r, "constant": "e"}) for r in rows]


def test_an_object_of_only_raw_fields_or_none() -> None:
    frame = pl.DataFrame({"a": ['{"x":1.5}']})
    assert frame.select(canonical_json({"b": Raw(pl.col("a")), "a": Raw(pl.lit("[]"))})).item() == \
        '{"a":[],"b":{"x":1.5}}'
    assert frame.select(canonical_json({})).item() == "{}"


@settings(max_examples=examples(40), deadline=None)
@given(ROWS)
def test_an_object_without_raw_fields_is_encoded_whole(rows: list[dict[str, Any]]) -> None:
    frame = pl.DataFrame({"name": [r["name"] for r in rows], "count": [r["count"] for r in rows]},
                         schema={"name": pl.String, "count": pl.Int64})
    encoded = frame.select(canonical_json({"name": pl.col("name"), "count": pl.col("count")})).to_series()
    assert encoded.to_list() == [encode_payload({"name": r["name"], "count": r["count"]}) for r in rows]


@pytest.mark.parametrize("model", [ResultRecorded, BoardDealt])
def test_a_models_payload_from_its_required_columns_is_its_canonical_dump(model: type[BaseModel]) -> None:
    """`model_payload` writes every field of the model: from the columns, else the field's default,
    byte for byte as the model itself dumps (`event_payload`, `encode_payload`)."""
    rows = [{"board": 3, "table_id": "7", "ns_id": "1", "ew_id": "2", "contract": "PASS",
             "dealer": "S", "vulnerability": "EW", "event_id": "e", "session_id": "é"}]
    required = [f.name for f in model_fields(model) if f.required]
    frame = pl.DataFrame([{name: row[name] for name in required} for row in rows])
    encoded = frame.select(model_payload(model, frame.schema, {})).to_series().to_list()
    assert encoded == [encode_payload(event_payload(model.model_validate({n: r[n] for n in required}))) for r in rows]


def test_a_value_polars_would_write_differently_must_come_as_json_text() -> None:
    frame = pl.DataFrame({"board": [1], "table_id": ["1"], "ns_id": ["1"], "ew_id": ["2"], "event_id": ["e"],
                          "session_id": ["s"], "ns_award": [60.0], "ew_award": ["A"]})
    with pytest.raises(TypeError, match="ns_award"):
        model_payload(ArtificialScoreAwarded, frame.schema, {})
    with pytest.raises(ValueError, match="contract is required"):
        model_payload(ResultRecorded, frame.schema, {})
