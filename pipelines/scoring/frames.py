"""The column contracts between replay and scoring.

Replay builds `results` (one row per table and board, corrections already applied) and `sessions`;
scoring returns `board_scores` and `standings` with exactly the columns below. Analyst views
(`docs/analysts.md`) expose these columns under the same names; later work extends, never renames.
"""

from __future__ import annotations

import polars as pl

from models.events import ArtificialScoreAwarded, PenaltyAwarded, ResultRecorded, SessionScheduled
from models.shape import polars_columns, polars_dtype, replayed_fields

COMPONENT = pl.Struct({"score_ns": pl.Int64, "weight": pl.Float64})
"""One weighted outcome: the NS score of that outcome and its weight."""

RESULTS_SCHEMA: dict[str, pl.DataType] = {
    # A table's result as recorded: every field of `ResultRecorded` that replay reads, by the model.
    **{name: polars_dtype(f.shape) for name, f in replayed_fields(ResultRecorded).items()},
    "vulnerable_ns": pl.Boolean(),
    "vulnerable_ew": pl.Boolean(),
    "score_ns": pl.Int64(),         # Law 77 from NS's view; null for artificial and weighted rows
    "kind": pl.String(),            # 'result' | 'artificial' | 'weighted'
    **polars_columns(ArtificialScoreAwarded, ["ns_award", "ew_award"]),  # artificial: 'A+', 'A', 'A-' or a number
    "ns_components": pl.List(COMPONENT),  # weighted: outcomes scored for NS
    "ew_components": pl.List(COMPONENT),  # weighted: outcomes scored for EW (split score)
    "fouled_group": pl.String(),    # Law 87 version label, null when the board is not fouled
}
"""Input to scoring: every table result of every session to be scored (contract, declarer, tricks
and score null for artificial and weighted rows; room 'open'/'closed' in team play)."""

SESSIONS_SCHEMA: dict[str, pl.DataType] = polars_columns(
    SessionScheduled, ["event_id", "session_id", "scoring", "field_layout"])
"""Input to scoring: how each session is scored (`SessionScheduled`'s fields)."""

PENALTIES_SCHEMA: dict[str, pl.DataType] = polars_columns(
    PenaltyAwarded, ["event_id", "session_id", "section", "contestant_id", "direction", "amount", "unit"])
"""Input to scoring: penalties (Laws 90/91), deducted in the session's unit (`PenaltyAwarded`'s
fields; direction null = every standing of the id)."""


BOARD_SCORES_SCHEMA: dict[str, pl.DataType] = {
    "event_id": pl.String(),
    "session_id": pl.String(),
    "section": pl.String(),
    "board": pl.Int64(),
    "table_id": pl.String(),
    "ns_id": pl.String(),
    "ew_id": pl.String(),
    "contract": pl.String(),
    "declarer": pl.String(),
    "tricks": pl.Int64(),
    "score_ns": pl.Int64(),
    "mp_ns": pl.Float64(),
    "mp_ew": pl.Float64(),
    "top": pl.Float64(),
    "pct_ns": pl.Float64(),
    "pct_ew": pl.Float64(),
    "imp_ns": pl.Float64(),
    "imp_ew": pl.Float64(),
    "status": pl.String(),          # provisional | final (Law 79C), set after scoring
    "match_id": pl.String(),        # team play: the match this row belongs to
    "datum": pl.Float64(),          # Butler: the board's datum
    "points_ns": pl.Float64(),      # total points (Law 78C), weighted scores included
    "points_ew": pl.Float64(),
    "board_rule": pl.String(),      # team play: the rule that gave a board its value (e.g. one room only)
}
"""Output: one row per table result. Columns a method does not produce are null."""

STANDINGS_SCHEMA: dict[str, pl.DataType] = {
    "event_id": pl.String(),
    "session_id": pl.String(),
    "section": pl.String(),
    "direction": pl.String(),       # 'NS' / 'EW' in a two-field session, 'ALL' in a one-field one
    "contestant_id": pl.String(),
    "rank": pl.Int64(),
    "tied": pl.Boolean(),
    "score": pl.Float64(),          # MPs, IMPs, points or VPs, penalties deducted
    "percentage": pl.Float64(),     # matchpoint sessions only
    "boards": pl.Int64(),
    "status": pl.String(),          # provisional | final (Law 79C), set after scoring
    "vp": pl.Float64(),             # team play: victory points (Law 78D)
    "imps_for": pl.Float64(),       # team play: IMPs won and lost (IMP quotient tie-break)
    "imps_against": pl.Float64(),
    "cumulative_score": pl.Float64(),  # multi-session carry-over: running total
}
"""Output: one row per contestant (and direction, in two-field sessions) per session."""


def empty(schema: dict[str, pl.DataType]) -> pl.DataFrame:
    """An empty frame with the given schema."""
    return pl.DataFrame(schema=schema)


def conform(frame: pl.DataFrame, schema: dict[str, pl.DataType]) -> pl.DataFrame:
    """Select and cast `frame` to exactly `schema`'s columns; missing columns become null."""
    return frame.select(
        [
            (pl.col(name) if name in frame.columns else pl.lit(None)).cast(dtype).alias(name)
            for name, dtype in schema.items()
        ]
    )
