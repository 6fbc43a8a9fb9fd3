"""What the scorer and the director say after the results are in: publication, corrections,
rulings, late approvals, penalties. Each is checked against the log and appended as one event.

A request that names something that does not exist (a board, a table, a correction) is refused
with a clear error and nothing is appended. Times must carry their timezone.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, Literal

import polars as pl
from pydantic import BaseModel

from models.conditions import ConditionsOfContest
from models.contract import Contract
from models.events import (
    ArtificialAward,
    ArtificialScoreAwarded,
    BackDatedCorrectionAcknowledged,
    BoardFouled,
    CorrectionPeriodClosed,
    LateCorrectionApproved,
    PenaltyAwarded,
    ScoreCorrectionRequested,
    ScoresPublished,
    TournamentRegistered,
    WeightedComponent,
    WeightedScoreAwarded,
    check_full_deal,
    check_moment,
    event_payload,
    session_stream,
)
from pipelines.log.reads import event_at
from pipelines.log.store import ConcurrencyError, EventStore, NewEvent, to_epoch_us
from pipelines.replay.frames import recorded_results, replay

log = logging.getLogger(__name__)

DECISION_ATTEMPTS = 3
"""How often a command decides again when another changed its session while it was deciding."""

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


class DirectorError(ValueError):
    """A director's or scorer's request that cannot be recorded as given."""


@dataclass(frozen=True)
class Acknowledgement:
    """Who answers for entering a back-dated correction request, and why it comes only now."""

    acknowledged_by: str
    reason: str


@dataclass(frozen=True)
class TableRef:
    """Names one table's result on one board."""

    event_id: str
    session_id: str
    board: int
    table_id: str
    section: str | None = None  # None: the one section where that board was played at that table


def register_tournament(store: EventStore, event_id: str, name: str, *, at: datetime,
                        conditions: ConditionsOfContest, organiser: str | None = None,
                        category: str | None = None) -> int:
    """Register (or re-register) a tournament with its validated conditions of contest.

    The ranking category is `category`, else the conditions' `category`; the two must agree when
    both are given. The latest registration of an event is the one replay uses.
    """
    if category is not None and conditions.category is not None and category != conditions.category:
        raise DirectorError(f"category {category!r} differs from the conditions' category "
                            f"{conditions.category!r}; give one, or the same in both")
    # The category is the tournament's (what the ranking reads), not a scoring condition.
    event = TournamentRegistered(event_id=event_id, name=name, organiser=organiser,
                                 category=category or conditions.category,
                                 conditions=conditions.model_dump(mode="json", exclude={"category"}))
    stream = f"tournament:{event_id}"
    result = store.append([NewEvent(stream, event.type, event_payload(event), check_moment(at))],
                          recorded_at=appended_now(), expected_versions={stream: store.stream_version(stream)})
    assert result.last_position is not None
    return result.last_position


def publish_scores(store: EventStore, event_id: str, session_id: str, *, at: datetime,
                   correction_period_minutes: float | None = None) -> int:
    """The official score is available from `at` (opens the Law 79C correction period)."""
    def decide() -> Decision:
        _require_session(store, event_id, session_id)
        tip = store.tip()
        return Decision(ScoresPublished(event_id=event_id, session_id=session_id,
                                        correction_period_minutes=correction_period_minutes,
                                        log_head=tip.as_payload() if tip is not None else None), at)

    return _decide_and_append(store, event_id, session_id, decide)


