"""The `bridgeledger` command line. Thin: every command calls one function of `pipelines`.

The wall clock is read here, at the edge, and nowhere in replay or scoring: a command that needs
"now" (when a file was recorded) takes it once and passes it down explicitly.

Each command imports what it needs when it runs: `bridgeledger --help` or one director's command
does not pay for the ingest readers, the scoring engine or the Airflow-sized libraries.
"""

import logging
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from pipelines.cli.common import (
    MAX_POSITION,
    EventOpt,
    SessionOpt,
    StoreOption,
    console,
    errors,
    existing_store,
    open_store,
    parse_time,
    print_frame,
    print_left_out,
    shown,
)
from pipelines.cli.director import add_commands as register_director_commands
from pipelines.cli.log import register as register_log_commands
from pipelines.cli.ranking import register as register_ranking_commands

if TYPE_CHECKING:
    import polars as pl

    from pipelines.files.ingest import IngestReport
    from pipelines.log.store import EventStore
    from pipelines.log.vetting import LeftOut

app = typer.Typer(help="bridgeledger: the results back office of a bridge federation.",
                  no_args_is_help=True, pretty_exceptions_enable=False, rich_markup_mode=None)
"""Help and usage errors are click's plain text (`rich_markup_mode=None`): typer's rich help
brings rich's markdown, syntax and traceback modules, three quarters of `--help`'s start-up."""


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
    from pipelines.files.ingest import IngestOptions, IngestRejected, ingest_files

    event_store = open_store(store)
    now = datetime.now(UTC)
    options = IngestOptions(strict=strict, event_id=event, session_id=session,
                            occurred_at=parse_time(at) if at else None)
    failed = 0
    with _progress(len(paths)) as advance:
        for path, outcome in ingest_files(event_store, paths, recorded_at=now, options=options):
            if isinstance(outcome, IngestRejected):
                failed += 1
                errors.print(f"[red]rejected[/red] {shown(str(outcome))}")
            elif isinstance(outcome, Exception):
                failed += 1
                errors.print(f"[red]error[/red] {shown(str(path))}: {shown(str(outcome))}")
            else:
                _print_ingest(outcome)
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
        console.print(f"{shown(report.source)}: already ingested (sha256 {report.sha256[:12]}), nothing added")
        return
    console.print(f"{shown(report.source)}: {report.events} events appended to {shown(str(report.event_id))}/"
                  f"{shown(str(report.session_id))}, {report.quarantined} record(s) quarantined"
                  + (f", {report.contested} result(s) claim a table another result claims" if report.contested
                     else ""))
    for diagnostic in report.diagnostics:
        errors.print(f"  {shown(str(diagnostic))}")


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
    from pipelines.log.store import StoreError

    if session is not None and event is None:
        raise typer.BadParameter("--session needs --event")
    if full and (position is not None or as_of or event):
        raise typer.BadParameter("--full rebuilds the views from the whole log; it takes no edition options")
    try:
        event_store = existing_store(store)
        with event_store.session():  # one connection for the command's reads and writes
            if position is not None or as_of or event:
                _score_edition(event_store, position, as_of, event, session, out)
            else:
                _refresh_views(event_store, full, out)
    except StoreError as exc:
        errors.print(f"[red]error[/red] {shown(str(exc))}")
        raise typer.Exit(1) from exc


def _score_edition(event_store: "EventStore", position: int | None, as_of: str | None, event: str | None,
                   session: str | None, out: Path | None) -> None:
    from pipelines.log.vetting import collecting
    from pipelines.replay.editions import EditionRef
    from pipelines.replay.projections import export_csv, leaders

    ref = EditionRef(position=position, as_of=parse_time(as_of) if as_of else None)
    with collecting() as left_out:
        edition = ref.score(event_store, event_id=event, session_id=session)
    console.print(f"scored {edition.board_scores.height} results at log position {edition.position} "
                  "(an edition; the views are unchanged)")
    _print_replaced(event_store, edition.position, edition.board_scores)
    print_left_out(left_out.lines())
    if out:
        for name, path in export_csv(edition, out).items():
            console.print(f"  {name}: {shown(str(path))}")
        _write_left_out(left_out, out)
    _print_leaders(leaders(edition.standings, limit=3))


