"""Editions built from kept awards are byte for byte editions built from scratch.

Each edition below is computed twice: once the way `bridgeledger rank` does it (the awards kept by
the previous edition, only the tournaments whose inputs moved recomputed, the result kept for the
next), once from a full replay with nothing kept. Between editions the log takes corrections in and
after the window, a late approval, late results of another tournament, a link, a merge, a member
change and a rule change; editions go forward, back to an earlier position and around deadlines.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

from models.events import session_stream
from models.ranking_rules import RuleSet
from pipelines.commands.director import TableRef, approve_late_correction, publish_scores, request_correction
from pipelines.files.ingest import IngestOptions, ingest_bytes
from pipelines.log.store import EventStore, NewEvent, to_epoch_us
from pipelines.ranking.edition import RankingEdition, compute_edition
from pipelines.ranking.kept import changed_events, read_kept
from pipelines.ranking.members import import_member_list
from pipelines.ranking.rules import load_rules
from pipelines.ranking.settle import link_player, merge_players
from pipelines.ranking.standings_source import replay_standings
from pipelines.replay.live import refresh
from tests.conftest import RECORDED_AT, SAMPLE_DATA, examples
from tests.ranking.scenario import CET, EVENT, SESSION, build_session, registrations, write_member_list

SBU = load_rules("sbu")
NEXT_DAY = datetime(2026, 11, 22, 12, 0, tzinfo=CET)
OTHER = "autumn-cup-2026"


def same_as_scratch(store: EventStore, rules: RuleSet, as_of: datetime, up_to: int | None = None) -> RankingEdition:
    """The edition from kept awards (keeping its own), checked equal to one from scratch."""
    kept = compute_edition(store, rules, as_of=as_of, up_to=up_to, keep=True)
    scratch = compute_edition(store, rules, as_of=as_of, up_to=up_to, standings=replay_standings)
    assert kept.output_bytes() == scratch.output_bytes()
    for name in ("provisional", "unmatched", "corrections", "merges"):
        assert_frame_equal(getattr(kept, name), getattr(scratch, name))
    return kept


def recomputed(store: EventStore, rules: RuleSet, as_of: datetime) -> list[str] | None:
    """The tournaments the next edition at `as_of` recomputes (None: all of them)."""
    kept = read_kept(store, rules)
    assert kept is not None
    return changed_events(store, kept, up_to=store.head(), as_of_us=to_epoch_us(as_of))


def other_tournament(store: EventStore, played: datetime) -> None:
    """The sample session played again as another tournament, with its players, published 2 h later."""
    data = (SAMPLE_DATA / "club_championship_traveller.csv").read_bytes()
    ingest_bytes(store, data.replace(f"{EVENT},{SESSION},".encode(), f"{OTHER},{SESSION},".encode()),
                 source=f"{OTHER}.csv", recorded_at=RECORDED_AT, options=IngestOptions(occurred_at=played))
    store.append([NewEvent(session_stream(OTHER, SESSION), e.type, {**e.payload, "event_id": OTHER}, played)
                  for e in registrations()], recorded_at=RECORDED_AT)
    publish_scores(store, OTHER, SESSION, at=played + timedelta(hours=2))


def test_kept_awards_follow_corrections_late_results_links_merges_members_and_rules(
        store: EventStore, tmp_path: Path) -> None:
    build_session(store, tmp_path)
    refresh(store)
    open_period = datetime(2026, 11, 21, 21, 29, tzinfo=CET)
    assert same_as_scratch(store, SBU, open_period).award_rows.is_empty()  # provisional: no awards yet
    assert recomputed(store, SBU, NEXT_DAY) == [EVENT]  # its deadline lies between the two times
    first = same_as_scratch(store, SBU, NEXT_DAY)
    assert first.award_rows.height == 52
    head = store.head()
    assert recomputed(store, SBU, NEXT_DAY) == []  # nothing moved: every award as kept

    request_correction(store, TableRef(EVENT, SESSION, board=1, table_id="4", section="A"),
                       at=datetime(2026, 11, 21, 21, 10, tzinfo=CET), correction_id="c1",
                       requested_by="NS pair 4", reason="9 tricks, not 7", tricks=9)
    request_correction(store, TableRef(EVENT, SESSION, board=2, table_id="3", section="A"),
                       at=datetime(2026, 11, 22, 9, 0, tzinfo=CET), correction_id="c2",
                       requested_by="EW pair 5", reason="10 tricks", tricks=10)
    corrected = same_as_scratch(store, SBU, NEXT_DAY)
    assert corrected.corrections["correction_id"].to_list() == ["c1"]
    approve_late_correction(store, "c2", at=datetime(2026, 11, 22, 10, 0, tzinfo=CET), organiser="TO",
                            director="TD", statement="slip shows it")
    approved = same_as_scratch(store, SBU, NEXT_DAY)
    assert approved.corrections["correction_id"].to_list() == ["c1", "c2"]
    assert same_as_scratch(store, SBU, NEXT_DAY, up_to=head).output_bytes() == first.output_bytes()  # the past

    other_tournament(store, datetime(2026, 11, 23, 19, 0, tzinfo=CET))
    later = datetime(2026, 11, 24, 12, 0, tzinfo=CET)
    # The new tournament, and the corrected one: the rows kept last were the edition in the past's.
    assert recomputed(store, SBU, later) == [OTHER, EVENT]
    with_other = same_as_scratch(store, SBU, later)
    assert set(with_other.award_rows["event_id"]) == {EVENT, OTHER}
    assert recomputed(store, SBU, later) == []

    link_player(store, event_id=OTHER, player_name="Zieliński Jan 3", federation_id="99999", at=later)
    assert recomputed(store, SBU, later) == [OTHER]  # a link is its tournament's alone
    same_as_scratch(store, SBU, later)
    merge_players(store, kept_id="1071", merged_id="2011", at=later, reason="one person")
    assert recomputed(store, SBU, later) == []  # merges are applied to every award at the edition
    merged = same_as_scratch(store, SBU, later + timedelta(hours=1))
    assert "2011" not in merged.ranking["player_id"].to_list()

    renamed = tmp_path / "members-2.csv"
    renamed.write_text(write_member_list(tmp_path / "m.csv").read_text(encoding="utf-8")
                       .replace("Zieliński Anna 2", "Zielińska Anna 2"), encoding="utf-8")
    import_member_list(store, renamed, federation="SBU", at=later, recorded_at=RECORDED_AT)
    assert recomputed(store, SBU, later + timedelta(hours=1)) is None  # a member change: all of them
    same_as_scratch(store, SBU, later + timedelta(hours=1))

    halved = SBU.model_copy(update={"version": f"{SBU.version}-half", "points_divisor": SBU.points_divisor * 2})
    assert read_kept(store, halved) is None  # another rule set keeps its own rows
    same_as_scratch(store, halved, later + timedelta(hours=1))
    same_as_scratch(store, SBU, later + timedelta(days=800))  # decay, from the same kept rows


STEPS = ("correct", "late", "approve", "other", "link", "merge", "members", "refresh")


@settings(max_examples=examples(12), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(steps=st.lists(st.tuples(st.sampled_from(STEPS), st.integers(-120, 3000), st.booleans()), max_size=7))
def test_any_sequence_of_editions_from_kept_awards_equals_editions_from_scratch(
        tmp_path_factory: object, steps: list[tuple[str, int, bool]]) -> None:
    root = tmp_path_factory.mktemp("kept")  # type: ignore[attr-defined]
    store = EventStore(root / "kept.duckdb", busy_timeout=2.0)
    build_session(store, root)
    start = datetime(2026, 11, 21, 21, 0, tzinfo=CET)
    done: set[str] = set()
    for index, (step, minutes, in_the_past) in enumerate(steps):
        at = start + timedelta(minutes=60 * index + 1)
        # Each change once (a second correction id or merge would be refused); an approval needs its request.
        if step not in done and (step != "approve" or "late" in done):
            done.add(step)
            _apply(store, step, at, root)
        as_of = start + timedelta(minutes=minutes)
        same_as_scratch(store, SBU, as_of, up_to=max(1, store.head() - 40) if in_the_past else None)


def _apply(store: EventStore, step: str, at: datetime, root: Path) -> None:
    if step == "correct":
        request_correction(store, TableRef(EVENT, SESSION, board=1, table_id="4", section="A"),
                           at=datetime(2026, 11, 21, 21, 10, tzinfo=CET), correction_id="c1",
                           requested_by="NS pair 4", reason="9 tricks", tricks=9)
    elif step == "late":
        request_correction(store, TableRef(EVENT, SESSION, board=2, table_id="3", section="A"), at=at,
                           correction_id="c2", requested_by="EW pair 5", reason="10 tricks", tricks=10)
    elif step == "approve":
        approve_late_correction(store, "c2", at=at, organiser="TO", director="TD", statement="slip")
    elif step == "other":
        other_tournament(store, at)
    elif step == "link":
        link_player(store, event_id=EVENT, player_name="Zieliński Jan 3", federation_id="99999", at=at)
    elif step == "merge":
        merge_players(store, kept_id="1071", merged_id="2011", at=at, reason="one person")
    elif step == "members":
        renamed = root / "members-2.csv"
        renamed.write_text(write_member_list(root / "m.csv").read_text(encoding="utf-8")
                           .replace("Nowak Jan 7", "Nowak-Kowalski Jan 7"), encoding="utf-8")
        import_member_list(store, renamed, federation="SBU", at=at, recorded_at=RECORDED_AT)
    elif step == "refresh":
        refresh(store)