def request_correction(store: EventStore, table: TableRef, *, at: datetime, correction_id: str,
                       requested_by: str, reason: str, contract: str | None = None,
                       declarer: str | None = None, tricks: int | None = None,
                       acknowledgement: Acknowledgement | None = None) -> int:
    """Record a request to correct a table's result, raised at `at` (Law 79C).

    With `acknowledgement`, a `BackDatedCorrectionAcknowledged` is appended with it, in the same
    transaction: the policy lets a back-dated request in only with one (`pipelines.rulings.corrections`).
    """
    if contract is None and declarer is None and tricks is None:
        raise DirectorError("a correction must change the contract, the declarer or the tricks")
    if contract is not None:
        try:
            parsed = Contract.parse(contract, declarer or ("N" if contract.upper() != "PASS" else None))
        except ValueError as exc:
            raise DirectorError(str(exc)) from exc
        contract = str(parsed)

    def decide() -> Decision:
        row = _require_table(store, table)
        if _correction_exists(store, correction_id):
            raise DirectorError(f"correction {correction_id!r} already exists; choose another id")
        event = ScoreCorrectionRequested(
            correction_id=correction_id, event_id=table.event_id, session_id=table.session_id,
            section=row["section"], board=table.board, table_id=table.table_id, contract=contract,
            declarer=_seat(declarer), tricks=tricks,
            requested_by=requested_by, reason=reason,
        )
        then = None if acknowledgement is None else _acknowledgement(correction_id, table.event_id,
                                                                      table.session_id, acknowledgement)
        return Decision(event, at, then)

    return _decide_and_append(store, table.event_id, table.session_id, decide)


def acknowledge_back_dated(store: EventStore, correction_id: str, acknowledgement: Acknowledgement) -> int:
    """Let a back-dated correction request in: it was recorded after its session became final
    while claiming a time before that. Refused for a request that is not back-dated, or already
    acknowledged. Recorded at the time it is given (the wall clock)."""
    request = _find_correction(store, correction_id)
    if request is None:
        raise DirectorError(f"there is no correction {correction_id!r} to acknowledge")

    def decide() -> Decision:
        decided = correction_decision(store, correction_id, now=appended_now())
        if not decided["back_dated"]:
            why = ("it claims a time after the correction period: a late correction, which only a Law 79C2 "
                   "approval lets in (approve-late)") if decided["window"] == "after correction period" \
                else "it was recorded before its session became final"
            raise DirectorError(f"correction {correction_id!r} is not back-dated ({why}); there is nothing "
                                "to acknowledge")
        if decided["acknowledged_by"] is not None:
            raise DirectorError(f"correction {correction_id!r} was already acknowledged by "
                                f"{decided['acknowledged_by']}")
        return Decision(_acknowledgement(correction_id, request["event_id"], request["session_id"], acknowledgement),
                        appended_now())

    return _decide_and_append(store, request["event_id"], request["session_id"], decide)


def _acknowledgement(correction_id: str | None, event_id: str, session_id: str,
                     acknowledgement: Acknowledgement, *, fact_version: int | None = None
                     ) -> BackDatedCorrectionAcknowledged:
    try:
        return BackDatedCorrectionAcknowledged(correction_id=correction_id, event_id=event_id, session_id=session_id,
                                               acknowledged_by=acknowledgement.acknowledged_by,
                                               reason=acknowledgement.reason, fact_version=fact_version)
    except ValueError as exc:  # pydantic's: an empty name or reason
        raise DirectorError(f"an acknowledgement names who gives it and why: {exc}") from exc


def correction_decision(store: EventStore, correction_id: str, *, now: datetime) -> dict[str, Any]:
    """What the policy decides for a correction request now, from everything its session's log
    holds: its window, `applied`, `back_dated`, `awaiting` and `rule` (`pipelines.rulings.corrections`)."""
    from pipelines.replay.frames import session_policy

    request = _find_correction(store, correction_id)
    if request is None:
        raise DirectorError(f"there is no correction {correction_id!r}")
    policy = session_policy(store, request["event_id"], request["session_id"], as_of_us=to_epoch_us(now))
    row = policy.corrections.filter(pl.col("correction_id") == correction_id).row(0, named=True)
    return row | {"deadline": _moment(row["deadline_us"]), "recorded": _moment(row["recorded_us"])}


