"""Hostile input for the four readers and the ingest path: nothing escapes, nothing is lost at 0:0.

Numbers are read by one grammar (`parsers.numbers`): Unicode digits, numbers over Python's
4,300-digit limit or over 2^63 are positioned diagnostics, never exceptions. A fuzz budget runs
the same checks `scripts/fuzz_readers.py` runs at length.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from parsers.numbers import whole_number
from pipelines.files.ingest import IngestRejected, ingest_bytes, parse_bytes, read_columnar
from pipelines.log.store import EventStore
from tests.conftest import CORPUS, RECORDED_AT, SAMPLE_DATA, examples

CATCH_ALL = {"pbn.internal", "lin.reader.internal-error", "usebio.reader.internal-error"}
SEEDS = {
    ".csv": (SAMPLE_DATA / "club_championship_traveller.csv").read_bytes(),
    ".pbn": (SAMPLE_DATA / "club_championship_handrecord.pbn").read_bytes(),
    ".lin": (CORPUS / "lin" / "bbo_28189410_claim.lin").read_bytes(),
    ".xml": (CORPUS / "usebio" / "abf_mp_pairs_mitchell_03.xml").read_bytes(),
}
HOSTILE_NUMBERS = ["1" + "0" * 30, "\u00b2", "\u0661", "9" * 5000, str(2**63)]


def with_board(suffix: str, number: str) -> bytes:
    """The seed of `suffix` with its first board number replaced by `number`."""
    text = SEEDS[suffix].decode("utf-8", "replace")
    if suffix == ".csv":
        lines = text.split("\n")
        cells = lines[1].split(",")
        cells[2] = number
        lines[1] = ",".join(cells)
        changed = "\n".join(lines)
    else:
        pattern, replacement = {
            ".pbn": (r'\[Board "\d+"\]', f'[Board "{number}"]'),
            ".lin": (r"ah\|Board \d+\|", f"ah|Board {number}|"),
            ".xml": (r"<BOARD_NUMBER>\d+</BOARD_NUMBER>", f"<BOARD_NUMBER>{number}</BOARD_NUMBER>"),
        }[suffix]
        changed = re.sub(pattern, lambda _: replacement, text, count=1)
    assert changed != text
    return changed.encode()


class _Caught(logging.Handler):
    """Exceptions a reader caught and logged (a fast path logs its own bugs and declines)."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        if record.exc_info:
            self.messages.append(self.format(record))


def assert_read_whole(data: bytes, source: str) -> None:
    """Both reading paths return, no diagnostic is a catch-all that lost the file, and no reader
    caught and logged an exception of its own."""
    caught = _Caught()
    logging.getLogger().addHandler(caught)
    try:
        for read in (parse_bytes, read_columnar):
            parsed = read(data, source)
            lost = [d for d in parsed.diagnostics if d.code in CATCH_ALL]
            assert not lost, lost
    finally:
        logging.getLogger().removeHandler(caught)
    assert not caught.messages, caught.messages[0]


def test_a_pbn_cut_inside_a_long_tag_name_is_read_whole() -> None:
    # The fast path's uniform-tags check gathered the byte after each name's ` "`: past the end of
    # the text when the file stops inside a long name (found by the long fuzz run).
    game = '[Event "e"]\n[Board "{}"]\n[Dealer "N"]\n'
    table = '[OptimumResultTable "Declarer;Denomination\\2R;Result\\2R"]\nN S 9\n\n'
    data = (game.format(1) + table + game.format(2) + "[Opt").encode()
    assert_read_whole(data, "cut.pbn")
    parsed = parse_bytes(data, "cut.pbn")
    assert [b.board for b in parsed.boards] == [1]
    assert [(d.line, d.column, d.code) for d in parsed.errors] == [(10, 1, "pbn.syntax.tag")]


def test_a_table_tag_carried_by_sticky_inheritance_is_read_whole() -> None:
    # A `##` value carries a tag into later games that have no section of it: finding the lines of
    # its (empty) table ran off the game's layout (found by the long fuzz run).
    data = (b'[Event "e"]\n[Board "1"]\n[TotalScoreTable "##Rank;PairId"]\n\n'
            b'[Event "e"]\n[Board "2"]\n')
    assert_read_whole(data, "sticky.pbn")
    parsed = parse_bytes(data, "sticky.pbn")
    assert [d.code for d in parsed.errors] == []
    assert parsed.contestants == ()


