"""Replay: the events up to a position become the frames that scoring reads.

The hot path is columnar: DuckDB extracts the payload fields the event models name straight into
Arrow/polars (`pipelines.log.payload_frames`). Rows written under an older schema version are upcast
there as one batch and appended to the same frame, so replay sees one schema whatever the log holds.
Nothing here reads the wall clock: the output is a pure function of (events up to P).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from functools import cached_property, partial
from typing import Any

import duckdb
import orjson
import polars as pl

from models.events import UPCASTERS
from models.upcasting import Upcasters
from pipelines.base.keyed import keep_last_per_key, matching_rows
from pipelines.base.query_frames import one_chunk
from pipelines.log.payload_frames import PayloadReader, Scope
from pipelines.log.reads import head_position, latest_occurred_us, recorded_times_at
from pipelines.log.store import EventStore
from pipelines.rulings.corrections import (
    DEFAULT_PERIOD_MINUTES,
    apply_corrections,
    decide_corrections,
    decide_late_facts,
    decide_publications,
    decide_rulings,
    periods_frame,
    session_windows,
)
from pipelines.scoring.frames import (
    PENALTIES_SCHEMA,
    RESULTS_SCHEMA,
    SESSIONS_SCHEMA,
    conform,
)
from pipelines.scoring.tables import scored_results, table_results

SessionKey = tuple[str, str]
"""(event_id, session_id)."""

_TABLE_KEYS = ["event_id", "session_id", "section", "board", "table_id"]
"""What identifies one table's play of one board."""

@dataclass(frozen=True)
class Projection:
    """What scoring needs, as of log position `position` and time `as_of_us`."""

    position: int
    as_of_us: int
    results: pl.DataFrame
    """Every table's standing result (corrections and rulings applied), in log order: results as
    recorded, then artificial, then weighted scores. Scoring puts its output in published order."""
    sessions: pl.DataFrame
    penalties: pl.DataFrame
    conditions: Mapping[str, Mapping[str, Any]]
    windows: pl.DataFrame
    """Per published session: publication time, deadlines, status (pipelines.rulings.corrections)."""
    corrections: pl.DataFrame
    """Every correction request with its window and decision."""
    rulings: pl.DataFrame
    """Every director's ruling with its Law 92B window and decision."""
    reread_original: Callable[[], pl.DataFrame] = field(repr=False, compare=False)
    """Gives the table results as recorded (before corrections and rulings), from the log or kept."""
    late_facts: pl.DataFrame = field(default_factory=pl.DataFrame)
    """Every fouled board and penalty with whether it applies (`decide_late_facts`): one recorded
    after its session became final waits for an acknowledgement, and is left out of `penalties`
    and of the fouled boards scoring reads until then."""

    @cached_property
    def original_results(self) -> pl.DataFrame:
        """Table results before any correction (for before/after reports), scored by Law 77.

        Read again from the log on first use rather than kept: a replay that only scores (the
        scheduled job, over millions of results) should not hold a second copy of them. A replay
        of some sessions keeps its few recorded results and only scores them on first use.
        """
        return self.reread_original()


