"""The `bridgeledger` command line. Thin: every command calls one function of `pipelines`.

The wall clock is read here, at the edge, and nowhere in replay or scoring: a command that needs
"now" (when a file was recorded) takes it once and passes it down explicitly.

Each command imports what it needs when it runs: `bridgeledger --help` or one director's command
does not pay for the ingest readers, the scoring engine or the Airflow-sized libraries.
"""

import logging
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from pipelines.cli_ranking import register as register_ranking_commands

if TYPE_CHECKING:
    import polars as pl
    from rich.console import Console

    from models.events import ArtificialAward, WeightedComponent
    from pipelines.ingest import IngestReport
    from pipelines.store import EventStore
    from pipelines.vetting import LeftOut

app = typer.Typer(help="bridgeledger: the results back office of a bridge federation.",
                  no_args_is_help=True, pretty_exceptions_enable=False, rich_markup_mode=None)
"""Help and usage errors are click's plain text (`rich_markup_mode=None`): typer's rich help
brings rich's markdown, syntax and traceback modules, three quarters of `--help`'s start-up."""


class LazyConsole:
    """A rich `Console` made when a command first prints: importing rich's console is a third of
    what `bridgeledger --help` would otherwise load."""

    def __init__(self, *, stderr: bool = False) -> None:
        self._stderr = stderr
        self._console: Console | None = None

    @property
    def console(self) -> "Console":
        """The console itself (made now if it was not yet)."""
        if self._console is None:
            from rich.console import Console

            self._console = Console(stderr=self._stderr, soft_wrap=True)
        return self._console

    def print(self, *objects: Any, **options: Any) -> None:
        """`Console.print`."""
        self.console.print(*objects, **options)


console = LazyConsole()
errors = LazyConsole(stderr=True)

DEFAULT_STORE = "bridgeledger.duckdb"
MAX_POSITION = 2**63 - 1
"""The largest log position (DuckDB BIGINT)."""
StoreOption = Annotated[
    Path | None,
    typer.Option("--store", help=f"DuckDB event store (default: $BRIDGELEDGER_STORE or {DEFAULT_STORE})"),
]


def _shown(text: str) -> str:
    """`pipelines.neutralise.for_terminal`, imported when first needed (it brings polars)."""
    from pipelines.neutralise import for_terminal

    return for_terminal(text)


def store_path(store: Path | None) -> Path:
    """The store file: --store, else $BRIDGELEDGER_STORE, else ./bridgeledger.duckdb."""
    return store or Path(os.environ.get("BRIDGELEDGER_STORE", DEFAULT_STORE))


def open_store(store: Path | None) -> "EventStore":
    """The event store named by --store (or its defaults); pipelines.store is imported here, when used."""
    from pipelines.store import EventStore

    return EventStore(store_path(store))


def parse_time(text: str) -> datetime:
    """An ISO 8601 time that must carry its timezone (e.g. 2026-11-21T21:00+01:00), within the
    years the log accepts (`models.events.check_moment`)."""
    from models.events import check_moment

    try:
        moment = datetime.fromisoformat(text)
    except ValueError as exc:
        raise typer.BadParameter(f"{_shown(text)!r} is not an ISO 8601 time, e.g. 2026-11-21T21:00+01:00") from exc
    if moment.tzinfo is None:
        raise typer.BadParameter(f"{_shown(text)!r} has no timezone; add one, e.g. {_shown(text)}+01:00 or "
                                 f"{_shown(text)}Z")
    try:
        return check_moment(moment)
    except ValueError as exc:
        raise typer.BadParameter(str(exc)) from exc


def existing_store(store: Path | None) -> "EventStore":
    """The store named by --store (see `store_path`), which must exist: commands that read it
    never create an empty one."""
    path = store_path(store)
    if not path.exists():
        errors.print(f"[red]error[/red] no event store at {_shown(str(path))}; ingest a file first "
                     "(or give --store)")
        raise typer.Exit(1)
    return open_store(path)


