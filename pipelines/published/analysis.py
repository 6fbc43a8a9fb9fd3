"""Where the double-dummy tricks and par a file published differ from our own analysis.

Readers keep what a file publishes about a deal (`BoardDealt.published`: `dd_tricks`, `par_score_ns`,
`par_contract`; see `parsers.pbn.supplemental`). Our analysis is endplay's, cached per deal in the
store's `derived_double_dummy` table (`pipelines.site.analysis`): deals the cache lacks are solved
and cached here, as the site build would. A board is listed per differing number: each declarer
and strain whose tricks differ, and the par score (NS's view) for the board's dealer and
vulnerability. With the solver not installed and the deal not cached, the board is listed once
with nothing of ours, so that nothing goes unchecked without a word.
"""

from __future__ import annotations

import polars as pl

from pipelines.log.fields import PayloadField, payload_fields
from pipelines.log.store import EventStore
from pipelines.site.analysis import DoubleDummy, canonical_deal, ensure_analysis

_BOARD = ["event_id", "session_id", "section", "board"]
_DEAL_FIELDS = (*[PayloadField(name, name, pl.Int64() if name == "board" else pl.String()) for name in _BOARD],
                PayloadField("dealer", "dealer"), PayloadField("vulnerability", "vulnerability"),
                PayloadField("deal", "deal"), PayloadField("dd_tricks", "published.dd_tricks"),
                PayloadField("par_score_ns", "published.par_score_ns", pl.Float64()))
DD_SEATS = "NSEW"
"""Declarers in the order of `dd_tricks` (as `parsers.pbn.supplemental` writes it)."""
DD_STRAINS = ("NT", "S", "H", "D", "C")
"""Strains in the order of each declarer's five digits."""

ANALYSIS_DIFF_SCHEMA = {
    "event_id": pl.String, "session_id": pl.String, "section": pl.String, "board": pl.Int64,
    "measure": pl.String, "ours": pl.String, "theirs": pl.String,
}
"""One row per published number we do not reproduce: `tricks N NT` ... or `par`; `analysis` with
`ours` null when the deal has no analysis (solver not installed)."""


def published_deals(store: EventStore, position: int) -> pl.DataFrame:
    """Each board's published double-dummy tricks and par, with its deal, dealer and vulnerability."""
    with store.reader() as con:
        rows = payload_fields(con, ["BoardDealt"], _DEAL_FIELDS, where="position <= ?", params=[position])
    latest = rows.drop("position", "stream_id", "type").unique(_BOARD, keep="last", maintain_order=True)
    return latest.filter(pl.col("dd_tricks").is_not_null() | pl.col("par_score_ns").is_not_null())


def analysis_differences(store: EventStore, position: int) -> pl.DataFrame:
    """Every published double-dummy number and par that our analysis does not reproduce."""
    boards = published_deals(store, position)
    if boards.is_empty():
        return pl.DataFrame(schema=ANALYSIS_DIFF_SCHEMA)
    # The cache's key of each distinct deal (a deal model's reading, as the site keys it), mapped
    # onto the boards in one expression.
    keys = {deal: canonical_deal(deal) for deal in boards["deal"].drop_nulls().unique().to_list()}
    keyed = boards.with_columns(key=pl.col("deal").replace_strict(keys, default=None, return_dtype=pl.String))
    analyses = ensure_analysis(store, keyed["key"].drop_nulls().unique().to_list()).analyses
    rows: list[tuple[str, str, str, int, str, str | None, str]] = []
    # Display only: the few boards that publish an analysis, each checked number by number.
    for board in keyed.iter_rows(named=True):
        place = (board["event_id"], board["session_id"], board["section"], board["board"])
        analysis = analyses.get(board["key"]) if board["key"] else None
        if analysis is None:
            rows.append((*place, "analysis", None, board["dd_tricks"] or _number(board["par_score_ns"])))
            continue
        rows.extend((*place, measure, ours, theirs) for measure, ours, theirs in _compare(board, analysis))
    return pl.DataFrame(rows, schema=ANALYSIS_DIFF_SCHEMA, orient="row").sort([*_BOARD, "measure"])


def _compare(board: dict[str, object], analysis: DoubleDummy) -> list[tuple[str, str | None, str]]:
    """The published numbers of one board that differ from the analysis of its deal."""
    found: list[tuple[str, str | None, str]] = []
    digits = board["dd_tricks"]
    if isinstance(digits, str):
        for index, theirs in enumerate(int(digit, 16) for digit in digits):
            seat, strain = DD_SEATS[index // 5], DD_STRAINS[index % 5]
            ours = analysis.tricks[seat][strain]
            if ours != theirs:
                found.append((f"tricks {seat} {strain}", str(ours), str(theirs)))
    par = board["par_score_ns"]
    if isinstance(par, float):
        ours_par = analysis.par_for(str(board["dealer"]), str(board["vulnerability"]))
        if ours_par is None or ours_par.score_ns != par:
            found.append(("par", None if ours_par is None else str(ours_par.score_ns), _number(par)))
    return found


def _number(value: float | None) -> str:
    """A published number as text, whole numbers without `.0`."""
    if value is None:
        return ""
    return str(int(value)) if value == int(value) else str(value)
