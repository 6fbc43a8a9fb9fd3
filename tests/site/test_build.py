"""Building the site: the same edition gives the same bytes, a correction rewrites only its session,
boards without a deal show none, and a machine without the solver says so."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from html.parser import HTMLParser
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pipelines.cli.app import app
from pipelines.commands.director import TableRef, publish_scores, request_correction
from pipelines.files.ingest import IngestOptions, ingest_file
from pipelines.log.store import EventStore
from pipelines.site import analysis, build_site, session_pages
from pipelines.site.analysis import DoubleDummy, ensure_analysis
from pipelines.site.build import MANIFEST
from pipelines.site.labels import ENGLISH, POLISH, SAME_IN_POLISH
from tests.conftest import SAMPLE_DATA
from tests.site.club_session import EVENT, PLAYED, PUBLISHED, SESSION
from tests.site.conftest import REPO, SESSION_DIR, SampleSite
from tests.store_files import copy_store

RECORDED = datetime(2026, 11, 22, 9, 0, tzinfo=UTC)


@pytest.fixture
def two_sessions(sample_site: SampleSite, tmp_path: Path) -> EventStore:
    """The demo's store (copied) with a second session: the same traveller, no hand record."""
    copy_store(sample_site.store.path, tmp_path / "events.duckdb")
    store = EventStore(tmp_path / "events.duckdb")
    lines = (SAMPLE_DATA / "club_championship_traveller.csv").read_text().splitlines()
    second = [lines[0]] + [line.replace(f"{EVENT},1,", f"{EVENT},2,", 1) for line in lines[1:]]
    (tmp_path / "session2.csv").write_text("\n".join(second) + "\n")
    ingest_file(store, tmp_path / "session2.csv", recorded_at=RECORDED,
                options=IngestOptions(occurred_at=PLAYED + timedelta(days=1)))
    return store


def _files(site: Path) -> dict[str, bytes]:
    return {str(p.relative_to(site)): p.read_bytes() for p in sorted(site.rglob("*")) if p.is_file()}


def test_a_stale_or_foreign_manifest_renders_everything_again(two_sessions: EventStore, tmp_path: Path) -> None:
    site = tmp_path / "site"
    build_site(two_sessions, site)
    (site / SESSION_DIR / "board-A-1.html").unlink()  # a file gone: its session is rendered again
    (site / MANIFEST).write_text("not json")
    report = build_site(two_sessions, site)
    assert report.rendered == 2 and f"{SESSION_DIR}/board-A-1.html" in report.written


def test_same_edition_same_bytes_in_another_process(two_sessions: EventStore, tmp_path: Path) -> None:
    build_site(two_sessions, tmp_path / "first")
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    subprocess.run([sys.executable, "-m", "pipelines.cli", "site", "--store", str(two_sessions.path),
                    "--out", str(tmp_path / "second")], check=True, env=env, capture_output=True)
    first, second = _files(tmp_path / "first"), _files(tmp_path / "second")
    assert MANIFEST in first
    assert len(first) > 200 and first.keys() == second.keys()
    assert [name for name in first if first[name] != second[name]] == []
    svg = first[f"{SESSION_DIR}/plots/board-A-1.svg"].decode()
    assert svg.startswith("<?xml") and "<dc:date>" not in svg


def test_a_correction_rewrites_only_the_touched_sessions_pages(two_sessions: EventStore, tmp_path: Path) -> None:
    site = tmp_path / "site"
    assert build_site(two_sessions, site).rendered == 2
    again = build_site(two_sessions, site)
    assert (again.written, again.rendered) == ([], 0)  # nothing changed: nothing rendered or rewritten
    request_correction(two_sessions, TableRef(EVENT, "2", 3, "5", "A"), at=PLAYED + timedelta(days=1, hours=2),
                       correction_id="s2-fix", requested_by="NS 5", reason="ten tricks", tricks=10)
    report = build_site(two_sessions, site)
    written = report.written
    session_two = f"e-{EVENT}/s-2/"
    assert report.rendered == 1
    assert written and all(w.startswith(session_two) or w in ("index.html", f"e-{EVENT}/index.html", MANIFEST)
                           for w in written)
    assert f"{session_two}board-A-3.html" in written and f"{session_two}audit.csv" in written
    assert not any(w.startswith(f"{SESSION_DIR}/") for w in written)