@app.callback()
def _configure(verbose: Annotated[bool, typer.Option("--verbose", "-v")] = False) -> None:
    logging.basicConfig(level=logging.INFO if verbose else logging.WARNING,
                        format="%(levelname)s %(name)s: %(message)s")


@app.command()
def ingest(
    paths: Annotated[list[Path], typer.Argument(help="Files to ingest (.csv, .pbn, .lin, .xml)")],
    store: StoreOption = None,
    strict: Annotated[bool, typer.Option(help="Refuse a whole file when any record has an error")] = False,
    event: Annotated[str | None, typer.Option(help="Event id, when the file does not name one")] = None,
    session: Annotated[str | None, typer.Option(help="Session id, when the file does not name one")] = None,
    at: Annotated[str | None, typer.Option(help="When the results happened (ISO time with zone)")] = None,
) -> None:
    """Append each file's facts to the event log, one transaction per file."""
    from pipelines.ingest import IngestOptions, IngestRejected, ingest_file
    from pipelines.store import StoreError

    event_store = open_store(store)
    now = datetime.now(UTC)
    options = IngestOptions(strict=strict, event_id=event, session_id=session,
                            occurred_at=parse_time(at) if at else None)
    failed = 0
    with _progress(len(paths)) as advance:
        for path in paths:
            try:
                _print_ingest(ingest_file(event_store, path, recorded_at=now, options=options))
            except IngestRejected as exc:
                failed += 1
                errors.print(f"[red]rejected[/red] {_shown(str(exc))}")
            except (OSError, StoreError) as exc:
                failed += 1
                errors.print(f"[red]error[/red] {_shown(str(path))}: {_shown(str(exc))}")
            advance()
    if failed:
        raise typer.Exit(1)


@contextmanager
def _progress(total: int) -> Iterator[Callable[[], None]]:
    """A progress bar over `total` files, shown from three files on; what advances it.

    One or two files get no bar, and their run does not import rich's progress module (a tenth of
    a second, more than reading a small file takes)."""
    if total < 3:
        yield lambda: None
        return
    from rich.progress import Progress

    with Progress(console=errors.console, transient=True) as progress:
        task = progress.add_task("ingesting", total=total)
        yield lambda: progress.advance(task)


def _print_ingest(report: "IngestReport") -> None:
    if report.already_ingested:
        console.print(f"{_shown(report.source)}: already ingested (sha256 {report.sha256[:12]}), nothing added")
        return
    console.print(f"{_shown(report.source)}: {report.events} events appended to {_shown(str(report.event_id))}/"
                  f"{_shown(str(report.session_id))}, {report.quarantined} record(s) quarantined"
                  + (f", {report.contested} result(s) claim a table another result claims" if report.contested
                     else ""))
    for diagnostic in report.diagnostics:
        errors.print(f"  {_shown(str(diagnostic))}")


@app.command()
def score(
    store: StoreOption = None,
    position: Annotated[int | None, typer.Option(help="An edition: the log up to this position", min=0,
                                                 max=MAX_POSITION)] = None,
    as_of: Annotated[str | None, typer.Option("--as-of", help="An edition: results as they stood at this time")] = None,
    event: Annotated[str | None, typer.Option("--event", help="An edition of this event only")] = None,
    session: Annotated[str | None, typer.Option("--session", help="With --event: of this session only")] = None,
    full: Annotated[bool, typer.Option("--full", help="Rebuild every projection from zero")] = False,
    out: Annotated[Path | None, typer.Option(help="Also write board_scores.csv and standings.csv here")] = None,
) -> None:
    """Bring the analyst views up to the log, rescoring only the sessions touched since they were
    last scored (--full: every session, from zero). With --position, --as-of or --event, score that
    edition alone (replaying only the sessions it names) and leave the views as they are."""
    from pipelines.store import StoreError

    if session is not None and event is None:
        raise typer.BadParameter("--session needs --event")
    if full and (position is not None or as_of or event):
        raise typer.BadParameter("--full rebuilds the views from the whole log; it takes no edition options")
    try:
        if position is not None or as_of or event:
            _score_edition(existing_store(store), position, as_of, event, session, out)
        else:
            _refresh_views(existing_store(store), full, out)
    except StoreError as exc:
        errors.print(f"[red]error[/red] {_shown(str(exc))}")
        raise typer.Exit(1) from exc


