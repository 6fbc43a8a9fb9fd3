"""The ranking's commands: `players ...`, `rank ...` and `statement`. Thin: each calls `pipelines.ranking`.

Heavy modules are imported inside the commands, so that `bridgeledger --help` stays quick.
"""

from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from pipelines.base.neutralise import for_terminal
from pipelines.cli.common import console, errors, parse_time, store_path

if TYPE_CHECKING:
    import polars as pl

    from models.ranking_rules import RuleSet
    from pipelines.log.store import EventStore
    from pipelines.ranking.edition import RankingEdition

players_app = typer.Typer(help="Members and who each player is: import, unmatched, link, merge.",
                          no_args_is_help=True, rich_markup_mode=None)
rank_app = typer.Typer(help="Ranking editions: compute, publish, rebuild, compare.", rich_markup_mode=None)

StoreOpt = Annotated[str | None, typer.Option("--store", help="The event log: a DuckDB file or a postgresql:// "
                                                                "URL (default: $BRIDGELEDGER_STORE or "
                                                                "bridgeledger.duckdb)")]
AtOpt = Annotated[str | None, typer.Option("--at", help="When (ISO time with zone; default now)")]
RulesOpt = Annotated[str | None, typer.Option("--rules", help="Rule set: a TOML file or a preset (pzbs-3, wbf, ...)")]
AsOfOpt = Annotated[str | None, typer.Option("--as-of", help="Edition time (ISO time with zone)")]


def register(app: typer.Typer) -> None:
    """Add the ranking's commands to the `bridgeledger` app."""
    app.add_typer(players_app, name="players")
    app.add_typer(rank_app, name="rank")
    app.command("statement")(statement)


def _store(path: str | None) -> "EventStore":
    from pipelines.log.store import EventStore

    return EventStore(store_path(path))


def _time(text: str | None, what: str) -> datetime:
    if text is None:
        raise typer.BadParameter(f"{what} is required (an ISO time with its zone)")
    return parse_time(text)


def _now_or(text: str | None) -> datetime:
    return _time(text, "--at") if text else datetime.now(UTC)


def _fail(message: str, exc: Exception) -> typer.Exit:
    errors.print(f"[red]refused[/red] {for_terminal(message)}: {for_terminal(str(exc))}")
    return typer.Exit(1)


def _show(frame: "pl.DataFrame", title: str | None = None) -> None:
    from rich.table import Table

    table = Table(title=title)
    for column in frame.columns:
        table.add_column(for_terminal(column))
    for row in frame.iter_rows():  # display only; names from files print as text, not markup
        table.add_row(*("" if v is None else f"{v:.2f}" if isinstance(v, float) else for_terminal(str(v))
                        for v in row))
    console.print(table)


def _say(text: str) -> None:
    console.print(for_terminal(text))


# --- players -----------------------------------------------------------------------------------------

@players_app.command("import")
def import_members(path: Annotated[Path, typer.Argument(help="Member list (CSV)")],
                   federation: Annotated[str, typer.Option(help="Whose list it is (PZBS, SBU, ...)")],
                   at: AtOpt = None, store: StoreOpt = None) -> None:
    """Import a federation's member list: new and changed members become events."""
    from pipelines.ranking.members import MemberListError, import_member_list
    from pipelines.ranking.publish import write_views

    event_store = _store(store)
    try:
        report = import_member_list(event_store, path, federation=federation, at=_now_or(at),
                                    recorded_at=datetime.now(UTC))
    except (OSError, MemberListError) as exc:
        raise _fail(str(path), exc) from exc
    if report.already_ingested:
        _say(f"{path}: already imported (same bytes); nothing appended")
        return
    write_views(event_store)
    _say(f"{path}: {report.rows} members, {report.appended} new or changed, {report.unchanged} unchanged")


@players_app.command("unmatched")
def unmatched(federation: Annotated[str | None, typer.Option(help="Match names within this federation")] = None,
              as_of: AsOfOpt = None, store: StoreOpt = None) -> None:
    """Players of the events that no member was found for (settle them with `players link`)."""
    from pipelines.ranking.settle import find_unmatched

    found = find_unmatched(_store(store), as_of=_now_or(as_of), federation=federation)
    _show(found, f"{found.height} unmatched player(s)")


