"""Ranks by total points (ACBL's Junior Master ... Life Master) as a view over published editions."""

from __future__ import annotations

from pathlib import Path

import pytest

from models.ranking_rules import RuleSet, Title
from pipelines.log.store import EventStore
from pipelines.ranking.edition import compute_edition
from pipelines.ranking.publish import publish_edition
from pipelines.ranking.rules import load_rules
from tests.ranking.scenario import build_session
from tests.ranking.test_editions import NEXT_DAY, SBU


def test_each_ranked_player_holds_the_highest_title_their_total_reaches(store: EventStore, tmp_path: Path) -> None:
    build_session(store, tmp_path)
    titled = SBU.model_copy(update={"titles": (Title(label="Bronze", min_points=20),
                                               Title(label="Silver", min_points=40),
                                               Title(label="Gold", min_points=60))})
    assert titled.content_hash() == SBU.content_hash()  # titles name totals; they do not change them
    publish_edition(store, compute_edition(store, titled, as_of=NEXT_DAY), label="e1", at=NEXT_DAY)
    with store.reader() as con:
        rows = dict(con.execute("SELECT player_id, title FROM ranking_titles WHERE edition = 'e1'").fetchall())
    # SBU: 60, 48, 36, 24 and 12 points a direction (pairs NS 7, 1, 5, 9, 10).
    assert (rows["1071"], rows["1011"], rows["1051"], rows["1091"], rows["1101"]) == (
        "Gold", "Silver", "Bronze", "Bronze", None)
    assert len(rows) == 20


def test_titles_are_listed_lowest_first_and_acbl_s_run_to_platinum() -> None:
    with pytest.raises(ValueError, match="lowest first"):
        RuleSet.model_validate({**SBU.model_dump(), "titles": [{"label": "B", "min_points": 10},
                                                               {"label": "A", "min_points": 5}]})
    acbl = load_rules("acbl")
    assert (acbl.titles[0].label, acbl.titles[0].min_points) == ("Junior Master", 5)
    assert ("Life Master", 500) in [(t.label, t.min_points) for t in acbl.titles]
    assert "assumption" in acbl.source
