"""Format-neutral records: what every reader (CSV, PBN, LIN, USEBIO) returns.

Readers are pure: text in, a `ParsedFile` out. `pipelines.files.ingest` turns records into events.
A record that a reader cannot trust is quarantined: it is left out of the lists below and an
error `Diagnostic` with its position says why. Nothing is silently dropped.
"""

from __future__ import annotations

from datetime import date

from pydantic import BaseModel, ConfigDict, Field

from models.board import Vulnerability
from models.cards import Card, Deal, Seat
from models.contract import Contract
from models.diagnostics import Diagnostic, errors_among
from models.events import ArtificialAward, Player

_FROZEN = ConfigDict(frozen=True, extra="forbid", defer_build=True)

PublishedValues = dict[str, float | str]
"""Values a source published, kept as reference. Keys used across readers:
score_ns (NS-signed points), mp_ns, mp_ew, pct_ns, pct_ew, imp_ns, imp_ew, datum (Butler),
cross_imp_ns, cross_imp_ew, and for contestants total, percentage, rank (a shared place as text:
`3=`, `3-4`), session_total, session_percentage, session_rank; for deals dd_tricks, par_score_ns,
par_contract (`parsers.pbn.supplemental`)."""


class Position(BaseModel):
    """Where a record starts in its file."""

    model_config = _FROZEN

    record: int = Field(ge=0)
    """0-based index of the record (game, board, row) in the file."""
    line: int = Field(ge=0)
    """1-based line the record starts on."""


class BoardRecord(BaseModel):
    """A hand record: a board with dealer, vulnerability and the hands (when known)."""

    model_config = _FROZEN

    board: int = Field(ge=1)
    """Board number."""
    section: str = ""
    """Section, or '' when the board is the same for every section."""
    dealer: Seat | None = None
    """Dealer as marked; None = not given (Law 2 applies)."""
    vulnerability: Vulnerability | None = None
    """Vulnerability as marked; None = not given (Law 2 applies)."""
    deal: Deal | None = None
    """The hands, when known."""
    published: PublishedValues = Field(default_factory=dict)
    """What the file published about the deal (double-dummy tricks, par): reference only."""
    at: Position
    """Where the record is."""


class ResultRecord(BaseModel):
    """One table's result on one board (a traveller line)."""

    model_config = _FROZEN

    board: int = Field(ge=1)
    """Board number."""
    section: str = ""
    """Section."""
    table_id: str
    """Table number or name (for teams, the room may be folded in, e.g. `12-open`)."""
    round: int | None = None
    """Round of the movement."""
    room: str | None = None
    """'open' or 'closed' in team play."""
    ns_id: str
    """NS pair/team id exactly as the file writes it."""
    ew_id: str
    """EW pair/team id exactly as the file writes it."""
    contract: Contract
    """Final contract, declarer included; passed out is level 0."""
    tricks: int | None = Field(default=None, ge=0, le=13)
    """Total tricks won by declarer; None only when passed out."""
    lead: Card | None = None
    """Opening lead."""
    auction: tuple[str, ...] = ()
    """Calls from the dealer on, normalised: Pass, X, XX, 1C..7NT (alerts and notes dropped)."""
    play: tuple[Card, ...] = ()
    """Cards in the order played, when recorded."""
    ns_players: tuple[Player, ...] = ()
    """Players sitting NS, when the record names them."""
    ew_players: tuple[Player, ...] = ()
    """Players sitting EW."""
    published: PublishedValues = Field(default_factory=dict)
    """Scores the file published for this row (reference only; we compute our own)."""
    at: Position
    """Where the record is."""


class ArtificialRecord(BaseModel):
    """A table that got artificial adjusted scores (Law 12C2) instead of a result."""

    model_config = _FROZEN

    board: int = Field(ge=1)
    """Board number."""
    section: str = ""
    """Section."""
    table_id: str
    """Table."""
    round: int | None = None
    """Round."""
    ns_id: str
    """NS contestant."""
    ew_id: str
    """EW contestant."""
    ns_award: ArtificialAward
    """A+, A, A- or an explicit percentage."""
    ew_award: ArtificialAward
    """A+, A, A- or an explicit percentage."""
    published: PublishedValues = Field(default_factory=dict)
    """Scores the file published for this row."""
    at: Position
    """Where the record is."""


class ContestantRecord(BaseModel):
    """A pair, team or individual named by the file."""

    model_config = _FROZEN

    contestant_id: str
    """Id exactly as the file writes it (pair number, team name)."""
    kind: str = "pair"
    """pair, team or individual."""
    section: str = ""
    """Section."""
    direction: str | None = None
    """'NS' or 'EW' in a two-field movement."""
    name: str | None = None
    """Display name."""
    players: tuple[Player, ...] = ()
    """Players."""
    published: PublishedValues = Field(default_factory=dict)
    """Totals the file published (total, percentage, rank, ...)."""
    at: Position
    """Where the record is."""


class FileMetadata(BaseModel):
    """What a file says about the event and session it comes from."""

    model_config = _FROZEN

    event_name: str | None = None
    """Event/tournament name."""
    event_id: str | None = None
    """Event identifier, when the format has one (CSV column, USEBIO EVENT_IDENTIFIER)."""
    session_id: str | None = None
    """Session identifier, when the format has one."""
    event_date: date | None = None
    """Date played (never 'today' when the file does not say)."""
    site: str | None = None
    """Venue or club."""
    scoring: str | None = None
    """The file's own statement of the scoring method, verbatim (PBN Scoring tag, USEBIO EVENT_TYPE,
    LIN vg scoring letter)."""
    field_layout: str | None = None
    """'one_field' (Howell, barometer) or 'two_field' (Mitchell) when the file tells."""
    program: str | None = None
    """Program that wrote the file."""
    tie_breaks: tuple[str, ...] = ()
    """Tie-breaks the file says it applied to its standings (`models.conditions.TieBreak` names)."""


class ParsedFile(BaseModel):
    """Everything a reader got from one file."""

    model_config = _FROZEN

    source: str
    """File name."""
    format: str
    """csv, pbn, lin or usebio."""
    parser_version: str
    """Reader version."""
    metadata: FileMetadata = FileMetadata()
    """Event-level facts."""
    boards: tuple[BoardRecord, ...] = ()
    """Hand records."""
    results: tuple[ResultRecord, ...] = ()
    """Traveller lines."""
    artificial: tuple[ArtificialRecord, ...] = ()
    """Artificial adjusted scores."""
    contestants: tuple[ContestantRecord, ...] = ()
    """Pairs/teams."""
    diagnostics: tuple[Diagnostic, ...] = ()
    """Everything the reader reported."""
    quarantined: int = 0
    """Records left out because of an error."""

    @property
    def errors(self) -> tuple[Diagnostic, ...]:
        """Diagnostics of severity error."""
        return errors_among(self.diagnostics)