def _score_edition(event_store: "EventStore", position: int | None, as_of: str | None, event: str | None,
                   session: str | None, out: Path | None) -> None:
    from pipelines.editions import EditionRef
    from pipelines.projections import export_csv, leaders
    from pipelines.vetting import collecting

    ref = EditionRef(position=position, as_of=parse_time(as_of) if as_of else None)
    with collecting() as left_out:
        edition = ref.score(event_store, event_id=event, session_id=session)
    console.print(f"scored {edition.board_scores.height} results at log position {edition.position} "
                  "(an edition; the views are unchanged)")
    _print_replaced(event_store, edition.position, edition.board_scores)
    _print_left_out(left_out.lines())
    if out:
        for name, path in export_csv(edition, out).items():
            console.print(f"  {name}: {_shown(str(path))}")
        _write_left_out(left_out, out)
    _print_leaders(leaders(edition.standings, limit=3))


def _refresh_views(event_store: "EventStore", full: bool, out: Path | None) -> None:
    from pipelines.live import export_tables, read_table, refresh
    from pipelines.projections import leaders
    from pipelines.vetting import collecting

    with collecting() as left_out:
        done = refresh(event_store, full=full)
    console.print(f"scored {done.board_rows} results at log position {done.position} "
                  f"({done.sessions.height} session(s) {'rebuilt' if done.full else 'rescored'}; "
                  "the views show every session)")
    _print_replaced(event_store, done.position, done.sessions)
    _print_left_out(left_out.lines())
    if out:
        for name, path in export_tables(event_store, out).items():
            console.print(f"  {name}: {_shown(str(path))}")
        _write_left_out(left_out, out)
    shown = done.sessions.head(_LEADER_SESSIONS)
    _print_leaders(leaders(read_table(event_store, "standings", shown), limit=3), done.sessions.height - shown.height)


def _print_replaced(event_store: "EventStore", position: int, scored: "pl.DataFrame") -> None:
    """Results read but not scored in the sessions just scored (`scored` has their event_id and
    session_id), because a later result claims the same table (each said at ingest)."""
    from models.events import session_stream
    from pipelines.claims import replaced_results

    keys = scored.select("event_id", "session_id").unique().iter_rows()
    replaced = replaced_results(event_store, position, sorted(session_stream(*key) for key in keys))
    if replaced:
        console.print(f"[yellow]{replaced} result(s) recorded are not scored: a later result claims the same "
                      "session, section, board and table (see the ingest warnings ingest.result.table-claimed)"
                      "[/yellow]")


def _write_left_out(left_out: "LeftOut", out: Path) -> None:
    """Beside the CSVs, the events replay could not use (if any)."""
    if left_out.parts:
        from pipelines.neutralise import spreadsheet_safe

        spreadsheet_safe(left_out.events).write_csv(out / "left_out.csv")
        console.print(f"  left_out: {_shown(str(out / 'left_out.csv'))}")


_LEADER_SESSIONS = 10
"""Sessions whose leaders `score` prints (a full rebuild of years would print pages)."""


def _print_leaders(frame: object, more_sessions: int = 0) -> None:
    _print_frame(frame, "leaders")
    if more_sessions > 0:
        console.print(f"... and {more_sessions} more session(s): query the standings view")


def _print_left_out(lines: list[str]) -> None:
    if lines:
        errors.print(f"[yellow]{len(lines)} event(s) in the log cannot be used and were left out:[/yellow]")
    for line in lines:
        errors.print(f"  {_shown(line)}")


