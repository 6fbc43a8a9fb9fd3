"""Ingest: a file's records become events, appended in one transaction.

The file's SHA-256 is the idempotency key: `SourceFileIngested` lives in the stream
`source:<sha256>` at version 1, so the same bytes can never be appended twice, not even by two
processes racing each other (the UNIQUE key refuses the second).
"""

from __future__ import annotations

import dataclasses
import hashlib
import logging
import re
import time
from collections.abc import Callable, Generator, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Literal

import polars as pl

from models.board import law2_dealer, law2_vulnerability
from models.diagnostics import Diagnostic, Severity, summarised
from models.events import (
    CURRENT_VERSIONS,
    ArtificialScoreAwarded,
    BoardDealt,
    ContestantRegistered,
    LineupRecorded,
    Player,
    ResultRecorded,
    SessionScheduled,
    SourceFileIngested,
    SourceRef,
    TournamentRegistered,
    event_payload,
    session_stream,
)
from models.shape import payload_fields
from parsers.columnar import ColumnarFile, columnar_from_parsed
from parsers.formats import READERS, Reader
from parsers.records import ArtificialRecord, FileMetadata, ParsedFile
from pipelines.files.claims import contested_tables
from pipelines.log.payloads import model_payload, sorted_struct
from pipelines.log.store import (
    ConcurrencyError,
    EventStore,
    NewEvent,
    StoreError,
    event_frame,
    from_epoch_us,
    to_epoch_us,
)

log = logging.getLogger(__name__)

class IngestRejected(Exception):
    """A file was refused as a whole (strict mode with errors, or an unreadable format)."""

    def __init__(self, source: str, diagnostics: Sequence[Diagnostic]) -> None:
        errors = [d for d in diagnostics if d.severity is Severity.ERROR]
        shown = "\n".join(f"  {d}" for d in errors[:20])
        more = f"\n  ... and {len(errors) - 20} more" if len(errors) > 20 else ""
        super().__init__(f"{source}: {len(errors)} error(s); nothing was appended\n{shown}{more}")
        self.source = source
        self.diagnostics = tuple(diagnostics)


class EventNotRegistered(Exception):
    """A file names an event the log has no `TournamentRegistered` for, and unknown events are not
    registered on the fly (`IngestOptions.register_events`): nothing was appended."""

    def __init__(self, source: str, event_id: str) -> None:
        super().__init__(f"{source}: event {event_id!r} is not registered; nothing was appended")
        self.source = source
        self.event_id = event_id


@dataclass(frozen=True)
class IngestOptions:
    """How to ingest: strictness, and names for what the file does not name itself."""

    strict: bool = False
    event_id: str | None = None
    session_id: str | None = None
    occurred_at: datetime | None = None  # when the facts happened; defaults to recorded_at
    register_events: bool = True
    """Whether a file may register the event it names (with default rules) when the log has none
    of that id; when False such a file is refused with `EventNotRegistered` (a club's typo in an
    event id must not create a public event)."""


@dataclass(frozen=True)
class IngestReport:
    """What ingesting one file did."""

    source: str
    sha256: str
    already_ingested: bool
    events: int
    counts: dict[str, int] = field(default_factory=dict)
    diagnostics: tuple[Diagnostic, ...] = ()
    quarantined: int = 0
    event_id: str | None = None
    session_id: str | None = None
    contested: int = 0
    """Results that claim a table another result already claims (`pipelines.files.claims`): the later
    one stands, so this many results read are not scored."""


def sha256_of(data: bytes) -> str:
    """Hex SHA-256 of a file's bytes."""
    return hashlib.sha256(data).hexdigest()


def source_stream(sha256: str) -> str:
    """The stream that records a file's ingestion (one event, version 1)."""
    return f"source:{sha256}"


def parse_bytes(data: bytes, source: str, *, strict: bool = False) -> ParsedFile:
    """Pick the reader by extension and read; an unknown format is a diagnostic, not a crash.

    In strict mode a reader reports every departure from its standard as an error.
    """
    reader = reader_for(source)
    if reader is None:
        suffix = Path(source).suffix.lower()
        return _unreadable(source, f"unknown file type {suffix or '(none)'}; expected one of "
                           f"{', '.join(sorted(READERS))}")
    if len(data) > reader.max_bytes:
        return _too_large(source, len(data), reader)
    parsed = reader.loads(data, source=source, strict=strict)
    capped = summarised(parsed.diagnostics)
    return parsed if capped is parsed.diagnostics else parsed.model_copy(update={"diagnostics": capped})


