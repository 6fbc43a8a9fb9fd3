"""A session out of the log and back into a file format (PBN, LIN).

The session's events become format-neutral records again (boards, results, artificial scores,
contestants with our standings as their published totals) and a writer from `parsers` renders them.
What each table shows is read from the scored projection, the same one the scores come from: the
events as first recorded supply only what the projection does not carry (auction, lead, play, hands).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

import polars as pl

from models.awards import ArtificialAward, parse_award
from models.board import Vulnerability
from models.cards import Card, Deal, Hand, Seat
from models.contract import Contract
from models.events import Player, session_stream
from parsers.formats import WRITERS
from parsers.pbn.values import parse_deal
from parsers.records import (
    ArtificialRecord,
    BoardRecord,
    ContestantRecord,
    FileMetadata,
    ParsedFile,
    Position,
    ResultRecord,
)
from pipelines.log.store import EventStore, StoredEvent
from pipelines.replay.projections import ScoredEdition, score_store

log = logging.getLogger(__name__)


class ExportError(ValueError):
    """A session cannot be exported as asked."""


def session_records(store: EventStore, event_id: str, session_id: str,
                    edition: ScoredEdition | None = None) -> ParsedFile:
    """The session as records, with our standings as the contestants' published totals: the
    session's events up to the edition's log position (default: the whole log's edition)."""
    up_to = None if edition is None else edition.position
    events = store.read(stream_id=session_stream(event_id, session_id), up_to=up_to)
    if not events:
        raise ExportError(f"there is no session {event_id}/{session_id} in the log")
    if edition is None:
        edition = score_store(store)
        events = [e for e in events if e.position <= edition.position]  # (an append since: not in the edition)
    by_type: dict[str, list[StoredEvent]] = {}
    for event in events:
        by_type.setdefault(event.type, []).append(event)
    scheduled = by_type.get("SessionScheduled", [])
    title = scheduled[0].payload.get("title") if scheduled else None
    standing = _Standing.of(edition, event_id, session_id)
    results = standing.results(_results(by_type.get("ResultRecorded", [])))
    artificial = standing.adjusted(by_type.get("ArtificialScoreAwarded", []) + by_type.get("ResultRecorded", []))
    return ParsedFile(
        source=f"{event_id}-{session_id}", format="export", parser_version="bridgeledger",
        metadata=FileMetadata(event_name=title or event_id, event_id=event_id, session_id=session_id),
        boards=tuple(_in_sections(_boards(by_type.get("BoardDealt", [])),
                                  {r.section for r in results} | {a.section for a in artificial})),
        results=tuple(results),
        artificial=tuple(artificial),
        contestants=tuple(_contestants(by_type.get("ContestantRegistered", []), edition, event_id, session_id)),
    )


def export_session(store: EventStore, event_id: str, session_id: str, fmt: str) -> str:
    """The session written in `fmt` (pbn or lin)."""
    writer = WRITERS.get(fmt)
    if writer is None:
        raise ExportError(f"cannot export {fmt!r}; formats: {', '.join(sorted(WRITERS))}")
    return writer.dumps(session_records(store, event_id, session_id))


def _at(event: StoredEvent) -> Position:
    return Position(record=event.stream_version - 1, line=0)


def _latest(events: list[StoredEvent], key: tuple[str, ...]) -> list[StoredEvent]:
    latest: dict[tuple[Any, ...], StoredEvent] = {}
    for event in events:
        latest[tuple(event.payload.get(k) for k in key)] = event
    return list(latest.values())


def _boards(events: list[StoredEvent]) -> list[BoardRecord]:
    return [
        # Built, not validated: the log checked the event when it was appended, and validating a
        # record runs the deal's own check again (pydantic runs a field's after-validators on an
        # instance too), half the reading of a session of 100,000 boards.
        BoardRecord.model_construct(board=p["board"], section=p.get("section", ""), dealer=Seat(p["dealer"]),
                                    vulnerability=Vulnerability(p["vulnerability"]),
                                    deal=logged_deal(p["deal"]) if p.get("deal") else None, at=_at(e),
                                    published={})  # (a default factory costs pydantic a signature check a record)
        for e in _latest(events, ("section", "board")) for p in [e.payload]
    ]


def logged_deal(text: str) -> Deal:
    """A deal as a `BoardDealt` holds it (checked when it was appended). One of four known hands
    that the PBN reader's fast check passes is built without the model's card-by-card validation
    (three quarters of a millisecond a deal: the site of a session of 100,000 boards reads them
    all); any other is read by `Deal.from_pbn`, errors and all."""
    parsed = parse_deal(text)
    known = [hand for hand in parsed.hands or () if hand is not None]
    if parsed.problem[0] or parsed.drift or len(known) != 4:
        return Deal.from_pbn(text)
    north, east, south, west = (Hand.model_construct(spades=s, hearts=h, diamonds=d, clubs=c) for s, h, d, c in known)
    return Deal.model_construct(north=north, east=east, south=south, west=west)


_SCORE_COLUMNS = ("score_ns", "mp_ns", "mp_ew", "pct_ns", "pct_ew", "imp_ns", "imp_ew")

TableKey = tuple[str, int, str]
"""(section, board, table_id) of one table's play of a board in the session."""


@dataclass(frozen=True)
class _Standing:
    """What stands at each table of one session, as the edition scored it: the projection's row
    (corrections applied; a ruling in place of the table's result, when one applies) and its scores.

    The export is written from this, never from the events as first recorded, so that the contract
    beside a score is the one that score was computed from.
    """

    rows: dict[TableKey, dict[str, Any]]
    scores: dict[TableKey, dict[str, Any]]

    @classmethod
    def of(cls, edition: ScoredEdition, event_id: str, session_id: str) -> _Standing:
        def by_table(frame: pl.DataFrame) -> dict[TableKey, dict[str, Any]]:
            mine = frame.filter((pl.col("event_id") == event_id) & (pl.col("session_id") == session_id))
            # One row per table of one session: a few hundred at most.
            return {(r["section"], r["board"], r["table_id"]): r for r in mine.iter_rows(named=True)}

        return cls(by_table(edition.projection.results), by_table(edition.board_scores))

    def ours(self, key: TableKey) -> dict[str, float | str]:
        """Our scores of the table, as the export publishes them (not the source file's)."""
        row = self.scores.get(key, {})
        return {c: round(float(row[c]), 2) for c in _SCORE_COLUMNS if row.get(c) is not None}

    def results(self, recorded: list[ResultRecord]) -> list[ResultRecord]:
        """The recorded results that stand, each with the contract, declarer and tricks it was scored
        on and our scores. A table under a director's ruling has no result that stands: the ruling
        is written instead (`adjusted`), never the recorded contract as if it had been played."""
        placed = []
        for result in recorded:
            key = (result.section, result.board, result.table_id)
            row = self.rows.get(key)
            if row is not None and row["kind"] != "result":
                continue
            placed.append(_as_scored(result, self.scores.get(key, {})).model_copy(
                update={"published": self.ours(key)}))
        return placed

    def adjusted(self, events: list[StoredEvent]) -> list[ArtificialRecord]:
        """Every ruling that stands, as an artificial score with our scores; a rejected or
        superseded ruling is not among them (the projection holds only the one that applies).

        PBN and LIN have no row for a weighted score (Law 12C1(c)): a table under one is written
        with the score the ruling earned, an explicit percentage (pairs) or IMPs (teams), so the
        file publishes that score and shows no contract as played.
        """
        where = {(e.payload.get("section", ""), e.payload.get("board"), e.payload.get("table_id")): _at(e)
                 for e in events}
        records = []
        for key, row in self.rows.items():
            awards: tuple[ArtificialAward, ArtificialAward] | None
            if row["kind"] == "artificial":
                awards = (parse_award(row["ns_award"]), parse_award(row["ew_award"]))
            elif row["kind"] == "weighted":
                awards = self._earned(key)
            else:
                continue
            if awards is None:
                log.warning("board %s table %s: a weighted score with no percentage or IMPs is not exported",
                            key[1], key[2])
                continue
            records.append(ArtificialRecord(
                board=key[1], section=key[0], table_id=key[2], round=row["round"], ns_id=row["ns_id"],
                ew_id=row["ew_id"], ns_award=awards[0], ew_award=awards[1], published=self.ours(key),
                at=where.get(key, Position(record=0, line=0))))
        return records

    def _earned(self, key: TableKey) -> tuple[float, float] | None:
        row = self.scores.get(key, {})
        for ns, ew in (("pct_ns", "pct_ew"), ("imp_ns", "imp_ew")):
            if row.get(ns) is not None and row.get(ew) is not None:
                return round(float(row[ns]), 2), round(float(row[ew]), 2)
        return None


def _as_scored(result: ResultRecord, row: dict[str, Any]) -> ResultRecord:
    """`result` with the contract and tricks its scored row stands on.

    A correction can change what the table recorded; the auction, lead and play recorded then no
    longer describe the result that stands, so those that would contradict it are left out: the
    auction and play when the contract or declarer changed (and the lead when the declarer did),
    the play when only the tricks did. A row without a contract (a director's ruling stands for
    the table) leaves the record as it was recorded.
    """
    if row.get("contract") is None:
        return result
    contract = Contract.parse(row["contract"], row.get("declarer"))
    tricks = row.get("tricks")
    if contract == result.contract and tricks == result.tricks:
        return result
    update: dict[str, Any] = {"contract": contract, "tricks": tricks, "play": ()}
    if contract != result.contract:
        update["auction"] = ()
    if contract.declarer != result.contract.declarer:
        update["lead"] = None
    return result.model_copy(update=update)


def _in_sections(boards: list[BoardRecord], sections: set[str]) -> list[BoardRecord]:
    """A hand record for every section ('') is the board each section played."""
    placed: dict[tuple[str, int], BoardRecord] = {}
    for board in boards:
        targets = sorted(sections) if board.section == "" and sections else [board.section]
        for section in targets:
            key = (section, board.board)
            if board.section or key not in placed:
                placed[key] = board.model_copy(update={"section": section})
    return [placed[key] for key in sorted(placed)]


def _results(events: list[StoredEvent]) -> list[ResultRecord]:
    records = []
    for event in _latest(events, ("section", "board", "table_id")):
        p = event.payload
        records.append(ResultRecord(
            board=p["board"], section=p.get("section", ""), table_id=p["table_id"], round=p.get("round"),
            room=p.get("room"), ns_id=p["ns_id"], ew_id=p["ew_id"],
            contract=Contract.parse(p["contract"], p.get("declarer")), tricks=p.get("tricks"),
            lead=Card.parse(p["lead"]) if p.get("lead") else None, auction=tuple(p.get("auction", ())),
            play=tuple(Card.parse(c) for c in p.get("play", ())), published=p.get("published", {}),
            at=_at(event),
        ))
    return records


def _contestants(events: list[StoredEvent], edition: ScoredEdition, event_id: str,
                 session_id: str) -> list[ContestantRecord]:
    standings = edition.standings.filter((pl.col("event_id") == event_id) & (pl.col("session_id") == session_id))
    totals = {(r["section"], r["contestant_id"], r["direction"]): r for r in standings.iter_rows(named=True)}
    records = []
    for event in events:  # a session has tens of contestants: plain Python is clearest here
        p = event.payload
        row = totals.get((p.get("section", ""), p["contestant_id"], p.get("direction") or "ALL")) \
            or totals.get((p.get("section", ""), p["contestant_id"], p.get("direction")))
        published: dict[str, float | str] = {}
        if row is not None:
            published = {"rank": float(row["rank"]), "total": round(row["score"], 2)}
            if row["percentage"] is not None:
                published["percentage"] = round(row["percentage"], 2)
        records.append(ContestantRecord(
            contestant_id=p["contestant_id"], kind=p.get("kind", "pair"), section=p.get("section", ""),
            direction=p.get("direction"), name=p.get("name"),
            players=tuple(Player(**player) for player in p.get("players", ())), published=published,
            at=_at(event)))
    return records
