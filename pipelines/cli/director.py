"""The director's commands: register, publish, correct, adjust, weighted, foul, approve-late, penalty
and audit. Thin: each calls `pipelines.commands.director` (or `pipelines.replay.audit`) and prints what it recorded.

Heavy modules are imported inside the commands, so that `bridgeledger --help` stays quick.
"""

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from pipelines.cli.common import (
    AtOpt,
    EventOpt,
    SessionOpt,
    StoreOption,
    console,
    errors,
    existing_store,
    now_or,
    open_store,
    parse_time,
    print_frame,
    print_left_out,
    shown,
)

if TYPE_CHECKING:
    from models.events import ArtificialAward, WeightedComponent
    from pipelines.commands.director import Acknowledgement
    from pipelines.log.store import EventStore


def add_commands(app: typer.Typer) -> None:
    """Add the director's commands to the `bridgeledger` app, in the order its help lists them."""
    app.command()(register)
    app.command()(publish)
    app.command()(correct)
    app.command()(adjust)
    app.command()(weighted)
    app.command()(foul)
    app.command('approve-late')(approve_late)
    app.command('acknowledge-back-dated')(acknowledge_back_dated)
    app.command()(penalty)
    app.command()(audit)


def _director_call(store: "EventStore", action: Callable[[], int],
                   decided: Callable[[int], str] | None = None) -> None:
    """Run `action` (which appends to `store`) and say where it was recorded; then, with `decided`,
    what the policy makes of it (given the position recorded). One connection serves both: the
    command is one unit of work (each connection opened costs tens of milliseconds)."""
    from pipelines.commands.director import DirectorError
    from pipelines.log.store import StoreError

    with store.session():
        try:
            position = action()
        except (DirectorError, ValueError, StoreError) as exc:
            errors.print(f"[red]refused[/red] {shown(str(exc))}; nothing was appended")
            raise typer.Exit(1) from exc
        console.print(f"recorded at log position {position}")
        if decided is not None:
            try:
                console.print(shown(decided(position)))
            except (DirectorError, StoreError) as exc:  # recorded all the same: say so, and why no decision is shown
                errors.print(
                    f"[yellow]recorded, but the policy's decision could not be read[/yellow]: {shown(str(exc))}")


def register(event: EventOpt,
             name: Annotated[str, typer.Option(help="Tournament name")],
             conditions: Annotated[Path, typer.Option(help="Conditions of contest (TOML)")],
             organiser: Annotated[str | None, typer.Option(help="Tournament organiser")] = None,
             category: Annotated[str | None, typer.Option(
                 help="Ranking category (club, national, ...: the ranking rule set's names), which weighs "
                      "the event's ranking awards; or `category` in the conditions file. Default: the "
                      "rule set's default category")] = None,
             at: AtOpt = None, store: StoreOption = None) -> None:
    """Register a tournament with its conditions of contest (validated before anything is written)."""
    from pydantic import ValidationError

    from models.conditions import ConditionsOfContest
    from pipelines.commands.director import register_tournament

    try:
        rules = ConditionsOfContest.from_toml(conditions)
    except (OSError, ValueError, ValidationError) as exc:
        errors.print(f"[red]refused[/red] {shown(str(conditions))}: {shown(str(exc))}")
        raise typer.Exit(1) from exc
    event_store = open_store(store)
    _director_call(event_store, lambda: register_tournament(event_store, event, name, at=now_or(at),
                                                            conditions=rules, organiser=organiser,
                                                            category=category))