def _director_call(action: Callable[[], int]) -> None:
    from pipelines.director import DirectorError
    from pipelines.store import StoreError

    try:
        position = action()
    except (DirectorError, ValueError, StoreError) as exc:
        errors.print(f"[red]refused[/red] {_shown(str(exc))}; nothing was appended")
        raise typer.Exit(1) from exc
    console.print(f"recorded at log position {position}")


def _now_or(at: str | None) -> datetime:
    return parse_time(at) if at else datetime.now(UTC)


EventOpt = Annotated[str, typer.Option("--event", help="Event id")]
SessionOpt = Annotated[str, typer.Option("--session", help="Session id")]
AtOpt = Annotated[str | None, typer.Option("--at", help="When (ISO time with zone; default now)")]


@app.command()
def register(event: EventOpt,
             name: Annotated[str, typer.Option(help="Tournament name")],
             conditions: Annotated[Path, typer.Option(help="Conditions of contest (TOML)")],
             organiser: Annotated[str | None, typer.Option(help="Tournament organiser")] = None,
             at: AtOpt = None, store: StoreOption = None) -> None:
    """Register a tournament with its conditions of contest (validated before anything is written)."""
    from pydantic import ValidationError

    from models.conditions import ConditionsOfContest
    from pipelines.director import register_tournament

    try:
        rules = ConditionsOfContest.from_toml(conditions)
    except (OSError, ValueError, ValidationError) as exc:
        errors.print(f"[red]refused[/red] {_shown(str(conditions))}: {_shown(str(exc))}")
        raise typer.Exit(1) from exc
    _director_call(lambda: register_tournament(open_store(store), event, name, at=_now_or(at),
                                               conditions=rules, organiser=organiser))


@app.command()
def publish(event: EventOpt, session: SessionOpt, at: AtOpt = None, store: StoreOption = None,
            period: Annotated[float | None, typer.Option(help="Correction period in minutes (overrides "
                                                          "the conditions of contest)")] = None) -> None:
    """The official score is available: the Law 79C correction period opens."""
    from pipelines.director import publish_scores

    _director_call(lambda: publish_scores(open_store(store), event, session, at=_now_or(at),
                                          correction_period_minutes=period))


@app.command()
def correct(
    event: EventOpt, session: SessionOpt,
    board: Annotated[int, typer.Option(help="Board number")],
    table: Annotated[str, typer.Option(help="Table whose result is wrong")],
    by: Annotated[str, typer.Option("--by", help="Who raised it")],
    reason: Annotated[str, typer.Option(help="Why")],
    correction_id: Annotated[str, typer.Option("--id", help="Id of this request")],
    contract: Annotated[str | None, typer.Option(help="Corrected contract, e.g. 4SX or PASS")] = None,
    declarer: Annotated[str | None, typer.Option(help="Corrected declarer")] = None,
    tricks: Annotated[int | None, typer.Option(help="Corrected tricks won by declarer")] = None,
    section: Annotated[str | None, typer.Option(help="Section (needed only if the table is ambiguous)")] = None,
    at: AtOpt = None, store: StoreOption = None,
) -> None:
    """Request a score correction (applies inside the Law 79C period, or with a 79C2 approval)."""
    from pipelines.director import TableRef, request_correction

    ref = TableRef(event, session, board, table, section)
    _director_call(lambda: request_correction(
        open_store(store), ref, at=_now_or(at), correction_id=correction_id, requested_by=by,
        reason=reason, contract=contract, declarer=declarer, tricks=tricks))


_AWARD_HELP = "average-plus (A+), average (A), average-minus (A-) or a percentage (IMPs in teams)"


