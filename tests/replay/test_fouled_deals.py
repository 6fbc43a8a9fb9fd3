"""Law 87's fouled deal (issue #34, item 2): `BoardFouled` v2 records the deal each group played.

A v1 ruling (frozen below as it was stored) reads as v2 with no deal, and a log holding it replays
as the same log written at v2 does; the director's `foul` takes `--deal LABEL=PBN` and refuses a
deal that is not four full hands or names no group.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
from polars.testing import assert_frame_equal
from typer.testing import CliRunner

from models.cards import Deal
from models.events import BoardFouled
from pipelines.cli.app import app
from pipelines.commands.director import DirectorError, record_fouled_board
from pipelines.files.ingest import ingest_file
from pipelines.log.store import EventStore, NewEvent
from pipelines.replay.frames import replay
from tests.conftest import RECORDED_AT

EVENT, SESSION = "club-championship-2026", "1"
STREAM = f"session:{EVENT}/{SESSION}"
AT = datetime(2026, 11, 21, 21, 6, tzinfo=UTC)
GROUPS = {"a": ["1", "2", "3", "4", "5", "6"], "b": ["7", "8", "9", "10", "11", "12", "13"]}
V1_PAYLOAD = {"event_id": EVENT, "session_id": SESSION, "section": "A", "board": 4,
              "groups": GROUPS, "reason": "cards swapped"}
"""A `BoardFouled` payload as schema version 1 stored it (no `deals`)."""
DEAL = "N:AKQJ.T98.765.432 T98.765.432.AKQJ 765.432.AKQJ.T98 432.AKQJ.T98.765"
"""Four full hands, each card once."""


@pytest.fixture
def session(store: EventStore, traveller: Path) -> EventStore:
    """The sample club session (section A, boards played at 13 tables)."""
    ingest_file(store, traveller, recorded_at=RECORDED_AT)
    return store


def _stored(store: EventStore, payload: dict[str, object], version: int | None) -> None:
    store.append([NewEvent(STREAM, "BoardFouled", payload, AT, schema_version=version)], recorded_at=RECORDED_AT)


def test_a_v1_ruling_reads_as_v2_with_no_deal(session: EventStore) -> None:
    _stored(session, V1_PAYLOAD, 1)
    [event] = session.read(types=["BoardFouled"])
    assert (event.schema_version, event.payload.get("deals")) == (2, None)
    ruling = BoardFouled.model_validate(event.payload)
    assert (ruling.schema_version, ruling.deals, ruling.groups["b"][0]) == (2, {}, "7")
    with session.reader() as con:  # the stored row is never rewritten
        assert con.sql("SELECT schema_version FROM events WHERE type = 'BoardFouled'").fetchall() == [(1,)]


def test_a_log_with_a_v1_ruling_replays_as_one_written_at_v2(tmp_path: Path, traveller: Path) -> None:
    old, new = EventStore(tmp_path / "old.duckdb"), EventStore(tmp_path / "new.duckdb")
    for store, version in ((old, 1), (new, None)):
        ingest_file(store, traveller, recorded_at=RECORDED_AT)
        _stored(store, V1_PAYLOAD, version)
    for store, version in ((old, 1), (new, 2)):
        with store.reader() as con:
            assert con.sql("SELECT schema_version FROM events WHERE type = 'BoardFouled'").fetchall() == [(version,)]
    before, after = replay(old), replay(new)
    assert_frame_equal(before.results, after.results)
    fouled = before.results.filter((before.results["board"] == 4) & before.results["fouled_group"].is_not_null())
    assert sorted(set(fouled["fouled_group"].to_list())) == ["a", "b"] and fouled.height == 13


def test_the_director_records_each_groups_deal(session: EventStore) -> None:
    # Written from East: stored as one spelling, North first.
    east_first = "E:" + " ".join(DEAL[2:].split()[1:] + DEAL[2:].split()[:1])
    record_fouled_board(session, EVENT, SESSION, 4, at=AT, groups=GROUPS, reason="cards swapped", section="A",
                        deals={"b": east_first})
    [event] = session.read(types=["BoardFouled"])
    assert event.payload["deals"] == {"b": DEAL}
    assert Deal.from_pbn(event.payload["deals"]["b"]) == Deal.from_pbn(east_first)


@pytest.mark.parametrize(("deals", "message"), [
    ({"c": DEAL}, r"--deal names \['c'\], which are not groups \(groups: \['a', 'b'\]\)"),
    ({"b": DEAL.replace("AKQJ.T98", "AKQJ.T9A", 1)}, r"the deal of group 'b': card HA is dealt twice in 'N:AKQJ.T9A"),
    ({"b": "N:AKQJ.T98.765.432 - - -"}, r"the deal of group 'b': a deal needs four hands of 13 cards"),
    ({"b": "AKQJ.T98.765.432"}, r"the deal of group 'b': a PBN deal starts with a seat"),
])
def test_a_deal_that_is_not_a_groups_full_deal_is_refused(session: EventStore, deals: dict[str, str],
                                                          message: str) -> None:
    head = session.head()
    with pytest.raises(DirectorError, match=message):
        record_fouled_board(session, EVENT, SESSION, 4, at=AT, groups=GROUPS, reason="x", section="A", deals=deals)
    assert session.head() == head


def test_the_foul_command_takes_a_deal_per_group(tmp_path: Path, traveller: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    where = ["--store", str(tmp_path / "events.duckdb")]
    assert runner.invoke(app, ["ingest", str(traveller), *where]).exit_code == 0
    base = ["foul", *where, "--event", EVENT, "--session", SESSION, "--board", "4", "--section", "A",
            "--group", "a=1,2,3,4,5,6", "--group", "b=7,8,9,10,11,12,13", "--reason", "cards swapped",
            "--at", "2026-11-21T21:06+01:00"]
    twice = runner.invoke(app, [*base, "--deal", f"b={DEAL}", "--deal", f"b={DEAL}"])
    assert twice.exit_code == 2 and "'b' is given twice" in twice.output
    bare = runner.invoke(app, [*base, "--deal", DEAL])
    assert bare.exit_code == 2 and "a deal is LABEL=N:hand hand hand hand (PBN)" in bare.output
    unknown = runner.invoke(app, [*base, "--deal", f"c={DEAL}"])
    assert unknown.exit_code == 1 and "which are not groups" in unknown.output
    done = runner.invoke(app, [*base, "--deal", f"b={DEAL}"])
    assert done.exit_code == 0, done.output
    [event] = EventStore(tmp_path / "events.duckdb").read(types=["BoardFouled"])
    assert event.payload["deals"] == {"b": DEAL}
