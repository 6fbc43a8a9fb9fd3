"""Names and dates from files as the pages show them (issue #34, item 9)."""

from __future__ import annotations

import re
from pathlib import Path

from markupsafe import Markup

from models.events import Player
from parsers.records import ContestantRecord, Position
from pipelines.site.event_pages import index_page
from pipelines.site.fragments import who
from pipelines.site.paths import audit_anchor, table_anchor
from pipelines.site.views import Names, readable_name
from tests.site.conftest import SampleSite

AT = Position(record=0, line=1)


def _names(record: ContestantRecord) -> Names:
    return Names({(record.section, record.contestant_id, record.direction or ""): record}, {})


def test_a_usebio_pair_in_capitals_is_named_once_in_the_usual_case() -> None:
    # As a USEBIO file from the weekend gives it: the pair's name is its players' names again.
    pair = ContestantRecord(contestant_id="2NS", direction="NS", name="NILS KRAL & YUSUF MOREAU",
                            players=(Player(name="NILS KRAL"), Player(name="YUSUF MOREAU")), at=AT)
    assert _names(pair).players("", "2NS", "NS") == "Nils Kral – Yusuf Moreau"
    team = ContestantRecord(contestant_id="7", kind="team", name="HARBOUR HERONS",
                            players=(Player(name="Elena Hansen"), Player(name="Rosa Keller")), at=AT)
    assert _names(team).players("", "7", "ALL") == "Harbour Herons: Elena Hansen – Rosa Keller"


def test_a_name_written_in_mixed_case_stays_as_written() -> None:
    assert readable_name("McDonald-O'Brien") == "McDonald-O'Brien"
    assert readable_name("ŁUKASZ ŻÓŁW") == "Łukasz Żółw"
    assert readable_name("A.N. OTHER 2") == "A.N. Other 2"


def test_a_nul_byte_from_a_file_never_reaches_a_page() -> None:
    html = index_page([{"date": "2026-11-20", "name": "Friday\x00 Pairs\x1b", "event_id": "x",
                        "href": "e-x/index.html", "sessions": 1, "language": "en",
                        "status": {"status": "final", "until": "", "until_iso": ""}}])
    assert b"\x00" not in html and b"\x1b" not in html and b"Friday Pairs" in html
    assert who("7", "Ann\x00 Bob", "card-7.html") == Markup(
        '<a href="card-7.html"><bdi>7</bdi></a> <span class="names"><bdi>Ann Bob</bdi></span>')


def test_a_table_id_becomes_a_valid_id_and_fragment() -> None:
    anchors = [table_anchor(t) for t in ("4", "1NS-1EW", "1 open", "1#2", "\"><x")]
    assert anchors[:2] == ["t-4", "t-1NS-1EW"]
    assert all(re.fullmatch(r"[A-Za-z0-9_~-]+", a) for a in anchors) and len(set(anchors)) == len(anchors)
    assert audit_anchor("A", 1, "1 open") == f"a-A-1-{anchors[2].removeprefix('t-')}"


def test_an_event_without_a_date_shows_its_first_publication(weekend_site: SampleSite) -> None:
    index = (weekend_site.site / "index.html").read_text()
    rows = re.findall(r"<tr><td>([^<]*)</td><th scope=\"row\"><a href=\"([^\"]+)\">", index)
    assert len(rows) == 4 and all(date for date, _ in rows)
    # The Riverside file names no date; its results were published on the Friday evening.
    assert ("2026-11-20", "e-riverside-pairs-2026-11-20/index.html") in rows


def test_every_page_of_the_weekend_names_a_usebio_pair_once(weekend_site: SampleSite) -> None:
    pages = list(Path(weekend_site.site).rglob("*.html"))
    text = "".join(p.read_text() for p in pages)
    assert "NILS KRAL" not in text and "Nils Kral – Yusuf Moreau" in text


def test_a_table_id_made_of_the_pairs_is_not_said_again(weekend_site: SampleSite) -> None:
    """The Hillside USEBIO file names no table: its ids are `<ns>-<ew>` (`1NS-1EW`), which the NS and EW
    columns already say; the table's cell is left empty, the row still anchored by that id."""
    html = (weekend_site.site / "e-hillside-pairs-2026-11-20" / "s-1" / "board-1.html").read_text()
    rows = re.findall(r'<tr id="(t-[^"]+)"[^>]*><th scope="row" class="opt"><bdi>([^<]*)</bdi></th>', html)
    assert ("t-1NS-1EW", "") in rows and all(shown == "" for _, shown in rows)
    national = (weekend_site.site / "e-national-pairs-2026" / "s-1" / "board-A-1.html").read_text()
    assert '<tr id="t-1"><th scope="row" class="opt"><bdi>1</bdi></th>' in national  # a table the file names