def describe_correction(store: EventStore, correction_id: str, *, now: datetime) -> str:
    """One sentence for the director: what the policy decided for the request, and what would
    change it (a Law 79C2 approval, or an acknowledgement of its back-dating)."""
    row = correction_decision(store, correction_id, now=now)
    if row["applied"]:
        acknowledged = f"; back-dated, acknowledged by {row['acknowledged_by']}: {row['acknowledgement']}" \
            if row["back_dated"] and row["acknowledged_by"] is not None else ""
        return f"applied ({row['window']}): {row['rule']}{acknowledged}"
    if row["awaiting"] == "acknowledgement":
        return (f"not applied: back-dated; it claims a time {row['window']} but was recorded at {row['recorded']}, "
                f"after the session became final at {row['deadline']}. To let it in, acknowledge it: "
                f"bridgeledger acknowledge-back-dated --id {correction_id} --by NAME --reason WHY")
    return (f"rejected: {row['rule']} (the period ended at {row['deadline']}); it applies only with a Law 79C2 "
            f"approval: bridgeledger approve-late --id {correction_id} --organiser ... --director ... --statement ...")


LATE_FACT_TYPES = {"ArtificialScoreAwarded": "adjusted score", "WeightedScoreAwarded": "weighted score",
                   "BoardFouled": "fouled board", "PenaltyAwarded": "penalty"}
"""The director facts besides corrections that change a session's scores, and what each is called."""


@dataclass(frozen=True)
class FactRef:
    """A director fact as the log holds it: where, of which type, in which session and stream version."""

    position: int
    type: str
    event_id: str
    session_id: str
    stream_version: int


def find_fact(store: EventStore, position: int) -> FactRef:
    """The adjusted or weighted score, fouled board or penalty at log `position`; refused for
    another event, or none."""
    with store.reader() as con:
        found = event_at(con, position)
    if found is None:
        raise DirectorError(f"there is no event at log position {position}")
    kind, stream, version = found
    if kind not in LATE_FACT_TYPES:
        raise DirectorError(f"position {position} is a {kind}, not an adjusted or weighted score, fouled board or "
                            "penalty (a correction request is acknowledged by its --id)")
    [event] = [e for e in store.read(types=[kind], stream_id=stream) if e.position == position]
    return FactRef(position, kind, event.payload["event_id"], event.payload["session_id"], version)


def fact_decision(store: EventStore, position: int, *, now: datetime) -> dict[str, Any]:
    """What the policy decides now for the director fact at `position`, from everything its
    session's log holds: `applied`, `late`, `back_dated`, `awaiting`, `rule`, who acknowledged it
    (`pipelines.rulings.corrections`), and the times (`claimed`, `recorded`, `deadline`) as ISO text."""
    from pipelines.replay.frames import session_policy

    fact = find_fact(store, position)
    policy = session_policy(store, fact.event_id, fact.session_id, as_of_us=to_epoch_us(now))
    ruling = fact.type in ("ArtificialScoreAwarded", "WeightedScoreAwarded")
    frame = policy.rulings if ruling else policy.late_facts
    row = frame.filter(pl.col("position") == position).row(0, named=True)
    window = policy.windows.row(0, named=True) if policy.windows.height else {}
    final_at = window.get("deadline_us")
    if ruling and final_at is not None:
        final_at = max(final_at, window["appeal_deadline_us"])
    claimed = row["requested_us"] if ruling else row["occurred_us"]
    return row | {"fact": LATE_FACT_TYPES[fact.type], "ruling": ruling, "claimed": _moment(claimed),
                  "recorded": _moment(row["recorded_us"]), "deadline": _moment(final_at)}


