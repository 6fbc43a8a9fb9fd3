"""The sample weekend, end to end, on a fresh embedded store (what `make demo` runs).

The federation's weekend in the order it happens (`sample_data/weekend/timeline.toml`): the member
list arrives, then Friday's club evenings, Saturday's National Pairs (two sessions, two
sections), a broken file on Sunday morning, the Swiss Teams; sessions are published, corrections
come in inside and after their Law 79C periods, the director rules; a ranking edition is published
on Saturday evening, the periods close, and Monday's edition shows who moved and why.
"""

from __future__ import annotations

import logging
import shutil
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path

import polars as pl

from pipelines.log.snapshot import publish_snapshot
from pipelines.log.store import EventStore

log = logging.getLogger(__name__)

SAMPLE_DATA = Path(__file__).resolve().parents[2] / "sample_data"
"""The sample files shipped with the repository."""
WEEKEND = SAMPLE_DATA / "weekend"
"""The sample weekend (`sample_data/make_weekend.py` writes it)."""

FEDERATION = "NBF"
_CET = timezone(timedelta(hours=1))
MEMBERS_AT = datetime(2026, 11, 1, tzinfo=_CET)
"""When the member list was imported."""
SATURDAY_EDITION = datetime(2026, 11, 21, 20, 0, tzinfo=_CET)
"""The ranking edition published on Saturday evening."""
MONDAY = datetime(2026, 11, 23, 9, 0, tzinfo=_CET)
"""Monday morning: every correction period has ended; the weekend's edition is published."""


@dataclass
class DemoSummary:
    """What the demo did, for a person to read."""

    lines: list[str] = field(default_factory=list)
    leaders: pl.DataFrame = field(default_factory=pl.DataFrame)
    ok: bool = True


def run_demo(workdir: Path, *, now: datetime, weekend: Path = WEEKEND) -> DemoSummary:
    """Run the weekend on a new store under `workdir`; score, close, rank, verify and export.

    `now` is when the files reach the log (`recorded_at`); every fact keeps the time it happened.
    """
    summary = DemoSummary()
    store = _fresh_store(workdir)
    # One connection for the whole weekend: the demo is the store's only user, and opening the
    # file costs tens of milliseconds each of the ~150 times its steps would otherwise open it.
    with store.session():
        _import_members(store, weekend, summary)
        _run_weekend(store, weekend, now, summary)
        saturday = _publish_ranking(store, weekend, SATURDAY_EDITION, "nbf-2026-11-21", summary)
        _close_periods(store, workdir, summary)
        monday = _publish_ranking(store, weekend, MONDAY, "nbf-2026-11-23", summary)
        _show_movement(store, saturday, monday, summary)
        _write_outputs(store, workdir, weekend, summary)
    report = store.verify()
    summary.ok = summary.ok and report.ok
    summary.lines.append(f"verify: {report.events} events, hash chain "
                         f"{'intact' if report.ok else f'BROKEN at {report.first_bad_position}'}")
    summary.lines.append(f"store: {store.path}  (try: bridgeledger sql --store {store.path} "
                         "\"SELECT * FROM ranking LIMIT 10\")")
    snapshot = publish_snapshot(store)
    summary.lines.append(f"analysts' snapshot at log position {snapshot.position}: {snapshot.path} "
                         "(a DuckDB client or BI tool may keep it open; docs/analysts.md)")
    return summary


def _fresh_store(workdir: Path) -> EventStore:
    workdir.mkdir(parents=True, exist_ok=True)
    store_file = workdir / "bridgeledger.duckdb"
    for stale in workdir.iterdir():
        if stale.name.startswith(("bridgeledger.duckdb", "bridgeledger.analysts")) or stale.name in ("outputs", "site"):
            # the demo's own scratch files, rebuilt from the sample weekend every run
            shutil.rmtree(stale) if stale.is_dir() else stale.unlink()
    return EventStore(store_file)


def _import_members(store: EventStore, weekend: Path, summary: DemoSummary) -> None:
    from pipelines.ranking.members import import_member_list

    imported = import_member_list(store, weekend / "members.csv", federation=FEDERATION, at=MEMBERS_AT,
                                  recorded_at=MEMBERS_AT)
    summary.lines.append(f"{MEMBERS_AT:%a %d %b}: the {FEDERATION} member list: {imported.rows} members")


def _run_weekend(store: EventStore, weekend: Path, now: datetime, summary: DemoSummary) -> None:
    from pipelines.edges.timeline import run_timeline

    for outcome in run_timeline(store, weekend / "timeline.toml", recorded_at=now):
        first_line = outcome.message.splitlines()[0]
        mark = "" if outcome.ok else "REFUSED "
        summary.lines.append(f"{outcome.step.at:%a %H:%M} {outcome.step.action:<12} {mark}{first_line}")
        summary.lines.extend(f"      {line.strip()}" for line in outcome.message.splitlines()[1:3])


