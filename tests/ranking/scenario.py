"""The sample club session with named players and a member list: the ranking tests' world."""

from __future__ import annotations

import atexit
import shutil
import tempfile
from datetime import datetime, timedelta, timezone
from pathlib import Path

from models.events import ContestantRegistered, Player, event_payload, session_stream
from pipelines.commands import director
from pipelines.commands.director import publish_scores
from pipelines.files.ingest import IngestOptions, ingest_file
from pipelines.log.store import EventStore, NewEvent
from pipelines.ranking.members import import_member_list
from tests.conftest import RECORDED_AT, SAMPLE_DATA, TYPED_AT
from tests.store_files import copy_store

CET = timezone(timedelta(hours=1))
EVENT, SESSION = "club-championship-2026", "1"
PLAYED = datetime(2026, 11, 21, 19, 0, tzinfo=CET)
PUBLISHED = datetime(2026, 11, 21, 21, 0, tzinfo=CET)
FINAL = datetime(2026, 11, 21, 21, 30, tzinfo=CET)
MEMBERS_AT = datetime(2026, 11, 1, 12, 0, tzinfo=CET)
PAIRS = 13


def member_id(direction: str, pair: int, seat: int) -> str:
    """Members are numbered by where they sat: NS pair 4's second player is 10042."""
    return f"{1 if direction == 'NS' else 2}{pair:02d}{seat + 1}"


def player_name(direction: str, pair: int, seat: int) -> str:
    return f"{'Nowak' if direction == 'NS' else 'Zieliński'} {'Anna' if seat == 0 else 'Jan'} {pair}"


def write_member_list(path: Path) -> Path:
    """Every player of the session as a member, plus one the session does not know."""
    lines = ["federation_id,name,club,gender,birth_year,region"]
    for direction in ("NS", "EW"):
        for pair in range(1, PAIRS + 1):
            for seat in (0, 1):
                gender = "F" if seat == 0 else "M"
                lines.append(f"{member_id(direction, pair, seat)},{player_name(direction, pair, seat)},"
                             f"Club {pair % 3},{gender},{1950 + pair},{'North' if pair % 2 else 'South'}")
    lines.append("99999,Someone Else,Club 9,X,1990,East")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def registrations(*, with_ids: bool = True) -> list[NewEvent]:
    """The session's pairs with their players: NS players carry ids in the file, EW only names."""
    events = []
    for direction in ("NS", "EW"):
        for pair in range(1, PAIRS + 1):
            players = tuple(
                Player(name=player_name(direction, pair, seat),
                       federation_id=member_id(direction, pair, seat) if with_ids and direction == "NS" else None)
                for seat in (0, 1))
            event = ContestantRegistered(event_id=EVENT, session_id=SESSION, contestant_id=str(pair), kind="pair",
                                         section="A", direction=direction, players=players)  # type: ignore[arg-type]
            events.append(NewEvent(session_stream(EVENT, SESSION), event.type, event_payload(event), PLAYED))
    return events


def build_session(store: EventStore, tmp_path: Path) -> None:
    """Members imported, the sample session ingested with its players and published at 21:00.

    An empty DuckDB store gets a copy of a store built so once per test run (per worker), when the
    director's clock is the tests' (`tests.conftest.TYPED_AT`): the same events, a tenth of the
    time. Any other store is built here."""
    members = write_member_list(tmp_path / "members.csv")
    if _fresh_file(store) and director.appended_now() == TYPED_AT:
        copy_store(_template(), store.path)
        return
    _build(store, members)


_TEMPLATE: list[Path] = []


def _fresh_file(store: EventStore) -> bool:
    return store.backend == "duckdb" and not store.path.exists() and not store.analytics_path.exists()


def _template() -> Path:
    if not _TEMPLATE:
        folder = Path(tempfile.mkdtemp(prefix="bridgeledger-ranking-session-"))
        atexit.register(shutil.rmtree, folder, ignore_errors=True)
        template = EventStore(folder / "events.duckdb")
        _build(template, write_member_list(folder / "members.csv"))
        _TEMPLATE.append(template.path)
    return _TEMPLATE[0]


def _build(store: EventStore, members: Path) -> None:
    import_member_list(store, members, federation="SBU", at=MEMBERS_AT, recorded_at=RECORDED_AT)
    ingest_file(store, SAMPLE_DATA / "club_championship_traveller.csv", recorded_at=RECORDED_AT,
                options=IngestOptions(occurred_at=PLAYED))
    store.append(registrations(), recorded_at=RECORDED_AT)
    publish_scores(store, EVENT, SESSION, at=PUBLISHED)
