"""Broken, truncated and hostile LIN: positioned diagnostics, quarantine, never an exception."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from models.board import Vulnerability
from models.cards import Seat
from models.contract import Contract, Strain
from models.diagnostics import Severity
from models.events import Player
from parsers import lin
from parsers.lin import reader as lin_reader
from parsers.records import ParsedFile
from tests.conftest import examples

from .conftest import CORPUS

CLAIM = (CORPUS / "lin" / "bbo_28189410_claim.lin").read_text()
PLAYED = (CORPUS / "lin" / "bbo_3399600265.lin").read_text().strip()
DEAL = "3S2345KH2D3TJKC68K,S78AH46JD2579C39A,S9TQH389TKD48C27Q,"


def _codes(parsed: ParsedFile) -> list[str]:
    return [d.code for d in parsed.diagnostics]


def _one(parsed: ParsedFile, code: str) -> tuple[int, int, Severity, int | None]:
    (found,) = [d for d in parsed.diagnostics if d.code == code]
    return found.line, found.column, found.severity, found.record


def test_play_cut_short_without_a_claim_keeps_the_board_and_quarantines_the_result() -> None:
    cut = PLAYED[:PLAYED.index("pc|D7|")]  # ends after `...pc|C9|pg||` (7 tricks), no claim
    parsed = lin.loads(cut)
    assert len(parsed.boards) == 1 and parsed.results == () and parsed.quarantined == 1
    line, column, severity, record = _one(parsed, "lin.result.unknown")
    assert (line, severity, record) == (1, Severity.ERROR, 0)
    assert cut[column - 1:].startswith("C9")  # positioned at the last card played


def test_file_cut_inside_a_value_is_reported_where_it_ends() -> None:
    cut = PLAYED[:PLAYED.index("pc|D7|") + 4]  # `...pc|D` — the last card is cut in half
    parsed = lin.loads(cut)
    assert "lin.syntax.truncated" in _codes(parsed) and "lin.pc.bad-card" in _codes(parsed)
    assert _one(parsed, "lin.pc.bad-card")[1] == len(cut)
    assert parsed.results == () and len(parsed.boards) == 1


def test_file_cut_inside_the_deal_quarantines_the_board() -> None:
    parsed = lin.loads(PLAYED[:60])  # nothing after the deal survives, so only the board is lost
    assert parsed.boards == () and parsed.results == () and parsed.quarantined == 1
    assert _one(parsed, "lin.md.bad-hand")[:3] == (1, PLAYED.index("md|") + 4, Severity.ERROR)


def test_garbage_gives_positioned_diagnostics() -> None:
    parsed = lin.loads("this is\nnot LIN | at all")
    assert parsed.boards == () and parsed.results == ()
    assert [(d.line, d.column, d.code) for d in parsed.diagnostics] == [
        (1, 1, "lin.syntax.not-a-key"), (2, 11, "lin.syntax.not-a-key")]


def test_a_value_where_a_key_should_be_spoils_that_board_only() -> None:
    bad = PLAYED.replace("mb|1C|", "mb|1C|2H|", 1)
    parsed = lin.loads(f"{bad}\n{CLAIM}")
    assert [b.board for b in parsed.boards] == [2] and len(parsed.results) == 1
    assert parsed.results[0].at.line == 2 and parsed.quarantined == 2
    assert _one(parsed, "lin.syntax.not-a-key")[3] == 0


def test_illegal_auction_quarantines_the_result() -> None:
    parsed = lin.loads(f"pn|a,b,c,d|st||md|{DEAL}|ah|Board 1|sv|o|mb|1S|mb|1H|mb|p|mb|p|mb|p|")
    assert len(parsed.boards) == 1 and parsed.results == ()
    line, column, severity, _ = _one(parsed, "lin.mb.insufficient-bid")
    assert (line, severity) == (1, Severity.ERROR)
    assert parsed.diagnostics[0].message.startswith("call 2 of the auction")
    assert column == parsed.diagnostics[0].column == len("pn|a,b,c,d|st||md|" + DEAL + "|ah|Board 1|sv|o|mb|1S|mb|") + 1


def test_incomplete_auction_quarantines_the_result() -> None:
    parsed = lin.loads(f"md|{DEAL}|ah|Board 1|mb|1S|mb|p|")
    assert "lin.mb.auction-incomplete" in _codes(parsed) and parsed.results == ()


def test_card_from_the_wrong_hand_is_refused() -> None:
    # Swap the first two cards played: the second player's card is led by the first player.
    first, second = PLAYED.index("pc|HQ|"), PLAYED.index("pc|H8|")
    swapped = PLAYED[:first] + "pc|H8|pc|HQ|" + PLAYED[second + 6:]
    parsed = lin.loads(swapped)
    assert parsed.results == () and "lin.pc.wrong-player" in _codes(parsed)


def test_duplicate_card_in_the_deal() -> None:
    parsed = lin.loads("md|3SAKQJT98765432,SA,SAKQ,|ah|Board 3|")
    assert parsed.boards == () and "lin.md.bad-hand" in _codes(parsed)


def test_claims_that_cannot_be() -> None:
    too_many = lin.loads(CLAIM.replace("mc|8|", "mc|14|"))
    assert "lin.mc.bad-claim" in _codes(too_many) and too_many.results == ()
    # Eleven tricks were played; a claim of 2 total tricks is below what declarer already won.
    too_few = lin.loads(CLAIM.replace("mc|8|", "mc|2|"))
    assert "lin.mc.impossible" in _codes(too_few) and too_few.results == ()


def test_play_after_a_pass_out() -> None:
    parsed = lin.loads(f"md|{DEAL}|ah|Board 1|mb|p|mb|p|mb|p|mb|p|pc|SA|")
    assert "lin.pc.after-pass-out" in _codes(parsed) and parsed.results == ()


def test_no_dealer_digit_falls_back_to_law_2() -> None:
    parsed = lin.loads(f"md|{DEAL[1:]}|ah|Board 2|mb|p|mb|p|mb|p|mb|p|")
    assert parsed.boards[0].dealer is None and "lin.md.irregular" in _codes(parsed)
    assert parsed.results[0].contract == Contract.passed_out()


def test_unknown_keys_are_ignored_with_a_note() -> None:
    parsed = lin.loads(CLAIM.replace("st||", "st||zz|whatever|"))
    assert len(parsed.results) == 1 and _one(parsed, "lin.key.unknown")[2] is Severity.INFO


def test_undo_takes_back_the_last_call() -> None:
    parsed = lin.loads(f"md|{DEAL}|ah|Board 1|mb|1S|mb|2S|up||mb|p|mb|p|mb|p|mc|7|")
    assert parsed.results[0].contract == Contract(level=1, strain=Strain.S, declarer=Seat.N)
    assert "lin.up.undo" in _codes(parsed)


def test_cp1252_bytes_and_double_encoded_names() -> None:
    raw = CLAIM.replace("xmariusz", "Jérôme").encode("cp1252")
    parsed = lin.loads(raw)
    assert "lin.encoding.not-utf8" in _codes(parsed)
    assert parsed.results[0].ns_players[1] == Player(name="Jérôme")
    double = CLAIM.replace("xmariusz", "JÃ©rÃ´me")
    parsed = lin.loads(double)
    assert parsed.results[0].ns_players[1] == Player(name="Jérôme")
    assert "lin.text.mojibake-repaired" in _codes(parsed)


def test_vugraph_results_list_is_the_source_for_boards_without_play() -> None:
    text = (f"vg|Final,Set 1,I,1,1,Home,0,Away,0|rs|4SN=,3NE-1|mp|6,-6|pn|a,b,c,d,e,f,g,h|pg||\n"
            f"qx|o1|md|{DEAL}|sv|b|ah|Board 1|\n"
            f"qx|c1|md|{DEAL}|sv|b|ah|Board 1|mb|p|mb|1N|mb|p|mb|3N|mb|p|mb|p|mb|p|\n")
    parsed = lin.loads(text)
    open_room, closed = parsed.results
    assert (open_room.contract, open_room.tricks, open_room.ns_id) == (
        Contract(level=4, strain=Strain.S, declarer=Seat.N), 10, "Home")
    assert open_room.published == {"rs": "4SN=", "imp_ns": 6.0}
    assert (closed.contract.declarer, closed.tricks, closed.ns_id, closed.ew_id) == (Seat.E, 8, "Away", "Home")
    assert open_room.ns_players == (Player(name="c"), Player(name="a"))
    assert closed.ns_players == (Player(name="g"), Player(name="e"))
    assert parsed.boards[0].vulnerability is Vulnerability.BOTH and parsed.diagnostics == ()


def test_results_list_that_contradicts_the_auction() -> None:
    text = (f"vg|Final,,I,1,1,Home,0,Away,0|rs|4SN=,|\n"
            f"qx|o1|md|{DEAL}|ah|Board 1|mb|1N|mb|p|mb|p|mb|p|\n")
    parsed = lin.loads(text)
    assert parsed.results == () and "lin.rs.contradicts-auction" in _codes(parsed)


def test_results_list_disagreeing_with_the_play_is_a_warning() -> None:
    text = "vg|x,,I,1,1,A,0,B,0|rs|1NE+3,|\nqx|o1|" + CLAIM.replace("Board 2", "Board 1")
    parsed = lin.loads(text)
    assert len(parsed.results) == 1 and parsed.results[0].tricks == 8
    assert _one(parsed, "lin.rs.mismatch")[2] is Severity.WARNING


def test_missing_file_is_a_diagnostic(tmp_path: Path) -> None:
    parsed = lin.load(tmp_path / "nope.lin")
    assert _codes(parsed) == ["lin.file.unreadable"] and parsed.boards == ()


def test_empty_input() -> None:
    assert _codes(lin.loads("")) == ["lin.file.empty"]
    assert _codes(lin.loads(b"")) == ["lin.file.empty"]


@settings(max_examples=examples(200), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_mutated_corpus_text_never_raises(data: st.DataObject) -> None:
    text = data.draw(st.sampled_from([PLAYED, CLAIM, (CORPUS / "lin" / "tmpbn2linvg_gib_match.lin").read_text()]))
    for _ in range(data.draw(st.integers(1, 6))):
        at = data.draw(st.integers(0, len(text)))
        cut = data.draw(st.integers(0, 8))
        insert = data.draw(st.sampled_from(["", "|", "||", "\n", "pc|", "mb|", "md|", "qx|c9|", "zz", "é", "10"]))
        text = text[:at] + insert + text[at + cut:]
    parsed = lin.loads(text, strict=data.draw(st.booleans()))
    assert "lin.reader.internal-error" not in _codes(parsed)
    assert all(d.line >= 0 and d.column >= 0 for d in parsed.diagnostics)
    for record in (*parsed.boards, *parsed.results):
        assert type(record).model_validate(record.model_dump()) == record


@settings(max_examples=examples(200), deadline=None)
@given(st.text(alphabet=st.sampled_from(list("|pcmbdqx0123SHDCAKQJT,\n oN!")), max_size=300))
def test_random_text_never_raises(text: str) -> None:
    parsed = lin.loads(text)
    assert "lin.reader.internal-error" not in _codes(parsed)


def test_a_reader_bug_becomes_a_diagnostic_not_a_traceback(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(self: object) -> ParsedFile:
        raise RuntimeError("bug")

    monkeypatch.setattr(lin_reader._Reader, "read", broken)
    parsed = lin.loads(CLAIM)
    assert _codes(parsed) == ["lin.reader.internal-error"] and parsed.boards == ()


def test_player_names_written_after_the_deal_stay_with_their_board() -> None:
    plain = (f"md|{DEAL}|pn|a,b,c,d|ah|Board 1|mb|p|mb|p|mb|p|mb|p|\n"
             f"md|{DEAL}|pn|e,f,g,h|ah|Board 2|mb|p|mb|p|mb|p|mb|p|")
    assert [(r.board, r.ns_id) for r in lin.loads(plain).results] == [(1, "c/a"), (2, "g/e")]
    vugraph = (f"vg|x,,I,1,1,A,0,B,0|\nqx|o1|md|{DEAL}|pn|a,b,c,d|ah|Board 1|mb|p|mb|p|mb|p|mb|p|\n"
               f"qx|c1|md|{DEAL}|pn|e,f,g,h|ah|Board 1|mb|p|mb|p|mb|p|mb|p|")
    parsed = lin.loads(vugraph)
    assert [r.ns_players[1].name for r in parsed.results] == ["a", "e"] and parsed.diagnostics == ()