def replay(store: EventStore, *, up_to: int | None = None, as_of_us: int | None = None,
           upcasters: Upcasters = UPCASTERS,
           sessions: Collection[SessionKey] | None = None,
           span: tuple[int, int] | None = None) -> Projection:
    """Rebuild the scoring inputs from the events at positions <= `up_to` (default: all) that had
    happened by `as_of_us` (default: the latest event's time, the log's own clock).

    `sessions` (default: every session) limits the replay to those sessions: their session streams
    and their tournaments' registrations are read, and no other event's payload is extracted. A
    session's facts (results, boards, rulings, publications, corrections, approvals, penalties,
    fouled boards) all live on its stream (`models.events.session_stream`); its conditions of
    contest on `tournament:<event_id>`. The clock stays the whole log's, so that a session's status
    is the one a replay of everything gives it.
    """
    position = store.head() if up_to is None else up_to
    if not store.exists():
        return _empty_projection(position)
    scope = None if sessions is None else Scope.of(sessions, span)
    with store.reader() as con, _reader(con, position, upcasters, as_of_us, scope) as read:
        clock = read.as_of_us
        # Every ruling is kept: which one stands for a table is decided with the others (a late,
        # rejected ruling must not erase the one before it), in `decide_rulings`.
        artificial = _director_rulings(con, read.frame("ArtificialScoreAwarded"))
        weighted = _director_rulings(con, read.frame("WeightedScoreAwarded"))
        boards = read.frame("BoardDealt")
        scheduled = read.frame("SessionScheduled")
        tournaments = read.frame("TournamentRegistered")
        published = publications_with_recorded_times(con, read.frame("ScoresPublished"))
        requests = with_recorded_times(con, read.frame("ScoreCorrectionRequested"))
        approvals = read.frame("LateCorrectionApproved")
        acknowledged = read.frame("BackDatedCorrectionAcknowledged")
        conditions = _conditions(tournaments)
        windows = session_windows(published, periods_frame(_periods(conditions)), clock)
        corrections = decide_corrections(requests, windows, approvals, acknowledged)
        rulings = decide_rulings(_rulings(artificial, weighted), windows, acknowledged)
        fouled, penalties = read.frame("BoardFouled"), read.frame("PenaltyAwarded")
        late = _late_facts(con, fouled, penalties, windows, acknowledged)
        fouled, penalties = _standing_facts(fouled, late), _standing_facts(penalties, late)
        if scope is None:
            # The recorded results are passed on without a name here, so that the one copy of them
            # can be let go while the standing results are built (see `_standing_results`).
            table_results = _standing_results(
                _latest_per_table(read.frame("ResultRecorded")), rulings.filter(pl.col("applied")),
                corrections, boards, fouled)
            original = partial(_original_results, store, position, clock, upcasters, scope)
        else:  # some sessions' results are small: kept for the audit's "before", not read again
            recorded = _latest_per_table(read.frame("ResultRecorded"))
            table_results = _standing_results(recorded, rulings.filter(pl.col("applied")), corrections, boards,
                                              fouled)
            original = partial(_scored_original, recorded, boards)
    return Projection(
        position=position,
        as_of_us=clock,
        results=table_results,
        sessions=conform(scheduled.unique(["event_id", "session_id"], keep="first", maintain_order=True),
                         SESSIONS_SCHEMA).sort(["event_id", "session_id"]),
        penalties=conform(penalties, PENALTIES_SCHEMA),
        conditions=conditions,
        windows=windows,
        corrections=corrections,
        rulings=rulings,
        reread_original=original,
        late_facts=late,
    )


def recorded_results(store: EventStore, sessions: Collection[SessionKey], *, up_to: int | None = None,
                     upcasters: Upcasters = UPCASTERS) -> pl.DataFrame:
    """The sessions' table results as recorded (no correction or ruling), scored by Law 77:
    `Projection.original_results` of a replay of those sessions, reading only results and boards."""
    with store.reader() as con:
        position = up_to if up_to is not None else head_position(con)
        clock = log_clock(con, position)
    return _original_results(store, position, clock, upcasters, Scope.of(sessions))


def publication_windows(store: EventStore, *, as_of_us: int, up_to: int | None = None,
                        upcasters: Upcasters = UPCASTERS) -> pl.DataFrame:
    """`Projection.windows` of a whole replay at `as_of_us`, from the publications and the
    tournaments' registrations alone (no result is read)."""
    position = store.head() if up_to is None else up_to
    with store.reader() as con, PayloadReader(con, position, upcasters, as_of_us) as read:
        published = publications_with_recorded_times(con, read.frame("ScoresPublished"))
        conditions = _conditions(read.frame("TournamentRegistered"))
    return session_windows(published, periods_frame(_periods(conditions)), as_of_us)


