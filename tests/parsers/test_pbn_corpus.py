"""Every PBN file of the corpus, read in lenient mode: counts, exact record values, metadata."""

from __future__ import annotations

from datetime import date

import pytest

import parsers.pbn as pbn
from models.board import Vulnerability
from models.cards import Seat
from models.contract import Doubling, Strain
from models.diagnostics import Severity
from parsers.records import ParsedFile
from tests.corpus import read
from tests.parsers.conftest import PBN, pbn_files

# boards, results, artificial, contestants, quarantined: counted from the files themselves.
# ffb séance 1: 660 ScoreTable rows = 656 results + 4 artificial ("A+"/"A-") rows; séance 5: 615 + 1.
# rpbridge: 7632 games, 3816 of them carry Board/Deal (the other room follows without them); the
# 128 board numbers are reused across matches with other deals, giving 2298 distinct board records.
# Games that name players but no pair (BBO exports, robots, the reference files) give pairs named by
# their players (issue #12): BEN plays every seat of camrose, so "BEN/BEN" is its one contestant.
EXPECTED = {
    "bbohelper_daylong_2024-06-02.pbn": (8, 8, 0, 2, 0),
    "ben_camrose2024_bc.pbn": (160, 157, 0, 1, 0),
    "bigdeal_pbn10.pbn": (14, 0, 0, 0, 0),
    "bridgecomposer_hand_trophy_pairs.pbn": (26, 0, 0, 0, 0),
    "bridgecomposer_latin1.pbn": (15, 0, 0, 0, 0),
    "bridgenz_hazlemere_trophy.pbn": (30, 0, 0, 0, 0),
    "bridgenz_wed_individual.pbn": (28, 0, 0, 0, 0),
    "endplay_eyc1998_export.pbn": (1, 2, 0, 2, 0),
    "endplay_realbridge_2021_teams.pbn": (10, 299, 0, 30, 0),
    "endplay_rpbridge_comments.pbn": (1, 1, 0, 2, 0),
    "endplay_rpbridge_wc2012_import.pbn": (2298, 7632, 0, 64, 0),
    "ffb_dn1_finale_2022_seance1.pbn": (30, 656, 4, 44, 0),
    "ffb_dn1_finale_2022_seance5.pbn": (28, 615, 1, 44, 0),
    "lintopbn_wbtc2015_swe_pol.pbn": (16, 32, 0, 2, 0),
    "pbnref_correct_10.pbn": (2, 2, 0, 2, 0),
    "pbnref_correct_20.pbn": (33, 4, 0, 10, 0),
    "pbnref_correct_21.pbn": (2, 1, 0, 2, 0),
    "pbnref_errors_10.pbn": (3, 9, 0, 4, 12),
    "pbnref_errors_20.pbn": (1, 0, 0, 3, 0),
    "pbnref_errors_21.pbn": (0, 0, 0, 0, 0),
    "pbnref_three_records_crlf.pbn": (3, 0, 0, 0, 0),
    "pbntools_bbo_aba_17901.pbn": (2, 56, 0, 57, 0),
    "pbntools_jfrpary_wb120802.pbn": (27, 216, 0, 17, 0),
    "ruter7_klubbkveld_2012_butler.pbn": (21, 168, 0, 16, 0),
    "schiphol_1995.pbn": (1, 1, 0, 2, 0),
}


@pytest.fixture(scope="module")
def parsed() -> dict[str, ParsedFile]:
    """Every corpus PBN file read once (lenient mode)."""
    return {path.name: read(path) for path in pbn_files()}


def test_every_corpus_file_is_listed() -> None:
    assert sorted(EXPECTED) == [p.name for p in pbn_files()]


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_counts(parsed: dict[str, ParsedFile], name: str) -> None:
    result = parsed[name]
    counts = (len(result.boards), len(result.results), len(result.artificial), len(result.contestants),
              result.quarantined)
    assert counts == EXPECTED[name]
    assert result.format == "pbn" and result.parser_version == pbn.PARSER_VERSION
    assert result.source == name
    assert not [d for d in result.diagnostics if d.code == "pbn.internal"]