@app.command()
def adjust(
    event: EventOpt, session: SessionOpt,
    board: Annotated[int, typer.Option(help="Board number")],
    table: Annotated[str, typer.Option(help="Table")],
    ns: Annotated[str, typer.Option(help=f"NS award: {_AWARD_HELP}")],
    ew: Annotated[str, typer.Option(help=f"EW award: {_AWARD_HELP}")],
    director: Annotated[str, typer.Option(help="Director who ruled")],
    reason: Annotated[str, typer.Option(help="Why")],
    requested_at: Annotated[str, typer.Option("--requested-at", help="When the ruling was requested")],
    section: Annotated[str | None, typer.Option(help="Section (needed only if the table is ambiguous)")] = None,
    at: AtOpt = None, store: StoreOption = None,
) -> None:
    """A director's artificial adjusted score (Law 12C2), subject to the Law 92B period."""
    from pipelines.director import TableRef, award_artificial

    ref = TableRef(event, session, board, table, section)
    _director_call(lambda: award_artificial(
        open_store(store), ref, at=_now_or(at), requested_at=parse_time(requested_at),
        ns_award=_award(ns), ew_award=_award(ew), director=director, reason=reason))


@app.command()
def weighted(
    event: EventOpt, session: SessionOpt,
    board: Annotated[int, typer.Option(help="Board number")],
    table: Annotated[str, typer.Option(help="Table")],
    ns: Annotated[list[str], typer.Option("--ns", help="An outcome for NS: CONTRACT:DECLARER:TRICKS:WEIGHT, "
                                                       "e.g. 4S:N:10:0.6 (repeat the option)")],
    director: Annotated[str, typer.Option(help="Director who ruled")],
    reason: Annotated[str, typer.Option(help="Why")],
    requested_at: Annotated[str, typer.Option("--requested-at", help="When the ruling was requested")],
    ew: Annotated[list[str] | None, typer.Option("--ew", help="Outcomes for EW when they differ "
                                                              "(a split score, Law 12C1(e))")] = None,
    section: Annotated[str | None, typer.Option(help="Section (needed only if the table is ambiguous)")] = None,
    at: AtOpt = None, store: StoreOption = None,
) -> None:
    """A weighted assigned score (Law 12C1(c)), subject to the Law 92B period."""
    from pipelines.director import TableRef, award_weighted

    ref = TableRef(event, session, board, table, section)
    _director_call(lambda: award_weighted(
        open_store(store), ref, at=_now_or(at), requested_at=parse_time(requested_at),
        ns_components=[_outcome(o) for o in ns], ew_components=[_outcome(o) for o in ew or []],
        director=director, reason=reason))


def _outcome(text: str) -> "WeightedComponent":
    from pydantic import ValidationError

    from models.events import WeightedComponent

    parts = text.split(":")
    if len(parts) != 4:
        raise typer.BadParameter(f"{text!r}: an outcome is CONTRACT:DECLARER:TRICKS:WEIGHT, e.g. 4S:N:10:0.6")
    contract, declarer, tricks, weight = parts
    try:
        return WeightedComponent(contract=contract.upper(), declarer=declarer.upper() or None,
                                 tricks=int(tricks) if tricks else None, weight=float(weight))
    except (ValueError, ValidationError) as exc:
        raise typer.BadParameter(f"{text!r}: {exc}") from exc


@app.command()
def foul(
    event: EventOpt, session: SessionOpt,
    board: Annotated[int, typer.Option(help="Board number")],
    group: Annotated[list[str], typer.Option("--group", help="LABEL=TABLE,TABLE,... for each version played")],
    reason: Annotated[str, typer.Option(help="What happened")],
    section: Annotated[str, typer.Option(help="Section")] = "",
    at: AtOpt = None, store: StoreOption = None,
) -> None:
    """Law 87: a fouled board, scored within each group of tables that played the same version."""
    from pipelines.director import record_fouled_board

    groups: dict[str, list[str]] = {}
    for item in group:
        label, sep, tables = item.partition("=")
        if not sep or not label.strip() or not tables.strip():
            raise typer.BadParameter(f"{item!r}: a group is LABEL=TABLE,TABLE,...")
        groups[label.strip()] = [t.strip() for t in tables.split(",") if t.strip()]
    _director_call(lambda: record_fouled_board(open_store(store), event, session, board,
                                               at=_now_or(at), groups=groups, reason=reason, section=section))


def _award(text: str) -> "ArtificialAward":
    from models.awards import parse_award

    try:
        return parse_award(text)
    except ValueError as exc:
        raise typer.BadParameter(str(exc)) from exc