def _refresh_views(event_store: "EventStore", full: bool, out: Path | None) -> None:
    from pipelines.log.vetting import collecting
    from pipelines.replay.live import export_tables, read_table, refresh
    from pipelines.replay.projections import leaders

    with collecting() as left_out:
        done = refresh(event_store, full=full)
    console.print(f"scored {done.board_rows} results at log position {done.position} "
                  f"({done.sessions.height} session(s) {'rebuilt' if done.full else 'rescored'}; "
                  "the views show every session)")
    _print_replaced(event_store, done.position, done.sessions)
    print_left_out(left_out.lines())
    if out:
        for name, path in export_tables(event_store, out).items():
            console.print(f"  {name}: {shown(str(path))}")
        _write_left_out(left_out, out)
    first = done.sessions.head(_LEADER_SESSIONS)
    _print_leaders(leaders(read_table(event_store, "standings", first), limit=3), done.sessions.height - first.height)


def _print_replaced(event_store: "EventStore", position: int, scored: "pl.DataFrame") -> None:
    """Results read but not scored in the sessions just scored (`scored` has their event_id and
    session_id), because a later result claims the same table (each said at ingest)."""
    from models.events import session_stream
    from pipelines.files.claims import replaced_results

    keys = scored.select("event_id", "session_id").unique().iter_rows()
    replaced = replaced_results(event_store, position, sorted(session_stream(*key) for key in keys))
    if replaced:
        console.print(f"[yellow]{replaced} result(s) recorded are not scored: a later result claims the same "
                      "session, section, board and table (see the ingest warnings ingest.result.table-claimed)"
                      "[/yellow]")


def _write_left_out(left_out: "LeftOut", out: Path) -> None:
    """Beside the CSVs, the events replay could not use (if any)."""
    if left_out.parts:
        from pipelines.base.neutralise import spreadsheet_safe

        spreadsheet_safe(left_out.events).write_csv(out / "left_out.csv")
        console.print(f"  left_out: {shown(str(out / 'left_out.csv'))}")


_LEADER_SESSIONS = 10
"""Sessions whose leaders `score` prints (a full rebuild of years would print pages)."""


def _print_leaders(frame: object, more_sessions: int = 0) -> None:
    print_frame(frame, "leaders")
    if more_sessions > 0:
        console.print(f"... and {more_sessions} more session(s): query the standings view")


register_director_commands(app)  # register, publish, correct, adjust, weighted, foul, ...


@app.command()
def diff(old: Annotated[str, typer.Option("--from", help="Log position or ISO time")],
         new: Annotated[str, typer.Option("--to", help="Log position or ISO time")],
         out: Annotated[Path | None, typer.Option(help="Also write the full changes as CSV here")] = None,
         event: Annotated[str | None, typer.Option("--event", help="Only this event")] = None,
         session: Annotated[str | None, typer.Option("--session", help="With --event: only this session")] = None,
         store: StoreOption = None) -> None:
    """Every board score, standing and rank that changed between two editions, and why."""
    from pipelines.log.store import StoreError
    from pipelines.replay.editions import EditionRef, describe_changes, diff_editions

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
        errors.print(f"[red]error[/red] {shown(str(exc))}")
        raise typer.Exit(1) from exc
    for line in describe_changes(changes):
        console.print(shown(line))
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
        from pipelines.base.neutralise import spreadsheet_safe

        spreadsheet_safe(changes.board_changes).write_csv(out / "board_changes.csv")
        spreadsheet_safe(changes.standing_changes).write_csv(out / "standing_changes.csv")
        spreadsheet_safe(changes.events).write_csv(out / "events_between.csv")
        console.print(f"details: {shown(str(out))}")


