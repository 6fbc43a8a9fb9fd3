"""The event catalogue: past-tense facts, each a frozen model told apart by its `type` tag.

Stored rows keep `type` and `schema_version` in their own columns and the remaining fields as the
JSON payload. Each model is the one definition of its payload's shape: the readers' frames,
ingest's payloads, replay's columns and the scoring frames are derived from its fields
(`models.shape`); a field marked `DETAIL` is kept in the log but not read by replay.

Evolving an event (extend, never repurpose):

- An optional field with a default is added without a new `schema_version`: older payloads lack
  it and read as the default. When a reader must tell "recorded before the field existed" from
  "recorded without it" (`BoardFouled.deals`), the version is raised all the same, with a step
  that changes nothing.
- Renaming, removing or retyping a field, or adding a required one, raises `schema_version` by one,
  and the step from the old version is registered right after the model with
  `UPCASTERS.add(Upcaster(...))` (`models.upcasting`); the stored rows are never rewritten, and
  replay upcasts them in bulk as it reads them.
"""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import Annotated, Any, Literal, Self

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, TypeAdapter, ValidationError, model_validator

from models.awards import MAX_AWARD as MAX_AWARD  # re-exported: older imports name the catalogue
from models.awards import ArtificialAward as ArtificialAward
from models.diagnostics import Diagnostic
from models.shape import DETAIL
from models.upcasting import Filled, Upcaster, Upcasters

_FROZEN = ConfigDict(frozen=True, extra="forbid", defer_build=True)

EARLIEST = datetime(1900, 1, 1, tzinfo=UTC)
"""The earliest time an event may claim (a federation's history does not go further back)."""
LATEST = datetime(2200, 1, 1, tzinfo=UTC)
"""The latest time an event may claim: far enough for any schedule, far from where time arithmetic
(deadlines, microseconds since 1970 in 64 bits, Python's year 9999) overflows."""
MAX_PERIOD_MINUTES = 60 * 24 * 366
"""The longest correction or appeal period a publication may set: a year."""
MAX_PENALTY = 1000.0
"""The largest penalty in any unit (MP, %, IMP, VP)."""


def check_moment(moment: datetime) -> datetime:
    """`moment` when it carries its timezone and lies between `EARLIEST` and `LATEST`."""
    if moment.tzinfo is None or moment.utcoffset() is None:
        raise ValueError(f"time {moment.isoformat()} has no timezone; give one (e.g. +01:00 or Z)")
    if not EARLIEST <= moment < LATEST:
        raise ValueError(f"time {moment.isoformat()} is outside {EARLIEST.year}-{LATEST.year - 1}")
    return moment


Moment = Annotated[datetime, AfterValidator(check_moment)]
"""A time with its zone, within the years the log accepts."""
Id = Annotated[str, Field(min_length=1, max_length=200)]
"""An identifier given by a person (event, session, table, contestant, correction): never empty."""


class _Event(BaseModel):
    model_config = _FROZEN


UPCASTERS = Upcasters()
"""The upcasters of the catalogue, each registered beside its event's model."""


class SessionKey(BaseModel):
    """Names a session: the tournament's id and the session's id within it."""

    model_config = _FROZEN

    event_id: str = Field(min_length=1)
    """Tournament (event) identifier."""
    session_id: str = Field(min_length=1)
    """Session identifier within the tournament."""


class SourceRef(BaseModel):
    """Where a fact came from: file hash, record index and line."""

    model_config = _FROZEN

    sha256: str
    """SHA-256 of the source file."""
    record: int
    """0-based index of the record (board, game, row) in the file."""
    line: int
    """1-based line the record starts on."""


class Player(BaseModel):
    """A player as a file names them."""

    model_config = _FROZEN

    name: str
    """Name as written in the source."""
    federation_id: str | None = None
    """National federation membership number, when known."""


class SourceFileIngested(_Event):
    """A file was read and its events appended (in the same transaction)."""

    type: Literal["SourceFileIngested"] = "SourceFileIngested"
    schema_version: Literal[1] = 1
    sha256: str
    """SHA-256 of the file's bytes: ingesting the same bytes again is a no-op."""
    name: str
    """File name as given."""
    format: str
    """csv, pbn, lin or usebio."""
    parser_version: str
    """Version of the reader that produced the records."""
    counts: dict[str, int]
    """Events appended per type."""
    diagnostics: tuple[Diagnostic, ...] = ()
    """Everything the reader reported, quarantined records included."""
    quarantined: int = 0
    """Records left out because they could not be trusted."""


