"""Each table's result scored as the Laws say, for every table of every session at once.

Replay projects the events into the results that stand at each table (corrections applied, a ruling
in place of the table's result); this module is where those rows get their Law values:

- vulnerability as the board is marked, else by Law 2 from its number (`models.board`);
- Law 77 scores of table results, from NS's point of view;
- Law 12C1(c)/(e) assigned scores: each weighted outcome scored by Law 77;
- Law 87 groups of a fouled board (`pipelines.scoring.fouled`).

The output is one `RESULTS_SCHEMA` frame, the input every scorer of `pipelines.scoring` reads.
"""

from __future__ import annotations

import polars as pl

from models.board import Vulnerability, law2_vulnerability
from pipelines.base.keyed import join_small
from pipelines.scoring.contract import declarer_score_expr
from pipelines.scoring.fouled import with_fouled_groups
from pipelines.scoring.frames import RESULTS_SCHEMA, conform

_BOARD_KEYS = ["event_id", "session_id", "section", "board"]

_LAW2_CYCLE = pl.Series("law2_vul", [law2_vulnerability(board).value for board in range(1, 17)], pl.String)
"""Law 2 vulnerability of boards 1-16, so every row looks its board up instead of computing it."""


def table_results(recorded: pl.DataFrame, artificial: pl.DataFrame, weighted: pl.DataFrame,
                  boards: pl.DataFrame, fouled: pl.DataFrame) -> pl.DataFrame:
    """The standing rows of every table scored: results by Law 77, artificial scores (Law 12C2) as
    awarded, weighted scores (Law 12C1) outcome by outcome, all with their Law 87 group; stacked in
    that order as one `RESULTS_SCHEMA` frame (possibly of several chunks)."""
    pieces = [scored_results(recorded, boards), artificial_rows(artificial, boards), weighted_rows(weighted, boards)]
    return pl.concat([conform(with_fouled_groups(piece, fouled), RESULTS_SCHEMA) for piece in pieces])


def with_vulnerability(frame: pl.DataFrame, boards: pl.DataFrame) -> pl.DataFrame:
    """`vulnerable_ns` and `vulnerable_ew` as marked on the board (the latest `BoardDealt` of its
    section, else of all sections), else by Law 2 from the number: a board marked differently is
    still played as marked (Law 2)."""
    marked = (
        boards.sort("position")
        .unique(_BOARD_KEYS, keep="last")
        .select(*_BOARD_KEYS, pl.col("vulnerability").alias("marked_vul"))
    )
    for_all_sections = marked.filter(pl.col("section") == "").drop("section").rename(
        {"marked_vul": "marked_vul_all"})
    located = join_small(join_small(frame, marked, _BOARD_KEYS), for_all_sections, ["event_id", "session_id", "board"])
    cycle = (pl.col("board") - 1) % 16
    marked_vul = pl.coalesce("marked_vul", "marked_vul_all")

    def vulnerable(side: str) -> pl.Expr:
        sides = [side, Vulnerability.BOTH.value]
        law2 = pl.lit(_LAW2_CYCLE.is_in(sides)).gather(cycle)
        return pl.when(marked_vul.is_null()).then(law2).otherwise(marked_vul.is_in(sides))

    return located.with_columns(vulnerable_ns=vulnerable("NS"), vulnerable_ew=vulnerable("EW")).drop(
        "marked_vul", "marked_vul_all")


def scored_results(results: pl.DataFrame, boards: pl.DataFrame, *,
                   vulnerability_known: bool = False) -> pl.DataFrame:
    """Table results with their Law 77 score from NS's point of view (`score_ns`, `kind` 'result').

    With `vulnerability_known` the rows carry `vulnerable_ns`/`vulnerable_ew` already.
    """
    located = results if vulnerability_known else with_vulnerability(results, boards)
    contracts = located.get_column("contract").unique().sort()
    declarer_ns = pl.col("declarer").is_in(["N", "S"])
    declarer_vulnerable = pl.when(declarer_ns).then(pl.col("vulnerable_ns")).otherwise(pl.col("vulnerable_ew"))
    # A session has a few dozen distinct contracts: score each (contract, tricks, vulnerability)
    # once, then look every row up by position in that table instead of parsing its contract.
    slot = (
        pl.col("contract").replace_strict(contracts, pl.int_range(contracts.len(), eager=True), default=None)
        * _SCORE_SLOTS
        + pl.col("tricks").fill_null(0).clip(0, 13) * 2
        + declarer_vulnerable.fill_null(False).cast(pl.Int64)
    )
    table = _score_table(contracts)
    declarer_score = pl.lit(table["score"]).gather(slot)
    passed = pl.lit(table["passed"]).gather(slot)
    return located.with_columns(
        score_ns=pl.when(declarer_ns | passed).then(declarer_score).otherwise(-declarer_score),
        kind=pl.lit("result"),
    )


_SCORE_SLOTS = 28
"""Slots per contract in a score table: tricks 0-13 x not vulnerable / vulnerable."""


def _score_table(contracts: pl.Series) -> pl.DataFrame:
    """Law 77 declarer score of every (contract, tricks, vulnerable), in slot order.

    A contract that is not a bid (PASS, or unreadable) scores 0 and counts as passed out.
    """
    parts = pl.col("contract").str.extract_groups(r"^([1-7])(NT|C|D|H|S)(X{0,2})$")
    grid = (
        pl.DataFrame({"contract": contracts}).with_row_index("code")
        .join(pl.DataFrame({"tricks": range(14)}, schema={"tricks": pl.Int64}), how="cross")
        .join(pl.DataFrame({"vulnerable": [False, True]}), how="cross")
        .with_columns(level=parts.struct.field("1").cast(pl.Int64).fill_null(0), strain=parts.struct.field("2"),
                      doubling=parts.struct.field("3").fill_null(""))
        .sort("code", "tricks", "vulnerable")
    )
    return grid.select(
        score=declarer_score_expr(pl.col("level"), pl.col("strain"), pl.col("doubling"), pl.col("tricks"),
                                  pl.col("vulnerable")),
        passed=pl.col("level") == 0,
    )


def artificial_rows(artificial: pl.DataFrame, boards: pl.DataFrame) -> pl.DataFrame:
    """Law 12C2 artificial scores as awarded (no Law 77 score), with the board's vulnerability."""
    return with_vulnerability(artificial.drop("ns_components", "ew_components", strict=False), boards)


def weighted_rows(weighted: pl.DataFrame, boards: pl.DataFrame) -> pl.DataFrame:
    """Law 12C1(c)/(e): each outcome scored by Law 77 from NS's view, kept with its weight."""
    if weighted.is_empty():
        return weighted
    frame = with_vulnerability(weighted, boards).with_row_index("_w")
    scored = [_component_scores(frame, side) for side in ("ns_components", "ew_components")]
    return frame.drop("ns_components", "ew_components").join(
        scored[0], on="_w", how="left", maintain_order="left").join(
        scored[1], on="_w", how="left", maintain_order="left").drop("_w")


def _component_scores(frame: pl.DataFrame, side: str) -> pl.DataFrame:
    outcomes = (
        frame.select("_w", "vulnerable_ns", "vulnerable_ew", side).explode(side).drop_nulls(side)
        .unnest(side)
    )
    scored = scored_results(outcomes, pl.DataFrame(), vulnerability_known=True)
    return scored.group_by("_w", maintain_order=True).agg(
        pl.struct(score_ns="score_ns", weight="weight").alias(side))
