"""Editions end to end on the sample session: final results only, publication, rebuild, diffs."""

from __future__ import annotations

from datetime import date, datetime
from pathlib import Path

import polars as pl
import pytest

from pipelines.commands.director import Acknowledgement, TableRef, request_correction
from pipelines.log.store import EventStore
from pipelines.ranking.diff import diff_rankings
from pipelines.ranking.edition import compute_edition
from pipelines.ranking.publish import (
    EditionError,
    EditionMismatch,
    publish_edition,
    published_editions,
    rebuild_edition,
)
from pipelines.ranking.rules import load_rules
from pipelines.ranking.settle import IdentityError, find_unmatched, link_player, merge_players
from pipelines.ranking.statement import player_statement
from tests.ranking.scenario import CET, EVENT, SESSION, build_session

NEXT_DAY = datetime(2026, 11, 22, 12, 0, tzinfo=CET)
SBU = load_rules("sbu")


def pair_players(direction: str, *pairs: int) -> set[str]:
    return {f"{1 if direction == 'NS' else 2}{pair:02d}{seat}" for pair in pairs for seat in (1, 2)}


def points(edition_ranking: pl.DataFrame) -> dict[str, float]:
    return dict(edition_ranking.select("player_id", "points").iter_rows())


def correct_table_four(store: EventStore, acknowledgement: Acknowledgement | None = None) -> int:
    """Table 4 of board 1 made 9 tricks, not 7: raised at 21:10, inside the 30-minute period."""
    return request_correction(store, TableRef(EVENT, SESSION, board=1, table_id="4", section="A"),
                              at=datetime(2026, 11, 21, 21, 10, tzinfo=CET), correction_id="c1",
                              requested_by="NS pair 4", reason="9 tricks, not 7", tricks=9,
                              acknowledgement=acknowledgement)


def test_a_session_counts_only_once_its_correction_period_is_over(store: EventStore, tmp_path: Path) -> None:
    build_session(store, tmp_path)
    open_period = compute_edition(store, SBU, as_of=datetime(2026, 11, 21, 21, 29, tzinfo=CET))
    assert open_period.ranking.is_empty() and open_period.awards.is_empty()
    assert open_period.provisional.rows() == [(EVENT, SESSION, "provisional")]
    closed = compute_edition(store, SBU, as_of=datetime(2026, 11, 21, 21, 30, tzinfo=CET))
    assert closed.provisional.is_empty()
    # SBU: 13 pairs a direction, a third (ceil) = 5 awards of 60, 48, 36, 24, 12.
    assert points(closed.ranking) == {
        **dict.fromkeys(pair_players("NS", 7) | pair_players("EW", 3), 60.0),
        **dict.fromkeys(pair_players("NS", 1) | pair_players("EW", 12), 48.0),
        **dict.fromkeys(pair_players("NS", 5) | pair_players("EW", 2), 36.0),
        **dict.fromkeys(pair_players("NS", 9) | pair_players("EW", 11), 24.0),
        **dict.fromkeys(pair_players("NS", 10) | pair_players("EW", 1), 12.0),
    }
    assert closed.ranking.filter(pl.col("player_id") == "1071")["place"][0] == 1
    assert closed.ranking.filter(pl.col("player_id") == "1011")["place"][0] == 5  # four players tie first


def test_players_are_matched_by_file_id_and_by_name(store: EventStore, tmp_path: Path) -> None:
    build_session(store, tmp_path)
    awards = compute_edition(store, SBU, as_of=NEXT_DAY).awards
    assert awards.height == 52  # every player of 26 pairs
    east_west = awards.filter(pl.col("direction") == "EW")  # matched by name: their file carries no ids
    assert east_west["player_id"].to_list() == sorted(pair_players("EW", *range(1, 14)))
    assert set(east_west["player_id"]) == set(awards.filter(pl.col("direction") == "EW")["original_id"])
    assert find_unmatched(store, as_of=NEXT_DAY).is_empty()


def test_the_correction_scenario_end_to_end(store: EventStore, tmp_path: Path) -> None:
    build_session(store, tmp_path)
    first = compute_edition(store, SBU, as_of=NEXT_DAY)
    publish_edition(store, first, label="edition-1", at=NEXT_DAY)
    correct_table_four(store)  # typed in after edition 1, but raised inside the period: it applies
    second = compute_edition(store, SBU, as_of=NEXT_DAY)
    publish_edition(store, second, label="edition-2", at=NEXT_DAY)

    diff = diff_rankings(rebuild_edition(store, "edition-1"), rebuild_edition(store, "edition-2"),
                         old_label="edition-1", new_label="edition-2")
    changed = pair_players("NS", 4, 9, 10) | pair_players("EW", 1, 11)
    assert set(diff.moves["player_id"]) == changed
    assert set(diff.reasons["player_id"]) == changed
    assert set(diff.reasons["reason"]) == {"correction"}
    assert all(detail.startswith("c1 (9 tricks, not 7, by NS pair 4)") for detail in diff.reasons["detail"])
    before, after = points(first.ranking), points(second.ranking)
    assert {p for p in before.keys() | after.keys() if before.get(p) != after.get(p)} == changed
    # NS 4 climbs from 7th to 4th (24 points); EW 1 and EW 11 now tie 4th and share (24 + 12) / 2.
    assert after["1041"] == 24.0 and after["2011"] == after["2111"] == 18.0 and "1101" not in after
    assert rebuild_edition(store, "edition-1").output_sha256() == first.output_sha256()
    assert rebuild_edition(store, "edition-1").output_bytes() == first.output_bytes()