def publish(event: EventOpt, session: SessionOpt, at: AtOpt = None, store: StoreOption = None,
            period: Annotated[float | None, typer.Option(help="Correction period in minutes (overrides "
                                                          "the conditions of contest)")] = None) -> None:
    """The official score is available: the Law 79C correction period opens."""
    from datetime import UTC, datetime

    from pipelines.commands.director import describe_publication, publish_scores

    event_store = open_store(store)
    _director_call(event_store, lambda: publish_scores(event_store, event, session, at=now_or(at),
                                          correction_period_minutes=period),
                   lambda position: describe_publication(event_store, event, session, position,
                                                         now=datetime.now(UTC)))


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
    acknowledge_back_dated: Annotated[str | None, typer.Option(
        "--acknowledge-back-dated", help="Why a request entered after the session became final claims an "
                                         "earlier time (with --acknowledged-by); without it, not applied")] = None,
    acknowledged_by: Annotated[str | None, typer.Option("--acknowledged-by",
                                                        help="Who answers for entering it late")] = None,
    at: AtOpt = None, store: StoreOption = None,
) -> None:
    """Request a score correction (applies inside the Law 79C period, or with a 79C2 approval; a
    request entered after the session became final needs --acknowledge-back-dated). Says what the
    policy decided: applied, rejected (waiting for a 79C2 approval) or waiting for an acknowledgement."""
    from datetime import UTC, datetime

    from pipelines.commands.director import Acknowledgement, TableRef, describe_correction, request_correction

    if (acknowledge_back_dated is None) != (acknowledged_by is None):
        raise typer.BadParameter("--acknowledge-back-dated (why) and --acknowledged-by (who) go together")
    acknowledgement = None if acknowledged_by is None or acknowledge_back_dated is None \
        else Acknowledgement(acknowledged_by, acknowledge_back_dated)
    ref = TableRef(event, session, board, table, section)
    event_store = open_store(store)
    _director_call(event_store, lambda: request_correction(
        event_store, ref, at=now_or(at), correction_id=correction_id, requested_by=by,
        reason=reason, contract=contract, declarer=declarer, tricks=tricks, acknowledgement=acknowledgement),
        lambda _: describe_correction(event_store, correction_id, now=datetime.now(UTC)))


def acknowledge_back_dated(
    by: Annotated[str, typer.Option("--by", help="Who answers for entering it late (a director or the scorer)")],
    reason: Annotated[str, typer.Option(help="Why it is entered only now")],
    correction_id: Annotated[str | None, typer.Option("--id", help="The back-dated correction request")] = None,
    position: Annotated[int | None, typer.Option(
        "--position", help="Log position of the adjusted or weighted score, fouled board or penalty")] = None,
    store: StoreOption = None,
) -> None:
    """Let in a director fact recorded after its session became final: a correction request
    claiming an earlier time (--id), or an adjusted or weighted score, fouled board or penalty
    (--position). Audited: who, why and when appear in the audit report."""
    from datetime import UTC, datetime

    from pipelines.commands.director import Acknowledgement, acknowledge_late_fact, describe_correction, describe_fact
    from pipelines.commands.director import acknowledge_back_dated as acknowledge

    if (correction_id is None) == (position is None):
        raise typer.BadParameter("name one fact: --id (a correction request) or --position (any other fact)")
    event_store = existing_store(store)
    given = Acknowledgement(by, reason)
    if correction_id is not None:
        named = correction_id
        _director_call(event_store, lambda: acknowledge(event_store, named, given),
                       lambda _: describe_correction(event_store, named, now=datetime.now(UTC)))
    elif position is not None:
        fact = position
        _director_call(event_store, lambda: acknowledge_late_fact(event_store, fact, given),
                       lambda _: describe_fact(event_store, fact, now=datetime.now(UTC)))


_AWARD_HELP = "average-plus (A+), average (A), average-minus (A-) or a percentage (IMPs in teams)"

LateWhyOpt = Annotated[str | None, typer.Option(
    "--acknowledge-back-dated", help="Why a fact entered after the session became final is entered only now "
                                     "(with --acknowledged-by); without it, not applied")]
LateWhoOpt = Annotated[str | None, typer.Option("--acknowledged-by", help="Who answers for entering it late")]


def _late_acknowledgement(why: str | None, who: str | None) -> "Acknowledgement | None":
    """The acknowledgement given with a fact on the command line, if any (both options, or neither)."""
    from pipelines.commands.director import Acknowledgement

    if (why is None) != (who is None):
        raise typer.BadParameter("--acknowledge-back-dated (why) and --acknowledged-by (who) go together")
    return None if why is None or who is None else Acknowledgement(who, why)