def correction_decisions(store: EventStore, *, as_of_us: int, up_to: int | None = None,
                         upcasters: Upcasters = UPCASTERS,
                         sessions: Collection[SessionKey] | None = None) -> tuple[pl.DataFrame, pl.DataFrame]:
    """`Projection.windows` and `Projection.corrections` of a whole replay at `as_of_us`, from the
    publications, registrations, correction requests and approvals alone (no result is read);
    of `sessions` only when given (read from their streams, as `replay` reads them)."""
    position = store.head() if up_to is None else up_to
    scope = None if sessions is None else Scope.of(sessions)
    with store.reader() as con, PayloadReader(con, position, upcasters, as_of_us, scope) as read:
        published = publications_with_recorded_times(con, read.frame("ScoresPublished"))
        conditions = _conditions(read.frame("TournamentRegistered"))
        requests = with_recorded_times(con, read.frame("ScoreCorrectionRequested"))
        approvals = read.frame("LateCorrectionApproved")
        acknowledged = read.frame("BackDatedCorrectionAcknowledged")
    windows = session_windows(published, periods_frame(_periods(conditions)), as_of_us)
    return windows, decide_corrections(requests, windows, approvals, acknowledged)


@dataclass(frozen=True)
class SessionPolicy:
    """What the Law 79C policy decides for one session, from everything its log holds."""

    publications: pl.DataFrame
    """Each publication, and whether the period it names applies (`decide_publications`)."""
    windows: pl.DataFrame
    """The session's window (one row once published), its status at the time asked."""
    corrections: pl.DataFrame
    """Each correction request with its decision (`decide_corrections`)."""
    rulings: pl.DataFrame
    """Each ruling with its decision (`decide_rulings`)."""
    late_facts: pl.DataFrame
    """Each fouled board and penalty with its decision (`decide_late_facts`)."""


def session_policy(store: EventStore, event_id: str, session_id: str, *, as_of_us: int,
                   upcasters: Upcasters = UPCASTERS) -> SessionPolicy:
    """The policy's decisions for one session over every event its log holds (whatever time each
    claims), its status taken at `as_of_us`: what a director's command reports after appending."""
    position = store.head()
    with store.reader() as con, PayloadReader(con, position, upcasters, _LATEST_US,
                                              Scope.of([(event_id, session_id)])) as read:
        published = publications_with_recorded_times(con, read.frame("ScoresPublished"))
        periods = periods_frame(_periods(_conditions(read.frame("TournamentRegistered"))))
        requests = with_recorded_times(con, read.frame("ScoreCorrectionRequested"))
        approvals = read.frame("LateCorrectionApproved")
        acknowledged = read.frame("BackDatedCorrectionAcknowledged")
        windows = session_windows(published, periods, as_of_us)
        rulings = _rulings(_director_rulings(con, read.frame("ArtificialScoreAwarded")),
                           _director_rulings(con, read.frame("WeightedScoreAwarded")))
        late = _late_facts(con, read.frame("BoardFouled"), read.frame("PenaltyAwarded"), windows, acknowledged)
    return SessionPolicy(decide_publications(published, periods), windows,
                         decide_corrections(requests, windows, approvals, acknowledged),
                         decide_rulings(rulings, windows, acknowledged), late)


_LATEST_US = 2**62
"""Later than any time the log accepts: every event is read, whatever time it claims."""


def publications_with_recorded_times(con: duckdb.DuckDBPyConnection, published: pl.DataFrame) -> pl.DataFrame:
    """`published` with `recorded_us` for the publications that name a period (null for the
    others, whose recording time the policy does not need): a period named after the session
    became final is not applied, even when its publication claims an earlier time."""
    naming = published.filter(pl.col("correction_period_minutes").is_not_null())
    if naming.is_empty():
        return published.with_columns(recorded_us=pl.lit(None, pl.Int64))
    times = with_recorded_times(con, naming.select("position")).select("position", "recorded_us")
    return published.join(times, on="position", how="left", maintain_order="left")


