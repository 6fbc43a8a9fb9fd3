"""Issue #12, files from the wild: shapes that used to merge or lose results without a word.

Each test writes its own small file in the shape real programs write, ingests it (fast path or
careful reader, whichever takes it) and checks what replay and scoring make of it.
"""

from __future__ import annotations

import polars as pl

from parsers.pbn import loads as pbn_loads
from parsers.pbn.fast import loads_columnar as pbn_fast
from pipelines.files.ingest import IngestOptions, ingest_bytes
from pipelines.log.store import EventStore
from pipelines.replay.projections import score_store
from tests.conftest import RECORDED_AT

DEAL = "N:AKQJ.T98.765.432 T98.765.432.AKQJ 765.432.AKQJ.T98 432.AKQJ.T98.765"

# BridgeComposer: one traveller for a two-section session, the section in a column of its own.
TWO_SECTIONS = f"""[Event "Two sections"]
[Date "2026.11.20"]
[Board "1"]
[Dealer "N"]
[Vulnerable "None"]
[Deal "{DEAL}"]
[ScoreTable "Section\\1R;Table\\2R;Round\\2R;PairId_NS\\2R;PairId_EW\\2R;Contract\\5L;Declarer\\1R;Result\\2R"]
A  1 1 1 2 4S N 10
A  2 1 3 4 4S N 11
B  1 1 1 2 3NT S 9
B  2 1 3 4 4S N 9
""".encode()


def _board_scores(store: EventStore) -> pl.DataFrame:
    return score_store(store).board_scores.sort("section", "table_id")


def test_a_section_column_keeps_the_two_sections_apart(store: EventStore) -> None:
    assert pbn_fast(TWO_SECTIONS, source="two.pbn") is None  # the careful reader takes ScoreTables
    parsed = pbn_loads(TWO_SECTIONS, source="two.pbn")
    assert [(r.section, r.table_id, r.ns_id, r.round) for r in parsed.results] == [
        ("A", "1", "1", 1), ("A", "2", "3", 1), ("B", "1", "1", 1), ("B", "2", "3", 1)]
    ingest_bytes(store, TWO_SECTIONS, source="two.pbn", recorded_at=RECORDED_AT)
    scores = _board_scores(store)
    assert scores.height == 4
    assert scores.select("section", "table_id", "ns_id").rows() == [
        ("A", "1", "1"), ("A", "2", "3"), ("B", "1", "1"), ("B", "2", "3")]
    # Each section is its own field of two tables: 4S= loses to 4S+1 in A, 3NT= beats 4S-1 in B.
    assert scores["mp_ns"].to_list() == [0.0, 2.0, 2.0, 0.0]
    pairs = store.read(types=["ContestantRegistered"])
    assert sorted((e.payload["section"], e.payload["contestant_id"]) for e in pairs) == [
        ("A", "1"), ("A", "2"), ("A", "3"), ("A", "4"), ("B", "1"), ("B", "2"), ("B", "3"), ("B", "4")]


def test_rooms_in_a_score_table_are_two_tables() -> None:
    text = f"""[Event "Match"]
[Board "1"]
[Dealer "N"]
[Vulnerable "None"]
[Deal "{DEAL}"]
[ScoreTable "Table\\2R;Room\\6L;PairId_NS\\2R;PairId_EW\\2R;Contract\\5L;Declarer\\1R;Result\\2R"]
1 Open   1 2 4S N 10
1 Closed 2 1 4S N 11
"""
    parsed = pbn_loads(text, source="rooms.pbn")
    assert [(r.table_id, r.room) for r in parsed.results] == [("1-open", "open"), ("1-closed", "closed")]
    assert not [d for d in parsed.diagnostics if d.code == "pbn.result.duplicate-table"]


def _bbo_game(board: int, north: str, south: str, east: str, west: str, contract: str, result: int) -> str:
    return f"""[Event "BBO robots"]
[Date "2026.11.20"]
[Board "{board}"]
[West "{west}"]
[North "{north}"]
[East "{east}"]
[South "{south}"]
[Dealer "N"]
[Vulnerable "None"]
[Deal "{DEAL}"]
[Contract "{contract}"]
[Declarer "N"]
[Result "{result}"]
"""


