"""Double-dummy tricks and par a PBN game publishes: kept as the deal's published values, in both paths."""

from __future__ import annotations

import pytest

from parsers.columnar import assert_same, columnar_from_parsed
from parsers.pbn import loads
from parsers.pbn.fast import loads_columnar

# endplay's RealBridge export, board 11: the file's own DoubleDummyTricks and OptimumResultTable agree.
DEAL = "N:KT8.A96.A95.7542 Q5.KJ52.KQ874.T8 AJ92.874.JT6.AQ3 7643.QT3.32.KJ96"
DD = "77667775576677566775"
TABLE = "\n".join(f"{seat} {strain} {int(DD[5 * i + j], 16)}" for i, seat in enumerate("NSEW")
                  for j, strain in enumerate(("NT", "S", "H", "D", "C")))


def _game(board: int, *tags: str, contract: str = "3NT", declarer: str = "S", result: str = "9", table: int = 1) -> str:
    lines = ['[Event "Par"]', '[Site "Club"]', '[Date "2026.11.20"]', f'[Board "{board}"]',
             '[West "w"]', '[North "n"]', '[East "e"]', '[South "s"]', '[Dealer "S"]', '[Vulnerable "None"]',
             f'[Deal "{DEAL}"]', '[Scoring "MP"]', f'[Declarer "{declarer}"]', f'[Contract "{contract}"]',
             f'[Result "{result}"]', f'[Table "{table}"]', *tags]
    return "\n".join(lines) + "\n"


def _file(*games: str) -> bytes:
    return "\n".join(games).encode()


def _published(data: bytes) -> list[dict[str, float | str]]:
    return [board.published for board in loads(data, source="p.pbn").boards]


def test_double_dummy_tricks_and_par_are_kept() -> None:
    data = _file(_game(1, f'[DoubleDummyTricks "{DD.upper()}"]', '[ParScore "90"]', '[ParContract "NS 1NT+1"]'),
                 _game(2, '[OptimumScore "EW 300"]', '[OptimumContract "4H E 10"]'))
    assert _published(data) == [{"dd_tricks": DD, "par_score_ns": 90.0, "par_contract": "NS 1NT+1"},
                                {"par_score_ns": -300.0, "par_contract": "4H E 10"}]
    assert loads(data, source="p.pbn").diagnostics == ()


def test_the_optimum_result_table_gives_the_same_digits() -> None:
    table = f'[OptimumResultTable "Declarer;Denomination\\2R;Result\\2R"]\n{TABLE}'
    assert _published(_file(_game(1, table))) == [{"dd_tricks": DD}]
    # DoubleDummyTricks wins where both are given.
    both = _file(_game(1, '[DoubleDummyTricks "00000000000000000000"]', table))
    assert _published(both) == [{"dd_tricks": "0" * 20}]


@pytest.mark.parametrize(("tag", "code", "line"), [
    ('[DoubleDummyTricks "7766777557667756677"]', "pbn.double-dummy.bad-value", 17),
    ('[DoubleDummyTricks "7766777557667756677e"]', "pbn.double-dummy.bad-value", 17),
    ('[ParScore "NS"]', "pbn.par.bad-value", 17),
    ('[OptimumScore "par 90"]', "pbn.score.optimum", 17),
    ('[OptimumResultTable "Declarer;Denomination;Result"]\nN NT 7\nN NT 7', "pbn.table.optimum-result", 19),
    ('[OptimumResultTable "Declarer;Denomination;Result"]\nN NT 14', "pbn.table.optimum-result", 18),
    ('[OptimumResultTable "Declarer;Denomination;Result"]\nN NT 7', "pbn.table.optimum-result", 17),
])
def test_a_value_that_cannot_be_read_is_reported_where_it_is(tag: str, code: str, line: int) -> None:
    parsed = loads(_file(_game(1, tag)), source="p.pbn")
    assert [board.published for board in parsed.boards] == [{}]
    (found,) = parsed.diagnostics
    assert (found.code, found.line, found.severity.value) == (code, line, "warning")


def test_a_later_game_of_the_board_that_says_otherwise_is_reported() -> None:
    data = _file(_game(1, '[ParScore "90"]'), _game(1, '[ParScore "120"]', contract="2S", declarer="N", result="8",
                                                     table=2), _game(1, contract="1NT", result="8", table=3))
    parsed = loads(data, source="p.pbn")
    assert [b.published for b in parsed.boards] == [{"par_score_ns": 90.0}]
    assert [(d.code, d.line) for d in parsed.diagnostics] == [("pbn.double-dummy.differs", 35)]
    assert loads_columnar(data, source="p.pbn") is None  # the careful reader's diagnostic decides


def test_the_fast_path_reads_par_as_the_careful_reader_does() -> None:
    data = _file(_game(1, '[OptimumScore "NS 90"]', '[ParContract "1NT S"]'), _game(2), _game(3, '[ParScore "-50"]'),
                 _game(1, '[OptimumScore "NS 90"]', '[ParContract "1NT S"]', contract="1NT", result="8", table=2))
    fast = loads_columnar(data, source="p.pbn")
    assert fast is not None
    assert fast.boards["published"].to_list() == [
        '{"par_contract":"1NT S","par_score_ns":90.0}', "{}", '{"par_score_ns":-50.0}']
    assert_same(fast, columnar_from_parsed(loads(data, source="p.pbn")))


def test_the_fast_path_reads_double_dummy_tricks_and_leaves_the_table_to_the_careful_reader() -> None:
    table = f'[OptimumResultTable "Declarer;Denomination\\2R;Result\\2R"]\n{TABLE}'
    with_tag = _file(_game(1, f'[DoubleDummyTricks "{DD}"]', table), _game(2, f'[DoubleDummyTricks "{DD}"]'))
    fast = loads_columnar(with_tag, source="p.pbn")
    assert fast is not None and fast.boards["published"].to_list() == [f'{{"dd_tricks":"{DD}"}}'] * 2
    assert_same(fast, columnar_from_parsed(loads(with_tag, source="p.pbn")))
    # Only the table: its rows are the careful reader's to read.
    only_table = _file(_game(1, table))
    assert loads_columnar(only_table, source="p.pbn") is None
    careful = columnar_from_parsed(loads(only_table, source="p.pbn"))
    assert careful.boards["published"].to_list() == [f'{{"dd_tricks":"{DD}"}}']
    # A value the careful reader reports is the careful reader's.
    assert loads_columnar(_file(_game(1, '[DoubleDummyTricks "xx"]')), source="p.pbn") is None
