"""The LIN reader and writer on every LIN file of the shared corpus."""

from __future__ import annotations

from pathlib import Path

import pytest
from endplay.parsers import lin as endplay_lin
from hypothesis import given
from hypothesis import strategies as st

from models.board import Vulnerability
from models.cards import Card, Seat
from models.contract import Contract, Doubling, Strain
from models.diagnostics import Severity
from models.events import Player
from parsers import lin, usebio
from parsers.bridge.calls import BIDS
from parsers.lin import writer as lin_writer
from parsers.lin.values import format_rs, parse_rs
from parsers.records import BoardRecord, ParsedFile, ResultRecord

from ._law77 import score_ns
from .conftest import CORPUS, independent_tricks, without_position

LIN_DIR = CORPUS / "lin"

# file -> (hand records, results); from SOURCES.md and the files themselves. Team matches: one hand
# record per board, one result per room.
EXPECTED_COUNTS = {
    "bbo_1047742261_gib_an.lin": (1, 1),
    "bbo_20784109_redouble.lin": (1, 1),
    "bbo_20784112_robots.lin": (1, 1),
    "bbo_20784113_claim_midtrick.lin": (1, 1),
    "bbo_28189391_passout.lin": (1, 1),
    "bbo_28189410_claim.lin": (1, 1),
    "bbo_28189494_dbl_rdbl.lin": (1, 1),
    "bbo_28189727_unplayed.lin": (1, 0),
    "bbo_28190049_rdbl_an.lin": (1, 1),
    "bbo_3381671193.lin": (1, 1),
    "bbo_3381683999.lin": (1, 1),
    "bbo_3399598383_alert.lin": (1, 1),
    "bbo_3399600265.lin": (1, 1),
    "bbo_myhands_multi.lin": (8, 8),
    "bbo_teammatch_17360.lin": (18, 36),
    "dealconvert_vg_handsonly.lin": (16, 0),
    "handrecord_uppercase_sv.lin": (10, 0),
    "handrecord_vg_sv0.lin": (16, 0),
    "tmpbn2linvg_gib_match.lin": (4, 8),
    "tmpbn2linvg_gib_match_bc.lin": (4, 8),
    "vugraph_wbtc2015_swe_pol_reexported.lin": (16, 32),
}

# Diagnostic codes each file is expected to produce in lenient mode (file -> code -> count).
EXPECTED_DIAGNOSTICS: dict[str, dict[str, int]] = {
    "bbo_teammatch_17360.lin": {"lin.text.mojibake-repaired": 3},
    "vugraph_wbtc2015_swe_pol_reexported.lin": {"lin.syntax.stray-separator": 1,
                                                "lin.pn.closed-room-repeats-open": 16},
}


def _load(name: str, strict: bool = False) -> ParsedFile:
    return lin.load(LIN_DIR / name, strict=strict)


def test_the_corpus_list_is_complete(corpus: Path) -> None:
    assert sorted(p.name for p in (corpus / "lin").glob("*.lin")) == sorted(EXPECTED_COUNTS)


@pytest.mark.parametrize("name", sorted(EXPECTED_COUNTS))
def test_every_corpus_file_loads_with_the_expected_counts(name: str) -> None:
    parsed = _load(name)
    assert (len(parsed.boards), len(parsed.results)) == EXPECTED_COUNTS[name]
    assert parsed.quarantined == 0
    assert parsed.format == "lin" and parsed.parser_version == lin.PARSER_VERSION
    codes: dict[str, int] = {}
    for diagnostic in parsed.diagnostics:
        codes[diagnostic.code] = codes.get(diagnostic.code, 0) + 1
        assert diagnostic.line >= 1 and diagnostic.source.endswith(name)
    assert codes == EXPECTED_DIAGNOSTICS.get(name, {})
    assert not parsed.errors


@pytest.mark.parametrize("name", sorted(EXPECTED_COUNTS))
def test_records_survive_full_validation_unchanged(name: str) -> None:
    """The reader builds its models without re-validation for speed; they must be exactly valid."""
    parsed = _load(name)
    for record in (*parsed.boards, *parsed.results):
        assert type(record).model_validate(record.model_dump()) == record
    assert ParsedFile.model_validate(parsed.model_dump()) == parsed