def reader_for(source: str) -> Reader | None:
    """The reader of `source`'s extension (`parsers.formats.READERS`); None for an unknown one."""
    return READERS.get(Path(source).suffix.lower())


def parse_path(path: Path, *, strict: bool = False) -> ParsedFile:
    """`parse_bytes` of a file on disk; a file over its format's size limit is refused unread."""
    source = display_name(path)
    size = path.stat().st_size
    reader = reader_for(source)
    if reader is not None and size > reader.max_bytes:
        return _too_large(source, size, reader)
    parsed = parse_bytes(path.read_bytes(), source, strict=strict)
    if parsed.results or parsed.artificial or parsed.contestants or any(b.deal for b in parsed.boards):
        return parsed
    # As ingest will refuse it (`with_no_data_said`), so that `check` says so first.
    said = with_no_data_said(columnar_from_parsed(parsed), source).diagnostics[-1]
    return parsed.model_copy(update={"diagnostics": (*parsed.diagnostics, said)})


def _too_large(source: str, size: int, reader: Reader) -> ParsedFile:
    return _unreadable(source, f"the file has {size:,} bytes; {reader.suffix} files of at most "
                       f"{reader.max_bytes:,} bytes are read (split it by session)")


def read_columnar(data: bytes, source: str, *, strict: bool = False) -> ColumnarFile:
    """Read a file into frames: the reader's vectorised fast path when the file is large enough for
    it to be the faster (`Reader.columnar_from`) and it vouches for the file, else the careful
    reader's records (with their positioned diagnostics) turned into frames. Both give the same
    frames for a file the fast path takes."""
    reader = reader_for(source)
    fast = reader.loads_columnar if reader is not None else None
    if reader is not None and fast is not None and reader.columnar_from <= len(data) <= reader.max_bytes:
        read = fast(data, source=source, strict=strict)
        if read is not None:
            capped = summarised(read.diagnostics)
            return read if capped is read.diagnostics else dataclasses.replace(read, diagnostics=capped)
    return columnar_from_parsed(parse_bytes(data, source, strict=strict))


def ingest_file(store: EventStore, path: str | Path, *, recorded_at: datetime,
                options: IngestOptions = IngestOptions()) -> IngestReport:
    """Read, validate and append one file in one transaction; a second time is a no-op.

    The file is read and checked whole before the store is opened for writing: a slow or hostile
    file never holds the write lock (issue #36)."""
    return append_read(store, read_path(Path(path), options), recorded_at=recorded_at, options=options)


@dataclass(frozen=True)
class ReadSource:
    """A file read and checked, not yet appended: what `append_read` needs, with no store involved."""

    source: str
    sha256: str
    read: ColumnarFile
    size: int


def read_path(path: Path, options: IngestOptions = IngestOptions()) -> ReadSource:
    """Read one file from disk (`read_source`); a file over its format's size limit is refused unread."""
    size = path.stat().st_size
    reader = reader_for(path.name)
    if reader is not None and size > reader.max_bytes:  # refused before a byte is read into memory
        raise IngestRejected(display_name(path), _too_large(display_name(path), size, reader).diagnostics)
    return read_source(path.read_bytes(), display_name(path), options)


def read_source(data: bytes, source: str, options: IngestOptions = IngestOptions()) -> ReadSource:
    """Hash and read `data` named `source` into frames; touches no store. A file that holds nothing
    to score is said to be so (`with_no_data_said`)."""
    read = with_no_data_said(read_columnar(data, source, strict=options.strict), source)
    return ReadSource(source, sha256_of(data), read, len(data))


NO_DATA = "ingest.no-data"
"""The code of the error a file with nothing to score gets (`with_no_data_said`)."""


def holds_data(read: ColumnarFile) -> bool:
    """Whether a file read holds anything to score or show: a result, an adjusted score, a dealt
    hand or a contestant. A board with no deal is only a number (1,000,000 `[Board]`-only games)."""
    return bool(read.results.height or read.artificial or read.contestants
                or read.boards["deal"].is_not_null().any())


