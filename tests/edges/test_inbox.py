"""The inbox as an orchestrator drives it (`pipelines.edges.operations`): issue #36 items 3, 6 and 9.

- Only regular files inside the inbox are read: a link (to a file or a folder), a FIFO, is refused
  unread with a notice, never followed, never silent.
- Announcing follows from the log: a file committed by a task that crashed before moving it is
  still announced when the retry finds it a duplicate.
- A file for an event the log has not registered waits in `held/` with a notice, unless the
  operator's setting registers such events.
"""

from __future__ import annotations

import os
import shutil
from datetime import UTC, datetime
from pathlib import Path

import pytest

from models.conditions import ConditionsOfContest
from pipelines.commands.director import register_tournament
from pipelines.edges.operations import (
    InboxRejected,
    Settings,
    ingest_inbox_file,
    pending_files,
    publish_unpublished,
    require_all_ingested,
    resolve_settings,
    score_head,
    sessions_to_announce,
)
from pipelines.files.ingest import ingest_file
from pipelines.log.store import EventStore
from tests.conftest import RECORDED_AT, SAMPLE_DATA

EVENT = "club-championship-2026"
TRAVELLER = SAMPLE_DATA / "club_championship_traveller.csv"
SECRET = "club-championship-2026,1,1,A,1,1,1,3NT,N,9,C2 the-secret-line"


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    """A federation's folders, with a store in which the club championship is registered."""
    configured = resolve_settings({"store": str(tmp_path / "fed" / "store.duckdb")}, env={})
    configured.inbox.mkdir(parents=True)
    register_tournament(EventStore(configured.store), EVENT, "Club championship",
                        at=datetime(2026, 11, 1, tzinfo=UTC),
                        conditions=ConditionsOfContest.from_toml(SAMPLE_DATA / "club_championship_conditions.toml"))
    return configured


def _outside(tmp_path: Path) -> Path:
    """A readable traveller outside the inbox (what a link would smuggle in)."""
    folder = tmp_path / "elsewhere"
    folder.mkdir()
    target = folder / "traveller.csv"
    target.write_text(TRAVELLER.read_text() + SECRET + "\n")
    return target


def _ingest(settings: Settings, path: str) -> dict[str, object]:
    return ingest_inbox_file(settings, path, recorded_at=RECORDED_AT).as_dict()


# -- item 3: links and other things that are not files --------------------------------------------------


def test_a_link_to_a_file_outside_the_inbox_is_refused_unread(settings: Settings, tmp_path: Path) -> None:
    target = _outside(tmp_path)
    link = settings.inbox / "club.csv"
    link.symlink_to(target)
    head = EventStore(settings.store).head()
    assert pending_files(settings) == [str(link)]
    outcome = _ingest(settings, str(link))
    assert (outcome["status"], outcome["sessions"]) == ("rejected", [])
    assert EventStore(settings.store).head() == head  # nothing of the target went in
    moved = settings.rejected / "club.csv"
    assert moved.is_symlink() and not os.path.lexists(link)  # the link itself, moved
    notice = (settings.rejected / "club.csv.diagnostics.txt").read_text()
    assert notice == ("club.csv: a symbolic link: links are refused (put the file itself in the inbox); "
                      "it was not read\n")
    assert "the-secret-line" not in notice and str(target) not in notice
    assert target.read_text().endswith(SECRET + "\n")  # the target is left alone


def test_a_linked_folder_gets_a_notice_not_silence(settings: Settings, tmp_path: Path) -> None:
    target = _outside(tmp_path)
    (settings.inbox / EVENT).symlink_to(target.parent, target_is_directory=True)
    assert pending_files(settings) == [str(settings.inbox / EVENT)]
    outcome = _ingest(settings, str(settings.inbox / EVENT))
    assert outcome["status"] == "rejected"
    assert (settings.rejected / EVENT).is_symlink()
    assert "a symbolic link" in (settings.rejected / f"{EVENT}.diagnostics.txt").read_text()
    assert [e.type for e in EventStore(settings.store).read()] == ["TournamentRegistered"]


def test_a_file_reached_through_a_linked_folder_is_refused(settings: Settings, tmp_path: Path) -> None:
    target = _outside(tmp_path)
    (settings.inbox / EVENT).symlink_to(target.parent, target_is_directory=True)
    through = settings.inbox / EVENT / "traveller.csv"  # what an orchestrator might pass from elsewhere
    from pipelines.edges.operations import not_a_regular_file

    assert not_a_regular_file(settings.inbox, through) == (
        f"inside {EVENT}/, a symbolic link to a folder: links are refused (put the file itself in the inbox)")


def test_a_fifo_in_the_inbox_is_refused_with_a_notice(settings: Settings) -> None:
    fifo = settings.inbox / "pipe.csv"
    os.mkfifo(fifo)
    assert pending_files(settings) == [str(fifo)]
    outcome = _ingest(settings, str(fifo))
    assert outcome["status"] == "rejected"
    assert "not a regular file (a FIFO)" in (settings.rejected / "pipe.csv.diagnostics.txt").read_text()