def test_passed_out_board() -> None:
    parsed = _load("bbo_28189391_passout.lin")
    (board,), (result,) = parsed.boards, parsed.results
    assert (board.board, board.dealer, board.vulnerability) == (1, Seat.N, Vulnerability.NONE)
    assert result.contract == Contract.passed_out() and result.tricks is None
    assert result.auction == ("Pass",) * 4 and result.play == () and result.lead is None
    assert result.ns_players == (Player(name="piotr_cz99"), Player(name="romgal"))
    assert result.ew_players == (Player(name="kar21"), Player(name="ziutek52"))
    # LIN names no table: the table is named by its two pairs (issue #12), never "1" in every file.
    assert (result.ns_id, result.ew_id, result.table_id, result.room) == (
        "piotr_cz99/romgal", "kar21/ziutek52", "piotr_cz99/romgal v kar21/ziutek52", None)
    assert board.deal is not None
    # md: S=S49KH6D356KC245TQ W=S268QAH29JQD4JC3J N=STJH34578DQAC789K, E is the rest of the pack
    assert board.deal.to_pbn("N") == "N:JT.87543.AQ.K987 753.AKT.T9872.A6 K94.6.K653.QT542 AQ862.QJ92.J4.J3"


def test_claim_counts_as_declarers_total_tricks() -> None:
    (result,) = _load("bbo_28189410_claim.lin").results
    assert result.contract == Contract(level=1, strain=Strain.NT, declarer=Seat.E)
    assert result.tricks == 8 and len(result.play) == 44
    assert result.lead == Card.parse("C3")


def test_claim_in_the_middle_of_a_trick() -> None:
    (result,) = _load("bbo_20784113_claim_midtrick.lin").results
    # W named notrump first (3N) although E opened: W declares.
    assert result.contract == Contract(level=3, strain=Strain.NT, declarer=Seat.W)
    assert (result.tricks, len(result.play)) == (10, 45)


def test_redoubled_auction_is_normalised() -> None:
    (result,) = _load("bbo_20784109_redouble.lin").results
    assert result.auction == ("Pass", "1C", "Pass", "1S", "X", "XX", "2C", "X", "2D", "2NT", "Pass", "3NT",
                              "Pass", "Pass", "Pass")
    assert result.contract == Contract(level=3, strain=Strain.NT, declarer=Seat.E)


def test_alerted_calls_lose_their_mark() -> None:
    (result,) = _load("bbo_3399598383_alert.lin").results
    assert result.auction[:4] == ("1H", "2S", "Pass", "2NT")


def test_unplayed_board_is_a_hand_record_only() -> None:
    parsed = _load("bbo_28189727_unplayed.lin")
    assert parsed.results == () and parsed.diagnostics == ()
    assert (parsed.boards[0].board, parsed.boards[0].vulnerability) == (9, Vulnerability.EW)


def test_vulnerability_spellings() -> None:
    upper = _load("handrecord_uppercase_sv.lin").boards
    assert [b.vulnerability for b in upper[:4]] == [Vulnerability.NONE, Vulnerability.NS, Vulnerability.EW,
                                                    Vulnerability.BOTH]
    zero = _load("handrecord_vg_sv0.lin").boards
    assert zero[0].vulnerability is Vulnerability.NONE and zero[0].dealer is Seat.N
    assert all(b.deal is not None and b.deal.is_complete for b in zero)


def test_team_match_rooms_teams_and_published_results() -> None:
    parsed = _load("bbo_teammatch_17360.lin")
    assert parsed.metadata.scoring == "I" and parsed.metadata.event_name == "17360-1643225441"
    open1, closed1 = parsed.results[:2]
    assert (open1.room, open1.table_id, open1.ns_id, open1.ew_id) == ("open", "open", "Team1", "Team2")
    assert (closed1.room, closed1.table_id, closed1.ns_id, closed1.ew_id) == ("closed", "closed", "Team2", "Team1")
    assert open1.ns_players == (Player(name="FaresQLJB"), Player(name="chris3108"))
    assert closed1.ns_players == (Player(name="pi420"), Player(name="rasko179"))
    assert (str(open1.contract), open1.contract.declarer, open1.tricks) == ("4H", Seat.E, 13)
    assert open1.published == {"rs": "4HE+3"} and closed1.published == {"rs": "4HE+2"}
    last = parsed.results[-1]
    assert (last.board, last.room, last.contract.doubling, last.tricks) == (18, "closed", Doubling.X, 8)


