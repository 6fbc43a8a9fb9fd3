"""A session of many boards (issue #36 item 1: a hand record of 100,000): each board page stays small
(its strip of board links is a window, not the whole section), and the build reads every deal
from the log without the `Deal` model's card-by-card validation."""

from __future__ import annotations

import json
import re
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest

from models.cards import Deal
from pipelines.files.exports import logged_deal
from pipelines.files.ingest import IngestOptions, ingest_file
from pipelines.log.store import EventStore
from pipelines.site import build, build_site
from pipelines.site.session_pages import STRIP_ALL, board_strip, section_bounds
from tests.conftest import SAMPLE_DATA
from tests.site.club_session import EVENT, PLAYED
from tests.site.conftest import REPO, SESSION_DIR

sys.path.insert(0, str(REPO / "scripts"))
from big_handrecord import write as write_handrecord  # type: ignore[import-not-found]

RECORDED = datetime(2026, 11, 22, 9, 0, tzinfo=UTC)
BOARDS = 150


def _texts(strip: list[dict[str, object]]) -> list[str]:
    return [f"[{s['text']}]" if s["current"] else str(s["text"]) for s in strip]


def test_a_long_sections_strip_is_its_first_last_and_nearest_boards() -> None:
    keys = [("", board) for board in range(1, 1001)]
    assert _texts(board_strip(keys, 499)) == ["1", "…", *map(str, range(490, 500)), "[500]",
                                               *map(str, range(501, 511)), "…", "1000"]
    assert _texts(board_strip(keys, 0)) == ["[1]", *map(str, range(2, 12)), "…", "1000"]
    assert _texts(board_strip(keys, 989)) == ["1", "…", *map(str, range(980, 990)), "[990]",
                                               *map(str, range(991, 1001))]
    gap = board_strip(keys, 499)[1]
    assert gap == {"text": "…", "href": "", "current": False, "gap": True}


def test_a_short_section_lists_every_board_and_only_its_own() -> None:
    keys = [("A", b) for b in range(1, STRIP_ALL + 1)] + [("B", b) for b in range(1, 4)]
    bounds = section_bounds(keys)
    assert bounds == {"A": (0, STRIP_ALL), "B": (STRIP_ALL, STRIP_ALL + 3)}
    assert _texts(board_strip(keys, 5, bounds["A"])) == [f"[{b}]" if b == 6 else str(b)
                                                         for b in range(1, STRIP_ALL + 1)]
    assert _texts(board_strip(keys, STRIP_ALL + 1)) == ["1", "[2]", "3"]
    assert [s["href"] for s in board_strip(keys, STRIP_ALL)] == ["board-B-1.html", "board-B-2.html", "board-B-3.html"]


@pytest.mark.parametrize("text", [
    "N:AKQJT98765432... .AKQJT98765432.. ..AKQJT98765432. ...AKQJT98765432",
    "E:.AKQJT98765432.. ..AKQJT98765432. ...AKQJT98765432 AKQJT98765432...",
    "n:akqjt98765432... .akqjt98765432.. ..akqjt98765432. ...akqjt98765432",
    "N:A10... - - -",
    "N:K652.K73.K54.742 - Q7.AQ2.QJ96.AKQ6 AT943.T654.72.53",
])
def test_a_logged_deal_is_the_models_own(text: str) -> None:
    built, read = logged_deal(text), Deal.from_pbn(text)
    assert built == read and built.model_dump_json() == read.model_dump_json()
    assert built.to_pbn() == read.to_pbn() and built.is_complete == read.is_complete


def test_a_bad_logged_deal_is_refused_as_the_model_refuses_it() -> None:
    with pytest.raises(ValueError, match="dealt twice"):
        logged_deal("N:A... A... - -")


@pytest.fixture
def marathon(tmp_path: Path) -> EventStore:
    """A hand record of `BOARDS` distinct deals, ingested as one session (no results, no analysis)."""
    write_handrecord(BOARDS, tmp_path / "marathon.pbn")
    store = EventStore(tmp_path / "events.duckdb")
    ingest_file(store, tmp_path / "marathon.pbn", recorded_at=RECORDED,
                options=IngestOptions(event_id="marathon-2026", session_id="1", occurred_at=RECORDED))
    return store


@pytest.fixture
def with_the_club(marathon: EventStore) -> EventStore:
    """The marathon's store with the club's session beside it: a small event and a big one."""
    for name in ("club_championship_handrecord.pbn", "club_championship_traveller.csv"):
        ingest_file(marathon, SAMPLE_DATA / name, recorded_at=RECORDED, options=IngestOptions(occurred_at=PLAYED))
    return marathon


