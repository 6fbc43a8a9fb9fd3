"""Hostile, broken and unusual USEBIO: refused entities, truncation, size bound, quirks of other exporters."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from models.cards import Seat
from models.contract import Contract, Strain
from models.diagnostics import Severity
from models.events import Player
from parsers import usebio
from parsers.records import ParsedFile
from parsers.usebio import reader as usebio_reader
from parsers.usebio import tree as usebio_xml
from tests.conftest import examples

from .conftest import CORPUS

MITCHELL = (CORPUS / "usebio" / "abf_mp_pairs_mitchell.xml").read_bytes()


def _codes(parsed: ParsedFile) -> list[str]:
    return [d.code for d in parsed.diagnostics]


def _usebio(event: str, body: str, attrs: str = ' EVENT_TYPE="MP_PAIRS"', tail: str = "") -> str:
    return (f'<?xml version="1.0"?>\n<USEBIO Version="1.2">\n<EVENT{attrs}>\n{event}\n{body}\n</EVENT>\n'
            f"{tail}</USEBIO>\n")


def _line(ns: str, ew: str, contract: str = "4S", by: str = "N", tricks: str = "10", score: str = "420",
          extra: str = "") -> str:
    return (f"<TRAVELLER_LINE><NS_PAIR_NUMBER>{ns}</NS_PAIR_NUMBER><EW_PAIR_NUMBER>{ew}</EW_PAIR_NUMBER>"
            f"<CONTRACT>{contract}</CONTRACT><PLAYED_BY>{by}</PLAYED_BY><TRICKS>{tricks}</TRICKS>"
            f"<SCORE>{score}</SCORE>{extra}</TRAVELLER_LINE>")


def _pair(number: str, direction: str, *names: str) -> str:
    players = "".join(f"<PLAYER><PLAYER_NAME>{n}</PLAYER_NAME></PLAYER>" for n in names)
    return f"<PAIR><PAIR_NUMBER>{number}</PAIR_NUMBER><DIRECTION>{direction}</DIRECTION>{players}</PAIR>"


BILLION_LAUGHS = b"""<?xml version="1.0"?>
<!DOCTYPE USEBIO [
 <!ENTITY lol "lol">
 <!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
]>
<USEBIO Version="1.2"><EVENT EVENT_TYPE="MP_PAIRS"><TITLE>&lol3;</TITLE></EVENT></USEBIO>
"""
EXTERNAL_ENTITY = b"""<?xml version="1.0"?>
<!DOCTYPE USEBIO [<!ENTITY secret SYSTEM "file:///etc/passwd">]>
<USEBIO Version="1.2"><EVENT EVENT_TYPE="MP_PAIRS"><TITLE>&secret;</TITLE></EVENT></USEBIO>
"""
EXTERNAL_PARAMETER = b"""<?xml version="1.0"?>
<!DOCTYPE USEBIO [<!ENTITY % remote SYSTEM "http://example.invalid/evil.dtd"> %remote;]>
<USEBIO Version="1.2"/>
"""


@pytest.mark.parametrize("data", [BILLION_LAUGHS, EXTERNAL_ENTITY, EXTERNAL_PARAMETER])
def test_entities_are_refused_with_a_diagnostic(data: bytes) -> None:
    parsed = usebio.loads(data, source="evil.xml")
    (error,) = parsed.errors
    assert error.code == "usebio.xml.forbidden" and error.source == "evil.xml" and error.line >= 1
    assert parsed.results == () and parsed.contestants == () and parsed.metadata.event_name is None


def test_the_dtd_named_by_doctype_is_not_fetched_and_does_not_matter() -> None:
    parsed = usebio.loads(MITCHELL)
    assert parsed.diagnostics == () and len(parsed.results) == 512


def test_input_size_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(usebio_xml, "MAX_BYTES", 1000)
    parsed = usebio.loads(MITCHELL)
    assert _codes(parsed) == ["usebio.xml.too-large"] and parsed.results == ()


def test_truncated_file_keeps_what_was_complete() -> None:
    cut = MITCHELL[:60_000]
    parsed = usebio.loads(cut)
    malformed = [d for d in parsed.diagnostics if d.code == "usebio.xml.malformed"]
    assert len(malformed) == 1 and malformed[0].line > 1000 and malformed[0].column >= 1
    full = usebio.loads(MITCHELL)
    assert len(parsed.contestants) == 38 and 0 < len(parsed.results) < 512
    assert parsed.results == full.results[:len(parsed.results)]
    assert "usebio.xml.incomplete-record" in _codes(parsed) and parsed.quarantined == 1


@pytest.mark.parametrize("data", [b"", b"garbage", b"<USEBIO><EVENT>", "<USEBIO>\u00e9</USEBIO"])
def test_garbage_gives_a_positioned_error(data: bytes | str) -> None:
    parsed = usebio.loads(data)
    assert parsed.errors and parsed.errors[0].line >= 1


def test_missing_file(tmp_path: Path) -> None:
    assert _codes(usebio.load(tmp_path / "none.xml")) == ["usebio.file.unreadable"]


def test_text_input_with_a_declared_latin1_encoding() -> None:
    text = _usebio("<EVENT_DESCRIPTION>Café</EVENT_DESCRIPTION>", "").replace(
        '<?xml version="1.0"?>', '<?xml version="1.0" encoding="ISO-8859-1"?>')
    assert usebio.loads(text).metadata.event_name == "Café"
    assert usebio.loads(text.encode("latin-1")).metadata.event_name == "Café"


def test_undeclared_cp1252_bytes_are_read_with_a_warning() -> None:
    raw = _usebio("<EVENT_DESCRIPTION>Café</EVENT_DESCRIPTION>", "").encode("cp1252")
    parsed = usebio.loads(raw)
    assert parsed.metadata.event_name == "Café" and _codes(parsed) == ["usebio.encoding.encoding"]


def test_event_type_as_element_and_dash_date_and_bare_mitchell_numbers() -> None:
    participants = ("<PARTICIPANTS>" + _pair("1NS", "NS", "Ann", "Bob") + _pair("1EW", "EW", "Cy", "Di")
                    + "</PARTICIPANTS>")
    board = f"<BOARD><BOARD_NUMBER>3</BOARD_NUMBER>{_line('1', '1', '3NT', 'S', '9', '600')}</BOARD>"
    text = _usebio("<EVENT_TYPE>MP_PAIRS</EVENT_TYPE><DATE>05-09-2023</DATE>" + participants, board, attrs="")
    parsed = usebio.loads(text)
    assert parsed.metadata.scoring == "MP_PAIRS" and parsed.metadata.event_date == date(2023, 9, 5)
    assert parsed.metadata.field_layout == "two_field"
    (result,) = parsed.results
    assert (result.ns_id, result.ew_id) == ("1NS", "1EW")
    assert _codes(parsed) == ["usebio.traveller.pair-number-completed"]
    assert parsed.diagnostics[0].severity is Severity.INFO
    assert parsed.contestants[1].players == (Player(name="Cy"), Player(name="Di"))
    assert parsed.boards[0].board == 3 and parsed.boards[0].deal is None


def test_lines_that_cannot_be_trusted_are_quarantined() -> None:
    board = ("<BOARD><BOARD_NUMBER>1</BOARD_NUMBER>"
             + _line("1", "2")
             + _line("3", "4", contract="")
             + _line("5", "6", tricks="14")
             + _line("7", "8", contract="9Z")
             + _line("9", "10", extra="<LEAD>ZZ</LEAD>")
             + "</BOARD>")
    parsed = usebio.loads(_usebio("", board))
    assert [(r.ns_id, r.lead) for r in parsed.results] == [("1", None), ("9", None)]
    assert parsed.quarantined == 3
    assert _codes(parsed) == ["usebio.traveller.no-contract", "usebio.traveller.bad-tricks",
                              "usebio.traveller.bad-contract", "usebio.traveller.bad-lead"]
    assert [d.record for d in parsed.errors] == [2, 3, 4]


def test_strict_mode_quarantines_warnings_too() -> None:
    board = "<BOARD><BOARD_NUMBER>1</BOARD_NUMBER>" + _line("1", "2", extra="<LEAD>ZZ</LEAD>") + "</BOARD>"
    assert len(usebio.loads(_usebio("", board)).results) == 1
    strict = usebio.loads(_usebio("", board), strict=True)
    assert strict.results == () and strict.quarantined == 1


def test_ns_ew_scores_rank_first_leads_and_artificial_percentages() -> None:
    board = ("<BOARD><BOARD_NUMBER>2</BOARD_NUMBER>"
             "<TRAVELLER_LINE><NS_PAIR_NUMBER>1</NS_PAIR_NUMBER><EW_PAIR_NUMBER>2</EW_PAIR_NUMBER>"
             "<CONTRACT>2HX</CONTRACT><PLAYED_BY>West</PLAYED_BY><LEAD>10S</LEAD><TRICKS>7</TRICKS>"
             "<NS_SCORE>300</NS_SCORE><EW_SCORE></EW_SCORE></TRAVELLER_LINE>"
             "<TRAVELLER_LINE><NS_PAIR_NUMBER>3</NS_PAIR_NUMBER><EW_PAIR_NUMBER>4</EW_PAIR_NUMBER>"
             "<SCORE>A4555</SCORE><CONTRACT></CONTRACT><TRICKS></TRICKS></TRAVELLER_LINE>"
             "</BOARD>")
    parsed = usebio.loads(_usebio("", board))
    (result,) = parsed.results
    assert result.contract == Contract.parse("2HX", "W") and str(result.lead) == "ST"
    assert result.published == {"score_ns": 300.0}
    (artificial,) = parsed.artificial
    assert (artificial.ns_award, artificial.ew_award) == (45.0, 55.0)


def test_sessions_and_sections() -> None:
    body = ("<SESSION><SESSION_ID>2</SESSION_ID>"
            "<SECTION><SECTION_ID>A</SECTION_ID><BOARD><BOARD_NUMBER>1</BOARD_NUMBER>" + _line("1", "2")
            + "</BOARD></SECTION>"
            "<SECTION><SECTION_ID>B</SECTION_ID><BOARD><BOARD_NUMBER>1</BOARD_NUMBER>" + _line("1", "2", tricks="9",
                                                                                              score="-50")
            + "</BOARD></SECTION></SESSION>")
    parsed = usebio.loads(_usebio("", body))
    assert [(r.section, r.tricks) for r in parsed.results] == [("A", 10), ("B", 9)]
    assert [(b.section, b.board) for b in parsed.boards] == [("A", 1), ("B", 1)]
    assert parsed.metadata.session_id == "2"


def test_team_match_lines_name_the_teams_by_direction() -> None:
    participants = ("<PARTICIPANTS><TEAM><TEAM_ID>5</TEAM_ID><TEAM_NAME>Sharks</TEAM_NAME>"
                    "<PLAYER><PLAYER_NAME>A</PLAYER_NAME></PLAYER><TEAM_SCORE>12.5</TEAM_SCORE></TEAM>"
                    "<TEAM><TEAM_ID>6</TEAM_ID><TEAM_NAME>Jets</TEAM_NAME></TEAM></PARTICIPANTS>")
    match = ("<MATCH><ROUND_NUMBER>3</ROUND_NUMBER><TEAM>5</TEAM><OPPOSING_TEAM>6</OPPOSING_TEAM>"
             "<BOARD><BOARD_NUMBER>7</BOARD_NUMBER>"
             "<TRAVELLER_LINE><DIRECTION>NS</DIRECTION><CONTRACT>3NT</CONTRACT><PLAYED_BY>S</PLAYED_BY>"
             "<TRICKS>9</TRICKS><SCORE>400</SCORE></TRAVELLER_LINE>"
             "<TRAVELLER_LINE><DIRECTION>EW</DIRECTION><CONTRACT>3NT</CONTRACT><PLAYED_BY>N</PLAYED_BY>"
             "<TRICKS>8</TRICKS><SCORE>-50</SCORE></TRAVELLER_LINE></BOARD></MATCH>")
    parsed = usebio.loads(_usebio(participants, match, attrs=' EVENT_TYPE="SWISS_TEAMS"'))
    assert [(c.contestant_id, c.kind, c.name, c.published) for c in parsed.contestants] == [
        ("5", "team", "Sharks", {"total": 12.5}), ("6", "team", "Jets", {})]
    first, second = parsed.results
    assert (first.ns_id, first.ew_id, first.room, first.round, first.table_id) == ("5", "6", "open", 3, "3-open")
    assert (second.ns_id, second.ew_id, second.room, second.table_id) == ("6", "5", "closed", "3-closed")
    assert second.contract == Contract(level=3, strain=Strain.NT, declarer=Seat.N)


def test_impossible_hand_record_is_quarantined() -> None:
    hands = "".join(f"<HAND><DIRECTION>{d}</DIRECTION><SPADES>AKQJT98765432</SPADES></HAND>"
                    for d in ("North", "South"))
    parsed = usebio.loads(_usebio("", "", tail=f"<HANDSET><BOARD><BOARD_NUMBER>1</BOARD_NUMBER>{hands}"
                                                 "</BOARD></HANDSET>\n"))
    assert parsed.boards == () and parsed.quarantined == 1 and "usebio.hand.bad-deal" in _codes(parsed)


def test_three_hands_give_the_fourth() -> None:
    cards = {"North": ("AKQJ", "AKQ", "AKQ", "AKQ"), "East": ("T987", "JT9", "JT9", "JT9"),
             "South": ("65432", "876", "87", "876")}
    hands = "".join(f"<HAND><DIRECTION>{d}</DIRECTION><SPADES>{s}</SPADES><HEARTS>{h}</HEARTS>"
                    f"<DIAMONDS>{di}</DIAMONDS><CLUBS>{c}</CLUBS></HAND>" for d, (s, h, di, c) in cards.items())
    parsed = usebio.loads(_usebio("", "", tail=f"<HANDSET><BOARD><BOARD_NUMBER>4</BOARD_NUMBER>{hands}"
                                                 "</BOARD></HANDSET>\n"))
    (board,) = parsed.boards
    assert board.deal is not None and board.deal.is_complete
    assert board.deal.west is not None and board.deal.west.to_pbn() == ".5432.65432.5432"


@settings(max_examples=examples(150), deadline=None)
@given(st.data())
def test_mutated_usebio_never_raises(data: st.DataObject) -> None:
    text = MITCHELL[:20_000].decode()
    for _ in range(data.draw(st.integers(1, 5))):
        at = data.draw(st.integers(0, len(text)))
        cut = data.draw(st.integers(0, 30))
        insert = data.draw(st.sampled_from(["", "<", ">", "</PAIR>", "<TRAVELLER_LINE>", "&lol;", "A6040", "x"]))
        text = text[:at] + insert + text[at + cut:]
    parsed = usebio.loads(text, strict=data.draw(st.booleans()))
    assert "usebio.reader.internal-error" not in _codes(parsed)


def test_a_reader_bug_becomes_a_diagnostic_not_a_traceback(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(self: object, root: object, truncated: bool) -> None:
        raise RuntimeError("bug")

    monkeypatch.setattr(usebio_reader._Reader, "read", broken)
    assert _codes(usebio.loads(MITCHELL)) == ["usebio.reader.internal-error"]
