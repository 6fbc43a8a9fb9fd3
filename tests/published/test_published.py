"""diff-published: our scores against the values a file published."""

from __future__ import annotations

import polars as pl

from pipelines.files.ingest import ingest_bytes
from pipelines.log.store import EventStore
from pipelines.published.scores import published_differences
from pipelines.replay.projections import score_store
from tests.conftest import RECORDED_AT

TRAVELLER = b"""event,session,board,section,table,ns,ew,contract,declarer,result,lead,score
e1,s1,1,A,1,1,1,4S,N,=,SA,420
e1,s1,1,A,2,2,2,4S,N,+1,HK,450
e1,s1,1,A,3,3,3,4SX,N,-2,D7,-500
e1,s1,2,A,1,1,2,3NT,E,=,SA,
"""


def test_only_the_wrong_published_score_is_listed(store: EventStore) -> None:
    ingest_bytes(store, TRAVELLER, source="t.csv", recorded_at=RECORDED_AT)
    differences = published_differences(store, score_store(store))
    assert differences.select("board", "table_id", "measure", "ours", "theirs").rows() == [
        (1, "3", "score_ns", -300.0, -500.0)]


def test_nothing_published_means_nothing_to_list(store: EventStore) -> None:
    ingest_bytes(store, TRAVELLER.replace(b",420", b",").replace(b",450", b",").replace(b",-500", b","),
                 source="u.csv", recorded_at=RECORDED_AT)
    assert published_differences(store, score_store(store)).schema["ours"] == pl.Float64
    assert published_differences(store, score_store(store)).height == 0


# Board 1 at both rooms of a vugraph match: the open room's claim gives 1NT by N 8 tricks, but the
# results list says 9 (`1NN+2`); the closed room's 3NT by E has no play, so `rs` is its only source.
DEAL = "3S2345KH2D3TJKC68K,S78AH46JD2579C39A,S9TQH389TKD48C27Q,"
VUGRAPH = (f"vg|Final,Set 1,I,1,1,Home,0,Away,0|rs|1NN+2,3NE-1|pn|a,b,c,d,e,f,g,h|pg||\n"
           f"qx|o1|md|{DEAL}|sv|b|ah|Board 1|mb|1N|mb|p|mb|p|mb|p|mc|8|\n"
           f"qx|c1|md|{DEAL}|sv|b|ah|Board 1|mb|p|mb|1N|mb|p|mb|3N|mb|p|mb|p|mb|p|\n").encode()


def test_a_vugraph_result_that_is_not_ours_is_listed(store: EventStore) -> None:
    from pipelines.published.scores import published_results, result_differences

    ingest_bytes(store, VUGRAPH, source="match.lin", recorded_at=RECORDED_AT)
    edition = score_store(store)
    assert sorted(published_results(store, edition.position)["theirs"]) == ["1NN+2", "3NE-1"]
    assert result_differences(store, edition).select("board", "ours", "theirs").rows() == [(1, "1NN+1", "1NN+2")]


def test_vugraph_results_that_agree_are_not_listed(store: EventStore) -> None:
    from pipelines.published.scores import result_differences

    ingest_bytes(store, VUGRAPH.replace(b"1NN+2", b"1NN+1"), source="match.lin", recorded_at=RECORDED_AT)
    assert result_differences(store, score_store(store)).height == 0
