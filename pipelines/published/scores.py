"""Where our scores and the scores a file published differ.

Readers keep the values a file published with each result (`ResultRecorded.published`,
`ArtificialScoreAwarded.published`) as a reference. This module lines them up against an edition,
measure by measure, so a scorer can see at a glance which numbers a real program would not have
published, and why a player's ranking place may differ.
"""

from __future__ import annotations

import polars as pl

from models.contract import Contract
from parsers.lin.values import format_rs, parse_rs
from pipelines.log.fields import PayloadField, payload_fields
from pipelines.log.store import EventStore
from pipelines.replay.projections import ScoredEdition

_TABLE = ["event_id", "session_id", "section", "board", "table_id"]
_TABLE_FIELDS = [PayloadField(name, name, pl.Int64() if name == "board" else pl.String()) for name in _TABLE]

MEASURES: dict[str, tuple[str, float]] = {
    "score_ns": ("score_ns", 0.5),
    "mp_ns": ("mp_ns", 0.051),
    "mp_ew": ("mp_ew", 0.051),
    "imp_ns": ("imp_ns", 0.0051),
    "imp_ew": ("imp_ew", 0.0051),
    "cross_imp_ns": ("imp_ns", 0.0051),
    "cross_imp_ew": ("imp_ew", 0.0051),
    "pct_ns": ("pct_ns", 0.0051),
    "pct_ew": ("pct_ew", 0.0051),
    "datum": ("datum", 0.5),
}
"""Published key -> (our board_scores column, tolerance). Files round MPs to 0.1 and IMPs to 0.01;
percentages to whole numbers, 0.1 or 0.01 (`_ROUNDED_TO` widens the tolerance to what a published
value's own decimals allow); datums are whole points."""

_ROUNDED_TO = frozenset({"pct_ns", "pct_ew"})
"""Measures whose files round them to varying decimals: a value published as 61 only says 60.5-61.5."""

DIFF_SCHEMA = {
    "event_id": pl.String, "session_id": pl.String, "section": pl.String, "board": pl.Int64,
    "table_id": pl.String, "measure": pl.String, "ours": pl.Float64, "theirs": pl.Float64,
}


def published_values(store: EventStore, position: int) -> pl.DataFrame:
    """Long frame of every published value: table key, measure, value (the latest row per table)."""
    measures = [PayloadField(key, f"published.{key}", pl.Float64()) for key in MEASURES]
    with store.reader() as con:
        wide = payload_fields(con, ["ResultRecorded", "ArtificialScoreAwarded"], [*_TABLE_FIELDS, *measures],
                              where="position <= ?", params=[position])
    latest = wide.unique(_TABLE, keep="last", maintain_order=True).drop("position", "stream_id", "type")
    return latest.unpivot(index=_TABLE, variable_name="measure", value_name="theirs").drop_nulls("theirs")


def published_differences(store: EventStore, edition: ScoredEdition) -> pl.DataFrame:
    """Every published value that our edition does not reproduce (within the file's rounding)."""
    theirs = published_values(store, edition.position)
    if theirs.is_empty():
        return pl.DataFrame(schema=DIFF_SCHEMA)
    columns = sorted({column for column, _ in MEASURES.values()})
    ours = edition.board_scores.select(*_TABLE, *[pl.col(c).cast(pl.Float64) for c in columns]).unpivot(
        index=_TABLE, variable_name="column", value_name="ours")
    mapping = pl.DataFrame({"measure": list(MEASURES), "column": [c for c, _ in MEASURES.values()],
                            "tolerance": [t for _, t in MEASURES.values()]})
    compared = theirs.join(mapping, on="measure").join(ours, on=[*_TABLE, "column"], how="left")
    differs = pl.col("ours").is_null() | ((pl.col("ours") - pl.col("theirs")).abs() > tolerance_expr())
    return compared.filter(differs).select(list(DIFF_SCHEMA)).sort([*_TABLE, "measure"])


def tolerance_expr() -> pl.Expr:
    """The measure's tolerance, or half a unit of the last decimal a rounded value was published to."""
    theirs = pl.col("theirs")
    decimals = (pl.when((theirs - theirs.round(0)).abs() < 1e-9).then(0)
                .when((theirs - theirs.round(1)).abs() < 1e-9).then(1).otherwise(2))
    by_decimals = 0.5 * pl.lit(10.0).pow(-decimals) + 1e-6
    return pl.when(pl.col("measure").is_in(list(_ROUNDED_TO))).then(
        pl.max_horizontal(by_decimals, pl.col("tolerance"))).otherwise(pl.col("tolerance"))


RESULT_DIFF_SCHEMA = {
    "event_id": pl.String, "session_id": pl.String, "section": pl.String, "board": pl.Int64,
    "table_id": pl.String, "ours": pl.String, "theirs": pl.String,
}
"""A table whose published result (a vugraph `rs` entry) is not the result we scored: ours written
the way `rs` writes it (`4SWx-1`), null when we scored nothing for the table."""


def published_results(store: EventStore, position: int) -> pl.DataFrame:
    """Each table's published result (LIN `rs`), the latest row per table."""
    with store.reader() as con:
        rows = payload_fields(con, ["ResultRecorded"], [*_TABLE_FIELDS, PayloadField("theirs", "published.rs")],
                              where="position <= ?", params=[position])
    return rows.drop("position", "stream_id", "type").unique(_TABLE, keep="last", maintain_order=True).drop_nulls(
        "theirs")


def result_differences(store: EventStore, edition: ScoredEdition) -> pl.DataFrame:
    """Every table whose published result (`rs`) differs from the result we scored: the contract,
    its declarer and doubling, and the tricks where the entry gives them."""
    theirs = published_results(store, edition.position)
    if theirs.is_empty():
        return pl.DataFrame(schema=RESULT_DIFF_SCHEMA)
    # Few distinct entries (a board's results repeat): each is read once, by the LIN reader's own grammar.
    entries = theirs["theirs"].unique().to_list()
    read = [parse_rs(entry) for entry in entries]
    meaning = pl.DataFrame({
        "theirs": entries,
        "rs_contract": [str(r[0]) if r else None for r in read],
        "rs_declarer": [r[0].declarer.value if r and r[0].declarer else None for r in read],
        "rs_tricks": [r[1] if r else None for r in read],
    }, schema={"theirs": pl.String, "rs_contract": pl.String, "rs_declarer": pl.String, "rs_tricks": pl.Int64})
    ours = edition.board_scores.select(*_TABLE, "contract", "declarer", "tricks")
    compared = theirs.join(meaning, on="theirs", how="left").join(ours, on=_TABLE, how="left")
    same = ((pl.col("contract") == pl.col("rs_contract"))
            & pl.col("declarer").eq_missing(pl.col("rs_declarer"))
            & (pl.col("rs_tricks").is_null() | pl.col("tricks").eq_missing(pl.col("rs_tricks"))))
    differs = compared.filter(~same.fill_null(False))
    shown = [_as_rs(contract, declarer, tricks)
             for contract, declarer, tricks in differs.select("contract", "declarer", "tricks").iter_rows()]
    return differs.with_columns(ours=pl.Series(shown, dtype=pl.String)).select(
        list(RESULT_DIFF_SCHEMA)).sort(_TABLE)


def _as_rs(contract: str | None, declarer: str | None, tricks: int | None) -> str | None:
    """Our result written as `rs` writes it; None when we scored nothing."""
    if contract is None:
        return None
    return format_rs(Contract.parse(contract, declarer), tricks)