def test_pairs_named_only_by_their_players_are_told_apart(store: EventStore) -> None:
    text = "\n".join([_bbo_game(1, "ann", "bob", "cat", "dan", "4S", 10),
                      _bbo_game(1, "eve", "fay", "gus", "hal", "4S", 11)]).encode()
    fast, careful = pbn_fast(text, source="bbo.pbn"), pbn_loads(text, source="bbo.pbn")
    assert fast is not None
    assert fast.results.select("ns_id", "ew_id").rows() == [("ann/bob", "cat/dan"), ("eve/fay", "gus/hal")]
    assert [(r.ns_id, r.ew_id) for r in careful.results] == [("ann/bob", "cat/dan"), ("eve/fay", "gus/hal")]
    ingest_bytes(store, text, source="bbo.pbn", recorded_at=RECORDED_AT)
    scores = _board_scores(store)
    assert scores.select("ns_id", "mp_ns").rows() == [("ann/bob", 0.0), ("eve/fay", 2.0)]
    named = {e.payload["contestant_id"]: [p["name"] for p in e.payload["players"]]
             for e in store.read(types=["ContestantRegistered"])}
    assert named == {"ann/bob": ["ann", "bob"], "cat/dan": ["cat", "dan"], "eve/fay": ["eve", "fay"],
                     "gus/hal": ["gus", "hal"]}


def test_the_same_pair_in_two_files_of_one_event_is_one_contestant(store: EventStore) -> None:
    options = IngestOptions(event_id="robots", session_id="1")
    for name, game in (("b1.pbn", _bbo_game(1, "ann", "bob", "cat", "dan", "4S", 10)),
                       ("b2.pbn", _bbo_game(2, "ann", "bob", "cat", "dan", "4S", 9))):
        ingest_bytes(store, game.encode(), source=name, recorded_at=RECORDED_AT, options=options)
    standings = score_store(store).standings
    assert sorted(standings["contestant_id"].to_list()) == ["ann/bob", "cat/dan"]


def _lin(south: str, west: str, north: str, east: str, board: int, bid: str) -> bytes:
    """A BBO tournament file: one board at one table, no table number (the md deal is DEAL)."""
    return (f"pn|{south},{west},{north},{east}|st||md|3S765H432DAKQJCT98,S432HAKQJDT98C765,"
            f"SAKQJHT98D765C432,|rh||ah|Board {board}|sv|o|mb|p|mb|{bid}|mb|p|mb|p|mb|p|pg||mc|7|").encode()


def test_single_board_files_of_one_tournament_keep_every_table(store: EventStore) -> None:
    options = IngestOptions(event_id="bbo-tourney", session_id="1")
    tables = [("s1", "w1", "n1", "e1", "1S"), ("s2", "w2", "n2", "e2", "2S"), ("s3", "w3", "n3", "e3", "3S")]
    reports = [ingest_bytes(store, _lin(*players, board=1, bid=bid), source=f"t{i}.lin", recorded_at=RECORDED_AT,
                            options=options) for i, (*players, bid) in enumerate(tables)]
    assert [r.contested for r in reports] == [0, 0, 0]
    scores = score_store(store).board_scores.sort("table_id")
    assert scores.select("table_id", "ns_id", "contract").rows() == [
        ("n1/s1 v e1/w1", "n1/s1", "1S"), ("n2/s2 v e2/w2", "n2/s2", "2S"), ("n3/s3 v e3/w3", "n3/s3", "3S")]


def test_a_result_that_claims_a_table_already_held_is_reported(store: EventStore) -> None:
    options = IngestOptions(event_id="bbo-tourney", session_id="1")
    ingest_bytes(store, _lin("s1", "w1", "n1", "e1", board=1, bid="1S"), source="first.lin",
                 recorded_at=RECORDED_AT, options=options)
    again = ingest_bytes(store, _lin("s1", "w1", "n1", "e1", board=1, bid="2S"), source="again.lin",
                         recorded_at=RECORDED_AT, options=options)
    assert again.contested == 1
    [claim] = [d for d in again.diagnostics if d.code == "ingest.result.table-claimed"]
    assert (claim.source, claim.line, claim.severity.value) == ("again.lin", 1, "warning")
    assert "board 1 table 'n1/s1 v e1/w1' already has a result from first.lin" in claim.message
    # The same table sent again: the later result stands (a re-sent traveller), and it was said.
    assert score_store(store).board_scores["contract"].to_list() == ["2S"]