@players_app.command("link")
def link(event: Annotated[str, typer.Option("--event", help="Event id")],
         name: Annotated[str, typer.Option("--name", help="The player's name as the event's files write it")],
         member: Annotated[str, typer.Option("--member", help="The member's federation id")],
         by: Annotated[str | None, typer.Option("--by", help="Who settled it")] = None,
         reason: Annotated[str | None, typer.Option(help="Why")] = None,
         at: AtOpt = None, store: StoreOpt = None) -> None:
    """Record that a player named in an event is a member."""
    from pipelines.ranking.settle import IdentityError, link_player

    try:
        position = link_player(_store(store), event_id=event, player_name=name, federation_id=member,
                               at=_now_or(at), linked_by=by, reason=reason)
    except IdentityError as exc:
        raise _fail("link", exc) from exc
    _say(f"recorded at log position {position}")


@players_app.command("merge")
def merge(kept: Annotated[str, typer.Argument(help="The id that stays")],
          merged: Annotated[str, typer.Argument(help="The id folded into it")],
          reason: Annotated[str | None, typer.Option(help="Why")] = None,
          at: AtOpt = None, store: StoreOpt = None) -> None:
    """Record that two federation ids are one person (editions before `--at` still show them apart)."""
    from pipelines.ranking.settle import IdentityError, merge_players

    try:
        position = merge_players(_store(store), kept_id=kept, merged_id=merged, at=_now_or(at), reason=reason)
    except IdentityError as exc:
        raise _fail("merge", exc) from exc
    _say(f"recorded at log position {position}")


# --- rank --------------------------------------------------------------------------------------------

@rank_app.callback(invoke_without_command=True)
def rank(ctx: typer.Context, rules: RulesOpt = None, as_of: AsOfOpt = None,
         publish: Annotated[bool, typer.Option("--publish", help="Append RankingPublished")] = False,
         edition: Annotated[str | None, typer.Option(help="Label of the edition (default name-version@as-of)")] = None,
         against: Annotated[str | None, typer.Option(help="Diff against this published edition (what-if)")] = None,
         out: Annotated[Path | None, typer.Option(help="Write ranking.csv, sub_rankings.csv, awards.csv here")] = None,
         top: Annotated[int, typer.Option(help="Rows of the ranking to print")] = 20,
         store: StoreOpt = None) -> None:
    """Compute a ranking edition under RULES as of a time; --publish records it."""
    if ctx.invoked_subcommand is not None:
        return
    if rules is None:
        raise typer.BadParameter("--rules is required (a TOML file or a preset)")
    from pipelines.ranking.edition import UnknownCategoryError, compute_edition
    from pipelines.ranking.publish import default_label, publish_edition, refresh_standings

    event_store, moment = _store(store), _time(as_of, "--as-of")
    if publish:
        refresh_standings(event_store)
    # Kept awards make the next edition recompute only the tournaments that moved (derived rows).
    try:
        computed = compute_edition(event_store, _rules(rules), as_of=moment, keep=True)
    except UnknownCategoryError as exc:
        raise _fail(rules, exc) from exc
    _report(computed, top, out)
    if against:
        _print_diff(event_store, against, computed, "what if")
    if publish:
        label = edition or default_label(computed.rules, moment)
        try:
            position = publish_edition(event_store, computed, label=label, at=datetime.now(UTC))
        except ValueError as exc:
            raise _fail("publish", exc) from exc
        _say(f"published edition {label!r} at log position {position} (output {computed.output_sha256()[:16]})")


def _rules(spec: str) -> "RuleSet":
    from pydantic import ValidationError

    from pipelines.ranking.rules import load_rules

    try:
        return load_rules(spec)
    except (OSError, ValueError, ValidationError) as exc:
        raise _fail(spec, exc) from exc


