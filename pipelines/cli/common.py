"""What every `bridgeledger` command shares: the consoles, the store options and times read at the edge.

Light to import: `bridgeledger --help` loads this module and typer, nothing heavier.
"""

import os
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

if TYPE_CHECKING:
    from rich.console import Console

    from pipelines.log.store import EventStore


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
    str | None,
    typer.Option("--store", help="The event log: a DuckDB file, or a postgresql:// URL "
                                 f"(default: $BRIDGELEDGER_STORE or {DEFAULT_STORE})"),
]


def shown(text: str) -> str:
    """`pipelines.base.neutralise.for_terminal`, imported when first needed (it brings polars)."""
    from pipelines.base.neutralise import for_terminal

    return for_terminal(text)


def store_path(store: str | Path | None) -> str:
    """Where the log is (a DuckDB file or a postgresql:// URL): --store, else $BRIDGELEDGER_STORE,
    else ./bridgeledger.duckdb."""
    return str(store or os.environ.get("BRIDGELEDGER_STORE", DEFAULT_STORE))


def open_store(store: str | Path | None) -> "EventStore":
    """The event store named by --store (or its defaults); pipelines.log.store is imported here, when used."""
    from pipelines.log.store import EventStore

    return EventStore(store_path(store))


def parse_time(text: str) -> datetime:
    """An ISO 8601 time that must carry its timezone (e.g. 2026-11-21T21:00+01:00), within the
    years the log accepts (`models.events.check_moment`)."""
    from models.events import check_moment

    try:
        moment = datetime.fromisoformat(text)
    except ValueError as exc:
        raise typer.BadParameter(f"{shown(text)!r} is not an ISO 8601 time, e.g. 2026-11-21T21:00+01:00") from exc
    if moment.tzinfo is None:
        raise typer.BadParameter(f"{shown(text)!r} has no timezone; add one, e.g. {shown(text)}+01:00 or "
                                 f"{shown(text)}Z")
    try:
        return check_moment(moment)
    except ValueError as exc:
        raise typer.BadParameter(str(exc)) from exc


def existing_store(store: str | Path | None) -> "EventStore":
    """The store named by --store (see `store_path`), which must exist: commands that read it
    never create an empty one."""
    from pipelines.log.store import StoreError

    event_store = open_store(store)
    try:
        found = event_store.exists()
    except StoreError as exc:
        errors.print(f"[red]error[/red] {shown(str(exc))}")
        raise typer.Exit(1) from exc
    if not found:
        errors.print(f"[red]error[/red] no event store at {shown(event_store.shown_location)}; ingest a file "
                     "first (or give --store)")
        raise typer.Exit(1)
    return event_store


def now_or(at: str | None) -> datetime:
    """The time `--at` gives, else the wall clock: read here, at the edge."""
    return parse_time(at) if at else datetime.now(UTC)


EventOpt = Annotated[str, typer.Option("--event", help="Event id")]
SessionOpt = Annotated[str, typer.Option("--session", help="Session id")]
AtOpt = Annotated[str | None, typer.Option("--at", help="When (ISO time with zone; default now)")]


def print_frame(frame: object, title: str | None, *, fit: bool = True) -> None:
    """A frame as a table for a person to read (a few rows: names escaped, floats to 2 decimals).

    `fit=False`: when the output is not a terminal (a pipe, a file), the table keeps its natural
    width instead of being squeezed into 80 columns."""
    import polars as pl
    from rich.table import Table

    assert isinstance(frame, pl.DataFrame)
    table = Table(title=title)
    for column in frame.columns:
        table.add_column(shown(column))
    for row in frame.iter_rows():  # display only: a few rows for a person to read
        table.add_row(*("" if v is None else f"{v:.2f}" if isinstance(v, float) else shown(str(v)) for v in row))
    if fit or console.console.is_terminal:
        console.print(table)
        return
    from rich.measure import Measurement

    out = console.console
    natural = Measurement.get(out, out.options.update(max_width=1_000_000), table).maximum
    width, out.width = out.width, max(natural, out.width)  # `print(width=...)` is capped at the console's
    try:
        out.print(table)
    finally:
        out.width = width


def print_left_out(lines: list[str]) -> None:
    """What a replay left out (events it could not use), one line each, on the error console."""
    if lines:
        errors.print(f"[yellow]{len(lines)} event(s) in the log cannot be used and were left out:[/yellow]")
    for line in lines:
        errors.print(f"  {shown(line)}")