def with_recorded_times(con: duckdb.DuckDBPyConnection, requests: pl.DataFrame, *,
                        versions: bool = False, only: pl.Expr | None = None) -> pl.DataFrame:
    """`requests` (a frame of events, by `position`) with `recorded_us`: when the log received each;
    with `versions`, also `stream_version` (its version in its stream, which an acknowledgement names).

    The policy needs it to tell a back-dated or late fact (`pipelines.rulings.corrections`); a request is one
    event among millions, so only their positions are looked up, within the range they span; of
    the rows `only` selects, when given (the others' columns are null).
    """
    wanted = {"position": pl.Int64, "recorded_us": pl.Int64} | ({"stream_version": pl.Int64} if versions else {})
    positions = (requests if only is None else requests.filter(only))["position"]
    if positions.is_empty():
        return requests.with_columns(pl.lit(None, dtype).alias(name) for name, dtype in wanted.items()
                                     if name != "position")
    times = recorded_times_at(con, positions.to_list(), with_versions=versions)
    return requests.join(times, on="position", how="left", maintain_order="left")


def _director_rulings(con: duckdb.DuckDBPyConnection, rulings: pl.DataFrame) -> pl.DataFrame:
    """`rulings` with when the log received the director's (those with a request time) and their
    stream versions: a file's adjusted scores are many and recorded with its results, never late."""
    return with_recorded_times(con, rulings, versions=True, only=pl.col("requested_at").is_not_null())


def _late_facts(con: duckdb.DuckDBPyConnection, fouled: pl.DataFrame, penalties: pl.DataFrame,
                windows: pl.DataFrame, acknowledged: pl.DataFrame) -> pl.DataFrame:
    """Every fouled board and penalty (its position, session, board or contestant, what it does)
    with the policy's decision (`decide_late_facts`)."""
    keys = ["position", "occurred_us", "event_id", "session_id", "section"]
    facts = pl.concat([
        fouled.select(*keys, "board", "reason", kind=pl.lit("BoardFouled"), contestant_id=pl.lit(None, pl.String),
                      asked=pl.lit("board fouled (Law 87): scored within each group of tables")),
        penalties.select(*keys, pl.lit(None, pl.Int64).alias("board"), "reason", kind=pl.lit("PenaltyAwarded"),
                         contestant_id=pl.col("contestant_id"),
                         asked=pl.concat_str([pl.lit("penalty (Laws 90/91): "), pl.col("amount").cast(pl.String),
                                              pl.lit(" "), pl.col("unit"), pl.lit(" off "),
                                              pl.col("direction").fill_null(""), pl.lit(" "),
                                              pl.col("contestant_id")])),
    ], how="vertical_relaxed")
    return decide_late_facts(with_recorded_times(con, facts, versions=True), windows, acknowledged)


def _standing_facts(frame: pl.DataFrame, late: pl.DataFrame) -> pl.DataFrame:
    """`frame` without the facts the policy holds back (`late`, by position)."""
    held = late.filter(~pl.col("applied")).select("position")
    return frame if held.is_empty() else frame.join(held, on="position", how="anti", maintain_order="left")


def _standing_results(recorded: pl.DataFrame, standing_rulings: pl.DataFrame, corrections: pl.DataFrame,
                      boards: pl.DataFrame, fouled: pl.DataFrame) -> pl.DataFrame:
    """Every table's standing result, scored, as one `RESULTS_SCHEMA` frame of one chunk."""
    replaced = matching_rows(recorded, standing_rulings, _TABLE_KEYS)
    if replaced.any():  # a director's ruling for a table replaces whatever result the table recorded
        standing_rulings = _with_table_seats(standing_rulings, recorded.filter(replaced))
        recorded = recorded.filter(~replaced)  # filtering would copy every column: only when needed
    corrected = apply_corrections(recorded, corrections)
    del recorded
    # The Laws' values (vulnerability, Law 77 and 12C1 scores, Law 87 groups) are scoring's to give.
    stacked = table_results(corrected, standing_rulings.filter(pl.col("kind") == "artificial"),
                            standing_rulings.filter(pl.col("kind") == "weighted"), boards, fouled)
    del corrected
    return one_chunk(stacked)


_SEATS = ["ns_id", "ew_id", "round", "room"]
"""What a ruling keeps from the table it replaces: who sat there, in which round and room."""


