"""CSV travellers as spreadsheets save them (issue #36 item 14): the encoding and the separator are
named when a file is refused, and a quoted cell may hold a line break."""

from __future__ import annotations

import pytest

from parsers.csv import loads
from tests.conftest import SAMPLE_DATA

TRAVELLER = (SAMPLE_DATA / "club_championship_traveller.csv").read_text(encoding="utf-8")
ROWS = TRAVELLER.count("\n") - 1


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "utf-16-be", "utf-32"])
def test_a_utf16_or_utf32_file_is_read_and_said_to_be(encoding: str) -> None:
    parsed = loads(TRAVELLER.encode(encoding), source="unicode.csv")
    assert len(parsed.results) + len(parsed.artificial) == ROWS
    name = encoding[:6].upper()
    [note] = parsed.diagnostics
    assert (note.code, note.severity) == (f"csv.encoding.{name.lower().replace('-', '')}", "warning")
    assert note.message == f"the file is {name}, not UTF-8; read as {name}"
    assert parsed.results == loads(TRAVELLER.encode(), source="unicode.csv").results


@pytest.mark.parametrize(("separator", "named"), [(";", "';'"), ("\t", "tabs")])
def test_a_file_separated_by_something_else_is_refused_naming_it(separator: str, named: str) -> None:
    parsed = loads(TRAVELLER.replace(",", separator).encode(), source="semi.csv")
    assert parsed.results == () and parsed.artificial == ()
    [error] = parsed.errors
    assert (error.line, error.column, error.code) == (1, 1, "csv.header.separator")
    assert error.message.startswith(f"the header's cells are separated by {named} (read as UTF-8), not by ','")


def test_excel_unicode_text_names_both_encoding_and_separator() -> None:
    parsed = loads(TRAVELLER.replace(",", "\t").encode("utf-16"), source="excel.txt.csv")
    assert [d.code for d in parsed.diagnostics] == ["csv.encoding.utf16", "csv.header.separator"]
    assert "separated by tabs (read as UTF-16)" in parsed.errors[0].message


def test_a_header_lacking_a_column_says_how_it_was_read() -> None:
    parsed = loads(("evnt" + TRAVELLER.removeprefix("event")).encode("cp1252") + b"\xe9\n", source="typo.csv")
    [error] = parsed.errors
    assert error.code == "csv.header.missing-column"
    assert error.message.startswith("the header lacks event; expected event,session,")
    assert "(read as Windows-1252, separated by ','" in error.message


def _with_players(cells: dict[int, str]) -> str:
    lines = TRAVELLER.rstrip("\n").split("\n")
    lines[0] += ",ns_players"
    for number in range(1, len(lines)):
        lines[number] += "," + cells.get(number, "")
    return "\n".join(lines) + "\n"


def test_a_quoted_cell_with_a_line_break_stays_in_its_row() -> None:
    text = _with_players({1: '"Anna Nowak [1041];\r\nJan Nowak"', 2: '"Ola ""Kot"" Lis"'})
    parsed = loads(text.encode(), source="quoted.csv")
    assert parsed.diagnostics == () and parsed.quarantined == 0
    assert len(parsed.results) + len(parsed.artificial) == ROWS
    first, second = parsed.results[0], parsed.results[1]
    assert [(p.name, p.federation_id) for p in first.ns_players] == [("Anna Nowak", "1041"), ("Jan Nowak", None)]
    assert [p.name for p in second.ns_players] == ['Ola "Kot" Lis']
    assert (first.at.line, second.at.line, parsed.results[2].at.line) == (2, 4, 5)  # the row after counts on


def test_a_quote_never_closed_spoils_its_own_row_only() -> None:
    text = _with_players({3: '"Anna Nowak'})
    parsed = loads(text.encode(), source="open.csv")
    assert parsed.quarantined == 1 and len(parsed.results) + len(parsed.artificial) == ROWS - 1
    [error] = parsed.errors
    assert (error.line, error.code) == (4, "csv.row.quote")
    assert error.column == len(TRAVELLER.split("\n")[3]) + 2  # where the open cell starts
    assert error.message == "a quoted cell is not closed within 20 lines; row left out"


def test_a_semicolon_in_a_name_is_written_escaped_and_more_than_a_pair_is_refused() -> None:
    """`;` separates the pair's two players; `\\;` is a `;` in a name (issue #34, item 9); a cell that
    reads as three players is refused where it stands, never taken as three people."""
    text = _with_players({1: r"Anna\; Maria Nowak [1041]; Jan Nowak", 3: "Anna; Maria; Nowak"})
    parsed = loads(text.encode(), source="names.csv")
    assert [(p.name, p.federation_id) for p in parsed.results[0].ns_players] == [
        ("Anna; Maria Nowak", "1041"), ("Jan Nowak", None)]
    assert parsed.quarantined == 1 and len(parsed.results) + len(parsed.artificial) == ROWS - 1
    [error] = parsed.errors
    assert (error.source, error.line, error.code) == ("names.csv", 4, "csv.row.ns_players")
    assert error.column == len(TRAVELLER.split("\n")[3]) + 2  # the ns_players cell
    assert error.message.startswith("ns_players names 3 players ('Anna'; 'Maria'; 'Nowak') but a pair is at most 2: "
                                    "';' separates the pair's players; write a ';' inside a name as '\\;'")