def test_an_optimum_result_table_with_unicode_digits_is_a_warning() -> None:
    superscript_three = "\u00b3"
    rows = "".join(f"{seat} {strain} {superscript_three if (seat, strain) == ('N', 'S') else '7'}\n"
                   for seat in "NESW" for strain in ("S", "H", "D", "C", "NT"))
    data = ('[Event "e"]\n[Board "1"]\n[Dealer "N"]\n[Vulnerable "None"]\n'
            '[Deal "N:AKQJ.T98.765.432 T98.765.432.AKQJ 765.432.AKQJ.T98 432.AKQJ.T98.765"]\n'
            '[OptimumResultTable "Declarer;Denomination\\2R;Result\\2R"]\n' + rows).encode()
    assert_read_whole(data, "dd.pbn")
    parsed = parse_bytes(data, "dd.pbn")
    [warning] = [d for d in parsed.diagnostics if d.code == "pbn.table.optimum-result"]
    assert (warning.line, warning.severity) == (7, "warning")
    assert "row N S \u00b3" in warning.message
    assert "dd_tricks" not in parsed.boards[0].published


def test_the_lin_fast_path_windows_starts_in_any_order() -> None:
    # Blocks without a player list put zeros among the names' starts (found by the long fuzz run).
    from parsers.lin.fast_bytes import window

    raw = np.frombuffer(b"abcdefghij", dtype=np.uint8)
    rows = window(raw, np.array([8, 0, 9, 1]), 4)
    assert [bytes(row) for row in rows] == [b"ij\0\0", b"abcd", b"j\0\0\0", b"bcde"]


def test_one_number_grammar() -> None:
    assert whole_number("12") == 12
    assert whole_number(" 7 ") == 7
    for text in ("\u00b2", "\u0661", "9" * 5000, str(2**63), "1" + "0" * 30, "", "-1", "+3", "1.0", "1e3"):
        assert whole_number(text) is None, text
    assert whole_number("0", low=1) is None
    assert whole_number("14", high=13) is None


@pytest.mark.parametrize("suffix", sorted(SEEDS))
@pytest.mark.parametrize("number", HOSTILE_NUMBERS, ids=["1e30", "superscript", "arabic", "5000-digits", "2^63"])
def test_hostile_board_numbers_are_positioned_diagnostics(suffix: str, number: str) -> None:
    data = with_board(suffix, number)
    source = f"hostile{suffix}"
    assert_read_whole(data, source)
    parsed = parse_bytes(data, source)
    before = {(d.line, d.code) for d in parse_bytes(SEEDS[suffix], source).diagnostics}
    new = [d for d in parsed.diagnostics if (d.line, d.code) not in before]
    assert new, f"{number[:8]!r} was read as a board number in {suffix}"
    assert all(d.line >= 1 for d in new), new
    assert all(len(d.message) < 400 for d in new), "a diagnostic quotes the whole hostile value"
    numbers = {b.board for b in parsed.boards} | {r.board for r in parsed.results}
    assert max(numbers, default=0) < 10**9


@pytest.mark.parametrize("suffix", sorted(SEEDS))
def test_a_hostile_board_does_not_stop_a_multi_file_ingest(tmp_path: Path, suffix: str) -> None:
    store = EventStore(tmp_path / "events.duckdb")
    hostile = with_board(suffix, "1" + "0" * 30)
    with contextlib.suppress(IngestRejected):  # refused whole with its diagnostics is fine; a crash is not
        ingest_bytes(store, hostile, source=f"hostile{suffix}", recorded_at=RECORDED_AT)
    report = ingest_bytes(store, SEEDS[".csv"], source="after.csv", recorded_at=RECORDED_AT)
    assert report.events > 0


def test_csv_field_over_128_kib_is_a_diagnostic_not_a_crash() -> None:
    header = b"event,session,board,section,table,ns,ew,contract,declarer,result," + b"x" * 200_000 + b"\n"
    parsed = parse_bytes(header + b"e,1,1,A,1,1,1,3NT,N,9,\n", "wide.csv")
    assert parsed.results or parsed.diagnostics
    row = b"event,session,board,section,table,ns,ew,contract,declarer,result\ne,1,1,A,1,1,1,3NT,N,9" + \
        b"z" * 200_000 + b"\n"
    parsed = parse_bytes(row, "wide-row.csv")
    assert [d.line for d in parsed.diagnostics] == [2]