@app.command("approve-late")
def approve_late(
    correction_id: Annotated[str, typer.Option("--id", help="The correction request approved")],
    organiser: Annotated[str, typer.Option(help="Who approves for the tournament organiser")],
    director: Annotated[str, typer.Option(help="Director satisfied beyond reasonable doubt")],
    statement: Annotated[str, typer.Option(help="The Law 79C2 statement")],
    at: AtOpt = None, store: StoreOption = None,
) -> None:
    """Law 79C2: approve a correction raised after the correction period."""
    from pipelines.director import approve_late_correction

    _director_call(lambda: approve_late_correction(open_store(store), correction_id,
                                                   at=_now_or(at), organiser=organiser, director=director,
                                                   statement=statement))


@app.command()
def penalty(
    event: EventOpt, session: SessionOpt,
    contestant: Annotated[str, typer.Option(help="Penalised contestant id")],
    amount: Annotated[float, typer.Option(help="Amount deducted")],
    unit: Annotated[str, typer.Option(help="MP, %, IMP or VP")],
    reason: Annotated[str, typer.Option(help="Why")],
    law: Annotated[str | None, typer.Option(help="Law applied, e.g. 90B2")] = None,
    direction: Annotated[str | None, typer.Option(help="NS or EW: the contestant's direction in a two-field "
                                                       "session, where NS 1 and EW 1 are different pairs")] = None,
    section: Annotated[str | None, typer.Option(help="Section (needed only if the id is in several)")] = None,
    at: AtOpt = None, store: StoreOption = None,
) -> None:
    """A procedural or disciplinary penalty (Laws 90/91), in a unit the session is scored in."""
    from pipelines.director import award_penalty

    _director_call(lambda: award_penalty(open_store(store), event, session, contestant,
                                         at=_now_or(at), amount=amount, unit=unit, reason=reason, law=law,
                                         section=section, direction=direction))


@app.command()
def audit(event: EventOpt, session: SessionOpt,
          out: Annotated[Path, typer.Option(help="Directory for the CSV and HTML report")] = Path("outputs"),
          as_of: Annotated[str | None, typer.Option("--as-of", help="Audit as of this time")] = None,
          store: StoreOption = None) -> None:
    """Every correction and ruling of a session: before/after, who/when/why, applied or rejected."""
    from models.events import session_stream
    from pipelines.audit import recorded_times, write_audit
    from pipelines.projections import score_store
    from pipelines.store import StoreError, to_epoch_us
    from pipelines.vetting import collecting

    as_of_us = to_epoch_us(parse_time(as_of)) if as_of else None
    event_store = existing_store(store)
    try:
        if event_store.stream_version(session_stream(event, session)) == 0:
            errors.print(f"[red]error[/red] there is no session {_shown(event)}/{_shown(session)} in the log; "
                         "nothing was written")
            raise typer.Exit(1)
        with collecting() as left_out:
            edition = score_store(event_store, as_of_us=as_of_us, sessions=[(event, session)])
        recorded = recorded_times(event_store)
    except StoreError as exc:
        errors.print(f"[red]error[/red] {_shown(str(exc))}")
        raise typer.Exit(1) from exc
    _print_left_out(left_out.lines())
    report = write_audit(edition, event, session, out, recorded=recorded, left_out=left_out.events)
    _print_frame(report.rows.select("kind", "id", "board", "table_id", "raised_at", "recorded_at", "back_dated",
                                    "decision", "rule"),
                 "audit")
    console.print(f"csv: {_shown(str(report.csv_path))}\nhtml: {_shown(str(report.html_path))}")