class TournamentRegistered(_Event):
    """A tournament (event) exists with its conditions of contest."""

    type: Literal["TournamentRegistered"] = "TournamentRegistered"
    schema_version: Literal[1] = 1
    event_id: str
    """Tournament identifier."""
    name: str
    """Tournament name."""
    start_date: date | None = None
    """First day."""
    end_date: date | None = None
    """Last day."""
    organiser: str | None = None
    """Tournament organiser."""
    category: str | None = None
    """Ranking category."""
    conditions: dict[str, Any] = Field(default_factory=dict)
    """Conditions of contest (validated by `models.conditions`)."""


class SessionScheduled(_Event):
    """A session of a tournament, with its scoring method and field layout."""

    type: Literal["SessionScheduled"] = "SessionScheduled"
    schema_version: Literal[1] = 1
    event_id: str
    """Tournament identifier."""
    session_id: str
    """Session identifier."""
    number: int = 1
    """Session number within the tournament."""
    session_date: date | None = None
    """Date played."""
    scoring: str = "MP"
    """Scoring method: MP, BUTLER, CROSS_IMP, TOTAL, IMP_TEAMS, ..."""
    field_layout: Literal["two_field", "one_field"] = "two_field"
    """two_field: NS and EW ranked separately (Mitchell); one_field: one ranking (Howell, barometer)."""
    sections: tuple[str, ...] = ()
    """Section names."""
    title: str | None = None
    """Human title of the session."""


class ContestantRegistered(_Event):
    """A pair, team or individual takes part in a session (or the whole event)."""

    type: Literal["ContestantRegistered"] = "ContestantRegistered"
    schema_version: Literal[1] = 1
    event_id: str
    """Tournament identifier."""
    session_id: str | None = None
    """Session, or None for the whole event."""
    contestant_id: str
    """Pair/team number or name exactly as the file gives it."""
    kind: Literal["pair", "team", "individual"] = "pair"
    """What the contestant is."""
    section: str = ""
    """Section, when pair numbers repeat across sections."""
    direction: Literal["NS", "EW"] | None = None
    """Fixed direction in a two-field movement."""
    name: str | None = None
    """Display name (team name, or the players joined)."""
    players: tuple[Player, ...] = ()
    """The players."""
    published: Annotated[dict[str, float | str], DETAIL] = Field(default_factory=dict)
    """Totals the source published for the contestant (`total`, `percentage`, `rank` as written,
    e.g. `3=`; `session_total`, ... as in `parsers.records.PublishedValues`): a reference only."""


class BoardDealt(_Event):
    """A board of a session with its dealer, vulnerability and (when known) the four hands."""

    type: Literal["BoardDealt"] = "BoardDealt"
    schema_version: Literal[1] = 1
    event_id: str
    """Tournament identifier."""
    session_id: str
    """Session identifier."""
    section: str = ""
    """Section, or '' for every section."""
    board: int = Field(ge=1)
    """Board number."""
    dealer: Literal["N", "E", "S", "W"]
    """Dealer as marked on the board."""
    vulnerability: Literal["None", "NS", "EW", "All"]
    """Vulnerability as marked on the board."""
    deal: Annotated[str | None, DETAIL] = None
    """The hands in PBN notation (`N:AKQ... ...`), or None when not known."""
    published: Annotated[dict[str, float | str], DETAIL] = Field(default_factory=dict)
    """What the source published about the deal, a reference only (`diff-published` checks it
    against our own analysis): `dd_tricks` (20 hex digits, declarer N, S, E, W, each in NT, S, H, D,
    C), `par_score_ns`, `par_contract` (`parsers.pbn.supplemental`)."""


