"""The site read from the live projections is the site a whole replay gives, byte for byte, and a
build reads and renders only the events whose sessions changed since the folder's last build."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from pathlib import Path

import pytest

from pipelines.commands.director import (
    TableRef,
    approve_late_correction,
    award_artificial,
    publish_scores,
    request_correction,
)
from pipelines.edges.tasks import publish_site
from pipelines.files.ingest import IngestOptions, ingest_file
from pipelines.log.store import EventStore, to_epoch_us
from pipelines.replay import live
from pipelines.replay.frames import Projection
from pipelines.replay.projections import score_store
from pipelines.site import build, build_site, sources
from pipelines.site.build import MANIFEST
from tests.conftest import SAMPLE_DATA
from tests.site.club_session import EVENT, PLAYED, PUBLISHED, SESSION
from tests.site.conftest import SESSION_DIR, SampleSite
from tests.site.test_build import RECORDED
from tests.store_files import copy_store

OTHER = "other-club-2026"


@pytest.fixture
def club_store(sample_site: SampleSite, tmp_path: Path) -> EventStore:
    """The club session's store (copied), a second session of its event, and another event."""
    copy_store(sample_site.store.path, tmp_path / "events.duckdb")
    store = EventStore(tmp_path / "events.duckdb")
    lines = (SAMPLE_DATA / "club_championship_traveller.csv").read_text().splitlines()
    for name, event, session in (("second.csv", EVENT, "2"), ("other.csv", OTHER, "1")):
        rows = [line.replace(f"{EVENT},1,", f"{event},{session},", 1) for line in lines[1:]]
        (tmp_path / name).write_text("\n".join([lines[0], *rows]) + "\n")
        ingest_file(store, tmp_path / name, recorded_at=RECORDED, options=IngestOptions(occurred_at=PLAYED))
    return store


def _files(site: Path) -> dict[str, bytes]:
    return {str(p.relative_to(site)): p.read_bytes() for p in sorted(site.rglob("*"))
            if p.is_file() and p.name != MANIFEST}


def _same_as_a_whole_replay(store: EventStore, site: Path, tmp_path: Path, name: str) -> dict[str, bytes]:
    """The live build's pages equal those of a build from `score_store` (a replay of the whole log)."""
    built = _files(site)
    replayed = tmp_path / name
    build_site(store, replayed, edition=score_store(store))
    expected = _files(replayed)
    assert built.keys() == expected.keys()
    assert [n for n in built if built[n] != expected[n]] == []
    return built