@pytest.mark.parametrize("name", sorted(n for n in EXPECTED if not n.startswith("pbnref_errors")))
def test_real_files_have_no_errors_in_lenient_mode(parsed: dict[str, ParsedFile], name: str) -> None:
    assert parsed[name].errors == ()


def test_distinct_board_numbers_of_rpbridge(parsed: dict[str, ParsedFile]) -> None:
    result = parsed["endplay_rpbridge_wc2012_import.pbn"]
    assert len({b.board for b in result.boards}) == 128
    codes = {d.code for d in result.diagnostics}
    assert {"pbn.board.continued", "pbn.board.conflict", "pbn.date.partial"} <= codes


def test_every_record_revalidates(parsed: dict[str, ParsedFile]) -> None:
    """Records built without pydantic validation (for speed) are exactly what validation would build."""
    for name, result in parsed.items():
        if name == "endplay_rpbridge_wc2012_import.pbn":
            continue  # 10k records: the others cover every code path in far less time
        again = ParsedFile.model_validate(result.model_dump())
        assert again == result, name


def test_ffb_scoretable_row(parsed: dict[str, ParsedFile]) -> None:
    row = parsed["ffb_dn1_finale_2022_seance1.pbn"].results[0]
    assert (row.board, row.table_id, row.round, row.ns_id, row.ew_id) == (1, "3", 1, "3", "42")
    assert (row.contract.level, row.contract.strain, row.contract.declarer) == (4, Strain.S, Seat.S)
    assert row.tricks == 10 and str(row.lead) == "S9"
    assert row.published == {"score_ns": 420.0, "mp_ns": 28.3, "mp_ew": 13.7, "pct_ns": 67.0, "pct_ew": 33.0}
    assert row.at.line == 112 and row.at.record == 0


def test_ffb_score_on_ew_side_and_notrump_spelling(parsed: dict[str, ParsedFile]) -> None:
    results = parsed["ffb_dn1_finale_2022_seance1.pbn"].results
    three_nt = next(r for r in results if r.board == 1 and r.table_id == "6")
    assert str(three_nt.contract) == "3NT" and three_nt.tricks == 9 and str(three_nt.lead) == "D3"
    minus = next(r for r in results if r.board == 1 and r.table_id == "20")
    assert minus.published["score_ns"] == -50.0 and minus.published["mp_ns"] == 4.2
    notes = [d for d in parsed["ffb_dn1_finale_2022_seance1.pbn"].diagnostics if d.code == "pbn.contract.spelling"]
    assert len(notes) == 1 and notes[0].severity is Severity.INFO and "144 times" in notes[0].message


def test_ffb_artificial_rows(parsed: dict[str, ParsedFile]) -> None:
    rows = parsed["ffb_dn1_finale_2022_seance1.pbn"].artificial
    first = rows[0]
    assert (first.board, first.table_id, first.ns_id, first.ew_id) == (1, "16", "29", "16")
    assert (first.ns_award, first.ew_award) == ("A+", "A+")
    assert first.published == {"mp_ns": 25.2, "mp_ew": 25.2, "pct_ns": 60.0, "pct_ew": 60.0}
    split = next(a for a in rows if a.at.line == 661)
    assert (split.ns_award, split.ew_award, split.ns_id, split.ew_id) == ("A-", "A+", "1", "9")


def test_ffb_standings(parsed: dict[str, ParsedFile]) -> None:
    first = parsed["ffb_dn1_finale_2022_seance1.pbn"].contestants[0]
    assert (first.contestant_id, first.kind, first.direction) == ("7", "pair", "EW")
    assert first.name == "Philippe CHESNY - Rémi LEGRAS"
    assert [(p.name, p.federation_id) for p in first.players] == [("Philippe CHESNY", "00203787"),
                                                                   ("Rémi LEGRAS", "00835093")]
    assert first.published == {"rank": 1.0, "percentage": 61.21, "nr_boards": 30.0, "total": 771.2}
    fifth = parsed["ffb_dn1_finale_2022_seance5.pbn"].contestants[0]
    assert "session_total" in fifth.published and "session_percentage" in fifth.published