def describe_fact(store: EventStore, position: int, *, now: datetime) -> str:
    """One sentence for the director: what the policy decided for the adjusted or weighted score,
    fouled board or penalty at `position`, and the command that would let it in when it waits."""
    row = fact_decision(store, position, now=now)
    if row["applied"]:
        if row["acknowledged_by"] is not None:
            how = "back-dated" if row["back_dated"] else "recorded after the session became final"
            return f"applied: {how}, acknowledged by {row['acknowledged_by']}: {row['acknowledgement']}"
        if row["ruling"]:
            return f"applied ({row['window']}): {row['rule']}"
        return f"applied: {row['rule']}" + (f" ({row['deadline']})" if row["deadline"] else "")
    command = f"bridgeledger acknowledge-back-dated --position {position} --by NAME --reason WHY"
    if row["awaiting"] == "acknowledgement" and row["back_dated"]:
        return (f"not applied: back-dated; the {row['fact']} claims {row['claimed']} but was recorded at "
                f"{row['recorded']}, after {_final(row)} at {row['deadline']} (Law 79C: a final score "
                f"stands). To let it in, acknowledge it: {command}")
    if row["awaiting"] == "acknowledgement":
        return (f"not applied: recorded at {row['recorded']}, after the session became final at {row['deadline']} "
                f"(Law 79C: a final score stands; the {row['fact']} changes it only when acknowledged). "
                f"To let it in, acknowledge it: {command}")
    verdict = "rejected" if row["rule"].startswith("Law 92B") else "not applied"
    return f"{verdict}: {row['rule']}"


def _final(decided: dict[str, Any]) -> str:
    """From when a fact typed is late: a ruling's Law 92B period may end after the session's finality."""
    return "the session was final and its Law 92B period had ended" if decided["ruling"] \
        else "the session became final"


def acknowledge_late_fact(store: EventStore, position: int, acknowledgement: Acknowledgement) -> int:
    """Let in the adjusted or weighted score, fouled board or penalty at log `position`, which
    was recorded after its session became final. Refused for a fact the policy does not hold back
    (in time, or rejected under Law 92B), or one already acknowledged. Recorded at the time it is
    given (the wall clock)."""
    fact = find_fact(store, position)

    def decide() -> Decision:
        decided = fact_decision(store, position, now=appended_now())
        if decided["acknowledged_by"] is not None:
            raise DirectorError(f"the {decided['fact']} at position {position} was already acknowledged by "
                                f"{decided['acknowledged_by']}")
        if decided["awaiting"] != "acknowledgement":
            why = decided["rule"] if not decided["applied"] else \
                "it was recorded before its session became final" if decided["deadline"] else \
                "its session is not published"
            raise DirectorError(f"the {decided['fact']} at position {position} does not wait for an acknowledgement "
                                f"({why}); there is nothing to acknowledge")
        return Decision(_acknowledgement(None, fact.event_id, fact.session_id, acknowledgement,
                                         fact_version=fact.stream_version), appended_now())

    return _decide_and_append(store, fact.event_id, fact.session_id, decide)


def describe_publication(store: EventStore, event_id: str, session_id: str, position: int, *,
                         now: datetime) -> str:
    """One sentence for the scorer: the session's correction period after the publication at
    `position`, and whether the period it named applies (a final session stays final)."""
    from pipelines.replay.frames import session_policy

    policy = session_policy(store, event_id, session_id, as_of_us=to_epoch_us(now))
    published = policy.publications.filter(pl.col("position") == position).row(0, named=True)
    window = policy.windows.row(0, named=True)
    deadline = _moment(window["deadline_us"])
    if published["first_publication"]:
        return (f"the correction period runs until {deadline}" if window["status"] == "provisional"
                else f"the correction period ended at {deadline}: the session is final")
    if published["period_applies"] is False:
        return (f"{event_id}/{session_id} was already final (its correction period ended at {deadline}): it stays "
                f"final, and the period named ({published['correction_period_minutes']:g} minutes) is not applied; "
                "a correction now needs a Law 79C2 approval (approve-late)")
    return f"republished; the session is {window['status']}, its correction period ends at {deadline}"