def test_the_site_does_not_depend_on_how_the_projection_rows_are_stored(two_sessions: EventStore,
                                                                       tmp_path: Path) -> None:
    """DuckDB returns a table's rows in the order they are stored, or in any order once they span
    row groups; the pages and the manifest's digests are made from the rows, not from that order."""
    build_site(two_sessions, tmp_path / "first")
    with two_sessions.writer() as con:  # derived tables: the same rows, stored the other way round
        for table in ("projection_board_scores", "projection_standings"):
            con.execute(f"CREATE OR REPLACE TABLE {table} AS SELECT * EXCLUDE (_n) FROM"
                        f" (SELECT *, row_number() OVER () AS _n FROM {table}) ORDER BY _n DESC")
    build_site(two_sessions, tmp_path / "second")
    first, second = _files(tmp_path / "first"), _files(tmp_path / "second")
    assert len(first) > 200 and first.keys() == second.keys()
    assert [name for name in first if first[name] != second[name]] == []


def test_a_rebuild_renders_only_the_pages_whose_inputs_changed(two_sessions: EventStore, tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    site = tmp_path / "site"
    build_site(two_sessions, site)
    request_correction(two_sessions, TableRef(EVENT, "2", 3, "5", "A"), at=PLAYED + timedelta(days=1, hours=2),
                       correction_id="s2-fix", requested_by="NS 5", reason="ten tricks", tricks=10)
    (site / f"e-{EVENT}/s-2/plots/board-A-5.svg").unlink()  # gone: drawn again
    drawn: list[list[int]] = []
    original = session_pages.distribution_plot

    def counting(scores: list[int], **axes: str) -> bytes:
        drawn.append(list(scores))
        return original(scores, **axes)

    monkeypatch.setattr(session_pages, "distribution_plot", counting)
    report = build_site(two_sessions, site)
    # Of the session's distribution plots only board 3's (its scores changed) and board 5's (its
    # file was removed) are drawn; the others' inputs are the same as at the last build.
    assert len(drawn) == 2 and report.rendered == 1
    assert f"e-{EVENT}/s-2/plots/board-A-3.svg" in report.written
    assert f"e-{EVENT}/s-2/plots/board-A-5.svg" in report.written
    assert f"e-{EVENT}/s-2/plots/board-A-4.svg" not in report.written
    # Travellers of other boards are the same bytes: only the session's own page and its audit name
    # the log position, which the correction moved; a traveller points to the session page for it.
    assert f"e-{EVENT}/s-2/board-A-3.html" in report.written
    assert f"e-{EVENT}/s-2/board-A-4.html" not in report.written
    position = str(report_position(site / f"e-{EVENT}/s-2/index.html"))
    assert position == str(two_sessions.head())
    footer = (site / f"e-{EVENT}/s-2/board-A-4.html").read_text().split("<footer>")[1]
    assert footer.startswith('<a href="index.html">') and not any(c.isdigit() for c in footer)
    monkeypatch.setattr(session_pages, "distribution_plot", original)
    build_site(two_sessions, tmp_path / "fresh")  # from nothing: every page rendered
    kept, fresh = _files(site), _files(tmp_path / "fresh")
    assert kept.keys() == fresh.keys()
    assert [name for name in kept if kept[name] != fresh[name] and name != MANIFEST] == []


def test_the_site_command_loads_no_ranking_without_one(two_sessions: EventStore, tmp_path: Path) -> None:
    # A log without a ranking edition: the ranking's package (its rule sets, its computation) is
    # never imported by a build. Measured by the modules the process loaded, as tests/cli/test_cli_imports.py.
    probe = ("import json, sys\n"
             f"sys.argv = ['bridgeledger', 'site', '--store', {str(two_sessions.path)!r}, '--out', "
             f"{str(tmp_path / 'site')!r}]\n"
             "from pipelines.cli.app import app\n"
             "try:\n    app()\nexcept SystemExit:\n    pass\n"
             "print(json.dumps(sorted(sys.modules)), file=sys.stderr)\n")
    run = subprocess.run([sys.executable, "-c", probe], cwd=REPO, capture_output=True, text=True, check=True)
    loaded = set(json.loads(run.stderr.strip().splitlines()[-1]))
    assert (tmp_path / "site" / "index.html").is_file() and "pipelines.site.build" in loaded
    assert sorted(m for m in loaded if m.startswith(("pipelines.ranking", "models.ranking_rules"))) == []
    # Nor pyarrow: the double-dummy cache is read and written without handing DuckDB a polars frame,
    # which it reads through pyarrow (a tenth of a second of the weekend's site to import).
    assert "pyarrow" not in loaded and "derived_double_dummy" in _tables(two_sessions)


def _tables(store: EventStore) -> set[str]:
    with store.reader() as con:
        return {row[0] for row in con.execute("SELECT table_name FROM duckdb_tables()").fetchall()}


def test_boards_without_a_deal_show_no_diagram(two_sessions: EventStore, tmp_path: Path) -> None:
    build_site(two_sessions, tmp_path / "site")
    without = (tmp_path / "site" / f"e-{EVENT}" / "s-2" / "board-A-3.html").read_text()
    assert 'class="deal"' not in without and "dd-table" not in without
    assert "No hand record for this board." in without
    with_deal = (tmp_path / "site" / SESSION_DIR / "board-A-3.html").read_text()
    assert 'class="deal"' in with_deal and "dd-table" in with_deal


def test_without_the_solver_the_pages_say_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = EventStore(tmp_path / "events.duckdb")
    for name in ("club_championship_handrecord.pbn", "club_championship_traveller.csv"):
        ingest_file(store, SAMPLE_DATA / name, recorded_at=RECORDED, options=IngestOptions(occurred_at=PLAYED))
    monkeypatch.setattr(analysis, "solver_version", lambda: None)
    report = build_site(store, tmp_path / "site")
    assert report.analysis is not None and report.analysis.unavailable == 26 and report.analysis.solved == 0
    page = (tmp_path / "site" / SESSION_DIR / "board-A-1.html").read_text()
    assert 'class="deal"' in page and "dd-table" not in page
    assert "Double-dummy analysis is not available" in page


def test_the_solver_runs_once_per_deal(two_sessions: EventStore, monkeypatch: pytest.MonkeyPatch) -> None:
    with two_sessions.reader() as con:
        deals = [r[0] for r in con.execute("SELECT payload->>'$.deal' FROM events WHERE type = 'BoardDealt'")
                 .fetchall()]

    def no_solving(found: list[str]) -> dict[str, DoubleDummy]:
        raise AssertionError(f"solved {len(found)} deal(s) that were cached")

    monkeypatch.setattr(analysis, "solve", no_solving)
    report = ensure_analysis(two_sessions, deals)
    assert (report.from_cache, report.solved) == (26, 0)


def test_cli_site_command_prints_the_index(sample_site: SampleSite, tmp_path: Path) -> None:
    copy_store(sample_site.store.path, tmp_path / "events.duckdb")
    out = tmp_path / "site"
    result = CliRunner().invoke(app, ["site", "--store", str(tmp_path / "events.duckdb"), "--out", str(out),
                                      "--event", EVENT, "--as-of", "2026-11-21T21:05+01:00"])
    assert result.exit_code == 0, result.output
    assert f"index: {out / 'index.html'}" in result.output
    assert "provisional" in (out / SESSION_DIR / "index.html").read_text()
    missing = CliRunner().invoke(app, ["site", "--store", str(tmp_path / "events.duckdb"), "--out", str(out),
                                       "--event", "no-such-event"])
    assert missing.exit_code == 1 and "no-such-event" in missing.output


def test_site_csv_neutralises_a_formula_in_a_correction(sample_site: SampleSite, tmp_path: Path) -> None:
    copy_store(sample_site.store.path, tmp_path / "events.duckdb")
    store = EventStore(tmp_path / "events.duckdb")
    request_correction(store, TableRef(EVENT, SESSION, 7, "2", "A"), at=PUBLISHED + timedelta(minutes=20),
                       correction_id="=HYPERLINK(\"http://x\")", requested_by="@evil", reason="=1+2", tricks=8)
    publish_scores(store, EVENT, SESSION, at=PUBLISHED + timedelta(minutes=25))
    build_site(store, tmp_path / "site")
    audit = (tmp_path / "site" / SESSION_DIR / "audit.csv").read_text()
    row = next(line for line in audit.splitlines() if "HYPERLINK" in line)
    assert "\"'=HYPERLINK(" in row  # the id, quoted by the CSV writer, starts with the apostrophe
    assert ",'@evil," in row and ",'=1+2," in row


def test_event_page_carries_scores_over_as_the_conditions_say(two_sessions: EventStore, tmp_path: Path) -> None:
    from models.conditions import ConditionsOfContest
    from pipelines.commands.director import register_tournament

    rules = ConditionsOfContest.from_toml(SAMPLE_DATA / "club_championship_conditions.toml")
    register_tournament(two_sessions, EVENT, "Club Championship 2026", at=PLAYED + timedelta(days=1),
                        conditions=rules.model_copy(update={"carry_over": rules.carry_over.model_copy(
                            update={"mode": "cumulative", "fraction": 0.5})}))
    build_site(two_sessions, tmp_path / "site")
    html = (tmp_path / "site" / f"e-{EVENT}" / "index.html").read_text()
    overall = html.split('<table class="standings overall">')[1:]
    assert len(overall) == 2 and "Section <bdi>A</bdi> · NS" in overall[0]
    body = overall[0].split("<tbody>")[1]
    pair_one = next(row for row in re.findall(r"<tr>(.*?)</tr>", body, re.S) if "<bdi>1</bdi>" in row)
    cells = re.findall(r'<td class="num[^"]*">([^<]*)</td>', pair_one)
    session_one, session_two, total = (float(c) for c in cells[1:4])
    assert (session_one, session_two) == (341.08, 342.08)  # pair 1 NS; 1 EW scored 326.92 and 325.92
    assert total == pytest.approx(342.0833 + 0.5 * 341.0833, abs=0.006)


def test_adjusted_and_weighted_scores_are_shown_as_such(sample_site: SampleSite, tmp_path: Path) -> None:
    from models.events import WeightedComponent
    from pipelines.commands.director import award_weighted

    copy_store(sample_site.store.path, tmp_path / "events.duckdb")
    store = EventStore(tmp_path / "events.duckdb")
    award_weighted(store, TableRef(EVENT, SESSION, 3, "2", "A"), at=PUBLISHED + timedelta(minutes=20),
                   requested_at=PUBLISHED + timedelta(minutes=15), director="TD", reason="UI",
                   ns_components=[WeightedComponent(contract="4S", declarer="N", tricks=10, weight=0.7),
                                  WeightedComponent(contract="4S", declarer="N", tricks=9, weight=0.3)])
    build_site(store, tmp_path / "site")
    weighted = (tmp_path / "site" / SESSION_DIR / "board-A-3.html").read_text()
    assert '<tr id="t-2" class="weighted">' in weighted
    row = weighted.split('<tr id="t-2" class="weighted">')[1].split("</tr>")[0]
    assert 'href="card-A-ns-2.html"' in row and 'href="card-A-ew-2.html"' in row  # the table's pairs
    assert "weighted score (Law 12C1(c)): NS 70% × 420 + 30% × -50" in weighted  # NS not vulnerable on board 3
    artificial = (tmp_path / "site" / SESSION_DIR / "board-A-7.html").read_text()
    assert '<tr id="t-5" class="adjusted">' in artificial
    assert "artificial adjusted score (Law 12C2): NS A+, EW A-" in artificial


def test_session_download_is_pbn_with_our_scores(sample_site: SampleSite) -> None:
    from parsers.pbn import loads

    parsed = loads((sample_site.site / SESSION_DIR / "session.pbn").read_bytes())
    assert parsed.errors == ()
    assert len(parsed.boards) == 26 and len(parsed.results) + len(parsed.artificial) == 338
    totals = {(c.direction, c.contestant_id): c.published for c in parsed.contestants}
    assert totals[("NS", "7")]["rank"] == 1 and totals[("NS", "7")]["percentage"] == 59.19
    standings = (sample_site.site / SESSION_DIR / "standings.csv").read_text().splitlines()
    assert standings[0].startswith("event_id,session_id,section,direction,contestant_id,rank")
    assert len(standings) == 27


def test_language_and_time_zone_come_from_the_conditions(sample_site: SampleSite, tmp_path: Path) -> None:
    from models.conditions import ConditionsOfContest
    from pipelines.commands.director import register_tournament

    copy_store(sample_site.store.path, tmp_path / "events.duckdb")
    store = EventStore(tmp_path / "events.duckdb")
    rules = ConditionsOfContest.from_toml(SAMPLE_DATA / "club_championship_conditions.toml")
    register_tournament(store, EVENT, "Mistrzostwa Klubu 2026", at=PLAYED,
                        conditions=rules.model_copy(update={"language": "pl", "timezone": "Asia/Tokyo"}))
    build_site(store, tmp_path / "site")
    page = (tmp_path / "site" / SESSION_DIR / "index.html").read_text()
    assert '<html lang="pl">' in page and "<h2>Klasyfikacja</h2>" in page
    assert '<time datetime="2026-11-22T05:30+09:00">2026-11-22 05:30 JST</time>' in page  # 21:30 CET
    with pytest.raises(ValueError, match="unknown time zone"):
        ConditionsOfContest.model_validate({"timezone": "Mars/Olympus"})
    board = (tmp_path / "site" / SESSION_DIR / "board-A-1.html").read_text()
    assert '<span class="suit s" title="piki">♠</span>' in board and "Po partii: <strong class=\"vul\">Nikt" in board
    # Every word the pages show is Polish: no English label is left in a text, a title or an
    # aria-label (the audit's cells are checked above: its free text stays as it was written).
    audit = (tmp_path / "site" / SESSION_DIR / "audit.html").read_text()
    assert '<th scope="col">Decyzja</th>' in audit and '<th scope="col">Zgłoszono</th>' in audit
    assert '<a href="board-A-1.html#t-4">Rozdanie 1</a><span class="why">Sektor <bdi>A</bdi> · Stół <bdi>4</bdi>' \
        in audit
    assert '<span class="decision">poprawka: uwzględniona</span>' in audit
    assert '<span class="why rule">Prawo 79C1: zgłoszona w okresie poprawek</span>' in audit and "Law 79C" not in audit
    assert '<time datetime="2026-11-22T05:10+09:00">2026-11-22 05:10 JST</time>' in audit  # raised 21:10 CET
    # The plots name their axes in the page's language too.
    plot = (tmp_path / "site" / SESSION_DIR / "plots" / "board-A-1.svg").read_text()
    assert "zapis NS" in plot and "stoły" in plot and "score for NS" not in plot
    card_plot = (tmp_path / "site" / SESSION_DIR / "plots" / "card-A-ns-7.svg").read_text()
    assert "rozegrane rozdania (rozdania od 1 do " in card_plot and "boards played" not in card_plot
    english = {ENGLISH[key] for key in ENGLISH if key not in SAME_IN_POLISH}
    left = {(page.name, text) for page in (tmp_path / "site" / SESSION_DIR).glob("*.html")
            for text in _shown_words(page.read_text()) if text in english}
    assert left == set()


def test_every_label_has_its_polish_word() -> None:
    from typing import get_args

    from models.conditions import ScoringMethod
    from pipelines.replay.audit import AUDIT_COLUMNS
    from pipelines.site.labels import AUDIT_HEADERS

    assert POLISH.keys() == ENGLISH.keys()
    assert list(AUDIT_HEADERS["en"]) == list(AUDIT_HEADERS["pl"]) == AUDIT_COLUMNS
    assert {f"method_{method}" for method in get_args(ScoringMethod)} <= ENGLISH.keys()  # a session's method by name
    assert {key for key in ENGLISH if POLISH[key] == ENGLISH[key]} == SAME_IN_POLISH


def _shown_words(html: str) -> list[str]:
    """Each text a page shows (and each title and aria-label), cut at the pages' separators, outside
    the audit's table."""
    class Shown(HTMLParser):
        def __init__(self) -> None:
            super().__init__()
            self.texts: list[str] = []
            self.in_audit = False

        def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
            found = dict(attrs)
            self.in_audit = self.in_audit or (tag == "table" and found.get("class") == "audit")
            self.texts += [value for name, value in attrs if name in ("title", "aria-label") and value]

        def handle_endtag(self, tag: str) -> None:
            self.in_audit = self.in_audit and tag != "table"

        def handle_data(self, data: str) -> None:
            if not self.in_audit:
                self.texts.append(data)

    parser = Shown()
    parser.feed(html)
    pieces = (re.split(r" · |: |←|→", text) for text in parser.texts)
    return [piece.strip(" :") for split in pieces for piece in split if piece.strip(" :")]


def report_position(page: Path) -> int:
    """The log position a session page was scored at (its `log-position` meta tag: no reader's words)."""
    found = re.search(r'<meta name="log-position" content="(\d+)">', page.read_text())
    assert found is not None
    return int(found[1])
