"""The `bridgeledger` command line. Thin: every command calls one function of `pipelines`.

The wall clock is read here, at the edge, and nowhere in replay or scoring: a command that needs
"now" (when a file was recorded) takes it once and passes it down explicitly.
"""

from __future__ import annotations

import json
import logging
import os
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.progress import Progress
from rich.table import Table

from pipelines.ingest import IngestOptions, IngestRejected, IngestReport, ingest_file
from pipelines.store import EventStore, StoreError

app = typer.Typer(help="bridgeledger: the results back office of a bridge federation.",
                  no_args_is_help=True, pretty_exceptions_enable=False)
console = Console(soft_wrap=True)
errors = Console(stderr=True, soft_wrap=True)

DEFAULT_STORE = "bridgeledger.duckdb"
StoreOption = Annotated[
    Path | None,
    typer.Option("--store", help=f"DuckDB event store (default: $BRIDGELEDGER_STORE or {DEFAULT_STORE})"),
]


def store_path(store: Path | None) -> Path:
    """The store file: --store, else $BRIDGELEDGER_STORE, else ./bridgeledger.duckdb."""
    return store or Path(os.environ.get("BRIDGELEDGER_STORE", DEFAULT_STORE))


def parse_time(text: str) -> datetime:
    """An ISO 8601 time that must carry its timezone (e.g. 2026-11-21T21:00+01:00)."""
    moment = datetime.fromisoformat(text)
    if moment.tzinfo is None:
        raise typer.BadParameter(f"{text!r} has no timezone; add one, e.g. {text}+01:00 or {text}Z")
    return moment


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
    event_store = EventStore(store_path(store))
    now = datetime.now(UTC)
    options = IngestOptions(strict=strict, event_id=event, session_id=session,
                            occurred_at=parse_time(at) if at else None)
    failed = 0
    with Progress(console=errors, transient=True, disable=len(paths) < 3) as progress:
        task = progress.add_task("ingesting", total=len(paths))
        for path in paths:
            try:
                _print_ingest(ingest_file(event_store, path, recorded_at=now, options=options))
            except IngestRejected as exc:
                failed += 1
                errors.print(f"[red]rejected[/red] {exc}")
            except (OSError, StoreError) as exc:
                failed += 1
                errors.print(f"[red]error[/red] {path}: {exc}")
            progress.advance(task)
    if failed:
        raise typer.Exit(1)


def _print_ingest(report: IngestReport) -> None:
    if report.already_ingested:
        console.print(f"{report.source}: already ingested (sha256 {report.sha256[:12]}), nothing added")
        return
    console.print(f"{report.source}: {report.events} events appended to {report.event_id}/"
                  f"{report.session_id}, {report.quarantined} record(s) quarantined")
    for diagnostic in report.diagnostics:
        errors.print(f"  {diagnostic}")


@app.command()
def score(
    store: StoreOption = None,
    position: Annotated[int | None, typer.Option(help="Replay up to this log position")] = None,
    out: Annotated[Path | None, typer.Option(help="Also write board_scores.csv and standings.csv here")] = None,
) -> None:
    """Replay the log, score every session, and refresh the analyst views."""
    from pipelines.projections import export_csv, score_store, top_standings, write_views

    event_store = EventStore(store_path(store))
    try:
        edition = score_store(event_store, up_to=position)
        write_views(event_store, edition)
    except StoreError as exc:
        errors.print(f"[red]error[/red] {exc}")
        raise typer.Exit(1) from exc
    console.print(f"scored {edition.board_scores.height} results at log position {edition.position}")
    if out:
        for name, path in export_csv(edition, out).items():
            console.print(f"  {name}: {path}")
    _print_frame(top_standings(edition, limit=3), "leaders")


@app.command()
def verify(store: StoreOption = None) -> None:
    """Recompute the hash chain; exit 1 naming the first bad position if a row was tampered with."""
    try:
        report = EventStore(store_path(store)).verify()
    except StoreError as exc:
        errors.print(f"[red]error[/red] {exc}")
        raise typer.Exit(1) from exc
    if report.ok:
        console.print(f"ok: {report.events} events, hash chain intact")
        return
    errors.print(f"[red]broken[/red] at position {report.first_bad_position}: {report.reason}")
    raise typer.Exit(1)


@app.command()
def sql(query: Annotated[str, typer.Argument(help="SQL to run on a read-only connection")],
        store: StoreOption = None) -> None:
    """Run a query for analysis. The connection is read-only: nothing can be changed."""
    try:
        with EventStore(store_path(store)).reader() as con:
            frame = con.sql(query).pl()
    except StoreError as exc:
        errors.print(f"[red]error[/red] {exc}")
        raise typer.Exit(1) from exc
    except Exception as exc:  # a query error is the analyst's to read, not a traceback
        errors.print(f"[red]query failed[/red] {exc}")
        raise typer.Exit(1) from exc
    _print_frame(frame, None)


@app.command()
def schema() -> None:
    """Print the JSON Schema of every event in the catalogue."""
    from models.events import EVENT_ADAPTER

    sys.stdout.write(json.dumps(EVENT_ADAPTER.json_schema(), indent=2, sort_keys=True) + "\n")


@app.command()
def demo(workdir: Annotated[Path, typer.Option(help="Where the demo store and outputs go")] = Path("build/demo"),
         ) -> None:
    """Run the sample weekend end to end on a fresh store and show where everything is."""
    from pipelines.demo import run_demo

    summary = run_demo(workdir, now=datetime.now(UTC))
    for line in summary.lines:
        console.print(line)
    _print_frame(summary.leaders, "leaders")
    if not summary.ok:
        raise typer.Exit(1)


def _print_frame(frame: object, title: str | None) -> None:
    import polars as pl

    assert isinstance(frame, pl.DataFrame)
    table = Table(title=title)
    for column in frame.columns:
        table.add_column(column)
    for row in frame.iter_rows():  # display only: a few rows for a person to read
        table.add_row(*("" if v is None else f"{v:.2f}" if isinstance(v, float) else str(v) for v in row))
    console.print(table)


def main() -> None:
    """Entry point for `python -m pipelines.cli`."""
    app()


if __name__ == "__main__":
    main()