class ResultRecorded(_Event):
    """A table's result on a board: who sat where, the contract and the tricks."""

    type: Literal["ResultRecorded"] = "ResultRecorded"
    schema_version: Literal[1] = 1
    event_id: str
    """Tournament identifier."""
    session_id: str
    """Session identifier."""
    section: str = ""
    """Section."""
    board: int = Field(ge=1)
    """Board number."""
    table_id: str
    """Table (or room for teams) where it was played."""
    round: int | None = None
    """Round of the movement."""
    room: Literal["open", "closed"] | None = None
    """Room in a team match."""
    ns_id: str
    """North-South contestant id as in the source."""
    ew_id: str
    """East-West contestant id as in the source."""
    contract: str
    """`4SX`, `3NT`, `PASS`."""
    declarer: Literal["N", "E", "S", "W"] | None = None
    """Declarer; None when passed out."""
    tricks: int | None = Field(default=None, ge=0, le=13)
    """Total tricks won by declarer."""
    lead: Annotated[str | None, DETAIL] = None
    """Opening lead, suit first (`SA`)."""
    auction: Annotated[tuple[str, ...], DETAIL] = ()
    """Calls from the dealer on, when recorded."""
    play: Annotated[tuple[str, ...], DETAIL] = ()
    """Cards in played order, when recorded."""
    published: Annotated[dict[str, float | str], DETAIL] = Field(default_factory=dict)
    """Values the source published for this row (score_ns, mp_ns, imp_ns, ...): a reference only."""
    source: Annotated[SourceRef | None, DETAIL] = None
    """Where the row came from."""




class ArtificialScoreAwarded(_Event):
    """Law 12C2: no result could be obtained; each side gets an artificial adjusted score."""

    type: Literal["ArtificialScoreAwarded"] = "ArtificialScoreAwarded"
    schema_version: Literal[1] = 1
    event_id: Id
    """Tournament identifier."""
    session_id: Id
    """Session identifier."""
    section: str = ""
    """Section."""
    board: int = Field(ge=1)
    """Board number."""
    table_id: Id
    """Table."""
    ns_id: str
    """North-South contestant."""
    ew_id: str
    """East-West contestant."""
    ns_award: ArtificialAward
    """NS award (`models.awards`): average-plus, average, average-minus or an explicit percentage/IMPs."""
    ew_award: ArtificialAward
    """EW award."""
    reason: str | None = None
    """Why, in the director's words."""
    director: str | None = None
    """Who ruled."""
    requested_at: Moment | None = None
    """When the ruling was requested (Law 92B)."""
    published: Annotated[dict[str, float | str], DETAIL] = Field(default_factory=dict)
    """Values the source published for this row."""
    source: Annotated[SourceRef | None, DETAIL] = None
    """Where it came from."""


class WeightedComponent(BaseModel):
    """One possible outcome of a weighted score (Law 12C1(c))."""

    model_config = _FROZEN

    contract: str
    """Contract of this outcome."""
    declarer: Literal["N", "E", "S", "W"] | None = None
    """Declarer."""
    tricks: int | None = Field(default=None, ge=0, le=13)
    """Tricks won by declarer."""
    weight: float = Field(gt=0, le=1, allow_inf_nan=False)
    """Weight of this outcome; the weights of one side sum to 1."""


class WeightedScoreAwarded(_Event):
    """Law 12C1(c)/(e): an assigned score weighted over outcomes; NS and EW may differ (split)."""

    type: Literal["WeightedScoreAwarded"] = "WeightedScoreAwarded"
    schema_version: Literal[1] = 1
    event_id: Id
    """Tournament identifier."""
    session_id: Id
    """Session identifier."""
    section: str = ""
    """Section."""
    board: int = Field(ge=1)
    """Board number."""
    table_id: Id
    """Table."""
    ns_id: str | None = None
    """North-South contestant (None in events recorded before it was kept: replay takes the
    table's recorded result)."""
    ew_id: str | None = None
    """East-West contestant (None: as recorded at the table)."""
    ns_components: tuple[WeightedComponent, ...]
    """Outcomes scored for NS."""
    ew_components: tuple[WeightedComponent, ...] = ()
    """Outcomes scored for EW; empty = same as NS (a balanced score)."""
    reason: str | None = None
    """Why."""
    director: str | None = None
    """Who ruled."""
    requested_at: Moment | None = None
    """When the ruling was requested."""


def check_full_deal(text: str) -> str:
    """`text` when it is a PBN deal of four full hands, each card once (`models.cards.Deal`),
    written as `Deal.to_pbn` writes it (North first), so that one deal has one spelling."""
    from models.cards import Deal  # the card model is only needed by the few events that carry a deal

    try:
        deal = Deal.from_pbn(text)
    except ValidationError as exc:  # a hand's own check (a card twice, 14 cards): its words, not pydantic's report
        raise ValueError("; ".join(str(e["msg"]).removeprefix("Value error, ") for e in exc.errors())
                         + f" in {text!r}") from None
    if not deal.is_complete:
        raise ValueError(f"a deal needs four hands of 13 cards; got {text!r}")
    return deal.to_pbn()