def _with_table_seats(rulings: pl.DataFrame, replaced: pl.DataFrame) -> pl.DataFrame:
    """A ruling stands for the table's own contestants: whatever the ruling does not name (a
    weighted score recorded before it named the pairs; the round and room, which no ruling names)
    is taken from the result the table recorded (`replaced`), so the board stays credited to both
    sides and a team board stays in its match."""
    if rulings.is_empty() or replaced.is_empty():
        return rulings
    seats = replaced.select(*_TABLE_KEYS, *(pl.col(c).alias(f"_table_{c}") for c in _SEATS))
    joined = rulings.join(seats, on=_TABLE_KEYS, how="left", maintain_order="left")
    return joined.with_columns(
        pl.coalesce(c, f"_table_{c}").alias(c) if c in rulings.columns else pl.col(f"_table_{c}").alias(c)
        for c in _SEATS
    ).drop(f"_table_{c}" for c in _SEATS)


def _original_results(store: EventStore, position: int, as_of_us: int, upcasters: Upcasters,
                      scope: Scope | None = None) -> pl.DataFrame:
    """The results as recorded up to `position` and `as_of_us`, scored, without corrections or rulings."""
    with store.reader() as con, PayloadReader(con, position, upcasters, as_of_us, scope) as read:
        results = _latest_per_table(read.frame("ResultRecorded"))
        boards = read.frame("BoardDealt")
    return _scored_original(results, boards)


def _scored_original(recorded: pl.DataFrame, boards: pl.DataFrame) -> pl.DataFrame:
    """Each table's latest recorded result, scored by Law 77, as `RESULTS_SCHEMA`."""
    return conform(scored_results(recorded, boards), RESULTS_SCHEMA)


def _reader(con: duckdb.DuckDBPyConnection, position: int, upcasters: Upcasters, as_of_us: int | None,
            scope: Scope | None) -> PayloadReader:
    """A reader of the log up to `position` as of `as_of_us` (default: the log's own clock there)."""
    return PayloadReader(con, position, upcasters, as_of_us if as_of_us is not None else log_clock(con, position),
                         scope)


def log_clock(con: duckdb.DuckDBPyConnection, position: int) -> int:
    """The log's own clock at `position`: the latest `occurred_at` of the events up to it (0 if none)."""
    return latest_occurred_us(con, position)


def _periods(conditions: Mapping[str, Mapping[str, Any]]) -> dict[str, tuple[float, float]]:
    return {
        event_id: (float(c.get("correction_period_minutes", DEFAULT_PERIOD_MINUTES)),
                   float(c.get("appeal_period_minutes", DEFAULT_PERIOD_MINUTES)))
        for event_id, c in conditions.items()
    }


def _latest_per_table(frame: pl.DataFrame) -> pl.DataFrame:
    """A table's result sent twice (a re-sent traveller): the later event stands."""
    return keep_last_per_key(frame, _TABLE_KEYS)


def _rulings(artificial: pl.DataFrame, weighted: pl.DataFrame) -> pl.DataFrame:
    """Artificial and weighted rulings together: both replace a table's result, both obey Law 92B."""
    return pl.concat(
        [artificial.with_columns(kind=pl.lit("artificial")), weighted.with_columns(kind=pl.lit("weighted"))],
        how="diagonal_relaxed",
    ).rename({"requested_at": "requested_us"})


def _conditions(tournaments: pl.DataFrame) -> dict[str, dict[str, Any]]:
    """The conditions of the latest registration of each event."""
    latest = tournaments.unique("event_id", keep="last", maintain_order=True)
    return {
        str(event_id): orjson.loads(conditions) if conditions else {}
        for event_id, conditions in zip(latest["event_id"], latest["conditions"], strict=True)
    }


def _empty_projection(position: int) -> Projection:
    nothing = pl.DataFrame()
    return Projection(position, 0, pl.DataFrame(schema=RESULTS_SCHEMA), pl.DataFrame(schema=SESSIONS_SCHEMA),
                      pl.DataFrame(schema=PENALTIES_SCHEMA), {}, nothing, nothing, nothing,
                      lambda: pl.DataFrame(schema=RESULTS_SCHEMA))