def with_no_data_said(read: ColumnarFile, source: str) -> ColumnarFile:
    """`read`, with an error (`NO_DATA`) when it holds no data (`holds_data`): such a file went in
    silently, a `SourceFileIngested` with no diagnostic (issue #36 item 15)."""
    if holds_data(read):
        return read
    games = f"{read.boards.height:,} board number(s) but no deal; " if read.boards.height else ""
    line = int(read.boards.item(0, "line") or 1) if read.boards.height else 1
    said = Diagnostic(source=source, line=line, column=1, severity=Severity.ERROR, code=NO_DATA,
                      message=f"the file holds no results, adjusted scores, dealt hands or contestants "
                              f"({games}read as {read.format}): nothing in it can be scored")
    return dataclasses.replace(read, diagnostics=(*read.diagnostics, said))


HOLD_SECONDS = 1.0
"""How long `ingest_files` keeps one connection to the store across files before letting go of it."""

BATCH_BYTES = 32 << 20
"""How many bytes of files `ingest_files` reads (no store open) before appending them in one go."""

BATCH_FILES = 512
"""How many files `ingest_files` reads (no store open) before appending them in one go."""

Outcome = tuple[Path, "IngestReport | IngestRejected | EventNotRegistered | OSError | StoreError"]
"""A file and what ingesting it gave: its report, or why nothing of it was appended."""

_Read = tuple[Path, "ReadSource | IngestRejected | OSError"]


def ingest_files(store: EventStore, paths: Iterable[str | Path], *, recorded_at: datetime,
                 options: IngestOptions = IngestOptions(), hold_seconds: float = HOLD_SECONDS,
                 clock: Callable[[], float] = time.monotonic) -> Generator[Outcome, None, None]:
    """Ingest each file in its own transaction (as `ingest_file`), in order, yielding each outcome
    as it is known; a file refused or unreadable does not stop the others.

    Files are read in batches (`BATCH_BYTES`, `BATCH_FILES`) with the store closed, so reading never
    holds the write lock. Opening the store and closing it cost 30-40 ms a file, a third of
    ingesting a one-board file (BBO sends a tournament as hundreds of them), so a batch's appends
    share one connection, held until `hold_seconds` have passed, then let go (and opened again for
    the files left): the store has one writer at a time, and another writer waits that long at
    most. When the store cannot be opened, each file says so on its own.
    """
    pending = [Path(p) for p in paths]
    done = 0
    while done < len(pending):
        batch = _read_batch(pending[done:], options)
        done += len(batch)
        yield from _append_batch(store, batch, recorded_at, options, hold_seconds, clock)


def _read_batch(paths: Sequence[Path], options: IngestOptions) -> list[_Read]:
    """The first files of `paths` read (at least one; at most `BATCH_FILES` or about `BATCH_BYTES`)."""
    batch: list[_Read] = []
    size = 0
    for path in paths[:BATCH_FILES]:
        try:
            read: ReadSource | IngestRejected | OSError = read_path(path, options)
        except (IngestRejected, OSError) as exc:
            read = exc
        batch.append((path, read))
        size += read.size if isinstance(read, ReadSource) else 0
        if size >= BATCH_BYTES:
            break
    return batch


def _append_batch(store: EventStore, batch: Sequence[_Read], recorded_at: datetime, options: IngestOptions,
                  hold_seconds: float, clock: Callable[[], float]) -> Generator[Outcome, None, None]:
    """Append the files read, sharing a connection while `hold_seconds` last."""
    index = 0
    while index < len(batch):
        with ExitStack() as held:
            try:
                held.enter_context(store.session())
            except StoreError:  # busy, or damaged: each file tries (and reports) on its own
                path, read = batch[index]
                index += 1
                yield path, _append_one(store, read, recorded_at, options)
                continue
            started = clock()
            while index < len(batch):
                path, read = batch[index]
                index += 1
                yield path, _append_one(store, read, recorded_at, options)
                if clock() - started >= hold_seconds:
                    break


