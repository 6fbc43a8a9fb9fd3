"""Small builders of scoring input frames for the tests."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import polars as pl

from pipelines.scoring.frames import RESULTS_SCHEMA, SESSIONS_SCHEMA, conform


def traveller(
    scores: Sequence[int | str | None],
    *,
    board: int = 1,
    event_id: str = "E",
    session_id: str = "S",
    section: str = "A",
    first_table: int = 1,
    ns_ids: Sequence[str] | None = None,
    ew_ids: Sequence[str] | None = None,
) -> list[dict[str, Any]]:
    """One board's rows: an int is a table result (NS points), a string 'A+/A-' an artificial
    score (NS award / EW award), None a row with no result."""
    rows = []
    for index, value in enumerate(scores):
        table = first_table + index
        row: dict[str, Any] = {
            "event_id": event_id, "session_id": session_id, "section": section, "board": board,
            "table_id": str(table),
            "ns_id": ns_ids[index] if ns_ids else f"N{table}",
            "ew_id": ew_ids[index] if ew_ids else f"E{table}",
        }
        if isinstance(value, str):
            ns_award, ew_award = value.split("/")
            row.update(kind="artificial", ns_award=ns_award, ew_award=ew_award)
        else:
            row.update(kind="result", score_ns=value)
        rows.append(row)
    return rows


def weighted(
    ns: Sequence[tuple[int, float]], ew: Sequence[tuple[int, float]] = (), **keys: Any
) -> dict[str, Any]:
    """A weighted (and, with `ew`, split) score row."""
    row = {"kind": "weighted",
           "ns_components": [{"score_ns": s, "weight": w} for s, w in ns],
           "ew_components": [{"score_ns": s, "weight": w} for s, w in ew]}
    row.update(keys)
    return row


def results(rows: Iterable[dict[str, Any]]) -> pl.DataFrame:
    """A RESULTS_SCHEMA frame from row dicts (missing columns null)."""
    listed = list(rows)
    columns = {name: [row.get(name) for row in listed] for name in RESULTS_SCHEMA}
    return conform(pl.DataFrame(columns, schema=RESULTS_SCHEMA), RESULTS_SCHEMA)


def sessions(scoring: str = "MP", layout: str = "two_field", event_id: str = "E",
             session_ids: Sequence[str] = ("S",)) -> pl.DataFrame:
    """A SESSIONS_SCHEMA frame for one event."""
    n = len(session_ids)
    return pl.DataFrame({"event_id": [event_id] * n, "session_id": list(session_ids),
                         "scoring": [scoring] * n, "field_layout": [layout] * n}, schema=SESSIONS_SCHEMA)