def _moment(micros: int | None) -> str | None:
    return None if micros is None else (_EPOCH + timedelta(microseconds=micros)).isoformat()


def approve_late_correction(store: EventStore, correction_id: str, *, at: datetime, organiser: str,
                            director: str, statement: str) -> int:
    """Law 79C2: the organiser approves a correction after the period; the director is satisfied."""
    request = _find_correction(store, correction_id)
    if request is None:
        raise DirectorError(f"there is no correction {correction_id!r} to approve")
    event = LateCorrectionApproved(correction_id=correction_id, event_id=request["event_id"],
                                   session_id=request["session_id"], organiser=organiser,
                                   director=director, statement=statement)
    return _decide_and_append(store, request["event_id"], request["session_id"], lambda: Decision(event, at))


def award_artificial(store: EventStore, table: TableRef, *, at: datetime, requested_at: datetime,
                     ns_award: ArtificialAward, ew_award: ArtificialAward, director: str,
                     reason: str, acknowledgement: Acknowledgement | None = None) -> int:
    """Law 12C2: an artificial adjusted score for a table, ruled at `at`, requested at `requested_at`.

    With `acknowledgement`, the ruling is let in even when entered after the session became final
    (`acknowledge_late_fact`), in the same transaction.
    """
    to_epoch_us(requested_at)  # refuses a time without a zone

    def decide() -> Decision:
        row = _require_table(store, table)
        return Decision(ArtificialScoreAwarded(
            event_id=table.event_id, session_id=table.session_id, section=row["section"], board=table.board,
            table_id=table.table_id, ns_id=row["ns_id"], ew_id=row["ew_id"], ns_award=ns_award,
            ew_award=ew_award, reason=reason, director=director, requested_at=requested_at,
        ), at, acknowledged=acknowledgement)

    return _decide_and_append(store, table.event_id, table.session_id, decide)


def award_weighted(store: EventStore, table: TableRef, *, at: datetime, requested_at: datetime,
                   ns_components: Sequence[WeightedComponent], director: str, reason: str,
                   ew_components: Sequence[WeightedComponent] = (),
                   acknowledgement: Acknowledgement | None = None) -> int:
    """Law 12C1(c): an assigned score weighted over legal outcomes; EW may differ (split, 12C1(e)).
    `acknowledgement`: as for `award_artificial`."""
    to_epoch_us(requested_at)
    for side, components in (("NS", ns_components), ("EW", ew_components)):
        if components and abs(sum(c.weight for c in components) - 1) > 1e-9:
            raise DirectorError(f"the {side} weights sum to {sum(c.weight for c in components):g}; they must sum to 1")
    if not ns_components:
        raise DirectorError("a weighted score needs at least one outcome")

    def decide() -> Decision:
        row = _require_table(store, table)
        return Decision(WeightedScoreAwarded(
            event_id=table.event_id, session_id=table.session_id, section=row["section"], board=table.board,
            table_id=table.table_id, ns_id=row["ns_id"], ew_id=row["ew_id"],
            ns_components=tuple(ns_components), ew_components=tuple(ew_components),
            reason=reason, director=director, requested_at=requested_at,
        ), at, acknowledged=acknowledgement)

    return _decide_and_append(store, table.event_id, table.session_id, decide)


def record_fouled_board(store: EventStore, event_id: str, session_id: str, board: int, *, at: datetime,
                        groups: Mapping[str, Sequence[str]], reason: str, section: str = "",
                        deals: Mapping[str, str] | None = None,
                        acknowledgement: Acknowledgement | None = None) -> int:
    """Law 87: the board was played in different forms; results are compared within each group.

    `deals` (group label -> PBN deal) records the deal a group played, for the traveller to show
    beside the hand record's; a label that is not a group, or a deal that is not four full hands
    with each card once, is refused. `acknowledgement`: as for `award_artificial`."""
    return _decide_and_append(store, event_id, session_id, lambda: Decision(
        _fouled(store, event_id, session_id, board, groups, reason, section, deals or {}), at,
        acknowledged=acknowledgement))