@pytest.mark.parametrize("separator", ["\x0c", "\u2028", "\x1c", "\x85"])
def test_csv_line_numbers_count_only_real_line_breaks(separator: str) -> None:
    text = ("event,session,board,section,table,ns,ew,contract,declarer,result\n"
            f"e,1,1,A,1,1,2,3NT,N,9 {separator}x\n"
            "e,1,2,A,1,1,2,3NT,N,nine\n")
    parsed = parse_bytes(text.encode(), "breaks.csv")
    assert [(d.line, d.code) for d in parsed.diagnostics if d.code == "csv.row.result"][-1] == (3, "csv.row.result")


MUTATION = st.lists(st.tuples(st.integers(0, 10**9), st.sampled_from(
    [b"\xc2\xb2", "\u0661".encode(), b"9" * 5000, str(2**63).encode(), b"|" * 300, b"[/x]", b"\x00", b"\x0c",
     "\u2028".encode(), b'"', b"]", b"<", b"&", b"nan", b"", b"1" + b"0" * 30]), st.integers(0, 50)),
    min_size=1, max_size=4)


def _mutate(data: bytes, edits: list[tuple[int, bytes, int]]) -> bytes:
    out = bytearray(data)
    for at, insert, cut in edits:
        where = at % (len(out) + 1)
        out[where:where + cut] = insert
    return bytes(out)