def _fact_call(store: "EventStore", action: Callable[[], int]) -> None:
    """Record a director fact and say what the policy decided for it (`describe_fact`)."""
    from datetime import UTC, datetime

    from pipelines.commands.director import describe_fact

    _director_call(store, action, lambda position: describe_fact(store, position, now=datetime.now(UTC)))


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
    acknowledge_late: LateWhyOpt = None, acknowledged_by: LateWhoOpt = None,
    at: AtOpt = None, store: StoreOption = None,
) -> None:
    """A director's artificial adjusted score (Law 12C2), subject to the Law 92B period; entered
    after the session became final, it needs --acknowledge-back-dated. Says what the policy decided."""
    from pipelines.commands.director import TableRef, award_artificial

    ref = TableRef(event, session, board, table, section)
    acknowledgement = _late_acknowledgement(acknowledge_late, acknowledged_by)
    event_store = open_store(store)
    _fact_call(event_store, lambda: award_artificial(
        event_store, ref, at=now_or(at), requested_at=parse_time(requested_at),
        ns_award=_award(ns), ew_award=_award(ew), director=director, reason=reason,
        acknowledgement=acknowledgement))


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
    acknowledge_late: LateWhyOpt = None, acknowledged_by: LateWhoOpt = None,
    at: AtOpt = None, store: StoreOption = None,
) -> None:
    """A weighted assigned score (Law 12C1(c)), subject to the Law 92B period; entered after the
    session became final, it needs --acknowledge-back-dated. Says what the policy decided."""
    from pipelines.commands.director import TableRef, award_weighted

    ref = TableRef(event, session, board, table, section)
    acknowledgement = _late_acknowledgement(acknowledge_late, acknowledged_by)
    event_store = open_store(store)
    _fact_call(event_store, lambda: award_weighted(
        event_store, ref, at=now_or(at), requested_at=parse_time(requested_at),
        ns_components=[_outcome(o) for o in ns], ew_components=[_outcome(o) for o in ew or []],
        director=director, reason=reason, acknowledgement=acknowledgement))


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


def foul(
    event: EventOpt, session: SessionOpt,
    board: Annotated[int, typer.Option(help="Board number")],
    group: Annotated[list[str], typer.Option("--group", help="LABEL=TABLE,TABLE,... for each version played")],
    reason: Annotated[str, typer.Option(help="What happened")],
    section: Annotated[str, typer.Option(help="Section")] = "",
    deal: Annotated[list[str] | None, typer.Option(
        "--deal", help="LABEL=PBN-deal: the deal a group played (e.g. fouled=N:AKQ.. ...), shown on the "
                       "traveller beside the hand record's")] = None,
    acknowledge_late: LateWhyOpt = None, acknowledged_by: LateWhoOpt = None,
    at: AtOpt = None, store: StoreOption = None,
) -> None:
    """Law 87: a fouled board, scored within each group of tables that played the same version;
    entered after the session became final, it needs --acknowledge-back-dated. Says what the
    policy decided."""
    from pipelines.commands.director import record_fouled_board

    groups = {label: [t.strip() for t in tables.split(",") if t.strip()]
              for label, tables in _labelled(group, "a group is LABEL=TABLE,TABLE,...").items()}
    deals = _labelled(deal or [], "a deal is LABEL=N:hand hand hand hand (PBN)")
    acknowledgement = _late_acknowledgement(acknowledge_late, acknowledged_by)
    event_store = open_store(store)
    _fact_call(event_store, lambda: record_fouled_board(event_store, event, session, board, at=now_or(at),
                                                        groups=groups, reason=reason, section=section,
                                                        deals=deals, acknowledgement=acknowledgement))


def _labelled(items: list[str], shape: str) -> dict[str, str]:
    """`LABEL=VALUE` options as a map; an item without a label or a value, or a label given twice,
    is refused (`shape` says what was expected)."""
    found: dict[str, str] = {}
    for item in items:
        label, sep, value = item.partition("=")
        if not sep or not label.strip() or not value.strip():
            raise typer.BadParameter(f"{item!r}: {shape}")
        if label.strip() in found:
            raise typer.BadParameter(f"{item!r}: {label.strip()!r} is given twice")
        found[label.strip()] = value.strip()
    return found


def _award(text: str) -> "ArtificialAward":
    from models.awards import parse_award

    try:
        return parse_award(text)
    except ValueError as exc:
        raise typer.BadParameter(str(exc)) from exc