def test_ffb_metadata(parsed: dict[str, ParsedFile]) -> None:
    meta = parsed["ffb_dn1_finale_2022_seance1.pbn"].metadata
    assert meta.event_name == "Open /2 DN1 National Finale directe 21-22 - Séance 1"
    assert meta.event_date == date(2022, 2, 6)
    assert meta.site == "Fédération Française de Bridge"
    assert meta.scoring == "MatchPoints;MP1"
    assert meta.field_layout == "one_field"
    assert meta.program == "Magic Contest France 4.13.3.4"


def test_ruter_butler_row_and_standings(parsed: dict[str, ParsedFile]) -> None:
    result = parsed["ruter7_klubbkveld_2012_butler.pbn"]
    row = result.results[0]
    assert str(row.contract) == "1NT" and row.contract.declarer is Seat.N and row.tricks == 8
    assert row.published == {"score_ns": 120.0, "imp_ns": 5.0, "imp_ew": -5.0, "datum": -90.0}
    tied = next(c for c in result.contestants if c.contestant_id == "6")
    # Rank 4 with RankTie 5: the place pair 6 shares with the next pair, kept as the range.
    assert tied.direction == "NS" and tied.published == {"rank": "4-5", "nr_boards": 21.0, "total": 29.0}
    assert result.metadata.scoring == "IMP;Butler-2;Mean" and result.metadata.program == "Ruter i Norge 4.4"


def test_team_rooms_swap_home_and_visit(parsed: dict[str, ParsedFile]) -> None:
    open_room, closed_room = parsed["endplay_eyc1998_export.pbn"].results
    assert (open_room.table_id, open_room.room, open_room.ns_id, open_room.ew_id) == (
        "7-open", "open", "J-germany", "J-austria")
    assert (closed_room.table_id, closed_room.room, closed_room.ns_id, closed_room.ew_id) == (
        "7-closed", "closed", "J-austria", "J-germany")
    assert open_room.published == {"score_ns": -50.0} and closed_room.published == {"score_ns": 420.0}
    assert [str(c) for c in open_room.play] == ["DQ", "D3", "D4", "D2", "SK", "S2", "S4", "SJ",
                                                "DJ", "DT", "DK", "D7"]
    assert closed_room.auction == ("1NT", "Pass", "4C", "Pass", "4H", "Pass", "Pass", "Pass")
    assert {c.kind for c in parsed["endplay_eyc1998_export.pbn"].contestants} == {"team"}


def test_realbridge_teams_without_room(parsed: dict[str, ParsedFile]) -> None:
    first = parsed["endplay_realbridge_2021_teams.pbn"].results[0]
    assert (first.board, first.table_id, first.ns_id, first.ew_id) == (11, "11", "AUSTRIA", "DENMARK")
    assert first.contract.is_passed_out and first.tricks is None
    assert first.published == {"score_ns": 0.0, "imp_ns": 4.0, "imp_ew": -4.0}
    assert [p.name for p in first.ns_players] == ["Markus Knob#39415", "Clemens Wanha#184195"]


def test_one_game_per_table(parsed: dict[str, ParsedFile]) -> None:
    result = parsed["pbntools_jfrpary_wb120802.pbn"]
    second = result.results[1]
    assert (second.board, second.table_id, second.ns_id, second.ew_id) == (1, "2", "Para-3", "Para-4")
    assert str(second.contract) == "5D" and second.contract.declarer is Seat.N and second.tricks == 9
    assert sum(1 for r in result.results if r.contract.is_passed_out) == 2