def test_reexported_vugraph_takes_the_closed_room_line_up_from_the_header() -> None:
    parsed = _load("vugraph_wbtc2015_swe_pol_reexported.lin")
    assert parsed.metadata.event_name == "BBO2-2015WBTC-BB" and parsed.metadata.scoring == "I"
    open1, closed1 = parsed.results[:2]
    assert (open1.ns_id, open1.ew_id) == ("SWEDEN", "POLAND")
    assert open1.ns_players == (Player(name="UPMARK"), Player(name="F NYSTROM"))
    assert closed1.ns_players == (Player(name="JASSEM"), Player(name="MAZURKIEWI"))
    assert closed1.ew_players == (Player(name="WRANG"), Player(name="SYLVAN"))
    assert (str(open1.contract), open1.contract.declarer, open1.tricks) == ("4S", Seat.W, 9)
    assert (str(closed1.contract), closed1.tricks) == ("4S", 8)
    assert parsed.boards[0].at.line == 4 and closed1.at.line == 35


def test_newline_before_separator_and_eight_name_header() -> None:
    parsed = _load("tmpbn2linvg_gib_match.lin")
    assert parsed.metadata.session_id == "'1-4'" and parsed.metadata.event_name is None
    assert [r.published["rs"] for r in parsed.results] == ["2SN+1", "2SN=", "1NS+3", "1NS+3", "2NN+1", "2NN=",
                                                           "6HN+1", "6HN-1"]
    assert [(r.ns_id, r.room) for r in parsed.results[:2]] == [("GIBNS", "open"), ("GIBEW", "closed")]
    assert all(b.vulnerability is not None for b in parsed.boards)


def test_mojibake_is_repaired_and_reported() -> None:
    parsed = _load("bbo_teammatch_17360.lin")
    repaired = [d for d in parsed.diagnostics if d.code == "lin.text.mojibake-repaired"]
    assert repaired[0].severity is Severity.INFO and "intéréssé" in repaired[0].message
    assert (repaired[0].line, repaired[0].record) == (4, 0)


def test_strict_mode_turns_irregularities_into_errors_and_quarantines() -> None:
    wbtc = _load("vugraph_wbtc2015_swe_pol_reexported.lin", strict=True)
    assert len(wbtc.results) == 16 and all(r.room == "open" for r in wbtc.results)
    assert wbtc.quarantined == 16 and len(wbtc.errors) == 17
    clean = _load("bbo_3399600265.lin", strict=True)
    assert clean.diagnostics == () and len(clean.results) == 1


def _boards_by_number(parsed: ParsedFile) -> dict[int, BoardRecord]:
    return {board.board: board for board in parsed.boards}


def _full_play_results() -> list[tuple[str, ResultRecord, BoardRecord]]:
    found = []
    for name in sorted(EXPECTED_COUNTS):
        parsed = _load(name)
        boards = _boards_by_number(parsed)
        found += [(name, r, boards[r.board]) for r in parsed.results if len(r.play) == 52]
    return found


def test_trick_count_of_played_out_boards_equals_an_independent_count() -> None:
    checked = 0
    for _name, result, board in _full_play_results():
        assert board.deal is not None and result.contract.declarer is not None
        expected = independent_tricks(board.deal, list(result.play), result.contract.declarer, result.contract.strain)
        assert result.tricks == expected
        checked += 1
    assert checked == 40