def test_unnamed_players_name_the_table_and_the_pairs_by_the_file() -> None:
    from parsers.lin import loads as lin_loads
    from parsers.lin.fast import loads_columnar as lin_fast
    from parsers.lin.writer import dumps as lin_dumps

    data = _lin("", "", "", "", board=4, bid="1S")
    careful = lin_loads(data, source="dir/t17.lin")
    assert [(r.table_id, r.ns_id, r.ew_id) for r in careful.results] == [("t17:1", "t17:1 NS", "t17:1 EW")]
    warned = [(d.code, d.line, d.column, d.severity.value) for d in careful.diagnostics]
    # At the `pn` value, line 1 column 4: said for each side, a warning in strict mode too.
    assert warned == [("lin.pn.unnamed-pair", 1, 4, "warning")] * 2
    assert "pair 't17:1 NS'" in careful.diagnostics[0].message
    assert [d.severity.value for d in lin_loads(data, source="t17.lin", strict=True).diagnostics] == ["warning"] * 2
    assert lin_fast(data, source="dir/t17.lin") is None  # the careful reader warns, so it takes the file
    # Written back, it is still one board of one table, and reads back with the same ids.
    written = lin_dumps(careful)
    assert written.startswith("pn|,,,|") and "qx|" not in written
    again = lin_loads(written, source="t17.lin").results
    assert [(r.table_id, r.ns_id, r.ew_id) for r in again] == [("t17:1", "t17:1 NS", "t17:1 EW")]


def test_one_unnamed_side_is_a_pair_of_its_own() -> None:
    from parsers.lin import loads as lin_loads

    parsed = lin_loads(_lin("s1", "", "n1", "", board=4, bid="1S"), source="half.lin")
    assert [(r.table_id, r.ns_id, r.ew_id) for r in parsed.results] == [("n1/s1 v EW", "n1/s1", "half:1 EW")]
    assert [d.code for d in parsed.diagnostics] == ["lin.pn.unnamed-pair"]
    assert "East-West" in parsed.diagnostics[0].message


def test_unnamed_files_of_one_event_keep_their_pairs_apart(store: EventStore) -> None:
    options = IngestOptions(event_id="bbo-tourney", session_id="1")
    reports = [ingest_bytes(store, _lin("", "", "", "", board=1, bid=bid), source=name, recorded_at=RECORDED_AT,
                            options=options) for name, bid in (("t1.lin", "1S"), ("t2.lin", "2S"))]
    assert [sum(d.code == "lin.pn.unnamed-pair" for d in r.diagnostics) for r in reports] == [2, 2]
    projections = score_store(store)
    assert sorted(projections.standings["contestant_id"].to_list()) == ["t1:1 EW", "t1:1 NS", "t2:1 EW", "t2:1 NS"]
    assert projections.board_scores.sort("table_id").select("table_id", "ns_id", "ew_id", "contract").rows() == [
        ("t1:1", "t1:1 NS", "t1:1 EW", "1S"), ("t2:1", "t2:1 NS", "t2:1 EW", "2S")]


def test_one_table_twice_in_one_lin_file_is_kept_twice() -> None:
    from parsers.lin import loads as lin_loads
    from parsers.lin.fast import loads_columnar as lin_fast

    data = _lin("s1", "w1", "n1", "e1", board=1, bid="1S") + b"\n" + _lin("s1", "w1", "n1", "e1", board=1, bid="2S")
    assert lin_fast(data, source="twice.lin") is None
    parsed = lin_loads(data, source="twice.lin")
    assert [r.table_id for r in parsed.results] == ["n1/s1 v e1/w1", "n1/s1 v e1/w1#2"]
    assert [d.code for d in parsed.diagnostics if d.code == "lin.result.same-table"] == ["lin.result.same-table"]


def test_a_board_played_again_in_another_round_is_another_table() -> None:
    games = [_bbo_game(1, "ann", "bob", "cat", "dan", "4S", 10).replace('[Result "10"]', f'[Result "10"]\n'
                                                                         f'[Table "3"]\n[Round "{r}"]')
             for r in (1, 2)]
    parsed = pbn_loads("\n".join(games), source="relay.pbn")
    assert [(r.table_id, r.round) for r in parsed.results] == [("3", 1), ("3-r2", 2)]
    assert [d.code for d in parsed.diagnostics if d.code.startswith("pbn.result.")] == ["pbn.result.table-round"]


def test_a_standings_section_column_keeps_each_sections_pairs() -> None:
    text = TWO_SECTIONS.decode() + """[TotalScoreTable "Section\\1R;Rank\\2R;PairId\\2R;TotalScoreMP\\5R"]
A 1 3 2
A 2 1 0
B 1 1 2
B 2 3 0
"""
    parsed = pbn_loads(text, source="two.pbn")
    assert [(c.section, c.contestant_id, c.published["rank"]) for c in parsed.contestants] == [
        ("A", "3", 1.0), ("A", "1", 2.0), ("B", "1", 1.0), ("B", "3", 2.0)]
