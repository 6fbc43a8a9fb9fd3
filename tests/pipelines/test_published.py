"""diff-published: our scores against the values a file published."""

from __future__ import annotations

import polars as pl

from pipelines.ingest import ingest_bytes
from pipelines.projections import score_store
from pipelines.published import published_differences
from pipelines.store import EventStore
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