@app.command()
def diff(old: Annotated[str, typer.Option("--from", help="Log position or ISO time")],
         new: Annotated[str, typer.Option("--to", help="Log position or ISO time")],
         out: Annotated[Path | None, typer.Option(help="Also write the full changes as CSV here")] = None,
         event: Annotated[str | None, typer.Option("--event", help="Only this event")] = None,
         session: Annotated[str | None, typer.Option("--session", help="With --event: only this session")] = None,
         store: StoreOption = None) -> None:
    """Every board score, standing and rank that changed between two editions, and why."""
    from pipelines.editions import EditionRef, describe_changes, diff_editions
    from pipelines.store import StoreError

    if session is not None and event is None:
        raise typer.BadParameter("--session needs --event")
    try:
        refs = EditionRef.parse(old), EditionRef.parse(new)
    except ValueError as exc:
        raise typer.BadParameter(str(exc)) from exc
    event_store = existing_store(store)
    try:
        changes = diff_editions(event_store, *refs, event_id=event, session_id=session)
    except StoreError as exc:
        errors.print(f"[red]error[/red] {_shown(str(exc))}")
        raise typer.Exit(1) from exc
    for line in describe_changes(changes):
        console.print(_shown(line))
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
        from pipelines.neutralise import spreadsheet_safe

        spreadsheet_safe(changes.board_changes).write_csv(out / "board_changes.csv")
        spreadsheet_safe(changes.standing_changes).write_csv(out / "standing_changes.csv")
        spreadsheet_safe(changes.events).write_csv(out / "events_between.csv")
        console.print(f"details: {_shown(str(out))}")


@app.command()
def check(paths: Annotated[list[Path], typer.Argument(help="Files to check")],
          strict: Annotated[bool, typer.Option("--strict/--lenient",
                                               help="Report every departure from the standard")] = False) -> None:
    """Read files without ingesting them and print every diagnostic, as `ingest` reads them (--strict:
    as `ingest --strict` does, every departure from the standard). Exit 1 only on errors, which lose
    data: a record left out (lenient), or the whole file refused (strict)."""
    from pipelines.ingest import parse_path

    failed = False
    for path in paths:
        try:
            parsed = parse_path(path, strict=strict)
        except OSError as exc:
            errors.print(f"[red]error[/red] {_shown(str(path))}: {_shown(str(exc))}")
            failed = True
            continue
        for diagnostic in parsed.diagnostics:
            console.print(_shown(str(diagnostic)))
        console.print(f"{_shown(path.name)}: {len(parsed.boards)} boards, {len(parsed.results)} results, "
                      f"{len(parsed.artificial)} artificial scores, {len(parsed.errors)} error(s), "
                      f"{parsed.quarantined} quarantined")
        failed = failed or bool(parsed.errors)
    if failed:
        raise typer.Exit(1)


@app.command()
def export(fmt: Annotated[str, typer.Argument(help="pbn or lin")], event: EventOpt, session: SessionOpt,
           out: Annotated[Path | None, typer.Option(help="File to write (default: standard output)")] = None,
           store: StoreOption = None) -> None:
    """Write a session (hand records, results, our standings) as PBN or LIN."""
    from pipelines.exports import ExportError, export_session
    from pipelines.store import StoreError

    try:
        text = export_session(open_store(store), event, session, fmt.lower())
    except (ExportError, StoreError) as exc:
        errors.print(f"[red]error[/red] {_shown(str(exc))}")
        raise typer.Exit(1) from exc
    if out is None:
        sys.stdout.write(text)
    else:
        out.write_text(text, encoding="utf-8")
        console.print(f"wrote {_shown(str(out))}")


@app.command()
def site(out: Annotated[Path, typer.Option(help="Folder to write the site into")],
         event: Annotated[str | None, typer.Option("--event", help="Only this event's pages")] = None,
         as_of: Annotated[str | None, typer.Option("--as-of", help="Results as they stood at this time")] = None,
         store: StoreOption = None) -> None:
    """Write the static results site: events, sessions, travellers, score cards, plots, downloads."""
    from pipelines.site import build_site
    from pipelines.store import StoreError, to_epoch_us

    try:
        report = build_site(open_store(store), out, event_id=event,
                            as_of_us=to_epoch_us(parse_time(as_of)) if as_of else None)
    except (ValueError, StoreError) as exc:
        errors.print(f"[red]error[/red] {exc}")
        raise typer.Exit(1) from exc
    console.print(f"{len(report.written)} file(s) written, {report.unchanged} unchanged, {report.sessions} "
                  f"session(s), {report.rendered} rendered (the others had not changed)\nindex: {report.index}")