def _report(edition: "RankingEdition", top: int, out: Path | None) -> None:
    rules = edition.rules
    _say(f"{rules.name} {rules.version} (hash {rules.content_hash()[:16]}) as of {edition.as_of.isoformat()}, "
         f"log position {edition.position}: {edition.ranking.height} players, {edition.award_rows.height} awards")
    if edition.provisional.height:
        _show(edition.provisional, "left out: not final at the edition's time")
    if edition.unmatched.height:
        _say(f"{edition.unmatched.height} unmatched player(s): see `bridgeledger players unmatched`")
    _show(edition.ranking.head(top), "ranking")
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
        for name, data in edition.output_bytes().items():
            (out / f"{name}.csv").write_bytes(data)
        _say(f"wrote {', '.join(f'{n}.csv' for n in edition.output_bytes())} to {out}")


def _print_diff(event_store: "EventStore", label: str, new: "RankingEdition", new_label: str) -> None:
    from pipelines.ranking.diff import back_dated_corrections, diff_rankings
    from pipelines.ranking.publish import rebuild_edition

    try:
        old = rebuild_edition(event_store, label)
    except ValueError as exc:
        raise _fail(label, exc) from exc
    back_dated = back_dated_corrections(event_store, new)
    for line in diff_rankings(old, new, old_label=label, new_label=new_label, back_dated=back_dated).lines():
        _say(line)


@rank_app.command("diff")
def rank_diff(old: Annotated[str, typer.Argument(help="Published edition")],
              new: Annotated[str, typer.Argument(help="Published edition")], store: StoreOpt = None) -> None:
    """Who moved between two published editions, and why, award by award."""
    from pipelines.ranking.publish import rebuild_edition

    event_store = _store(store)
    try:
        newer = rebuild_edition(event_store, new)
    except ValueError as exc:
        raise _fail(new, exc) from exc
    _print_diff(event_store, old, newer, new)


@rank_app.command("show")
def rank_show(label: Annotated[str, typer.Argument(help="Published edition")],
              out: Annotated[Path | None, typer.Option(help="Write its CSV files here")] = None,
              top: Annotated[int, typer.Option(help="Rows to print")] = 20, store: StoreOpt = None) -> None:
    """Rebuild a published edition from the log and check it is byte for byte what was published."""
    from pipelines.ranking.publish import rebuild_edition

    try:
        edition = rebuild_edition(_store(store), label)
    except ValueError as exc:
        raise _fail(label, exc) from exc
    _report(edition, top, out)
    _say(f"rebuilt {label!r}: output {edition.output_sha256()[:16]} matches the publication")


@rank_app.command("list")
def rank_list(store: StoreOpt = None) -> None:
    """The published editions."""
    import polars as pl

    from pipelines.ranking.publish import published_editions

    rows = [{"edition": e.label, "rule_set": e.event.rule_set, "version": e.event.rule_version,
             "as_of": e.event.as_of.isoformat() if e.event.as_of else None, "log_position": e.event.position,
             "published_at": e.published_at.isoformat()} for e in published_editions(_store(store)).values()]
    _show(pl.DataFrame(rows, schema=["edition", "rule_set", "version", "as_of", "log_position", "published_at"]),
          "published editions")


def statement(player: Annotated[str, typer.Argument(help="Federation id or name")],
              edition: Annotated[str | None, typer.Option(help="A published edition")] = None,
              rules: RulesOpt = None, as_of: AsOfOpt = None, store: StoreOpt = None) -> None:
    """A player's itemised awards: event, date, place, field, base award, weight, decay, points now."""
    from pipelines.ranking.edition import compute_edition
    from pipelines.ranking.publish import rebuild_edition
    from pipelines.ranking.statement import player_statement

    event_store = _store(store)
    try:
        computed = (rebuild_edition(event_store, edition) if edition else
                    compute_edition(event_store, _rules(rules or ""), as_of=_time(as_of, "--as-of")))
        found = player_statement(computed, player)
    except (ValueError, LookupError) as exc:
        raise _fail(player, exc) from exc
    place = f"place {found.place}" if found.place else "not ranked"
    divided = f" (points / {found.divisor:g})" if found.divisor != 1 else ""
    if found.merged_into is not None:
        _say(f"{player} was merged into {found.merged_into}: its awards are in {found.merged_into}'s statement")
    _say(f"{found.player_id} {found.name or ''}: {place}, {found.points:g} points{divided}")
    _show(found.awards, "awards")
    for note in found.notes:
        _say(f"note: {note}")