FullDeal = Annotated[str, AfterValidator(check_full_deal)]
"""The four hands of a board in PBN (`N:AKQ.. ...`), every card dealt once."""


class BoardFouled(_Event):
    """Law 87: the board was not played in identical form; results are compared within groups.

    Version 2 added `deals`; a version-1 ruling reads as one that recorded no deal."""

    type: Literal["BoardFouled"] = "BoardFouled"
    schema_version: Literal[2] = 2
    event_id: Id
    """Tournament identifier."""
    session_id: Id
    """Session identifier."""
    section: str = ""
    """Section."""
    board: int = Field(ge=1)
    """Board number."""
    groups: dict[str, tuple[str, ...]]
    """Version label -> tables that played that version."""
    reason: str | None = None
    """What happened."""
    deals: Annotated[dict[str, FullDeal], DETAIL] = Field(default_factory=dict)
    """Version label -> the deal its tables played, for the versions the director recorded one of
    (shown on the traveller; scoring needs only the groups). The hand record's deal stays the
    board's `BoardDealt`."""

    @model_validator(mode="after")
    def _deals_of_named_groups(self) -> Self:
        unknown = sorted(set(self.deals) - set(self.groups))
        if unknown:
            raise ValueError(f"deals name versions that are not groups: {unknown} (groups: {sorted(self.groups)})")
        return self


# v1 -> v2: `deals` was added; a v1 ruling recorded no deal, which its default (none) says.
UPCASTERS.add(Upcaster("BoardFouled", 1, ()))


class PenaltyAwarded(_Event):
    """Laws 90/91: a procedural or disciplinary penalty on a contestant."""

    type: Literal["PenaltyAwarded"] = "PenaltyAwarded"
    schema_version: Literal[1] = 1
    event_id: Id
    """Tournament identifier."""
    session_id: Id
    """Session identifier."""
    contestant_id: Id
    """Penalised contestant."""
    section: str = ""
    """Section ('' in events recorded before it was resolved: any section the id played in)."""
    direction: Literal["NS", "EW"] | None = None
    """The contestant's direction in a two-field (Mitchell) session, where NS 1 and EW 1 are two
    pairs; None in a one-field session or team play (and in events recorded before it was kept)."""
    amount: float = Field(gt=0, le=MAX_PENALTY, allow_inf_nan=False)
    """Size of the penalty (deducted)."""
    unit: Literal["MP", "%", "TOP%", "IMP", "VP"]
    """Unit of the amount: MP, IMP or VP deduct that many from the session score; `%` deducts
    percentage points of the session score (10 takes 75 % to 65 %, i.e. a tenth of all the
    contestant's tops); `TOP%` deducts that share of one board's top (25 takes a quarter of a top
    on one board: the unit in which EBU, WBF and ACBL regulations state procedural penalties)."""
    reason: str
    """Why."""
    law: str | None = None
    """Law applied, e.g. 90B2."""


class LogHead(BaseModel):
    """The log's head when something was published: the last position and its hash."""

    model_config = _FROZEN

    position: int = Field(ge=0)
    """Last log position."""
    hash: str = Field(pattern=r"^[0-9a-f]{64}$")
    """The event hash at that position."""


class ScoresPublished(_Event):
    """The official score was made available for inspection: the 79C correction period opens."""

    type: Literal["ScoresPublished"] = "ScoresPublished"
    schema_version: Literal[1] = 1
    event_id: Id
    """Tournament identifier."""
    session_id: Id
    """Session identifier."""
    correction_period_minutes: float | None = Field(default=None, ge=0, le=MAX_PERIOD_MINUTES,
                                                    allow_inf_nan=False)
    """Override of the conditions of contest, if the organiser set one for this session."""
    log_head: LogHead | None = None
    """The log's head when the scores were published (`verify` checks the log still holds it)."""


class CorrectionPeriodClosed(_Event):
    """A session's Law 79C correction period ended (recorded at the deadline): its scores are final.

    Appended once per session by the `close_correction_periods` schedule; the decision whether a
    correction was in time never depends on this event, only on the times in the log.
    """

    type: Literal["CorrectionPeriodClosed"] = "CorrectionPeriodClosed"
    schema_version: Literal[1] = 1
    event_id: Id
    """Tournament identifier."""
    session_id: Id
    """Session identifier."""