def test_a_path_outside_the_inbox_is_refused(settings: Settings, tmp_path: Path) -> None:
    from pipelines.edges.operations import not_a_regular_file

    assert not_a_regular_file(settings.inbox, _outside(tmp_path)) == f"it is not inside the inbox {settings.inbox}"


# -- item 6: announcing follows from the log ------------------------------------------------------------


def test_a_file_committed_before_a_crash_is_announced_by_the_retry(settings: Settings) -> None:
    dropped = settings.inbox / EVENT / "1" / "club.csv"
    dropped.parent.mkdir(parents=True)
    shutil.copy(TRAVELLER, dropped)
    # The first attempt committed and was killed before it moved the file or returned.
    ingest_file(EventStore(settings.store), dropped, recorded_at=RECORDED_AT)
    retry = _ingest(settings, str(dropped))
    assert (retry["status"], retry["sessions"]) == ("duplicate", [])
    assert sessions_to_announce(settings, [retry]) == [f"{EVENT}/1"]


def test_nothing_is_announced_once_the_log_says_the_session_is_published_and_scored(settings: Settings) -> None:
    ingest_file(EventStore(settings.store), TRAVELLER, recorded_at=RECORDED_AT)
    assert sessions_to_announce(settings, []) == [f"{EVENT}/1"]
    publish_unpublished(settings, at=RECORDED_AT)
    assert sessions_to_announce(settings, []) == [f"{EVENT}/1"]  # published, not yet scored at its head
    score_head(settings)
    assert sessions_to_announce(settings, []) == []


def test_results_appended_after_the_last_scoring_are_announced(settings: Settings, tmp_path: Path) -> None:
    store = EventStore(settings.store)
    ingest_file(store, TRAVELLER, recorded_at=RECORDED_AT)
    publish_unpublished(settings, at=RECORDED_AT)
    score_head(settings)
    late = tmp_path / "late.csv"
    late.write_text("event,session,board,section,table,ns,ew,contract,declarer,result\n"
                    f"{EVENT},1,1,A,99,98,97,4S,N,10\n")
    ingest_file(store, late, recorded_at=RECORDED_AT)  # committed; its task never announced it
    assert sessions_to_announce(settings, []) == [f"{EVENT}/1"]


# -- item 9: an event nobody registered -----------------------------------------------------------------


def _typo_file(settings: Settings) -> Path:
    dropped = settings.inbox / "club-champoinship-2026" / "1" / "club.csv"
    dropped.parent.mkdir(parents=True)
    shutil.copy(TRAVELLER, dropped)
    return dropped


def test_a_file_for_an_unregistered_event_waits_in_held_with_a_notice(settings: Settings) -> None:
    dropped = _typo_file(settings)
    outcome = _ingest(settings, str(dropped))
    held = settings.held / "club-champoinship-2026" / "1" / "club.csv"
    assert (outcome["status"], outcome["moved_to"], outcome["sessions"]) == ("held", str(held), [])
    assert held.read_bytes() == TRAVELLER.read_bytes() and not dropped.exists()
    notice = (held.parent / "club.csv.notice.txt").read_text()
    assert "event 'club-champoinship-2026' is not registered" in notice
    assert "bridgeledger register --event club-champoinship-2026" in notice
    assert "auto_register_events" in notice
    assert [e.type for e in EventStore(settings.store).read()] == ["TournamentRegistered"]  # nothing public
    with pytest.raises(InboxRejected, match="held, their event not registered"):
        require_all_ingested([str(dropped)], [outcome])


def test_the_operator_may_let_unknown_events_register_themselves(settings: Settings) -> None:
    auto = resolve_settings({"store": str(settings.store), "auto_register_events": True}, env={})  # type: ignore[dict-item]
    assert auto.auto_register_events
    outcome = _ingest(auto, str(_typo_file(auto)))
    assert (outcome["status"], outcome["sessions"]) == ("processed", ["club-champoinship-2026/1"])
    assert resolve_settings({"store": str(settings.store)},
                            env={"BRIDGELEDGER_AUTO_REGISTER_EVENTS": "yes"}).auto_register_events


def test_a_registered_event_goes_in_as_before(settings: Settings) -> None:
    dropped = settings.inbox / EVENT / "1" / "club.csv"
    dropped.parent.mkdir(parents=True)
    shutil.copy(TRAVELLER, dropped)
    outcome = _ingest(settings, str(dropped))
    assert (outcome["status"], outcome["sessions"]) == ("processed", [f"{EVENT}/1"])


def test_with_no_store_yet_only_the_files_outcomes_are_announced(tmp_path: Path) -> None:
    bare = resolve_settings({"store": str(tmp_path / "none" / "store.duckdb")}, env={})
    assert sessions_to_announce(bare, [{"file": "f", "status": "processed", "sessions": ["e/1"]}]) == ["e/1"]
    assert not Path(bare.store).exists()


def test_a_path_outside_the_inbox_is_not_read_nor_moved(settings: Settings, tmp_path: Path) -> None:
    outside = _outside(tmp_path)
    with pytest.raises(InboxRejected, match="is not inside the inbox"):
        _ingest(settings, str(outside))
    assert outside.exists() and EventStore(settings.store).head() == 1