def test_live_pages_equal_a_whole_replay_through_corrections_rulings_and_late_approvals(
        club_store: EventStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    site = tmp_path / "site"
    first = build_site(club_store, site)
    assert first.rendered == 3
    before = _same_as_a_whole_replay(club_store, site, tmp_path, "whole-0")

    # Session 2 published; a correction to it in its period; one to session 1 after its period.
    publish_scores(club_store, EVENT, "2", at=PLAYED + timedelta(hours=3))
    request_correction(club_store, TableRef(EVENT, "2", 4, "3", "A"), at=PLAYED + timedelta(hours=3, minutes=5),
                       correction_id="s2-late-night", requested_by="NS 3", reason="one more trick", tricks=9)
    request_correction(club_store, TableRef(EVENT, SESSION, 6, "2", "A"), at=PUBLISHED + timedelta(days=1),
                       correction_id="s1-too-late", requested_by="NS 2", reason="eleven tricks", tricks=11)
    report = build_site(club_store, site)
    assert report.rendered == 2  # the other event was not touched
    assert not any(w.startswith(f"e-{OTHER}/") for w in report.written)
    after = _same_as_a_whole_replay(club_store, site, tmp_path, "whole-1")
    assert after[f"e-{EVENT}/s-2/board-A-4.html"] != before[f"e-{EVENT}/s-2/board-A-4.html"]

    # A director's ruling in the other event, then the organiser approves the late correction.
    award_artificial(club_store, TableRef(OTHER, "1", 5, "4", "A"), at=PLAYED + timedelta(hours=2),
                     requested_at=PLAYED + timedelta(hours=1), ns_award="A+", ew_award="A-", director="TD",
                     reason="fouled board")
    ruled = build_site(club_store, site)
    assert ruled.rendered == 1 and f"e-{OTHER}/s-1/board-A-5.html" in ruled.written
    assert not any(w.startswith(f"e-{EVENT}/") for w in ruled.written)
    _same_as_a_whole_replay(club_store, site, tmp_path, "whole-2")
    approve_late_correction(club_store, "s1-too-late", at=PUBLISHED + timedelta(days=1, hours=1),
                            organiser="Club", director="TD", statement="the scorer's error, shown by the card")
    read: list[str] = []
    real_data = build.session_data
    monkeypatch.setattr(build, "session_data", lambda store, edition, event, info: read.append(info.session_id)
                        or real_data(store, edition, event, info))
    approved = build_site(club_store, site)
    assert f"{SESSION_DIR}/board-A-6.html" in approved.written
    assert read == [SESSION] and approved.rendered == 1  # session 2's rows did not change: not even read
    pages = _same_as_a_whole_replay(club_store, site, tmp_path, "whole-3")
    assert pages[f"{SESSION_DIR}/board-A-6.html"] != after[f"{SESSION_DIR}/board-A-6.html"]
    assert build_site(club_store, site).written == []  # nothing new: nothing rewritten


def test_a_build_reads_only_the_events_whose_sessions_changed(club_store: EventStore, tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    site = tmp_path / "site"
    build_site(club_store, site)
    replayed: list[tuple[str, object]] = []

    def recording(module: str, real: Callable[..., Projection]) -> Callable[..., Projection]:
        def replay(store: EventStore, **kwargs: object) -> Projection:
            replayed.append((module, kwargs.get("sessions")))
            return real(store, **kwargs)
        return replay

    monkeypatch.setattr(sources, "replay", recording("site", sources.replay))
    monkeypatch.setattr(live, "replay", recording("refresh", live.replay))
    # The DAG scores (refreshes the projections) before it writes the site: the site replays the event.
    request_correction(club_store, TableRef(OTHER, "1", 2, "5", "A"), at=PLAYED + timedelta(hours=1),
                       correction_id="other-1", requested_by="NS 5", reason="ten tricks", tricks=10)
    live.refresh(club_store)
    report = build_site(club_store, site)
    assert replayed == [("refresh", [(OTHER, "1")]), ("site", [(OTHER, "1")])]  # nothing of the other event
    assert report.rendered == 1 and report.sessions == 3
    assert f"e-{OTHER}/s-1/board-A-2.html" in report.written
    _same_as_a_whole_replay(club_store, site, tmp_path, "whole-1")
    # `correct` then `site`: the site's own refresh replays the event, and the site reads that replay.
    replayed.clear()
    request_correction(club_store, TableRef(OTHER, "1", 3, "6", "A"), at=PLAYED + timedelta(hours=1),
                       correction_id="other-2", requested_by="NS 6", reason="nine tricks", tricks=9)
    read_back: list[object] = []
    real_read_tables = live.read_tables
    monkeypatch.setattr(live, "read_tables", lambda *a: read_back.append(a) or real_read_tables(*a))
    report = build_site(club_store, site)
    assert replayed == [("refresh", [(OTHER, "1")])] and report.rendered == 1
    assert read_back == []  # the rows the refresh wrote are the ones shown, not read back from the tables
    assert f"e-{OTHER}/s-1/board-A-3.html" in report.written
    _same_as_a_whole_replay(club_store, site, tmp_path, "whole-2")


def test_an_edition_of_the_past_is_replayed_exactly(club_store: EventStore, tmp_path: Path) -> None:
    build_site(club_store, tmp_path / "live")  # projections at the head
    as_of = to_epoch_us(PUBLISHED + timedelta(minutes=15))
    build_site(club_store, tmp_path / "as-of", as_of_us=as_of, event_id=EVENT)
    build_site(club_store, tmp_path / "whole", edition=score_store(club_store, as_of_us=as_of), event_id=EVENT)
    assert _files(tmp_path / "as-of") == _files(tmp_path / "whole")
    assert "provisional" in (tmp_path / "as-of" / SESSION_DIR / "index.html").read_text()
    # The DAG's site at a log position the projections have passed is that edition, replayed.
    position = club_store.head() - 1
    publish_site(str(club_store.path), position, str(tmp_path / "dag"))
    build_site(club_store, tmp_path / "dag-whole", edition=score_store(club_store, up_to=position))
    assert _files(tmp_path / "dag") == _files(tmp_path / "dag-whole")


def test_a_site_rewritten_after_a_correction_loads_neither_pyarrow_nor_numpy(club_store: EventStore,
                                                                              tmp_path: Path) -> None:
    # Importing them costs about a quarter of a second of the director's wait after a correction:
    # the read path builds its frames from DuckDB's rows (pipelines.base.query_frames). Counted by the
    # modules a fresh `bridgeledger site` loads, not by time.
    from tests.cli.test_cli_imports import modules_after

    site = tmp_path / "site"
    build_site(club_store, site)
    request_correction(club_store, TableRef(OTHER, "1", 2, "5", "A"), at=PLAYED + timedelta(hours=1),
                       correction_id="other-1", requested_by="NS 5", reason="ten tricks", tricks=10)
    text, loaded = modules_after("site", "--store", str(club_store.path), "--out", str(site), "--event", OTHER)
    assert "1 rendered" in text
    assert sorted(m for m in loaded if m.split(".")[0] in ("pyarrow", "numpy")) == []
    # The probe saw the build.
    assert {"pipelines.replay.live", "pipelines.site.build", "polars", "duckdb"} <= set(loaded)


def test_one_event_is_built_on_one_connection_released_before_rendering(club_store: EventStore, tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    import pipelines.log.store as store_module

    site = tmp_path / "site"
    build_site(club_store, site, event_id=OTHER)
    request_correction(club_store, TableRef(OTHER, "1", 2, "5", "A"), at=PLAYED + timedelta(hours=1),
                       correction_id="other-1", requested_by="NS 5", reason="ten tricks", tricks=10)
    opened: list[bool] = []
    real_attach = store_module._attach
    monkeypatch.setattr(store_module, "_attach", lambda path, read_only, **files: opened.append(read_only)
                        or real_attach(path, read_only, **files))
    held_while_rendering: list[bool] = []
    real_write = build.write_session
    monkeypatch.setattr(build, "write_session", lambda *a, **k: held_while_rendering.append(
        club_store._lent() is not None) or real_write(*a, **k))
    report = build_site(club_store, site, event_id=OTHER)
    assert report.rendered == 1 and f"e-{OTHER}/s-1/board-A-2.html" in report.written
    assert opened == [False]  # the refresh, the catalog and the event's reads: one connection
    assert held_while_rendering == [False]  # let go before the rendering (another writer may go on)