def _append_one(store: EventStore, read: ReadSource | IngestRejected | OSError, recorded_at: datetime,
                options: IngestOptions) -> IngestReport | IngestRejected | EventNotRegistered | OSError | StoreError:
    if not isinstance(read, ReadSource):
        return read
    try:
        return append_read(store, read, recorded_at=recorded_at, options=options)
    except (IngestRejected, EventNotRegistered, OSError, StoreError) as exc:
        return exc


def display_name(path: Path) -> str:
    """A file's name as text that can be stored and shown: bytes of a name that are not UTF-8
    (held by Python as lone surrogates, which JSON cannot encode) become U+FFFD."""
    return path.name.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def ingest_bytes(store: EventStore, data: bytes, *, source: str, recorded_at: datetime,
                 options: IngestOptions = IngestOptions()) -> IngestReport:
    """Ingest already-read bytes named `source` (see `ingest_file`)."""
    return append_read(store, read_source(data, source, options), recorded_at=recorded_at, options=options)


def append_read(store: EventStore, file: ReadSource, *, recorded_at: datetime,
                options: IngestOptions = IngestOptions()) -> IngestReport:
    """Append a file already read (`read_source`) in one transaction; a second time is a no-op.

    Only now is the store opened for writing: looking the file up, registering what it names and
    appending its events are all that holds the lock."""
    source, sha, read = file.source, file.sha256, file.read
    with store.session():
        if store.stream_version(source_stream(sha)) > 0:
            log.info("%s already ingested (sha256 %s); nothing to do", source, sha[:12])
            return IngestReport(source, sha, True, 0)
        if read.errors and (options.strict or not read.has_records or not holds_data(read)):
            raise IngestRejected(source, read.diagnostics)
        event_id, session_id = _names(read.metadata, options, source)
        if not options.register_events and store.stream_version(f"tournament:{event_id}") == 0:
            raise EventNotRegistered(source, event_id)
        claims, contested = contested_tables(store, session_stream(event_id, session_id), source, read.results,
                                             read.artificial)
        if claims:  # results that will replace another's for the same table: said, never silent
            read = dataclasses.replace(read, diagnostics=read.diagnostics + tuple(claims))
        occurred_us = to_epoch_us(options.occurred_at or recorded_at)
        try:
            facts = fact_frame(store, read, FileContext(event_id, session_id, sha, occurred_us))
            counts = _count(facts)
            ingested = SourceFileIngested(sha256=sha, name=source, format=read.format,
                                          parser_version=read.parser_version, counts=counts,
                                          diagnostics=read.diagnostics, quarantined=read.quarantined)
            facts = pl.concat([facts, event_frame([NewEvent(source_stream(sha), ingested.type,
                                                            event_payload(ingested),
                                                            from_epoch_us(occurred_us))])])
            store.append_frame(facts, recorded_at=recorded_at, source_sha256=sha,
                               expected_versions={source_stream(sha): 0})
        except ConcurrencyError:
            if store.stream_version(source_stream(sha)) > 0:
                return IngestReport(source, sha, True, 0)
            raise
    log.info("%s: %d events appended (%d quarantined)", source, facts.height, read.quarantined)
    return IngestReport(source, sha, False, facts.height, counts, read.diagnostics, read.quarantined,
                        event_id, session_id, contested)


def _unreadable(source: str, message: str) -> ParsedFile:
    diagnostic = Diagnostic(source=source, line=0, column=0, severity=Severity.ERROR,
                            code="ingest.format", message=message)
    return ParsedFile(source=source, format="unknown", parser_version="-", diagnostics=(diagnostic,))


def slug(text: str) -> str:
    """A stable id from a name: lower case, words joined by hyphens."""
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "event"


def _names(meta: FileMetadata, options: IngestOptions, source: str) -> tuple[str, str]:
    event_id = options.event_id or meta.event_id or (slug(meta.event_name) if meta.event_name else None)
    event_id = event_id or slug(Path(source).stem)
    session_id = options.session_id or meta.session_id or "1"
    return event_id, session_id


@dataclass(frozen=True)
class FileContext:
    """What every event of one file shares."""

    event_id: str
    session_id: str
    sha256: str
    occurred_us: int

    @property
    def stream(self) -> str:
        """The session stream the file's facts go to."""
        return session_stream(self.event_id, self.session_id)