def test_publication_names_its_rules_and_a_rebuild_must_match_it(store: EventStore, tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    build_session(store, tmp_path)
    publish_edition(store, compute_edition(store, SBU, as_of=NEXT_DAY), label="e1", at=NEXT_DAY)
    with pytest.raises(EditionError, match="already published"):
        publish_edition(store, compute_edition(store, SBU, as_of=NEXT_DAY), label="e1", at=NEXT_DAY)
    published = published_editions(store)["e1"].event
    assert (published.rule_set, published.rule_version, published.rule_hash) == ("sbu", "1", SBU.content_hash())
    assert published.as_of == NEXT_DAY and published.position == store.head() - 1
    # Were the computation ever to change, the rebuild says so instead of showing other numbers.
    monkeypatch.setattr("pipelines.ranking.publish.compute_edition",
                        lambda *a, **k: compute_edition(store, SBU, as_of=datetime(2026, 11, 21, 21, 0, tzinfo=CET)))
    with pytest.raises(EditionMismatch, match="e1"):
        rebuild_edition(store, "e1")


def test_a_merge_joins_two_ids_from_its_time_on(store: EventStore, tmp_path: Path) -> None:
    build_session(store, tmp_path)
    before = compute_edition(store, SBU, as_of=NEXT_DAY)
    merge_players(store, kept_id="1071", merged_id="2011", at=datetime(2026, 11, 23, 9, 0, tzinfo=CET),
                  reason="same person, two memberships")
    still_apart = compute_edition(store, SBU, as_of=NEXT_DAY)
    assert still_apart.output_bytes() == before.output_bytes()
    merged = compute_edition(store, SBU, as_of=datetime(2026, 11, 23, 10, 0, tzinfo=CET))
    assert points(merged.ranking)["1071"] == 72.0 and "2011" not in points(merged.ranking)
    diff = diff_rankings(before, merged, old_label="before", new_label="after")
    assert set(diff.reasons["reason"]) == {"identity merge"}
    assert set(diff.reasons["player_id"]) == {"1071", "2011"}
    with pytest.raises(IdentityError, match="already merged"):
        merge_players(store, kept_id="1071", merged_id="2011", at=datetime(2026, 11, 24, tzinfo=CET))


def test_an_unmatched_player_is_listed_then_linked(store: EventStore, tmp_path: Path) -> None:
    build_session(store, tmp_path)
    from tests.ranking.scenario import registrations  # a second file names one player differently

    renamed = registrations()[14]
    payload = dict(renamed.payload)
    payload["players"] = [{"name": "A. Zielinska", "federation_id": None}, payload["players"][1]]
    store.append([type(renamed)(renamed.stream_id, renamed.type, payload, renamed.occurred_at)],
                 recorded_at=NEXT_DAY)
    unmatched = find_unmatched(store, as_of=NEXT_DAY)
    assert unmatched.select("player_name", "contestant_ids", "reason").rows() == [
        ("A. Zielinska", "2", "no member of that name")]
    with pytest.raises(IdentityError, match="not a member"):
        link_player(store, event_id=EVENT, player_name="A. Zielinska", federation_id="0", at=NEXT_DAY)
    link_player(store, event_id=EVENT, player_name="A. Zielinska", federation_id="2021", at=NEXT_DAY)
    assert find_unmatched(store, as_of=NEXT_DAY).is_empty()


def test_what_if_another_rule_version_names_the_rules(store: EventStore, tmp_path: Path) -> None:
    build_session(store, tmp_path)
    published = compute_edition(store, SBU, as_of=NEXT_DAY)
    half = SBU.model_copy(update={"version": "2", "curve": SBU.curve.model_copy(update={"award_to": 0.5})})
    what_if = compute_edition(store, half, as_of=NEXT_DAY)
    diff = diff_rankings(published, what_if, old_label="sbu 1", new_label="sbu 2")
    assert diff.rules_changed == "sbu 1 -> sbu 2"
    assert set(diff.reasons["reason"]) == {"rule version"}
    # Half of 13 pairs, rounded up: 7 awards of 60 / 7 x (8 - place); 6th place (NS 12, EW 13) newly scores.
    assert points(what_if.ranking)["1071"] == 60.0 and points(what_if.ranking)["1011"] == 51.43
    assert points(what_if.ranking)["1121"] == 17.14 and "1121" not in points(published.ranking)
    abf = load_rules("abf").model_copy(update={"federation": "SBU"})
    # ABF Mitchell, 13 tables, W = 100: 26.00 for first, 18.20 for second; top half (6) score.
    assert points(compute_edition(store, abf, as_of=NEXT_DAY).ranking)["1011"] == 18.2


def test_decay_is_itemised_in_the_diff_and_the_statement(store: EventStore, tmp_path: Path) -> None:
    build_session(store, tmp_path)
    wbf = load_rules("wbf").model_copy(update={"federation": "SBU"})
    now = compute_edition(store, wbf, as_of=NEXT_DAY)
    later = compute_edition(store, wbf, as_of=datetime(2028, 11, 21, 12, 0, tzinfo=CET))
    assert points(now.ranking)["1071"] == 800.0 and points(later.ranking)["1071"] == 578.0  # 800 x 0.85^2
    diff = diff_rankings(now, later, old_label="2026", new_label="2028")
    assert set(diff.reasons["reason"]) == {"decay"}
    statement = player_statement(later, "Nowak Anna 7")
    assert statement.player_id == "1071" and statement.place == 1
    assert statement.awards.select("place", "field", "base_award", "age_years", "decay", "points").rows() == [
        (1, 13, 800.0, 2, pytest.approx(0.7225), 578.0)]
    # What expires next: on the third anniversary the award falls to 800 x 0.85^3.
    assert statement.awards.select("decays_on", "points_then").rows() == [(date(2029, 11, 21), 491.3)]


def test_sub_rankings_place_players_within_gender_age_band_and_region(store: EventStore, tmp_path: Path) -> None:
    build_session(store, tmp_path)
    pzbs = load_rules("pzbs-3").model_copy(update={"federation": "SBU"})
    edition = compute_edition(store, pzbs, as_of=NEXT_DAY)
    # PZBS: 13 pairs, P = 26, WK 4.92 each, regional weight 3: PZ = ceil(14.76 + 1.3) = 17; total / 100.
    assert points(edition.ranking)["1071"] == 0.17
    subs = edition.sub_rankings
    assert set(subs["grouping"]) == {"gender", "age_band", "region"}
    women = subs.filter((pl.col("grouping") == "gender") & (pl.col("group") == "F"))
    assert women.filter(pl.col("place") == 1)["player_id"].to_list() == ["1071", "2031"]  # tied: both first
    assert women.height == edition.ranking.filter(pl.col("gender") == "F").height
    seniors = subs.filter(pl.col("group") == "senior")  # born 1951-1963: 63 and over in 2026
    assert seniors.height == edition.ranking.height and subs.filter(pl.col("group") == "junior").is_empty()
    north = subs.filter(pl.col("group") == "North").sort("place", "player_id")
    assert north.select("place", "player_id").rows()[:2] == [(1, "1071"), (1, "1072")]


def test_a_category_the_rules_do_not_know_stops_an_edition_and_a_rebuild_says_it(
        store: EventStore, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    from models.conditions import ConditionsOfContest
    from pipelines.commands.director import register_tournament
    from pipelines.ranking.edition import UnknownCategoryError

    build_session(store, tmp_path)
    register_tournament(store, EVENT, "Club Championship", at=datetime(2026, 11, 20, tzinfo=CET),
                        conditions=ConditionsOfContest(), category="galactic")
    with pytest.raises(UnknownCategoryError, match="its categories are club, district, national"):
        compute_edition(store, SBU, as_of=NEXT_DAY)
    # A rebuild reproduces what was published (editions published while this was a warning).
    with caplog.at_level("WARNING"):
        edition = compute_edition(store, SBU, as_of=NEXT_DAY, check_categories=False)
    assert "club-championship-2026 (galactic)" in caplog.text and "ranked as 'club'" in caplog.text
    assert points(edition.ranking)["1071"] == 60.0


def test_the_scheduled_publication_is_idempotent(store: EventStore, tmp_path: Path) -> None:
    from pipelines.ranking.tasks import publish_ranking

    build_session(store, tmp_path)
    head = store.head()
    first = publish_ranking(str(store.path), "sbu", NEXT_DAY.isoformat(), "2026-11", position=head)
    assert publish_ranking(str(store.path), "sbu", NEXT_DAY.isoformat(), "2026-11", position=head) == first
    assert store.head() == first and len(published_editions(store)) == 1
    with pytest.raises(EditionError, match="other rules"):
        publish_ranking(str(store.path), "wbf", NEXT_DAY.isoformat(), "2026-11", position=head)