def test_published_rs_results_have_the_same_law77_score_sign() -> None:
    checked = 0
    for name in sorted(EXPECTED_COUNTS):
        parsed = _load(name)
        boards = _boards_by_number(parsed)
        for result in parsed.results:
            if "rs" not in result.published:
                continue
            rs = parse_rs(str(result.published["rs"]))
            assert rs is not None
            vulnerability = boards[result.board].vulnerability or Vulnerability.NONE
            ours = score_ns(result.contract, result.tricks, vulnerability)
            theirs = score_ns(rs[0], rs[1], vulnerability)
            assert (ours > 0) == (theirs > 0) and (ours < 0) == (theirs < 0)
            assert ours == theirs
            checked += 1
    assert checked == 36 + 8 + 8 + 32


@pytest.mark.parametrize("name", sorted(EXPECTED_COUNTS))
def test_write_then_read_gives_the_same_records(name: str) -> None:
    parsed = _load(name)
    again = lin.loads(lin_writer.dumps(parsed))
    assert [without_position(b) for b in again.boards] == [without_position(b) for b in parsed.boards]
    assert [without_position(r) for r in again.results] == [without_position(r) for r in parsed.results]
    assert again.metadata == parsed.metadata
    # What we write is clean LIN: even strict mode finds nothing to say about it.
    assert lin.loads(lin_writer.dumps(parsed), strict=True).diagnostics == ()


@pytest.mark.parametrize("name", [n for n, (boards, results) in EXPECTED_COUNTS.items() if boards == 1])
def test_endplay_reads_our_single_board_output_with_the_same_deal(name: str) -> None:
    parsed = _load(name)
    text = lin_writer.dumps(parsed)
    assert text.startswith("pn|") and "qx|" not in text
    (theirs,) = endplay_lin.loads(text)
    board = parsed.boards[0]
    assert board.deal is not None
    assert theirs.deal.to_pbn() == board.deal.to_pbn("N")
    assert theirs.board_num == board.board
    assert theirs.dealer is not None and theirs.dealer.abbr == board.dealer
    if parsed.results and not parsed.results[0].contract.is_passed_out:
        contract = parsed.results[0].contract
        assert theirs.contract is not None
        assert (theirs.contract.level, theirs.contract.declarer.abbr) == (contract.level, contract.declarer)


@pytest.mark.parametrize("name", [n for n, (boards, results) in EXPECTED_COUNTS.items() if boards > 1])
def test_endplay_reads_our_vugraph_output_with_the_same_deals_and_contracts(name: str) -> None:
    parsed = _load(name)
    text = lin_writer.dumps(parsed)
    assert text.startswith("vg|")
    theirs = endplay_lin.loads(text)
    assert len(theirs) == text.count("qx|") == max(len(parsed.results), len(parsed.boards))
    deals = {board.board: board.deal for board in parsed.boards}
    assert all(deals[board.board_num] is not None and board.deal.to_pbn() == deals[board.board_num].to_pbn("N")
               for board in theirs)
    # endplay counts tricks from the play wrongly on most boards (its issue #58): contracts only.
    ours = sorted((r.board, r.contract.level, r.contract.declarer) for r in parsed.results
                  if r.auction and not r.contract.is_passed_out)
    assert ours == sorted((b.board_num, b.contract.level, b.contract.declarer.abbr) for b in theirs
                          if b.contract is not None and b.contract.level)


def test_usebio_results_travel_to_lin_as_results_list_entries() -> None:
    source = usebio.load(CORPUS / "usebio" / "abf_mp_pairs_mitchell_03.xml")
    parsed = lin.loads(lin_writer.dumps(source))
    assert [b.deal for b in parsed.boards] == [b.deal for b in source.boards]
    assert [(r.board, r.contract, r.tricks) for r in parsed.results] == [
        (r.board, r.contract, r.tricks) for r in source.results]
    assert parsed.errors == ()


@given(st.sampled_from(BIDS), st.sampled_from(list(Seat)), st.sampled_from(list(Doubling)), st.integers(0, 13))
def test_results_list_entries_read_back(bid: str, seat: Seat, doubling: Doubling, tricks: int) -> None:
    contract = Contract(level=int(bid[0]), strain=Strain(bid[1:]), doubling=doubling, declarer=seat)
    assert parse_rs(format_rs(contract, tricks)) == (contract, tricks)
