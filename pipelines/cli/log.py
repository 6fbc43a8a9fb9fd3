"""The log's own commands: `info` (where the log and the analytics store are) and `log copy`
(move a log between backends). Thin: each calls `pipelines.log`."""

from typing import Annotated

import typer

from pipelines.cli.common import StoreOption, console, errors, open_store, shown

log_app = typer.Typer(help="The event log itself: move it between a DuckDB file and PostgreSQL.",
                      no_args_is_help=True, rich_markup_mode=None)


def register(app: typer.Typer) -> None:
    """Add `info` and `log ...` to the `bridgeledger` app."""
    app.command("info")(info)
    app.command("snapshot")(snapshot)
    app.add_typer(log_app, name="log")


def info(store: StoreOption = None,
         as_json: Annotated[bool, typer.Option("--json", help="Print JSON (keys `log`, `analytics`)")] = False) -> None:
    """Where the log of record is, and the analytics store analysts and BI tools open."""
    import json

    from pipelines.log.places import describe_store
    from pipelines.log.store import StoreError

    try:
        described = describe_store(open_store(store))
    except StoreError as exc:
        errors.print(f"[red]error[/red] {shown(str(exc))}")
        raise typer.Exit(1) from exc
    if as_json:
        typer.echo(json.dumps(described, indent=2, sort_keys=True))
        return
    for key in ("log", "analytics"):
        part = described[key]
        console.print(f"{key}: {shown(str(part['location']))}  " + "  ".join(
            f"{name}={shown(str(value))}" for name, value in part.items() if name != "location"),
            markup=False, highlight=False)


def snapshot(store: StoreOption = None) -> None:
    """Write the analysts' snapshot: the analytics store at one log position, replaced whole, so a
    client or BI tool that keeps it open never blocks the pipeline (see docs/analysts.md)."""
    from pipelines.log.snapshot import publish_snapshot
    from pipelines.log.store import StoreError

    try:
        made = publish_snapshot(open_store(store))
    except StoreError as exc:
        errors.print(f"[red]error[/red] {shown(str(exc))}")
        raise typer.Exit(1) from exc
    console.print(f"analysts' snapshot at log position {made.position}: {shown(str(made.path))}",
                  markup=False, highlight=False)


@log_app.command("copy")
def copy(source: Annotated[str, typer.Argument(help="The log to copy: a DuckDB file or a postgresql:// URL")],
         target: Annotated[str, typer.Argument(help="An empty log to copy it into (file or URL)")]) -> None:
    """Copy a whole log into an empty one, row for row, then check every hash of the copy."""
    from pipelines.log.store import EventStore, StoreError
    from pipelines.log.transfer import copy_log

    try:
        report = copy_log(EventStore(source), EventStore(target))
    except StoreError as exc:
        errors.print(f"[red]error[/red] {shown(str(exc))}")
        raise typer.Exit(1) from exc
    if not report.ok:
        errors.print(f"[red]the copy differs[/red] {shown(str(report.mismatch))}")
        raise typer.Exit(1)
    console.print(f"copied {report.events} events and {report.commands} idempotency key(s); the copy holds "
                  f"every hash of the source up to position {report.last_position} "
                  f"({(report.last_hash or '-')[:12]}) and its chain verifies", markup=False, highlight=False)
