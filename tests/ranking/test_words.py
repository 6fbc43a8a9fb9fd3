"""What the diff and the statement say: a link as a link, a tied place as tied, a back-dated
correction as back-dated, an award from a merged id as such, and where a merged-away id went."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path

import polars as pl
import pytest

from pipelines.commands import director
from pipelines.commands.director import Acknowledgement
from pipelines.log.store import EventStore
from pipelines.ranking.diff import back_dated_corrections, diff_rankings
from pipelines.ranking.edition import compute_edition
from pipelines.ranking.members import import_member_list
from pipelines.ranking.settle import link_player, merge_players
from pipelines.ranking.statement import player_statement
from tests.conftest import RECORDED_AT
from tests.ranking.scenario import CET, EVENT, MEMBERS_AT, build_session
from tests.ranking.test_editions import NEXT_DAY, SBU, correct_table_four


def test_a_link_reads_as_the_link_not_as_a_new_award(store: EventStore, tmp_path: Path) -> None:
    build_session(store, tmp_path)
    # A newer member list writes member 2021 under her married name: the file's name no longer matches.
    members = tmp_path / "members.csv"
    members.write_text(members.read_text().replace("2021,Zieliński Anna 2,", "2021,Anna Kowalska,"))
    import_member_list(store, members, federation="SBU", at=MEMBERS_AT + timedelta(days=1), recorded_at=RECORDED_AT)
    before = compute_edition(store, SBU, as_of=NEXT_DAY)
    assert before.unmatched.select("player_name").rows() == [("Zieliński Anna 2",)]
    link_player(store, event_id=EVENT, player_name="Zieliński Anna 2", federation_id="2021", at=NEXT_DAY)
    after = compute_edition(store, SBU, as_of=NEXT_DAY)
    reasons = diff_rankings(before, after, old_label="a", new_label="b").reasons
    assert reasons.filter(pl.col("player_id") == "2021").select("reason", "detail").rows() == [
        ("player linked", "Zieliński Anna 2 (unmatched before) is 2021: club-championship-2026 1 EW 2, place 3 of "
                          "13, 36 points")]


def test_a_correction_that_creates_a_tie_says_the_place_is_tied_and_that_it_was_back_dated(
        store: EventStore, tmp_path: Path) -> None:
    build_session(store, tmp_path)
    first = compute_edition(store, SBU, as_of=NEXT_DAY)
    # Raised (as claimed) at 21:10, inside the period; typed at 22:00, after it ended, and let in by its
    # acknowledgement (a back-dated request applies only so).
    with pytest.MonkeyPatch.context() as clock:
        clock.setattr(director, "appended_now", lambda: datetime(2026, 11, 21, 22, 0, tzinfo=CET))
        correct_table_four(store, Acknowledgement("TD Kowalski", "slip found in the scorer's tray"))
    second = compute_edition(store, SBU, as_of=NEXT_DAY)
    late = back_dated_corrections(store, second)
    assert list(late) == ["c1"]
    assert late["c1"].startswith("back-dated: claims 2026-11-21T20:10:00+00:00, inside the period that ended "
                                 "2026-11-21T20:30:00+00:00, recorded ")
    diff = diff_rankings(first, second, old_label="1", new_label="2", back_dated=late)
    ew11 = diff.reasons.filter(pl.col("player_id") == "2111")
    # EW 11 was 4th alone (24 points); now 4th tied with EW 1, sharing (24 + 12) / 2.
    assert ew11.select("reason", "points_change").rows() == [("correction", -6.0)]
    assert ew11["detail"][0].endswith("changed club-championship-2026 1 EW 11: place 4 -> 4 (tied)")
    assert ew11["detail"][0].startswith("c1 (9 tricks, not 7, by NS pair 4; back-dated: claims ")


def test_a_statement_marks_awards_from_a_merged_id_and_a_merged_away_id_says_where_it_went(
        store: EventStore, tmp_path: Path) -> None:
    build_session(store, tmp_path)
    merge_players(store, kept_id="1071", merged_id="2011", at=datetime(2026, 11, 23, 9, 0, tzinfo=CET))
    merged = compute_edition(store, SBU, as_of=datetime(2026, 11, 23, 10, 0, tzinfo=CET))
    kept = player_statement(merged, "1071")
    assert kept.merged_into is None
    assert kept.awards.select("category", "place", "points", "merged_from").sort("place").rows() == [
        ("club", 1, 60.0, None), ("club", 5, 12.0, "2011")]
    gone = player_statement(merged, "2011")
    assert (gone.merged_into, gone.player_id, gone.points) == ("1071", "1071", 72.0)


def test_a_pzbs_statement_says_the_category_weight_is_inside_first_place(store: EventStore, tmp_path: Path) -> None:
    from pipelines.ranking.rules import load_rules

    build_session(store, tmp_path)
    pzbs = load_rules("pzbs-3").model_copy(update={"federation": "SBU"})
    statement = player_statement(compute_edition(store, pzbs, as_of=NEXT_DAY), "1071")
    assert statement.awards.select("category", "weight").rows() == [("regional", 1.0)]
    assert statement.notes and "national 5" in statement.notes[0] and "inside base_award" in statement.notes[0]
    assert player_statement(compute_edition(store, SBU, as_of=NEXT_DAY), "1071").notes == ()
