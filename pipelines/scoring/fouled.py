"""Law 87: which version of a fouled board each table played.

A director records a fouled board (`BoardFouled`) as groups of tables, one group per version played;
scoring compares results only within their group (`fouled_group`). The latest record of a board
stands, and a table named again later is in the later group.
"""

from __future__ import annotations

import orjson
import polars as pl

from pipelines.base.keyed import join_small

_BOARD_KEYS = ["event_id", "session_id", "section", "board"]


def with_fouled_groups(results: pl.DataFrame, fouled: pl.DataFrame) -> pl.DataFrame:
    """`results` with `fouled_group`: the version label of the table's play, null when the board is
    not fouled. `fouled` holds `BoardFouled` rows as replay reads them (`groups` as JSON text)."""
    if fouled.is_empty():
        return results.with_columns(fouled_group=pl.lit(None, pl.String))
    # BoardFouled events are a handful per event; their small JSON maps are read here, not per result.
    latest_boards = fouled.sort("position").unique(_BOARD_KEYS, keep="last").select(*_BOARD_KEYS, "groups")
    rows = [
        {**dict(zip(_BOARD_KEYS, key, strict=True)), "table_id": table, "fouled_group": label}
        for *key, groups in latest_boards.rows()
        for label, tables in orjson.loads(groups).items() for table in tables
    ]
    groups_frame = pl.DataFrame(rows, schema={**{k: results.schema[k] for k in _BOARD_KEYS},
                                              "table_id": pl.String, "fouled_group": pl.String})
    latest = groups_frame.unique([*_BOARD_KEYS, "table_id"], keep="last", maintain_order=True)
    return join_small(results, latest, [*_BOARD_KEYS, "table_id"])