def fact_frame(store: EventStore, read: ColumnarFile, ctx: FileContext) -> pl.DataFrame:
    """The events a file's records become, in log order, as the columns `append_frame` takes.

    Tournament and session are registered once; then contestants, boards, results and artificial
    scores. Boards and results are built column-wise (`boards_frame`, `results_frame`); from
    `OVERLAP_ROWS` of them on, in a second thread: polars builds them without holding the GIL while
    this one reads the store and registers the contestants.
    """
    def payloads() -> pl.DataFrame:
        return pl.concat([boards_frame(read.boards, ctx), results_frame(read.results, ctx)])

    if read.boards.height + read.results.height < OVERLAP_ROWS:  # a thread would cost more than it saves
        facts, header = payloads(), _header(store, read, ctx)
    else:
        with ThreadPoolExecutor(max_workers=1, thread_name_prefix="payloads") as builder:
            built = builder.submit(payloads)
            header = _header(store, read, ctx)
            facts = built.result()
    artificial = [NewEvent(ctx.stream, "ArtificialScoreAwarded", artificial_payload(a, ctx),
                           from_epoch_us(ctx.occurred_us)) for a in read.artificial]
    return pl.concat([event_frame(header), facts, event_frame(artificial), event_frame(lineups(read, ctx))])


def lineups(read: ColumnarFile, ctx: FileContext) -> list[NewEvent]:
    """`LineupRecorded` for each pair that sat for a team in a room, with the boards they sat for:
    what the ranking counts a member's share of the team's boards by. Pairs files record none."""
    if not read.has_records or not bool(read.results["room"].is_not_null().any()):
        return []
    team_rows = read.results.filter(pl.col("room").is_not_null())
    seats = pl.concat([
        team_rows.select("section", "board", contestant_id=f"{side}_id", players=f"{side}_players")
        for side in ("ns", "ew")
    ]).filter(pl.col("players").list.len() > 0)
    # One event per (team, the pair that sat): a line-up change between halves is a new pair.
    pairs = (seats.with_columns(_who=pl.col("players").list.eval(pl.element().struct.field("name")).list.join("\x1f"))
             .group_by("section", "contestant_id", "_who", maintain_order=True)
             .agg(players=pl.col("players").first(), boards=pl.col("board").unique().sort()))
    occurred = from_epoch_us(ctx.occurred_us)
    return [_new(LineupRecorded(event_id=ctx.event_id, session_id=ctx.session_id, section=section,
                                contestant_id=team, boards=tuple(boards),
                                players=tuple(Player(name=p["name"], federation_id=p["federation_id"])
                                              for p in players)), ctx.stream, occurred)
            for section, team, _, players, boards in pairs.iter_rows() if team]


OVERLAP_ROWS = 2_048
"""From this many boards and results on, their events are built in a second thread (see `fact_frame`)."""


def _header(store: EventStore, read: ColumnarFile, ctx: FileContext) -> list[NewEvent]:
    """Tournament and session (the first time they are seen) and the file's contestants."""
    if not read.has_records and not read.contestants:
        return []  # a file with nothing in it is recorded as ingested, but registers no phantom session
    occurred = from_epoch_us(ctx.occurred_us)
    meta = read.metadata
    header: list[NewEvent] = []
    tournament = f"tournament:{ctx.event_id}"
    if store.stream_version(tournament) == 0:
        header.append(_new(TournamentRegistered(
            event_id=ctx.event_id, name=meta.event_name or ctx.event_id, start_date=meta.event_date,
            end_date=meta.event_date, organiser=meta.site,
            conditions=_stated_conditions(meta.scoring, meta.program, meta.tie_breaks)), tournament, occurred))
    if not store.has_event(ctx.stream, "SessionScheduled"):
        header.append(_new(SessionScheduled(
            event_id=ctx.event_id, session_id=ctx.session_id, session_date=meta.event_date,
            scoring=scoring_method(meta.scoring, read), field_layout=_layout(meta.field_layout),
            title=meta.event_name), ctx.stream, occurred))
    return header + [_new(c, ctx.stream, occurred)
                     for c in _contestants(read, ctx.event_id, ctx.session_id, _layout(meta.field_layout))]