class ScoreCorrectionRequested(_Event):
    """Someone asked for a recorded result to be corrected (Law 79C)."""

    type: Literal["ScoreCorrectionRequested"] = "ScoreCorrectionRequested"
    schema_version: Literal[1] = 1
    correction_id: Id
    """Identifier of the request (referenced by a late approval)."""
    event_id: Id
    """Tournament identifier."""
    session_id: Id
    """Session identifier."""
    section: str = ""
    """Section."""
    board: int = Field(ge=1)
    """Board number."""
    table_id: Id
    """Table whose result is corrected."""
    contract: str | None = None
    """Corrected contract."""
    declarer: Literal["N", "E", "S", "W"] | None = None
    """Corrected declarer."""
    tricks: int | None = Field(default=None, ge=0, le=13)
    """Corrected tricks."""
    requested_by: str
    """Who raised it."""
    reason: str
    """Why."""


class LateCorrectionApproved(_Event):
    """Law 79C2: organiser approves a correction after the period; director satisfied beyond doubt."""

    type: Literal["LateCorrectionApproved"] = "LateCorrectionApproved"
    schema_version: Literal[1] = 1
    correction_id: Id
    """The correction request approved."""
    event_id: Id
    """Tournament identifier."""
    session_id: Id
    """Session identifier."""
    organiser: str
    """Who approved for the tournament organiser."""
    director: str
    """Director satisfied beyond reasonable doubt that the record is wrong."""
    statement: str
    """The 79C2 statement."""


class BackDatedCorrectionAcknowledged(_Event):
    """A director fact entered after its session became final is let in by name: someone answerable
    says why it is entered late. Without it, such a fact is recorded but not applied
    (`pipelines.rulings.corrections`): a correction request claiming a time before finality (named by
    `correction_id`), or a ruling, fouled board or penalty recorded after it (named by
    `fact_version`, its version in the session's stream).

    Version 2 names other facts than corrections; a version 1 payload names a correction and reads
    as version 2 unchanged (`fact_version` None).
    """

    type: Literal["BackDatedCorrectionAcknowledged"] = "BackDatedCorrectionAcknowledged"
    schema_version: Literal[2] = 2
    correction_id: Id | None = None
    """The correction request acknowledged (None when `fact_version` names the fact)."""
    event_id: Id
    """Tournament identifier."""
    session_id: Id
    """Session identifier."""
    acknowledged_by: str = Field(min_length=1)
    """Who answers for entering the late fact (a director or the scorer)."""
    reason: str = Field(min_length=1)
    """Why the fact is entered only now, e.g. the pick-up slip found after the weekend."""
    fact_version: int | None = Field(default=None, ge=1)
    """The acknowledged fact's version in the session's stream (`session_stream`): an adjusted or
    weighted score, a fouled board or a penalty (None when `correction_id` names a correction)."""

    @model_validator(mode="after")
    def _names_one_fact(self) -> BackDatedCorrectionAcknowledged:
        if (self.correction_id is None) == (self.fact_version is None):
            raise ValueError("an acknowledgement names one fact: a correction_id or a fact_version")
        return self


# Version 1 named corrections only, by `correction_id`: the same payload, no other fact named.
UPCASTERS.add(Upcaster("BackDatedCorrectionAcknowledged", 1, (Filled("fact_version", None),)))


class PlayerIdentitiesMerged(_Event):
    """Two federation ids are the same person."""

    type: Literal["PlayerIdentitiesMerged"] = "PlayerIdentitiesMerged"
    schema_version: Literal[1] = 1
    kept_id: str
    """The id that stays."""
    merged_id: str
    """The id folded into it."""
    reason: str | None = None
    """Why."""


class RankingPublished(_Event):
    """A ranking edition was computed at a fixed log position."""

    type: Literal["RankingPublished"] = "RankingPublished"
    schema_version: Literal[1] = 1
    rule_version: str
    """Version of the ranking rule set."""
    edition: str
    """Edition label."""
    position: int
    """Log position the edition was computed at."""
    log_head: LogHead | None = None
    """The log's head when the edition was published (`verify` checks the log still holds it)."""
    rule_set: str = ""
    """Name of the ranking rule set (its version is `rule_version`)."""
    rule_hash: str | None = None
    """SHA-256 of the rule set's canonical JSON: the edition names exactly the rules it used."""
    rules: dict[str, Any] = Field(default_factory=dict)
    """The whole rule set, so the edition rebuilds without the file it was computed from."""
    as_of: datetime | None = None
    """The time the edition was computed as of: events that happened later are left out."""
    output_sha256: str | None = None
    """SHA-256 of the edition's canonical output (ranking and awards): a rebuild must match it."""