def _fouled(store: EventStore, event_id: str, session_id: str, board: int, groups: Mapping[str, Sequence[str]],
            reason: str, section: str, deals: Mapping[str, str]) -> BoardFouled:
    results = recorded_results(store, [(event_id, session_id)]).filter(
        (pl.col("event_id") == event_id) & (pl.col("session_id") == session_id) & (pl.col("board") == board)
        & (pl.col("section") == section))
    played = set(results["table_id"].to_list())
    named = [table for tables in groups.values() for table in tables]
    if not played:
        raise DirectorError(f"board {board} (section {section!r}) was not played in {event_id}/{session_id}")
    unknown, twice = sorted(set(named) - played), sorted({t for t in named if named.count(t) > 1})
    if unknown or twice or len(groups) < 2:
        raise DirectorError(f"groups must split the tables that played board {board} into at least two "
                            f"versions, each table once (unknown: {unknown}, named twice: {twice})")
    unknown_groups = sorted(set(deals) - set(groups))
    if unknown_groups:
        raise DirectorError(f"--deal names {unknown_groups}, which are not groups (groups: {sorted(groups)})")
    for label, deal in deals.items():
        try:
            check_full_deal(deal)
        except ValueError as exc:
            raise DirectorError(f"the deal of group {label!r}: {exc}") from exc
    return BoardFouled(event_id=event_id, session_id=session_id, section=section, board=board,
                       groups={label: tuple(tables) for label, tables in groups.items()}, reason=reason,
                       deals=dict(deals))


def award_penalty(store: EventStore, event_id: str, session_id: str, contestant_id: str, *, at: datetime,
                  amount: float, unit: str, reason: str, law: str | None = None, section: str | None = None,
                  direction: str | None = None, acknowledgement: Acknowledgement | None = None) -> int:
    """Laws 90/91: a penalty on a contestant, in a unit the session is scored in.

    The contestant is found in the session's standings: its section, and its direction in a
    two-field session, are recorded with the penalty. An id that names more than one contestant
    (NS 1 and EW 1 of a Mitchell, pair 1 of two sections) needs `direction` or `section`; an id
    that names no one, or a unit the session does not score, is refused. `acknowledgement`: as for
    `award_artificial`.
    """
    return _decide_and_append(store, event_id, session_id, lambda: Decision(
        _penalty(store, event_id, session_id, contestant_id, amount, unit, reason, law, section, direction), at,
        acknowledged=acknowledgement))


def _penalty(store: EventStore, event_id: str, session_id: str, contestant_id: str, amount: float, unit: str,
             reason: str, law: str | None, section: str | None, direction: str | None) -> PenaltyAwarded:
    from pipelines.replay.projections import score_results, session_method
    from pipelines.scoring.standings import PENALTY_UNITS

    _require_session(store, event_id, session_id)
    projection = replay(store, sessions=[(event_id, session_id)])
    method = session_method(projection, event_id, session_id)
    units = PENALTY_UNITS[method]
    if _unit(unit) not in units:
        raise DirectorError(f"{event_id}/{session_id} is scored {method}: a penalty is deducted in "
                            f"{' or '.join(units) or 'no unit'}, not {unit!r}")
    in_session = (pl.col("event_id") == event_id) & (pl.col("session_id") == session_id)
    _, standings = score_results(projection, projection.results.filter(in_session))
    named = _penalised(standings.filter(pl.col("contestant_id") == contestant_id), event_id, session_id,
                       contestant_id, section, _direction(direction))
    return PenaltyAwarded(event_id=event_id, session_id=session_id, contestant_id=contestant_id,
                          section=named["section"], direction=named["direction"], amount=amount,
                          unit=_unit(unit), reason=reason, law=law)


