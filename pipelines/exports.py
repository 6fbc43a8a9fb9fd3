"""A session out of the log and back into a file format (PBN, LIN).

The session's events become format-neutral records again (boards, results, artificial scores,
contestants with our standings as their published totals) and a writer from `parsers` renders them.
"""

from __future__ import annotations

from typing import Any

import polars as pl

from models.board import Vulnerability
from models.cards import Card, Deal, Seat
from models.contract import Contract
from models.events import Player, session_stream
from parsers.formats import WRITERS
from parsers.records import (
    ArtificialRecord,
    BoardRecord,
    ContestantRecord,
    FileMetadata,
    ParsedFile,
    Position,
    ResultRecord,
)
from pipelines.projections import ScoredEdition, score_store
from pipelines.store import EventStore, StoredEvent


class ExportError(ValueError):
    """A session cannot be exported as asked."""


def session_records(store: EventStore, event_id: str, session_id: str,
                    edition: ScoredEdition | None = None) -> ParsedFile:
    """The session as records, with our standings as the contestants' published totals."""
    events = store.read(stream_id=session_stream(event_id, session_id))
    if not events:
        raise ExportError(f"there is no session {event_id}/{session_id} in the log")
    edition = edition or score_store(store)
    by_type: dict[str, list[StoredEvent]] = {}
    for event in events:
        by_type.setdefault(event.type, []).append(event)
    scheduled = by_type.get("SessionScheduled", [])
    title = scheduled[0].payload.get("title") if scheduled else None
    results = _with_our_scores(_results(by_type.get("ResultRecorded", [])), edition, event_id, session_id)
    return ParsedFile(
        source=f"{event_id}-{session_id}", format="export", parser_version="bridgeledger",
        metadata=FileMetadata(event_name=title or event_id, event_id=event_id, session_id=session_id),
        boards=tuple(_in_sections(_boards(by_type.get("BoardDealt", [])), {r.section for r in results})),
        results=tuple(results),
        artificial=tuple(_artificial(by_type.get("ArtificialScoreAwarded", []))),
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
        BoardRecord(board=p["board"], section=p.get("section", ""), dealer=Seat(p["dealer"]),
                    vulnerability=Vulnerability(p["vulnerability"]),
                    deal=Deal.from_pbn(p["deal"]) if p.get("deal") else None, at=_at(e))
        for e in _latest(events, ("section", "board")) for p in [e.payload]
    ]


_SCORE_COLUMNS = ("score_ns", "mp_ns", "mp_ew", "pct_ns", "pct_ew", "imp_ns", "imp_ew")


def _with_our_scores(results: list[ResultRecord], edition: ScoredEdition, event_id: str,
                     session_id: str) -> list[ResultRecord]:
    """Results as the edition scored them: the contract, declarer and tricks that stand (every
    applied correction in place, the same projection the scores come from) and our scores (not
    the source file's) as the values the export publishes."""
    scores = edition.board_scores.filter((pl.col("event_id") == event_id) & (pl.col("session_id") == session_id))
    by_table = {(r["section"], r["board"], r["table_id"]): r for r in scores.iter_rows(named=True)}
    placed = []
    for result in results:  # one row per table of one session: a few hundred at most
        row = by_table.get((result.section, result.board, result.table_id), {})
        ours: dict[str, float | str] = {c: round(float(row[c]), 2) for c in _SCORE_COLUMNS if row.get(c) is not None}
        placed.append(_as_scored(result, row).model_copy(update={"published": ours}))
    return placed


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


def _artificial(events: list[StoredEvent]) -> list[ArtificialRecord]:
    return [
        ArtificialRecord(board=p["board"], section=p.get("section", ""), table_id=p["table_id"],
                         ns_id=p["ns_id"], ew_id=p["ew_id"], ns_award=p["ns_award"], ew_award=p["ew_award"],
                         published=p.get("published", {}), at=_at(e))
        for e in _latest(events, ("section", "board", "table_id")) for p in [e.payload]
    ]


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
