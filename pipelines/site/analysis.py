"""Double-dummy analysis of deals: endplay's solver, run once per deal, kept as derived data.

The solver takes about a tenth of a second per deal on this machine, far too slow to run per page
build over a federation's history. Its answer depends on the four hands alone, so it is cached in
the store's `derived_double_dummy` table keyed by the deal's canonical PBN string (`N:` first,
ranks in order). The table is derived data, not an event: dropping it loses nothing, and
`analyse_deals` rebuilds it. Par depends also on dealer and vulnerability; it is cheap once the
tricks are known, so each row keeps the par of all sixteen (dealer, vulnerability) combinations
and a page build never needs the solver installed to show what was analysed.

Solving is slow (about 0.4 s of CPU a deal here): a file of 100,000 distinct deals is 11 hours.
`analyse_deals` is therefore bounded (a number of deals, a number of seconds) and incremental:
each deal is saved as soon as it is solved, so a run that is killed loses at most the deal in
hand and the next run resumes where it stopped. It logs its progress. A page build solves at most
the deals it is allowed (`ensure_analysis`'s `limit`; none for the DAGs) and shows the others as
"analysis pending".
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from importlib import metadata
from pathlib import Path
from typing import Any

import orjson
import polars as pl

from models.cards import Deal
from parsers.pbn.values import Holding, parse_deal
from pipelines.base.query_frames import ArrowStream
from pipelines.log.fields import PayloadField, payload_fields
from pipelines.log.store import EventStore, StoreBusy, table_columns

log = logging.getLogger(__name__)

CACHE_TABLE = "derived_double_dummy"
"""Store table holding one row per analysed deal."""

STRAINS = ("NT", "S", "H", "D", "C")
"""Strains in the order the tables show them."""
SEATS = ("N", "S", "E", "W")
"""Declarers in the order the tables show them (the two sides together)."""
VULNERABILITIES = ("None", "NS", "EW", "All")
"""Vulnerability names as BoardDealt spells them."""

PROGRESS_EVERY_S = 30.0
"""Seconds between two progress lines of `analyse_deals` in the task log."""

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


@lru_cache(maxsize=1)
def solver_version() -> str | None:
    """The installed endplay's version, or None when it is not installed (the [dds] extra; asked once:
    every board page of a build asks whether a deal without analysis is pending or never will be)."""
    try:
        return f"endplay {metadata.version('endplay')}"
    except metadata.PackageNotFoundError:
        return None


@lru_cache(maxsize=1 << 17)
def canonical_deal(pbn: str | None) -> str | None:
    """The deal as the cache keys it (`N:` first, ranks in order), or None when it is incomplete
    (remembered, for a session of 100,000 deals too: a build asks again for every board of every
    session that played the deal)."""
    if not pbn:
        return None
    hands = complete_hands(pbn)
    if hands is not None:
        return "N:" + " ".join(".".join(hand) for hand in hands)
    try:
        deal = Deal.from_pbn(pbn)
    except ValueError:
        return None
    return deal.to_pbn("N") if deal.is_complete else None


def complete_hands(pbn: str) -> tuple[Holding, Holding, Holding, Holding] | None:
    """The four hands (N, E, S, W) of a complete deal written in plain PBN, read by the PBN reader's
    fast check rather than the `Deal` model (a fifth of a millisecond a deal: a session of 100,000
    boards is read several times a build); None for anything else, which `Deal.from_pbn` then reads."""
    parsed = parse_deal(pbn)
    if parsed.problem[0] or parsed.drift or parsed.hands is None:
        return None
    north, east, south, west = parsed.hands
    if north is None or east is None or south is None or west is None \
            or any(sum(map(len, hand)) != 13 for hand in (north, east, south, west)):
        return None
    return north, east, south, west


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
    pending: int = 0
    """Deals left for the analysis task: beyond what this call was allowed to solve."""


def ensure_analysis(store: EventStore, deals: Iterable[str | None], *,
                    found: Mapping[str, DoubleDummy] | None = None, limit: int | None = None) -> AnalysisReport:
    """Analyses for every complete deal: from the cache, solving (and caching) only the new ones.

    `found`: what `cached` gave for these deals already (read along with a caller's other reads).
    `limit`: solve at most this many new deals (None: all); the others are counted as `pending`,
    left to `analyse_deals` (a DAG's page build passes 0 and never waits on the solver).
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
    chosen = missing if limit is None else missing[:max(limit, 0)]
    solved = solve_and_save(store, chosen, solver, Budget()) if chosen else {}
    pending = len(missing) - len(solved)
    log.info("double-dummy: %d deal(s) from the cache, %d solved with %s, %d pending (left to the analysis task)",
             len(found), len(solved), solver, pending)
    return AnalysisReport({**found, **solved}, len(found), len(solved), 0, pending)


@dataclass(frozen=True)
class Budget:
    """How much one call may solve: deals and seconds (None: no bound)."""

    max_deals: int | None = None
    max_seconds: float | None = None

    def allows(self, solved: int, elapsed: float) -> bool:
        """Whether another deal may be started after `solved` deals and `elapsed` seconds."""
        return (self.max_deals is None or solved < self.max_deals) and \
            (self.max_seconds is None or elapsed < self.max_seconds)


def solve_and_save(store: EventStore, deals: Sequence[str], solver: str, budget: Budget, *,
                   progress_every_s: float = PROGRESS_EVERY_S,
                   clock: Callable[[], float] = time.monotonic) -> dict[str, DoubleDummy]:
    """Solve deals one at a time within `budget`, saving each as soon as it is solved; return them.

    Each save is a short write of its own: the solver holds no connection, and a process killed
    mid-way loses at most the deal in hand. A store busy past its wait keeps the solved deals for
    the next save instead of losing them. Progress goes to the log every `progress_every_s`.
    """
    solved: dict[str, DoubleDummy] = {}
    unsaved: dict[str, DoubleDummy] = {}
    start = last_line = clock()
    for deal in deals:
        if not budget.allows(len(solved), clock() - start):
            break
        analysis = solve([deal])[deal]
        solved[deal] = unsaved[deal] = analysis
        unsaved = _saved_or_kept(store, unsaved, solver)
        if clock() - last_line >= progress_every_s:
            last_line = clock()
            _progress(len(solved), len(deals), last_line - start)
    if unsaved:
        save(store, unsaved, solver)  # a last try; StoreBusy now fails the task, which retries
    _progress(len(solved), len(deals), clock() - start)
    return solved


def _saved_or_kept(store: EventStore, unsaved: dict[str, DoubleDummy], solver: str) -> dict[str, DoubleDummy]:
    try:
        save(store, unsaved, solver)
    except StoreBusy as exc:
        log.warning("double-dummy: %d solved deal(s) kept for the next save: %s", len(unsaved), exc)
        return unsaved
    return {}


def _progress(done: int, total: int, elapsed: float) -> None:
    rate = done / elapsed if elapsed > 0 else 0.0
    left = (total - done) / rate if rate > 0 else float("nan")
    log.info("double-dummy: %d/%d deal(s) solved and saved in %.0f s (%.2f a second; about %.0f s for the rest)",
             done, total, elapsed, rate, left)


def pending_deals(store: EventStore) -> list[str]:
    """The log's complete deals (canonical) that the cache does not hold yet: the deals of the
    sessions with the fewest waiting first, so that a weekend's sessions are analysed (and their
    pages complete) before a file of 100,000 deals is."""
    if not store.exists():
        return []
    with store.reader() as con:
        dealt = payload_fields(con, ["BoardDealt"], [PayloadField(name, name) for name in ("event_id", "session_id",
                                                                                            "deal")])
        rows = dealt.select("event_id", "session_id", "deal").drop_nulls("deal").unique().rows()
        held: set[str] = set()
        if table_columns(con, [CACHE_TABLE]):
            held = {r[0] for r in con.execute(f"SELECT deal FROM {CACHE_TABLE}").fetchall()}
    waiting: dict[tuple[str, str], set[str]] = {}
    for event_id, session_id, text in rows:
        deal = canonical_deal(text)
        if deal is not None and deal not in held:
            waiting.setdefault((event_id, session_id), set()).add(deal)
    ordered: dict[str, None] = {}
    for session in sorted(waiting, key=lambda key: (len(waiting[key]), key)):
        ordered.update(dict.fromkeys(sorted(waiting[session])))
    return list(ordered)


def held_deals(store: EventStore, deals: Sequence[str]) -> set[str]:
    """Which of these canonical deals the cache holds (their analyses not read)."""
    if not deals or not store.exists():
        return set()
    with store.reader() as con:
        if not table_columns(con, [CACHE_TABLE]):
            return set()
        rows = con.execute(f"SELECT deal FROM {CACHE_TABLE} WHERE deal IN (SELECT unnest(?))", [list(deals)]).fetchall()
    return {r[0] for r in rows}


def analyse_deals(store: EventStore, *, max_deals: int | None = None, max_seconds: float | None = None,
                  progress_every_s: float = PROGRESS_EVERY_S) -> AnalysisReport:
    """Analyse the log's deals that the cache does not hold yet, within a budget (a DAG task;
    idempotent and resumable: every solved deal is saved at once, a rerun starts where this one
    stopped). The report's `analyses` are the deals solved here; `pending` those left for later."""
    missing = pending_deals(store)
    solver = solver_version()
    if not missing or solver is None:
        if missing:
            log.warning("%d deal(s) without double-dummy analysis: endplay is not installed "
                        "(pip install 'bridgeledger[dds]')", len(missing))
        return AnalysisReport({}, 0, 0, len(missing))
    log.info("double-dummy: %d deal(s) to solve with %s (at most %s deal(s), %s s in this run)", len(missing),
             solver, "every" if max_deals is None else max_deals, "no limit" if max_seconds is None else max_seconds)
    solved = solve_and_save(store, missing, solver, Budget(max_deals, max_seconds), progress_every_s=progress_every_s)
    return AnalysisReport(solved, 0, len(solved), 0, len(missing) - len(solved))


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
