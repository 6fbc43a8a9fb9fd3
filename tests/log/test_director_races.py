"""Director commands as aggregates: read the session's version, decide, append at that version.

A command that decided on a session another command changed meanwhile decides again on the new
state; two commands racing on one session never both win.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

import pytest

import pipelines.commands.director as director
from pipelines.commands.director import DirectorError, TableRef, award_penalty, request_correction
from pipelines.files.ingest import ingest_file
from pipelines.log.store import EventStore
from tests.conftest import RECORDED_AT, SAMPLE_DATA

REPO = Path(__file__).resolve().parents[2]
EVENT, SESSION = "club-championship-2026", "1"
AT = datetime(2026, 11, 21, 21, 40, tzinfo=UTC)
TABLE = TableRef(EVENT, SESSION, board=1, table_id="2")


def session_store(store: EventStore) -> EventStore:
    ingest_file(store, SAMPLE_DATA / "club_championship_traveller.csv", recorded_at=RECORDED_AT)
    return store


def requests(store: EventStore) -> Counter[str]:
    return Counter(e.payload["correction_id"] for e in store.read(types=["ScoreCorrectionRequested"]))


def test_a_rival_that_takes_the_id_while_the_command_decides_wins_alone(
        log_store: EventStore, monkeypatch: pytest.MonkeyPatch) -> None:
    store = session_store(log_store)
    rival = EventStore(store.location, analytics=store.path if store.backend == "postgresql" else None)
    real_exists = director._correction_exists
    raced = []

    def exists_then_rival_records_it(on: EventStore, correction_id: str) -> bool:
        seen = real_exists(on, correction_id)
        if not raced:  # the rival records the same id after this command looked, before it appends
            raced.append(True)
            with monkeypatch.context() as inner:
                inner.setattr(director, "_correction_exists", real_exists)
                request_correction(rival, TABLE, at=AT, correction_id="c1", requested_by="EW 3",
                                   reason="rival", tricks=7)
        return seen

    monkeypatch.setattr(director, "_correction_exists", exists_then_rival_records_it)
    with pytest.raises(DirectorError, match="correction 'c1' already exists"):
        request_correction(store, TABLE, at=AT, correction_id="c1", requested_by="NS 2", reason="mine", tricks=11)
    assert requests(store) == Counter({"c1": 1})
    assert [e.payload["reason"] for e in store.read(types=["ScoreCorrectionRequested"])] == ["rival"]


def test_a_command_decides_again_after_an_unrelated_change_and_both_are_recorded(
        store: EventStore, monkeypatch: pytest.MonkeyPatch) -> None:
    session_store(store)
    real_require = director._require_table
    rounds = []

    def require_then_rival_penalty(on: EventStore, table: TableRef) -> dict[str, object]:
        row = real_require(on, table)
        rounds.append(on.stream_version(f"session:{EVENT}/{SESSION}"))
        if len(rounds) == 1:
            award_penalty(EventStore(on.location), EVENT, SESSION, "5", at=AT, amount=1.0, unit="MP",
                          reason="slow play", direction="NS")
        return row

    monkeypatch.setattr(director, "_require_table", require_then_rival_penalty)
    request_correction(store, TABLE, at=AT, correction_id="c2", requested_by="NS 2", reason="mine", tricks=11)
    assert rounds[1] == rounds[0] + 1  # the second decision saw the rival's penalty
    assert requests(store) == Counter({"c2": 1})
    assert len(store.read(types=["PenaltyAwarded"])) == 1


def test_a_session_that_keeps_changing_is_refused_with_nothing_recorded(
        store: EventStore, monkeypatch: pytest.MonkeyPatch) -> None:
    session_store(store)
    real_require = director._require_table

    def require_then_rival(on: EventStore, table: TableRef) -> dict[str, object]:
        row = real_require(on, table)
        award_penalty(EventStore(on.location), EVENT, SESSION, "5", at=AT, amount=1.0, unit="MP",
                      reason="slow play", direction="NS")
        return row

    monkeypatch.setattr(director, "_require_table", require_then_rival)
    with pytest.raises(DirectorError, match="changed 3 times while this command decided; nothing was recorded"):
        request_correction(store, TABLE, at=AT, correction_id="c3", requested_by="NS 2", reason="mine", tricks=11)
    assert requests(store) == Counter()


_DIRECTOR = textwrap.dedent("""
    import sys, time
    from datetime import UTC, datetime
    from pipelines.commands.director import DirectorError, TableRef, request_correction
    from pipelines.log.store import EventStore
    store = EventStore(sys.argv[1], analytics=sys.argv[2])
    start, won = float(sys.argv[3]), 0
    while time.time() < start:
        time.sleep(0.005)
    for n in range(int(sys.argv[4])):
        try:
            request_correction(store, TableRef("club-championship-2026", "1", board=1, table_id="2"),
                               at=datetime(2026, 11, 21, 21, 40, tzinfo=UTC), correction_id=f"race-{n}",
                               requested_by=sys.argv[5], reason="race", tricks=9)
            won += 1
        except DirectorError as exc:
            assert "already exists" in str(exc), exc
    print(won)
""")


def test_two_processes_racing_for_the_same_corrections_never_both_win(pg_url: str, tmp_path: Path) -> None:
    import time

    store = session_store(EventStore(pg_url, analytics=tmp_path / "main.duckdb"))
    start = time.time() + 6  # both start together, after their imports
    racers = [subprocess.Popen([sys.executable, "-c", _DIRECTOR, pg_url, str(tmp_path / f"{name}.duckdb"),
                                str(start), "12", name], cwd=REPO, stdout=subprocess.PIPE, text=True)
              for name in ("NS 2", "EW 3")]
    won = [int(racer.communicate(timeout=300)[0].strip()) for racer in racers]
    assert all(racer.returncode == 0 for racer in racers)
    assert sum(won) == 12
    assert requests(store) == Counter({f"race-{n}": 1 for n in range(12)})
    assert store.verify().ok