def _new(event: Any, stream: str, occurred: datetime) -> NewEvent:
    return NewEvent(stream, event.type, event_payload(event), occurred)


def _stated_conditions(tag: str | None, program: str | None, tie_breaks: tuple[str, ...]) -> dict[str, Any]:
    """What the file says of its own scoring, kept verbatim; replay turns it into conditions."""
    stated = {"scoring_tag": tag, "program": program, "tie_breaks": list(tie_breaks)}
    return {key: value for key, value in stated.items() if value}


def scoring_method(tag: str | None, read: ColumnarFile) -> str:
    """The session's scoring method from what the file says of itself (MP when it says nothing)."""
    text = (tag or "").lower()
    if "butler" in text:
        return "BUTLER"
    if "cross" in text:
        return "CROSS_IMP"
    teams = bool(read.results["room"].is_not_null().any()) or any(c.kind == "team" for c in read.contestants)
    if "imp" in text or text in ("i", "b"):
        return "IMP_TEAMS" if teams else "CROSS_IMP"
    if "total" in text:
        return "TOTAL"
    return "IMP_TEAMS" if teams and not text else "MP"


def _layout(hint: str | None) -> Literal["two_field", "one_field"]:
    return "one_field" if hint == "one_field" else "two_field"


def _kind(kind: str) -> Literal["pair", "team", "individual"]:
    return "team" if kind == "team" else "individual" if kind == "individual" else "pair"


def _direction(direction: str | None) -> Literal["NS", "EW"] | None:
    return "NS" if direction == "NS" else "EW" if direction == "EW" else None


def _contestants(read: ColumnarFile, event_id: str, session_id: str,
                 layout: str) -> list[ContestantRegistered]:
    """Registered contestants, plus any id that only the results name, in order of first appearance.

    In a two-field movement NS pair 1 and EW pair 1 are different pairs, so the direction is part
    of a contestant's identity there; in a one-field movement (or a team match) a contestant sits
    both ways, and an id known without a direction covers both.
    """
    seated = _seated(read, layout)
    # Who the rows seat for a contestant the reader listed without players (e.g. a team's members).
    sat: dict[tuple[str, str], tuple[Player, ...]] = {}
    for section, cid, _fixed, _team, players in seated:
        if players:
            sat.setdefault((section, cid), tuple(Player(name=p["name"], federation_id=p["federation_id"])
                                                 for p in players))
    registered = [
        ContestantRegistered(event_id=event_id, session_id=session_id, contestant_id=c.contestant_id,
                             kind=_kind(c.kind), section=c.section, direction=_direction(c.direction),
                             name=c.name, players=c.players or sat.get((c.section, c.contestant_id), ()),
                             published=c.published)
        for c in read.contestants
    ]
    known = {(c.section, c.contestant_id, c.direction if layout == "two_field" else None) for c in read.contestants}
    for section, cid, fixed, team, players in seated:
        if (section, cid, fixed) in known or (section, cid, None) in known:
            continue
        known.add((section, cid, fixed))
        registered.append(ContestantRegistered(
            event_id=event_id, session_id=session_id, contestant_id=cid, kind="team" if team else "pair",
            section=section, direction=_direction(fixed),
            players=tuple(Player(name=p["name"], federation_id=p["federation_id"]) for p in players)))
    return registered


def _seated(read: ColumnarFile, layout: str) -> list[tuple[str, str, str | None, bool, list[dict[str, Any]]]]:
    """Each (section, id, direction when it is part of the identity, team?, players) the rows name,
    first appearance only: NS before EW, results before artificial scores."""
    results = read.results
    team = pl.col("room").is_not_null()
    fixed = pl.when(pl.lit(layout == "two_field") & ~team)
    sides = [
        results.select(order=pl.int_range(pl.len()) * 2 + side, section="section", cid=f"{prefix}_id",
                       fixed=fixed.then(pl.lit(direction)).otherwise(None), team=team,
                       players=f"{prefix}_players")
        for side, (prefix, direction) in enumerate((("ns", "NS"), ("ew", "EW")))
    ]
    every_seat = pl.concat(sides).sort("order")
    seated = every_seat.unique(subset=["section", "cid", "fixed"], keep="first", maintain_order=True).drop("order")
    if seated["team"].any():  # a pairs file has no team members to gather
        seated = (
            seated.join(_team_members(every_seat), on=["section", "cid"], how="left", maintain_order="left")
            .with_columns(players=pl.when(pl.col("team")).then(pl.col("members")).otherwise(pl.col("players")))
            .drop("members")
        )
    rows: list[tuple[str, str, str | None, bool, list[dict[str, Any]]]] = list(seated.iter_rows())
    for award in read.artificial:
        fixed_side = layout == "two_field"
        rows += [(award.section, award.ns_id, "NS" if fixed_side else None, False, []),
                 (award.section, award.ew_id, "EW" if fixed_side else None, False, [])]
    return rows