def _penalised(standings: pl.DataFrame, event_id: str, session_id: str, contestant_id: str,
               section: str | None, direction: Literal["NS", "EW"] | None) -> dict[str, Any]:
    """The one standing `contestant_id` names, narrowed by `section` and `direction`."""
    if standings.is_empty():
        raise DirectorError(f"no contestant {contestant_id!r} played in {event_id}/{session_id}")
    if direction is not None and not standings.filter(pl.col("direction") == "ALL").is_empty():
        raise DirectorError(f"{event_id}/{session_id} ranks every pair in one field: leave out the direction")
    found = standings
    if section is not None:
        found = found.filter(pl.col("section") == section)
    if direction is not None:
        found = found.filter(pl.col("direction") == direction)
    def named(rows: pl.DataFrame) -> str:
        return "; ".join(f"{d} {contestant_id} in section {s!r}" if d != "ALL" else f"{contestant_id} in section {s!r}"
                         for s, d in rows.select("section", "direction").sort("section", "direction").rows())

    if found.is_empty():
        raise DirectorError(f"no contestant {contestant_id!r} in {event_id}/{session_id} as named; "
                            f"the id names: {named(standings)}")
    if found.height > 1:
        raise DirectorError(f"contestant {contestant_id!r} is ambiguous in {event_id}/{session_id} "
                            f"({named(found)}); say which with --direction and, across sections, --section")
    row = found.row(0, named=True)
    return {"section": row["section"], "direction": None if row["direction"] == "ALL" else row["direction"]}


def _direction(text: str | None) -> Literal["NS", "EW"] | None:
    if text is None:
        return None
    direction = text.strip().upper().replace("-", "")
    if direction not in ("NS", "EW"):
        raise DirectorError(f"a direction is NS or EW, got {text!r}")
    return direction  # type: ignore[return-value]


def close_correction_period(store: EventStore, event_id: str, session_id: str, *, deadline: datetime) -> int:
    """Record that a session's correction period ended at `deadline`: its scores are final."""
    event = CorrectionPeriodClosed(event_id=event_id, session_id=session_id)
    return _decide_and_append(store, event_id, session_id, lambda: Decision(event, deadline))


def _seat(text: str | None) -> Literal["N", "E", "S", "W"] | None:
    if text is None:
        return None
    seat = text.strip().upper()
    if seat not in ("N", "E", "S", "W"):
        raise DirectorError(f"declarer must be N, E, S or W, got {text!r}")
    return seat  # type: ignore[return-value]


PENALTY_UNIT_WORDS = {"MP": "MP", "%": "%", "TOP%": "TOP%", "%TOP": "TOP%", "IMP": "IMP", "VP": "VP"}
"""How a penalty's unit may be written, and the unit each means (`PenaltyAwarded.unit`)."""


def _unit(text: str) -> Literal["MP", "%", "TOP%", "IMP", "VP"]:
    unit = PENALTY_UNIT_WORDS.get(text.strip().upper().replace(" ", ""))
    if unit is None:
        raise DirectorError(f"a penalty's unit is MP, % (of the session score), TOP% (of one board's top), "
                            f"IMP or VP, got {text!r}")
    return unit  # type: ignore[return-value]


def appended_now() -> datetime:
    """When an event is appended: the wall clock, always.

    `at` is what the director claims (when the request was raised, the ruling made): it becomes
    `occurred_at`, which replay judges. `recorded_at` is when the log received it, so a correction
    entered on the 24th for the 21st shows both dates (the audit flags it) instead of looking as
    if it had arrived on the 21st. Replay never reads `recorded_at`.
    """
    return datetime.now(UTC)


@dataclass(frozen=True)
class Decision:
    """What a command decided to record: the event, claimed at `at`, and optionally one more
    appended after it in the same transaction, at the time it is appended: `then`, or the
    acknowledgement of the event as a late fact (`acknowledged`, named by its stream version)."""

    event: BaseModel
    at: datetime
    then: BaseModel | None = None
    acknowledged: Acknowledgement | None = None