@pytest.mark.parametrize("suffix", sorted(SEEDS))
@settings(max_examples=examples(25), deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(edits=MUTATION)
def test_fuzzed_files_never_escape_a_reader(suffix: str, edits: list[tuple[int, bytes, int]]) -> None:
    assert_read_whole(_mutate(SEEDS[suffix], edits), f"fuzz{suffix}")


@settings(max_examples=examples(6), deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(suffix=st.sampled_from(sorted(SEEDS)), edits=MUTATION)
def test_fuzzed_files_never_escape_ingest(tmp_path: Path, suffix: str, edits: list[tuple[int, bytes, int]]) -> None:
    store = EventStore(tmp_path / f"fuzz-{abs(hash((suffix, tuple(edits))))}.duckdb")
    with contextlib.suppress(IngestRejected):
        ingest_bytes(store, _mutate(SEEDS[suffix], edits), source=f"fuzz{suffix}", recorded_at=RECORDED_AT)


def test_a_run_of_separators_is_summarised_not_listed(tmp_path: Path) -> None:
    data = SEEDS[".lin"] + b"|" * 200_000
    report = ingest_bytes(EventStore(tmp_path / "events.duckdb"), data, source="pipes.lin", recorded_at=RECORDED_AT)
    assert report.events > 0
    # One diagnostic for the run, positioned at its first `|`, naming how many there were.
    [run] = [d for d in report.diagnostics if d.code == "lin.syntax.stray-separator"]
    assert "200000 extra '|' in a row" in run.message
    assert run.line >= 1
    assert not [d for d in report.diagnostics if d.code == "diagnostics.more"]


def test_diagnostics_are_capped_per_code_for_every_reader() -> None:
    rows = "".join(f"e,1,{n},A,1,1,2,3NT,N,nine\n" for n in range(1, 400))
    parsed = parse_bytes(("event,session,board,section,table,ns,ew,contract,declarer,result\n" + rows).encode(),
                         "many.csv")
    assert parsed.quarantined == 399
    assert [d.code for d in parsed.diagnostics].count("csv.row.result") == 50
    [more] = [d for d in parsed.diagnostics if d.code == "diagnostics.more"]
    assert (more.line, more.message) == (52, "349 more [csv.row.result] from here to line 400 are not listed")


@pytest.mark.parametrize("suffix", sorted(SEEDS))
def test_every_format_has_a_size_limit(suffix: str) -> None:
    from parsers.formats import READERS

    data = SEEDS[suffix] + b" " * (READERS[suffix].max_bytes - len(SEEDS[suffix]) + 1)
    for read in (parse_bytes, read_columnar):
        parsed = read(data, f"huge{suffix}")
        assert [d.code for d in parsed.diagnostics] == ["ingest.format"]
        assert "bytes are read" in parsed.diagnostics[0].message


@pytest.mark.parametrize("suffix", [".pbn", ".lin"])
@pytest.mark.parametrize("number", [*HOSTILE_NUMBERS, "0", "999999999", "1000000000"])
def test_fast_paths_decline_or_agree_on_hostile_numbers(suffix: str, number: str) -> None:
    from parsers import lin, pbn
    from parsers.columnar import assert_same, columnar_from_parsed

    reader = pbn if suffix == ".pbn" else lin
    data = with_board(suffix, number)
    fast = reader.loads_columnar(data, source=f"t{suffix}")
    if fast is not None:
        assert_same(fast, columnar_from_parsed(reader.loads(data, source=f"t{suffix}")))


SMALL_FILES = [SAMPLE_DATA / "club_championship_traveller.csv", SAMPLE_DATA / "club_championship_handrecord.pbn",
               *sorted((CORPUS / "pbn").glob("*.pbn"), key=lambda p: p.stat().st_size)[:2],
               *sorted((CORPUS / "usebio").glob("*.xml"), key=lambda p: p.stat().st_size)[:2],
               *sorted((CORPUS / "lin").glob("*.lin"), key=lambda p: p.stat().st_size)[:2]]


@pytest.mark.parametrize("path", SMALL_FILES, ids=lambda p: p.name)
def test_any_number_in_a_file_replaced_by_a_hostile_one_is_read_whole(path: Path) -> None:
    text = path.read_bytes().decode("utf-8", "surrogateescape")
    numbers = list(re.finditer(r"[0-9]+", text[:20_000]))
    for found in numbers[:: max(1, len(numbers) // 12)][:12]:
        for hostile in ("9" * 5000, "1" + "0" * 30, "\u00b2", "\u0661\u0662", str(2**63)):
            changed = text[:found.start()] + hostile + text[found.end():]
            assert_read_whole(changed.encode("utf-8", "surrogateescape"), f"numbers{path.suffix}")


def test_a_file_over_the_limit_is_refused_before_it_is_read(tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    from pipelines.files import ingest
    path = tmp_path / "big.csv"
    path.write_bytes(SEEDS[".csv"])
    small = dataclasses.replace(ingest.READERS[".csv"], max_bytes=1000)
    monkeypatch.setattr(ingest, "READERS", {**ingest.READERS, ".csv": small})
    monkeypatch.setattr(Path, "read_bytes", lambda self: pytest.fail(f"{self} was read"))
    with pytest.raises(IngestRejected, match="files of at most 1,000 bytes"):
        ingest.ingest_file(EventStore(tmp_path / "s.duckdb"), path, recorded_at=RECORDED_AT)
    assert [d.code for d in ingest.parse_path(path).diagnostics] == ["ingest.format"]


@pytest.mark.parametrize(("data", "source"), [
    (b'[Board "1"]\n\n' * 100_000, "boards-only.pbn"),
    (b'<USEBIO Version="3.0"><EVENT EVENT_TYPE="MP_PAIRS">' + b"<a>" * 100_000 + b"</a>" * 100_000
     + b"</EVENT></USEBIO>", "deep.xml"),
    (b"event,session,board,section,table,ns,ew,contract,declarer,result\n", "header-only.csv"),
])
def test_a_file_with_nothing_to_score_is_refused_saying_so(tmp_path: Path, data: bytes, source: str) -> None:
    # Issue #36 item 15: such files went in as `SourceFileIngested` with no diagnostic at all.
    store = EventStore(tmp_path / "events.duckdb")
    with pytest.raises(IngestRejected) as refused:
        ingest_bytes(store, data, source=source, recorded_at=RECORDED_AT)
    [said] = [d for d in refused.value.diagnostics if d.code == "ingest.no-data"]
    assert (said.source, said.line, said.column, said.severity) == (source, 1, 1, "error")
    assert "nothing in it can be scored" in said.message
    assert not store.exists() or store.head() == 0


def test_a_hand_record_without_results_still_goes_in(tmp_path: Path) -> None:
    data = SEEDS[".pbn"]
    report = ingest_bytes(EventStore(tmp_path / "events.duckdb"), data, source="hands.pbn", recorded_at=RECORDED_AT)
    assert report.counts["BoardDealt"] > 0
    assert not [d for d in report.diagnostics if d.code == "ingest.no-data"]