class MemberRegistered(_Event):
    """A federation's member list names a member (a later registration of the same id supersedes)."""

    type: Literal["MemberRegistered"] = "MemberRegistered"
    schema_version: Literal[1] = 1
    federation: str
    """The federation whose list it is (PZBS, ABF, ...)."""
    federation_id: str = Field(min_length=1)
    """Membership number."""
    name: str = Field(min_length=1)
    """Name as the member list writes it."""
    club: str | None = None
    """Club the member plays for."""
    gender: Literal["F", "M", "X"] | None = None
    """F, M or X (sub-rankings by gender)."""
    birth_year: int | None = Field(default=None, ge=1880, le=2100)
    """Year of birth (age-band sub-rankings)."""
    region: str | None = None
    """Region or district."""
    source: SourceRef | None = None
    """The member list row it came from."""


class PlayerLinked(_Event):
    """A player named in an event's files is this member (settles an unmatched or wrong match)."""

    type: Literal["PlayerLinked"] = "PlayerLinked"
    schema_version: Literal[1] = 1
    event_id: str
    """Tournament in which the player appears."""
    player_name: str
    """The player's name exactly as the event's files give it."""
    federation_id: str
    """The member it is."""
    linked_by: str | None = None
    """Who settled it."""
    reason: str | None = None
    """Why."""


class LineupRecorded(_Event):
    """Players sat for a team on these boards of a session (a room's results name who sat).

    A team fields four to six players and changes its line-up between matches or halves; a
    member's share of the team's ranking award counts the boards they sat for (`pipelines.ranking`).
    A team whose line-ups in a session do not cover every board it played is taken to have fielded
    every registered member on every board of it.
    """

    type: Literal["LineupRecorded"] = "LineupRecorded"
    schema_version: Literal[1] = 1
    event_id: Id
    """Tournament identifier."""
    session_id: Id
    """Session identifier."""
    section: str = ""
    """Section."""
    contestant_id: Id
    """The team, as the results name it."""
    players: tuple[Player, ...] = Field(min_length=1)
    """Who sat for it (a pair in one room)."""
    boards: tuple[Annotated[int, Field(ge=1)], ...] = Field(min_length=1)
    """The boards they sat for, ascending."""


Event = Annotated[
    SourceFileIngested | TournamentRegistered | SessionScheduled | ContestantRegistered | BoardDealt
    | ResultRecorded | ArtificialScoreAwarded | WeightedScoreAwarded | BoardFouled | PenaltyAwarded
    | ScoresPublished | CorrectionPeriodClosed | ScoreCorrectionRequested | LateCorrectionApproved
    | BackDatedCorrectionAcknowledged | PlayerIdentitiesMerged | RankingPublished | MemberRegistered | PlayerLinked
    | LineupRecorded,
    Field(discriminator="type"),
]
"""Any event of the catalogue."""

EVENT_ADAPTER: TypeAdapter[Event] = TypeAdapter(Event)
"""Validates and serialises any event; `EVENT_ADAPTER.json_schema()` is the published schema."""

EVENT_TYPES: dict[str, type[BaseModel]] = {
    cls.model_fields["type"].default: cls
    for cls in (SourceFileIngested, TournamentRegistered, SessionScheduled, ContestantRegistered,
                BoardDealt, ResultRecorded, ArtificialScoreAwarded, WeightedScoreAwarded, BoardFouled,
                PenaltyAwarded, ScoresPublished, CorrectionPeriodClosed, ScoreCorrectionRequested,
                LateCorrectionApproved, BackDatedCorrectionAcknowledged,
                PlayerIdentitiesMerged, RankingPublished, MemberRegistered, PlayerLinked, LineupRecorded)
}
"""Type tag -> model class."""

CURRENT_VERSIONS: dict[str, int] = {
    name: cls.model_fields["schema_version"].default for name, cls in EVENT_TYPES.items()
}
"""Type tag -> the schema version this code writes."""


def event_payload(event: BaseModel) -> dict[str, Any]:
    """The JSON payload stored for an event: every field but `type` and `schema_version`."""
    return event.model_dump(mode="json", exclude={"type", "schema_version"})


def session_stream(event_id: str, session_id: str) -> str:
    """Stream id under which a session's facts are appended."""
    return f"session:{event_id}/{session_id}"