@app.command()
def check(paths: Annotated[list[Path], typer.Argument(help="Files to check")],
          strict: Annotated[bool, typer.Option("--strict/--lenient",
                                               help="Report every departure from the standard")] = False) -> None:
    """Read files without ingesting them and print every diagnostic, as `ingest` reads them (--strict:
    as `ingest --strict` does, every departure from the standard). Exit 1 only on errors, which lose
    data: a record left out (lenient), or the whole file refused (strict)."""
    from pipelines.files.ingest import parse_path

    failed = False
    for path in paths:
        try:
            parsed = parse_path(path, strict=strict)
        except OSError as exc:
            errors.print(f"[red]error[/red] {shown(str(path))}: {shown(str(exc))}")
            failed = True
            continue
        for diagnostic in parsed.diagnostics:
            console.print(shown(str(diagnostic)))
        console.print(f"{shown(path.name)}: {len(parsed.boards)} boards, {len(parsed.results)} results, "
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
    from pipelines.files.exports import ExportError, export_session
    from pipelines.log.store import StoreError

    try:
        text = export_session(open_store(store), event, session, fmt.lower())
    except (ExportError, StoreError) as exc:
        errors.print(f"[red]error[/red] {shown(str(exc))}")
        raise typer.Exit(1) from exc
    if out is None:
        sys.stdout.write(text)
    else:
        out.write_text(text, encoding="utf-8")
        console.print(f"wrote {shown(str(out))}")


@app.command()
def site(out: Annotated[Path, typer.Option(help="Folder to write the site into")],
         event: Annotated[str | None, typer.Option("--event", help="Only this event's pages")] = None,
         as_of: Annotated[str | None, typer.Option("--as-of", help="Results as they stood at this time")] = None,
         store: StoreOption = None) -> None:
    """Write the static results site: events, sessions, travellers, score cards, plots, downloads."""
    from pipelines.log.store import StoreError, to_epoch_us
    from pipelines.site import build_site

    try:
        report = build_site(open_store(store), out, event_id=event,
                            as_of_us=to_epoch_us(parse_time(as_of)) if as_of else None)
    except (ValueError, StoreError) as exc:
        errors.print(f"[red]error[/red] {shown(str(exc))}")
        raise typer.Exit(1) from exc
    console.print(f"{len(report.written)} file(s) written, {report.unchanged} unchanged, {report.sessions} "
                  f"session(s), {report.rendered} rendered (the others had not changed)\n"
                  f"index: {shown(str(report.index))}")


@app.command("diff-published")
def diff_published(store: StoreOption = None,
                   limit: Annotated[int, typer.Option(help="Rows to show")] = 50) -> None:
    """List every value a source file published that ours does not reproduce: board scores,
    contestants' totals, percentages and places, vugraph results (`rs`), and double-dummy tricks and
    par against our analysis (deals not yet analysed are solved and cached, when endplay is installed)."""
    from pipelines.log.store import StoreError
    from pipelines.published.analysis import analysis_differences
    from pipelines.published.scores import published_differences, result_differences
    from pipelines.published.standings import standing_differences
    from pipelines.replay.projections import score_store

    event_store = existing_store(store)
    try:
        edition = score_store(event_store)
        sections = [("board score(s)", published_differences(event_store, edition)),
                    ("contestant total(s), percentage(s) or place(s)", standing_differences(event_store, edition)),
                    ("table result(s) (rs)", result_differences(event_store, edition)),
                    ("double-dummy or par value(s)", analysis_differences(event_store, edition.position))]
    except StoreError as exc:
        errors.print(f"[red]error[/red] {shown(str(exc))}")
        raise typer.Exit(1) from exc
    for what, differences in sections:
        console.print(f"{differences.height} published {what} differ from ours")
        if differences.height:
            print_frame(differences.head(limit), None)


@app.command()
def verify(store: StoreOption = None) -> None:
    """Recompute the hash chain; exit 1 naming the first bad position if a row was tampered with."""
    from pipelines.log.store import StoreError

    try:
        report = open_store(store).verify()
    except StoreError as exc:
        errors.print(f"[red]error[/red] {shown(str(exc))}")
        raise typer.Exit(1) from exc
    for note in report.notes:
        errors.print(f"[yellow]note[/yellow] {shown(note)}")
    if report.ok:
        console.print(f"ok: {report.events} events, hash chain intact")
        return
    errors.print(f"[red]broken[/red] at position {report.first_bad_position}: {shown(str(report.reason))}")
    raise typer.Exit(1)


@app.command()
def sql(query: Annotated[str, typer.Argument(help="SQL to run on a read-only connection")],
        store: StoreOption = None,
        fmt: Annotated[str, typer.Option("--format", help="table (for a person), csv or json (for a program)")]
        = "table",
        timeout: Annotated[float, typer.Option(help="Seconds the query may run before it is stopped", min=0.001)]
        = 60.0,
        memory_limit: Annotated[str, typer.Option("--memory-limit", help="Memory the query may hold, e.g. 512MB "
                                                                          "or 4GB")] = "1GB") -> None:
    """Run one query for analysis: read-only, bounded in time and memory, and it reaches nothing
    outside the store."""
    from pipelines.edges.analyst_sql import (
        ANSWER_FORMATS,
        QueryLimitReached,
        QueryLimits,
        QueryRefused,
        answer_text,
        run_query,
    )
    from pipelines.log.store import StoreError

    if fmt not in ANSWER_FORMATS:
        raise typer.BadParameter(f"one of {', '.join(ANSWER_FORMATS)}, not {shown(fmt)!r}", param_hint="--format")
    try:
        event_store = open_store(store)
        event_store.refresh_mirror()
        frame = run_query(event_store, query,
                          limits=QueryLimits(timeout=timeout, memory_limit=memory_limit))
    except QueryRefused as exc:
        errors.print(f"[red]refused[/red] {shown(str(exc))}")
        raise typer.Exit(1) from exc
    except QueryLimitReached as exc:
        errors.print(f"[red]stopped[/red] {shown(str(exc))}")
        raise typer.Exit(1) from exc
    except StoreError as exc:
        errors.print(f"[red]error[/red] {shown(str(exc))}")
        raise typer.Exit(1) from exc
    except Exception as exc:  # a query error is the analyst's to read, not a traceback
        errors.print(f"[red]query failed[/red] {shown(str(exc))}")
        raise typer.Exit(1) from exc
    if fmt == "table":
        print_frame(frame, None, fit=False)
    else:
        sys.stdout.write(answer_text(frame, fmt))


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
    from pipelines.edges.demo import run_demo

    summary = run_demo(workdir, now=datetime.now(UTC))
    for line in summary.lines:
        console.print(line, markup=False, highlight=False)
    print_frame(summary.leaders, "the ranking after the weekend")
    if not summary.ok:
        raise typer.Exit(1)


register_ranking_commands(app)  # players, rank, statement
register_log_commands(app)  # info, log copy


def main() -> None:
    """Entry point of the `bridgeledger` command and of `python -m pipelines.cli`: the command,
    then the process's end without the interpreter's teardown (see `pipelines.cli.exit`), with the
    cycle collector paced for one job (`pipelines.edges.collector`)."""
    from pipelines.cli.exit import run_then_exit
    from pipelines.edges.collector import pace_for_a_job

    pace_for_a_job()
    run_then_exit(_damage_said_plainly)


def _damage_said_plainly() -> None:
    """The app; a store file that DuckDB cannot read (cut short, overwritten) is said in one line
    naming the file, never a traceback: a command that meets it has changed nothing."""
    try:
        app()
    except Exception as exc:
        if not type(exc).__module__.startswith(("duckdb", "_duckdb")) or not _damaged(str(exc)):
            raise
        errors.print(f"[red]error[/red] the store cannot be read: {shown(str(exc))}. The file is damaged "
                     "(cut short or overwritten); nothing was changed. Restore it from a copy, then run "
                     "`bridgeledger verify`.")
        raise SystemExit(1) from exc


def _damaged(message: str) -> bool:
    lowered = message.lower()
    return any(sign in lowered for sign in ("could not read enough bytes", "corrupt", "checksum",
                                            "not a valid duckdb", "invalid block", "failed to read"))


if __name__ == "__main__":
    main()