def _publish_ranking(store: EventStore, weekend: Path, as_of: datetime, label: str, summary: DemoSummary) -> str:
    from pipelines.ranking.edition import compute_edition
    from pipelines.ranking.publish import publish_edition, refresh_standings
    from pipelines.ranking.rules import load_rules

    rules = load_rules(weekend / "ranking_rules.toml")
    refresh_standings(store)
    edition = compute_edition(store, rules, as_of=as_of)
    publish_edition(store, edition, label=label, at=as_of)
    left_out = edition.provisional.select("event_id").unique().height
    summary.lines.append(f"{as_of:%a %H:%M} ranking edition {label}: {edition.ranking.height} players ranked, "
                         f"{edition.awards.height} awards, {left_out} event(s) left out as provisional")
    return label


def _close_periods(store: EventStore, workdir: Path, summary: DemoSummary) -> None:
    from pipelines.edges.tasks import close_due_periods

    closed = close_due_periods(store.location, MONDAY.isoformat(), str(workdir / "outputs"))
    summary.lines.append(f"{MONDAY:%a %H:%M} correction periods closed: {len(closed)} session(s) final")


def _show_movement(store: EventStore, old: str, new: str, summary: DemoSummary) -> None:
    from pipelines.ranking.diff import diff_rankings
    from pipelines.ranking.publish import rebuild_edition

    diff = diff_rankings(rebuild_edition(store, old), rebuild_edition(store, new), old_label=old, new_label=new)
    lines = diff.lines()
    summary.lines.append(f"movement {old} -> {new}: {lines[1] if len(lines) > 1 else 'nobody moved'}")
    summary.lines.extend(f"  {line}" for line in lines[2:12])
    summary.leaders = rebuild_edition(store, new).ranking.head(5).select("place", "player_id", "name", "club",
                                                                          "points")


def _write_outputs(store: EventStore, workdir: Path, weekend: Path, summary: DemoSummary) -> None:
    from pipelines.replay.audit import recorded_times, write_audit
    from pipelines.replay.live import write_views
    from pipelines.replay.projections import export_csv, score_store
    from pipelines.site import build_site
    from pipelines.site.analysis import seed_from_file

    edition = score_store(store)
    write_views(store, edition)
    outputs = workdir / "outputs"
    paths = export_csv(edition, outputs)
    audit = write_audit(edition, "national-pairs-2026", "2", outputs, recorded=recorded_times(store))
    kept = weekend / "double_dummy.json"
    if kept.exists():  # endplay's analyses of the weekend's deals, kept so the demo need not solve them
        summary.lines.append(f"double-dummy cache seeded with {seed_from_file(store, kept)} analysed deals")
    site = build_site(store, outputs / "site", edition=edition)
    summary.lines.append(f"scored {edition.board_scores.height} table results in "
                         f"{edition.standings.select('event_id', 'session_id').unique().height} sessions "
                         f"at log position {edition.position}")
    for row in audit.rows.iter_rows(named=True):  # a handful of rows, printed for a person
        table = f" table {row['table_id']}" if row["table_id"] is not None else ""
        summary.lines.append(f"audit national-pairs-2026/2: {row['kind']} {row['id']} board {row['board']}{table}: "
                             f"{row['decision']} ({row['rule']})")
    _show_team_rulings(edition.board_scores, summary)
    summary.lines.extend(f"{name}: {path}" for name, path in paths.items())
    summary.lines.append(f"audit: {outputs / audit.html_name}")
    summary.lines.append(f"results site: {len(site.written)} file(s) for {site.sessions} session(s); "
                         f"open {site.index.resolve()}")


def _show_team_rulings(board_scores: pl.DataFrame, summary: DemoSummary) -> None:
    """The team boards a rule gave their value (the Swiss's fouled board), and what each team got."""
    ruled = (board_scores.filter(pl.col("board_rule").is_not_null())
             .sort("event_id", "match_id", "board", "table_id")
             .unique(["event_id", "match_id", "board"], keep="first", maintain_order=True))
    for row in ruled.head(5).iter_rows(named=True):  # a handful of rows, printed for a person
        summary.lines.append(f"{row['event_id']} {row['match_id']} board {row['board']}: {row['ns_id']} "
                             f"{row['imp_ns']:+g}, {row['ew_id']} {row['imp_ew']:+g} IMPs ({row['board_rule']})")
