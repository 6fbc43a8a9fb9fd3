"""Double-dummy analysis of deals: endplay's solver, run once per deal, kept as derived data.

The solver takes about a tenth of a second per deal on this machine, far too slow to run per page
build over a federation's history. Its answer depends on the four hands alone, so it is cached in
the store's `derived_double_dummy` table keyed by the deal's canonical PBN string (`N:` first,
ranks in order). The table is derived data, not an event: dropping it loses nothing, and
`analyse_deals` rebuilds it. Par depends also on dealer and vulnerability; it is cheap once the
tricks are known, so each row keeps the par of all sixteen (dealer, vulnerability) combinations
and a page build never needs the solver installed to show what was analysed.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from importlib import metadata
from pathlib import Path
from typing import Any

import orjson
import polars as pl

from models.cards import Deal
from pipelines.query_frames import ArrowStream
from pipelines.store import EventStore, table_columns

log = logging.getLogger(__name__)

CACHE_TABLE = "derived_double_dummy"
"""Store table holding one row per analysed deal."""

STRAINS = ("NT", "S", "H", "D", "C")
"""Strains in the order the tables show them."""
SEATS = ("N", "S", "E", "W")
"""Declarers in the order the tables show them (the two sides together)."""
VULNERABILITIES = ("None", "NS", "EW", "All")
"""Vulnerability names as BoardDealt spells them."""

_CHUNK = 32  # deals per solver call: DDS solves at most 200 strain-tables (40 deals) at once
_CREATE = (f"CREATE TABLE IF NOT EXISTS {CACHE_TABLE} (deal VARCHAR PRIMARY KEY, tricks VARCHAR NOT NULL, "
           "par VARCHAR NOT NULL, solver VARCHAR NOT NULL)")


@dataclass(frozen=True)
class Par:
    """The par score (NS's view) and the contracts that reach it."""

    score_ns: int
    contracts: tuple[str, ...]
    """Each as `4S NS +1` or `5DX E -2`: contract, declarers, tricks over or under."""


@dataclass(frozen=True)
class DoubleDummy:
    """Tricks each seat takes as declarer in each strain, and par for every dealer and vulnerability."""

    deal: str
    tricks: Mapping[str, Mapping[str, int]]
    """seat -> strain -> tricks."""
    par: Mapping[str, Par]
    """`dealer/vulnerability` (e.g. `N/None`) -> par."""

    def par_for(self, dealer: str, vulnerability: str) -> Par | None:
        """Par on a board with this dealer and vulnerability."""
        return self.par.get(f"{dealer}/{vulnerability}")


def solver_version() -> str | None:
    """The installed endplay's version, or None when it is not installed (the [dds] extra)."""
    try:
        return f"endplay {metadata.version('endplay')}"
    except metadata.PackageNotFoundError:
        return None


@lru_cache(maxsize=8192)
def canonical_deal(pbn: str | None) -> str | None:
    """The deal as the cache keys it (`N:` first, ranks in order), or None when it is incomplete
    (remembered: a build asks again for every board of every session that played the deal)."""
    if not pbn:
        return None
    try:
        deal = Deal.from_pbn(pbn)
    except ValueError:
        return None
    return deal.to_pbn("N") if deal.is_complete else None


def solve(deals: Sequence[str]) -> dict[str, DoubleDummy]:
    """Run endplay's solver on canonical deals (raises ImportError when endplay is missing)."""
    from endplay.dds import calc_all_tables
    from endplay.types import Deal as EndplayDeal

    solved: dict[str, DoubleDummy] = {}
    for start in range(0, len(deals), _CHUNK):
        chunk = deals[start:start + _CHUNK]
        tables = calc_all_tables([EndplayDeal(d) for d in chunk])
        for deal, table in zip(chunk, tables, strict=True):
            solved[deal] = _from_table(deal, table)
    return solved


def _from_table(deal: str, table: Any) -> DoubleDummy:
    from endplay.dds import par
    from endplay.types import Player, Vul

    grid = table.to_list()  # [strain S, H, D, C, NT][seat N, E, S, W]
    order = ("S", "H", "D", "C", "NT")
    tricks = {seat: {strain: int(grid[order.index(strain)]["NESW".index(seat)]) for strain in STRAINS}
              for seat in SEATS}
    vul = {"None": Vul.none, "NS": Vul.ns, "EW": Vul.ew, "All": Vul.both}
    pars = {f"{dealer}/{v}": _par(par(table, vul[v], Player.find(dealer)))
            for dealer in "NESW" for v in VULNERABILITIES}
    return DoubleDummy(deal, tricks, pars)


def _par(found: Any) -> Par:
    grouped: dict[tuple[str, int], list[str]] = {}
    for contract in found:
        if contract.level == 0:
            continue
        strain = {"spades": "S", "hearts": "H", "diamonds": "D", "clubs": "C", "nt": "NT"}[contract.denom.name]
        doubled = {"passed": "", "doubled": "X", "redoubled": "XX"}[contract.penalty.name]
        key = (f"{contract.level}{strain}{doubled}", int(contract.result))
        grouped.setdefault(key, []).append("NESW"[int(contract.declarer)])
    contracts = tuple(f"{text} {''.join(sorted(seats, key='NSEW'.index))} {result:+d}".replace(" +0", " =")
                      for (text, result), seats in grouped.items())
    return Par(int(found.score), contracts)


def cached(store: EventStore, deals: Iterable[str]) -> dict[str, DoubleDummy]:
    """The analyses the store already holds for these canonical deals."""
    wanted = sorted(set(deals))
    if not wanted or not store.exists():
        return {}
    with store.reader() as con:
        if not table_columns(con, [CACHE_TABLE]):
            return {}
        # The deals as a list parameter: a polars frame registered here made DuckDB import pyarrow
        # to read it, a tenth of a second of the weekend's site.
        rows = con.execute(f"SELECT deal, tricks, par FROM {CACHE_TABLE} WHERE deal IN (SELECT unnest(?))",
                           [wanted]).fetchall()
    return {deal: _decode(deal, tricks, par) for deal, tricks, par in rows}


def _encode(analysis: DoubleDummy) -> tuple[str, str]:
    tricks = orjson.dumps(analysis.tricks, option=orjson.OPT_SORT_KEYS).decode()
    par = orjson.dumps({k: [p.score_ns, list(p.contracts)] for k, p in analysis.par.items()},
                       option=orjson.OPT_SORT_KEYS).decode()
    return tricks, par


def _decode(deal: str, tricks: str, par: str) -> DoubleDummy:
    pars = {key: Par(int(score), tuple(contracts)) for key, (score, contracts) in orjson.loads(par).items()}
    return DoubleDummy(deal, orjson.loads(tricks), pars)


def save(store: EventStore, solved: Mapping[str, DoubleDummy], solver: str) -> None:
    """Add analyses to the cache (a deal already there keeps its row)."""
    if not solved:
        return
    encoded = [(deal, *_encode(a)) for deal, a in sorted(solved.items())]
    frame = pl.DataFrame(encoded, schema=["deal", "tricks", "par"], orient="row").with_columns(
        solver=pl.lit(solver))
    with store.writer() as con:
        con.execute(_CREATE)
        con.register("solved_deals", ArrowStream(frame))
        con.execute(f"INSERT INTO {CACHE_TABLE} SELECT deal, tricks, par, solver FROM solved_deals "
                    "ON CONFLICT (deal) DO NOTHING")


@dataclass(frozen=True)
class AnalysisReport:
    """What one call of `ensure_analysis` found and did."""

    analyses: Mapping[str, DoubleDummy]
    from_cache: int
    solved: int
    unavailable: int
    """Deals left without analysis because the solver is not installed."""


def ensure_analysis(store: EventStore, deals: Iterable[str | None], *,
                    found: Mapping[str, DoubleDummy] | None = None) -> AnalysisReport:
    """Analyses for every complete deal: from the cache, solving (and caching) only the new ones.

    `found`: what `cached` gave for these deals already (read along with a caller's other reads).
    """
    wanted = sorted({d for d in (canonical_deal(p) for p in deals) if d is not None})
    found = cached(store, wanted) if found is None else {d: found[d] for d in wanted if d in found}
    missing = [d for d in wanted if d not in found]
    solver = solver_version()
    if not missing or solver is None:
        if missing:
            log.warning("%d deal(s) without double-dummy analysis: endplay is not installed "
                        "(pip install 'bridgeledger[dds]')", len(missing))
        return AnalysisReport(found, len(found), 0, len(missing))
    solved = solve(missing)
    save(store, solved, solver)
    log.info("double-dummy: %d deal(s) from the cache, %d solved with %s", len(found), len(solved), solver)
    return AnalysisReport({**found, **solved}, len(found), len(solved), 0)


def analyse_deals(store: EventStore) -> AnalysisReport:
    """Analyse every deal in the log that the cache does not hold yet (a DAG task; idempotent)."""
    if not store.exists():
        return AnalysisReport({}, 0, 0, 0)
    with store.reader() as con:
        rows = con.execute("SELECT DISTINCT payload->>'$.deal' FROM events WHERE type = 'BoardDealt' "
                           "AND payload->>'$.deal' IS NOT NULL").fetchall()
    return ensure_analysis(store, [r[0] for r in rows])


def write_analyses_file(path: str | Path, analyses: Mapping[str, DoubleDummy], solver: str) -> None:
    """Keep analyses in a file (JSON, one entry per deal, sorted) that `seed_from_file` loads into a
    store's cache, so that a store made afresh from the same deals need not run the solver again."""
    entries = {deal: dict(zip(("tricks", "par"), _encode(a), strict=True)) for deal, a in sorted(analyses.items())}
    Path(path).write_bytes(orjson.dumps({"solver": solver, "deals": entries},
                                        option=orjson.OPT_SORT_KEYS | orjson.OPT_INDENT_2) + b"\n")


def seed_from_file(store: EventStore, path: str | Path) -> int:
    """Add the analyses a file keeps (see `write_analyses_file`) to the store's cache; return how
    many it held. Derived data either way: a deal the file lacks is solved when a page needs it."""
    data = orjson.loads(Path(path).read_bytes())
    analyses = {deal: _decode(deal, entry["tricks"], entry["par"]) for deal, entry in data["deals"].items()}
    save(store, analyses, str(data["solver"]))
    return len(analyses)