def approve_late(
    correction_id: Annotated[str, typer.Option("--id", help="The correction request approved")],
    organiser: Annotated[str, typer.Option(help="Who approves for the tournament organiser")],
    director: Annotated[str, typer.Option(help="Director satisfied beyond reasonable doubt")],
    statement: Annotated[str, typer.Option(help="The Law 79C2 statement")],
    at: AtOpt = None, store: StoreOption = None,
) -> None:
    """Law 79C2: approve a correction raised after the correction period."""
    from pipelines.commands.director import approve_late_correction

    event_store = open_store(store)
    _director_call(event_store, lambda: approve_late_correction(event_store, correction_id,
                                                                at=now_or(at), organiser=organiser,
                                                                director=director, statement=statement))


def penalty(
    event: EventOpt, session: SessionOpt,
    contestant: Annotated[str, typer.Option(help="Penalised contestant id")],
    amount: Annotated[float, typer.Option(help="Amount deducted")],
    unit: Annotated[str, typer.Option(help="MP, IMP or VP (that many off the session score); % (percentage "
                                           "points off the session's percentage); TOP% (that share of one "
                                           "board's top, as regulations state procedural penalties)")],
    reason: Annotated[str, typer.Option(help="Why")],
    law: Annotated[str | None, typer.Option(help="Law applied, e.g. 90B2")] = None,
    direction: Annotated[str | None, typer.Option(help="NS or EW: the contestant's direction in a two-field "
                                                       "session, where NS 1 and EW 1 are different pairs")] = None,
    section: Annotated[str | None, typer.Option(help="Section (needed only if the id is in several)")] = None,
    acknowledge_late: LateWhyOpt = None, acknowledged_by: LateWhoOpt = None,
    at: AtOpt = None, store: StoreOption = None,
) -> None:
    """A procedural or disciplinary penalty (Laws 90/91), in a unit the session is scored in;
    entered after the session became final, it needs --acknowledge-back-dated. Says what the
    policy decided."""
    from pipelines.commands.director import award_penalty

    acknowledgement = _late_acknowledgement(acknowledge_late, acknowledged_by)
    event_store = open_store(store)
    _fact_call(event_store, lambda: award_penalty(event_store, event, session, contestant,
                                                  at=now_or(at), amount=amount, unit=unit, reason=reason, law=law,
                                                  section=section, direction=direction,
                                                  acknowledgement=acknowledgement))


def audit(event: EventOpt, session: SessionOpt,
          out: Annotated[Path, typer.Option(help="Directory for the CSV and HTML report")] = Path("outputs"),
          as_of: Annotated[str | None, typer.Option("--as-of", help="Audit as of this time")] = None,
          store: StoreOption = None) -> None:
    """Every correction and ruling of a session: before/after, who/when/why, applied or rejected."""
    from models.events import session_stream
    from pipelines.log.store import StoreError, to_epoch_us
    from pipelines.log.vetting import collecting
    from pipelines.replay.audit import recorded_times, write_audit
    from pipelines.replay.projections import score_store

    as_of_us = to_epoch_us(parse_time(as_of)) if as_of else None
    event_store = existing_store(store)
    try:
        if event_store.stream_version(session_stream(event, session)) == 0:
            errors.print(f"[red]error[/red] there is no session {shown(event)}/{shown(session)} in the log; "
                         "nothing was written")
            raise typer.Exit(1)
        with collecting() as left_out:
            edition = score_store(event_store, as_of_us=as_of_us, sessions=[(event, session)])
        recorded = recorded_times(event_store)
    except StoreError as exc:
        errors.print(f"[red]error[/red] {shown(str(exc))}")
        raise typer.Exit(1) from exc
    print_left_out(left_out.lines())
    report = write_audit(edition, event, session, out, recorded=recorded, left_out=left_out.events)
    print_frame(report.rows.select("kind", "id", "board", "table_id", "raised_at", "recorded_at", "back_dated",
                                    "decision", "rule"),
                 "audit", fit=False)
    console.print(f"csv: {shown(str(report.csv_path))}\nhtml: {shown(str(report.html_path))}")