def _decide_and_append(store: EventStore, event_id: str, session_id: str, decide: Callable[[], Decision]) -> int:
    """The session as an aggregate: read its stream's version, decide on the session as the log
    holds it (at least that version), and append at that version.

    The version is read before anything the decision looks at, so a change another command makes
    meanwhile makes this append fail (`ConcurrencyError`) instead of recording a decision taken on
    a session that no longer is: it decides again on the new state, and gives up after
    `DECISION_ATTEMPTS`. Two commands racing on one session never both win. Answers the position
    of the decided event.
    """
    stream = session_stream(event_id, session_id)
    for attempt in range(1, DECISION_ATTEMPTS + 1):
        version = store.stream_version(stream)
        decision = decide()
        if decision.acknowledged is not None:  # the event will be the stream's next version
            decision = Decision(decision.event, decision.at, _acknowledgement(
                None, event_id, session_id, decision.acknowledged, fact_version=version + 1))
        try:
            return _append(store, decision, stream, version)
        except ConcurrencyError:
            log.info("%s changed while this command decided (attempt %d of %d); deciding again", stream,
                     attempt, DECISION_ATTEMPTS)
    raise DirectorError(f"{event_id}/{session_id} changed {DECISION_ATTEMPTS} times while this command decided; "
                        "nothing was recorded: run it again")


def _append(store: EventStore, decision: Decision, stream: str, version: int) -> int:
    """Append the decision to `stream`, which must still be at `version`; the position of its event
    (the one decided, not the acknowledgement appended after it)."""
    check_moment(decision.at)  # refuses a time without a zone, or out of range, before anything is written
    recorded = appended_now()
    event, then = decision.event, decision.then
    events = [NewEvent(stream, event.type, event_payload(event), decision.at)]  # type: ignore[attr-defined]
    if then is not None:
        events.append(NewEvent(stream, then.type, event_payload(then), recorded))  # type: ignore[attr-defined]
    result = store.append(events, recorded_at=recorded, expected_versions={stream: version})
    assert result.last_position is not None
    return result.last_position - (len(events) - 1)


def _require_session(store: EventStore, event_id: str, session_id: str) -> None:
    if store.stream_version(session_stream(event_id, session_id)) == 0:
        raise DirectorError(f"there is no session {event_id}/{session_id} in the log")


def _require_table(store: EventStore, table: TableRef) -> dict[str, Any]:
    """The table's result as recorded; only its session is read from the log."""
    _require_session(store, table.event_id, table.session_id)
    results = recorded_results(store, [(table.event_id, table.session_id)])
    rows = results.filter(
        (pl.col("event_id") == table.event_id) & (pl.col("session_id") == table.session_id)
        & (pl.col("board") == table.board) & (pl.col("table_id") == table.table_id)
    )
    if table.section is not None:
        rows = rows.filter(pl.col("section") == table.section)
    where = f"section {table.section!r} of " if table.section is not None else ""
    if rows.is_empty():
        raise DirectorError(f"board {table.board} was not played at table {table.table_id!r} in "
                            f"{where}{table.event_id}/{table.session_id}")
    if rows.height > 1:
        sections = ", ".join(sorted(rows["section"].to_list()))
        raise DirectorError(f"board {table.board} at table {table.table_id!r} was played in sections "
                            f"{sections}; say which with --section")
    return rows.row(0, named=True)


def _find_correction(store: EventStore, correction_id: str) -> dict[str, Any] | None:
    # An approval names only the request: every request is read, and nothing else (a few per session).
    for event in store.read(types=["ScoreCorrectionRequested"]):
        if event.payload["correction_id"] == correction_id:
            return event.payload
    return None


def _correction_exists(store: EventStore, correction_id: str) -> bool:
    return _find_correction(store, correction_id) is not None