def test_a_big_sessions_build_reads_no_deal_through_the_model(marathon: EventStore, tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    read: list[str] = []
    model_read = Deal.from_pbn

    def counted(cls: type[Deal], text: str) -> Deal:
        read.append(text)
        return model_read(text)

    monkeypatch.setattr(Deal, "from_pbn", classmethod(counted))
    report = build_site(marathon, tmp_path / "site", solve_limit=0)
    assert read == []
    assert report.analysis is not None and report.analysis.pending == BOARDS
    page = (tmp_path / "site" / "e-marathon-2026" / "s-1" / "board-75.html").read_text()
    strip = re.search(r'<nav class="board-strip".*?</nav>', page, re.S)
    assert strip is not None
    links = re.findall(r">([0-9…]+)</(?:a|span)>", strip.group(0))
    assert links == ["1", "…", *map(str, range(65, 86)), "…", str(BOARDS)]
    assert "analysis pending" in page
    session = (tmp_path / "site" / "e-marathon-2026" / "s-1" / "session.pbn").read_text()
    assert session.count("[Deal ") == BOARDS


def test_the_smaller_events_are_saved_before_a_big_one_is_rendered(with_the_club: EventStore, tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    marathon = with_the_club
    monkeypatch.setattr(build, "CHECKPOINT_BOARDS", BOARDS - 1)
    site = tmp_path / "site"
    seen: dict[str, object] = {}
    write_event = build.write_event

    def watched(report: build.SiteReport, store: EventStore, source: object, event_id: str,
                *args: object, **kwargs: object) -> object:
        if event_id == "marathon-2026":  # what a build stopped now would leave
            manifest = json.loads((site / build.MANIFEST).read_text())
            seen["manifest"] = sorted(folder for folder in manifest if folder.startswith(f"e-{EVENT}"))
            seen["index"] = f"e-{EVENT}/index.html" in (site / "index.html").read_text()
        return write_event(report, store, source, event_id, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(build, "write_event", watched)
    build.build_site(marathon, site, solve_limit=0)
    assert seen == {"manifest": [f"e-{EVENT}", SESSION_DIR], "index": True}
    assert "e-marathon-2026/index.html" in (site / "index.html").read_text()


def _site_files(site: Path) -> dict[str, bytes]:
    return {str(p.relative_to(site)): p.read_bytes() for p in sorted(site.rglob("*")) if p.is_file()}


def test_a_small_and_a_big_build_at_once_leave_the_folder_a_full_build_writes(
        with_the_club: EventStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The DAGs' two site tasks (issue #36 item 1): the small events' build saves while the big
    event's is rendering; neither's part of the manifest or the front page is lost."""
    marathon = with_the_club
    monkeypatch.setattr(build, "BIG_EVENT_BOARDS", BOARDS - 1)
    site = tmp_path / "site"
    small_during_big: list[build.SiteReport] = []
    write_event = build.write_event

    def with_a_small_build_meanwhile(report: build.SiteReport, store: EventStore, source: object, event_id: str,
                                     *args: object, **kwargs: object) -> object:
        if event_id == "marathon-2026" and not small_during_big:
            small_during_big.append(build.build_site(marathon, site, solve_limit=0, scope="small"))
        return write_event(report, store, source, event_id, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(build, "write_event", with_a_small_build_meanwhile)
    big = build.build_site(marathon, site, solve_limit=0, scope="big")
    monkeypatch.setattr(build, "write_event", write_event)
    small = small_during_big[0]
    assert any(n.startswith(f"e-{EVENT}/") for n in small.written)
    assert not any(n.startswith("e-marathon-2026") for n in small.written)
    assert any(n.startswith("e-marathon-2026/") for n in big.written)
    assert not any(n.startswith(f"e-{EVENT}") for n in big.written)
    manifest = json.loads((site / build.MANIFEST).read_text())
    assert {f"e-{EVENT}", SESSION_DIR, "e-marathon-2026", "e-marathon-2026/s-1"} <= manifest.keys()
    full = build.build_site(marathon, tmp_path / "full", solve_limit=0)
    assert _site_files(site) == _site_files(tmp_path / "full")
    # Built again, neither renders anything: each found its pages as the other left the manifest.
    assert build.build_site(marathon, site, solve_limit=0, scope="small").rendered == 0
    assert build.build_site(marathon, site, solve_limit=0, scope="big").rendered == 0
    assert full.rendered == 2


def test_a_small_build_alone_lists_only_what_the_folder_holds(with_the_club: EventStore, tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """Before the big event's first render, the front page does not link to pages that are not there."""
    marathon = with_the_club
    monkeypatch.setattr(build, "BIG_EVENT_BOARDS", BOARDS - 1)
    site = tmp_path / "site"
    build.build_site(marathon, site, solve_limit=0, scope="small")
    index = (site / "index.html").read_text()
    assert f"e-{EVENT}/index.html" in index and "e-marathon-2026" not in index
    assert not (site / "e-marathon-2026").exists()