@app.command("diff-published")
def diff_published(store: StoreOption = None,
                   limit: Annotated[int, typer.Option(help="Rows to show")] = 50) -> None:
    """List every score a source file published that ours does not reproduce (board, table, ours, theirs)."""
    from pipelines.projections import score_store
    from pipelines.published import published_differences
    from pipelines.store import StoreError

    event_store = existing_store(store)
    try:
        differences = published_differences(event_store, score_store(event_store))
    except StoreError as exc:
        errors.print(f"[red]error[/red] {_shown(str(exc))}")
        raise typer.Exit(1) from exc
    console.print(f"{differences.height} published value(s) differ from ours")
    _print_frame(differences.head(limit), None)


@app.command()
def verify(store: StoreOption = None) -> None:
    """Recompute the hash chain; exit 1 naming the first bad position if a row was tampered with."""
    from pipelines.store import StoreError

    try:
        report = open_store(store).verify()
    except StoreError as exc:
        errors.print(f"[red]error[/red] {_shown(str(exc))}")
        raise typer.Exit(1) from exc
    if report.ok:
        console.print(f"ok: {report.events} events, hash chain intact")
        return
    errors.print(f"[red]broken[/red] at position {report.first_bad_position}: {_shown(str(report.reason))}")
    raise typer.Exit(1)


@app.command()
def sql(query: Annotated[str, typer.Argument(help="SQL to run on a read-only connection")],
        store: StoreOption = None) -> None:
    """Run one query for analysis: read-only, and it reaches nothing outside the store."""
    from pipelines.analyst_sql import QueryRefused, run_query
    from pipelines.store import StoreError

    try:
        frame = run_query(store_path(store), query)
    except QueryRefused as exc:
        errors.print(f"[red]refused[/red] {_shown(str(exc))}")
        raise typer.Exit(1) from exc
    except StoreError as exc:
        errors.print(f"[red]error[/red] {_shown(str(exc))}")
        raise typer.Exit(1) from exc
    except Exception as exc:  # a query error is the analyst's to read, not a traceback
        errors.print(f"[red]query failed[/red] {_shown(str(exc))}")
        raise typer.Exit(1) from exc
    _print_frame(frame, None)


@app.command()
def schema() -> None:
    """Print the JSON Schema of every event in the catalogue."""
    import json

    from models.events import EVENT_ADAPTER

    sys.stdout.write(json.dumps(EVENT_ADAPTER.json_schema(), indent=2, sort_keys=True) + "\n")


@app.command()
def demo(workdir: Annotated[Path, typer.Option(help="Where the demo store and outputs go")] = Path("build/demo"),
         ) -> None:
    """Run the sample weekend end to end on a fresh store and show where everything is."""
    from pipelines.demo import run_demo

    summary = run_demo(workdir, now=datetime.now(UTC))
    for line in summary.lines:
        console.print(line, markup=False, highlight=False)
    _print_frame(summary.leaders, "the ranking after the weekend")
    if not summary.ok:
        raise typer.Exit(1)


def _print_frame(frame: object, title: str | None) -> None:
    import polars as pl
    from rich.table import Table

    assert isinstance(frame, pl.DataFrame)
    table = Table(title=title)
    for column in frame.columns:
        table.add_column(_shown(column))
    for row in frame.iter_rows():  # display only: a few rows for a person to read
        table.add_row(*("" if v is None else f"{v:.2f}" if isinstance(v, float) else _shown(str(v)) for v in row))
    console.print(table)


register_ranking_commands(app)  # players, rank, statement


def main() -> None:
    """Entry point for `python -m pipelines.cli`."""
    app()


if __name__ == "__main__":
    main()