def _team_members(every_seat: pl.DataFrame) -> pl.DataFrame:
    """Every player a team fielded, in order of first appearance: a team's first row names only the
    two who sat in that room, its members are everyone who sat for it in either room."""
    seats = every_seat.filter(pl.col("team")).select("section", "cid", "players").explode("players")
    return (
        seats.filter(pl.col("players").is_not_null())
        .unique(subset=["section", "cid", "players"], keep="first", maintain_order=True)
        .group_by("section", "cid", maintain_order=True).agg(members="players")
    )


_LAW2_DEALER = {number: law2_dealer(number).value for number in range(1, 5)}
_LAW2_VULNERABILITY = {number: law2_vulnerability(number).value for number in range(1, 17)}


def boards_frame(boards: pl.DataFrame, ctx: FileContext) -> pl.DataFrame:
    """`BoardDealt` events of a file's hand records; dealer and vulnerability by Law 2 when unmarked."""
    board = pl.col("board")
    payload = model_payload(BoardDealt, boards.schema, {
        "event_id": pl.lit(ctx.event_id), "session_id": pl.lit(ctx.session_id),
        "dealer": pl.col("dealer").fill_null(((board - 1) % 4 + 1).replace_strict(_LAW2_DEALER)),
        "vulnerability": pl.col("vulnerability").fill_null(
            ((board - 1) % 16 + 1).replace_strict(_LAW2_VULNERABILITY)),
    })
    return _events(boards, "BoardDealt", payload, ctx)


def results_frame(results: pl.DataFrame, ctx: FileContext,
                  model: type[ResultRecorded] = ResultRecorded) -> pl.DataFrame:
    """`ResultRecorded` events of a file's traveller lines: every field of `model` from the column
    of its name (`pipelines.log.payloads.model_payload`), the file's names and the row's provenance."""
    payload = model_payload(model, results.schema, {
        "event_id": pl.lit(ctx.event_id), "session_id": pl.lit(ctx.session_id),
        "source": sorted_struct({"sha256": pl.lit(ctx.sha256), "record": pl.col("record"),
                                 "line": pl.col("line")}),
    })
    return _events(results, "ResultRecorded", payload, ctx)


def _events(records: pl.DataFrame, event_type: str, payload: pl.Expr, ctx: FileContext) -> pl.DataFrame:
    return records.select(
        stream_id=pl.lit(ctx.stream), type=pl.lit(event_type),
        schema_version=pl.lit(CURRENT_VERSIONS[event_type], dtype=pl.Int32),
        payload=payload, occurred_us=pl.lit(ctx.occurred_us, dtype=pl.Int64),
    )


def artificial_payload(a: ArtificialRecord, ctx: FileContext) -> dict[str, Any]:
    """The `ArtificialScoreAwarded` payload of a record: each field of the model from the record's
    attribute of the same name, the file's names and the row's provenance, else its default."""
    given = {"event_id": ctx.event_id, "session_id": ctx.session_id,
             "source": SourceRef(sha256=ctx.sha256, record=a.at.record, line=a.at.line)}
    values = {name: given[name] if name in given else getattr(a, name)
              for name in payload_fields(ArtificialScoreAwarded) if name in given or name in type(a).model_fields}
    return event_payload(ArtificialScoreAwarded(**values))


def _count(facts: pl.DataFrame) -> dict[str, int]:
    counts = facts.group_by("type").len()
    return dict(sorted(zip(counts["type"].to_list(), counts["len"].to_list(), strict=True)))