def test_lintopbn_teams_given_once(parsed: dict[str, ParsedFile]) -> None:
    result = parsed["lintopbn_wbtc2015_swe_pol.pbn"]
    assert [(r.table_id, r.ns_id, r.ew_id) for r in result.results[:2]] == [
        ("open", "SWEDEN", "POLAND"), ("closed", "POLAND", "SWEDEN")]
    assert any(d.code == "pbn.tag.carried" for d in result.diagnostics)


def test_schiphol_played_order_and_lead(parsed: dict[str, ParsedFile]) -> None:
    game = parsed["schiphol_1995.pbn"].results[0]
    assert (str(game.contract), game.contract.declarer, game.tricks) == ("5HX", Seat.S, 9)
    assert game.contract.doubling is Doubling.X
    # Rows are in seat order from West; North ruffs the first trick and leads C2 to the second.
    assert [str(c) for c in game.play[:8]] == ["SK", "H3", "S4", "S3", "C2", "C6", "CK", "C5"]
    assert str(game.play[-1]) == "H2" and len(game.play) == 25 and str(game.lead) == "SK"


def test_bbo_helper_percentage_and_tabs(parsed: dict[str, ParsedFile]) -> None:
    first = parsed["bbohelper_daylong_2024-06-02.pbn"].results[0]
    assert first.published == {"score_ns": 50.0, "pct_ns": 51.32}
    assert first.auction[:4] == ("Pass", "1S", "Pass", "2C") and len(first.play) == 52


def test_empty_contract_is_a_hand_record_only(parsed: dict[str, ParsedFile]) -> None:
    result = parsed["ben_camrose2024_bc.pbn"]  # three boards: [Contract ""] after four passes
    assert {b.board for b in result.boards} - {r.board for r in result.results} == {99, 109, 144}
    assert result.metadata.event_name == "camrose24_1"  # from [Event "##camrose24_1"]
    without_tag = pbn.loads('[Board "5"]\n[Dealer "N"]\n[Auction "N"]\nPass Pass Pass Pass\n')
    assert [str(r.contract) for r in without_tag.results] == ["PASS"]
    assert [d.code for d in without_tag.diagnostics] == ["pbn.contract.from-auction"]


def test_dates_and_vulnerability_drift(parsed: dict[str, ParsedFile]) -> None:
    nz = parsed["bridgenz_hazlemere_trophy.pbn"]
    assert nz.metadata.event_date == date(2015, 10, 6)
    assert {(d.code, d.severity) for d in nz.diagnostics} == {
        ("pbn.date.spelling", Severity.WARNING), ("pbn.vulnerable.spelling", Severity.INFO)}
    assert nz.boards[0].vulnerability is Vulnerability.NONE
    assert {b.vulnerability for b in nz.boards} == set(Vulnerability)
    assert parsed["endplay_rpbridge_wc2012_import.pbn"].metadata.event_date is None
    assert parsed["pbntools_bbo_aba_17901.pbn"].metadata.event_date == date(2021, 4, 3)


def test_boards_keep_any_first_seat(parsed: dict[str, ParsedFile]) -> None:
    board = parsed["endplay_rpbridge_comments.pbn"].boards[0]
    assert board.deal is not None and board.deal.west is not None and board.deal.west.spades == ""
    assert board.deal.to_pbn("W") == "W:.AQJ85.986.JT973 A8643.97642.Q.Q8 KT9.K3.K75.AK652 QJ752.T.AJT432.4"
    assert board.dealer is Seat.N and board.vulnerability is Vulnerability.NONE


def test_latin1_and_utf8_files() -> None:
    latin1 = pbn.load(PBN / "bridgecomposer_latin1.pbn")
    assert latin1.errors == () and len(latin1.boards) == 15
    utf8 = pbn.load(PBN / "ruter7_klubbkveld_2012_butler.pbn")
    assert any("Tønnessen" in (c.name or "") for c in utf8.contestants)
