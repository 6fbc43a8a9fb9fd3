"""Properties every rule set and every edition keeps, whatever the field, the dates or the log."""

from __future__ import annotations

import tempfile
from datetime import date, datetime, timedelta
from itertools import groupby, pairwise
from pathlib import Path

import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pipelines.commands.director import TableRef, request_correction
from pipelines.log.store import EventStore, NewEvent
from pipelines.ranking.curves import decay_by_kind, full_years, place_awards, weighted_award
from pipelines.ranking.edition import RankingEdition, compute_edition
from pipelines.ranking.rules import load_rules, preset_names
from pipelines.ranking.settle import merge_players
from tests.conftest import examples
from tests.ranking.scenario import CET, EVENT, SESSION, build_session
from tests.ranking.test_presets import placed
from tests.store_files import copy_store

PRESETS = {name: load_rules(name) for name in preset_names()}
SBU = load_rules("sbu")
PURE_SETTINGS = settings(deadline=None)  # the first call compiles polars expressions: no per-example deadline
EVENTS_SETTINGS = settings(max_examples=examples(8), deadline=None,
                           suppress_health_check=[HealthCheck.function_scoped_fixture])


def unit_awards(name: str, ranks: list[int], tables: float, sessions: int, seats: int, category: str) -> list[float]:
    rules = PRESETS[name]
    frame = placed(rules, ranks, category=category, tables=tables, sessions=sessions, seats=seats,
                   sum_wk=len(ranks) * seats * 3.0, one_field=seats >= 4)
    scored = place_awards(frame, rules)
    return scored.select(weighted_award(rules, pl.col("place_award"), pl.col("weight")))["place_award"].to_list()


Shape = tuple[str, float, int, int]
"""A rule set preset, tables, sessions and players per contestant."""
field_shapes = st.tuples(st.sampled_from(sorted(PRESETS)), st.floats(min_value=1, max_value=400),
                         st.integers(min_value=1, max_value=7), st.sampled_from([1, 2, 4]))


@PURE_SETTINGS
@given(shape=field_shapes, field=st.integers(min_value=1, max_value=300), data=st.data())
def test_awards_never_increase_with_a_worse_place(shape: Shape, field: int, data: st.DataObject) -> None:
    name, tables, sessions, seats = shape
    category = data.draw(st.sampled_from(sorted(PRESETS[name].categories)))
    awards = unit_awards(name, list(range(1, field + 1)), tables, sessions, seats, category)
    assert all(a >= 0 for a in awards)
    assert all(better >= worse for better, worse in pairwise(awards))


@PURE_SETTINGS
@given(shape=field_shapes, groups=st.lists(st.integers(min_value=1, max_value=6), min_size=1, max_size=40))
def test_tied_places_get_equal_awards(shape: Shape, groups: list[int]) -> None:
    ranks: list[int] = []
    for size in groups:  # a tie of `size` contestants shares the place after everyone above them
        ranks += [len(ranks) + 1] * size
    name, tables, sessions, seats = shape
    awards = unit_awards(name, ranks, tables, sessions, seats, PRESETS[name].default_category)
    by_rank: dict[int, set[float]] = {}
    for rank, award in zip(ranks, awards, strict=True):
        by_rank.setdefault(rank, set()).add(award)
    assert all(len(values) == 1 for values in by_rank.values())


@PURE_SETTINGS
@given(name=st.sampled_from(sorted(PRESETS)), earned=st.dates(date(2000, 1, 1), date(2030, 12, 31)),
       first=st.dates(date(2000, 1, 1), date(2035, 12, 31)), later=st.integers(min_value=0, max_value=4000),
       data=st.data())
def test_decay_never_increases_points(name: str, earned: date, first: date, later: int, data: st.DataObject) -> None:
    rules = PRESETS[name]
    kind = data.draw(st.sampled_from(sorted({c.award_kind for c in rules.categories.values()})))
    frame = pl.DataFrame({"earned": [earned], "award_kind": [kind]})

    def factor(at: date) -> float:
        return float(frame.select(decay_by_kind(rules, full_years(pl.col("earned"), at))).item())

    assert 0 <= factor(first + timedelta(days=later)) <= factor(first) <= 1


# --- editions over a log ---------------------------------------------------------------------------

@pytest.fixture(scope="module")
def history(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The session, a correction in time and one too late, then a merge two days on."""
    folder = tmp_path_factory.mktemp("history")
    store = EventStore(folder / "history.duckdb")
    build_session(store, folder)
    table = TableRef(EVENT, SESSION, board=1, table_id="4", section="A")
    request_correction(store, table, at=datetime(2026, 11, 21, 21, 10, tzinfo=CET), correction_id="c1",
                       requested_by="NS 4", reason="9 tricks", tricks=9)
    request_correction(store, TableRef(EVENT, SESSION, 2, "3", "A"), at=datetime(2026, 11, 21, 21, 40, tzinfo=CET),
                       correction_id="c2", requested_by="EW 3", reason="2NT", contract="2NT", declarer="S")
    merge_players(store, kept_id="1071", merged_id="2031", at=datetime(2026, 11, 23, 9, 0, tzinfo=CET))
    return folder / "history.duckdb"


def _copy(path: Path) -> EventStore:
    folder = Path(tempfile.mkdtemp())
    return copy_store(path, folder / "copy.duckdb")


def _points(edition: RankingEdition) -> dict[str, float]:
    return dict(edition.ranking.select("player_id", "points").iter_rows())


@EVENTS_SETTINGS
@given(minutes=st.integers(min_value=0, max_value=4 * 24 * 60))
def test_an_edition_at_t_ignores_what_happened_after_t(history: Path, minutes: int) -> None:
    moment = datetime(2026, 11, 21, 18, 0, tzinfo=CET) + timedelta(minutes=minutes)
    full = EventStore(history)
    truncated = EventStore(Path(tempfile.mkdtemp()) / "until-t.duckdb")
    kept = [e for e in full.read() if e.occurred_at <= moment]
    # Each keeps when it was recorded: the Law 79C policy reads it (a correction entered late is back-dated).
    for recorded_at, group in groupby(kept, key=lambda e: e.recorded_at):
        truncated.append([NewEvent(e.stream_id, e.type, e.payload, e.occurred_at, e.schema_version) for e in group],
                         recorded_at=recorded_at)
    assert compute_edition(full, SBU, as_of=moment).output_bytes() == \
        compute_edition(truncated, SBU, as_of=moment).output_bytes()


MERGEABLE = [f"{d}{p:02d}{s}" for d in (1, 2) for p in range(1, 14) for s in (1, 2) if f"{d}{p:02d}{s}" != "2031"]
"""Every member who played, but the one the history already merged away."""


@EVENTS_SETTINGS
@given(ids=st.lists(st.sampled_from(MERGEABLE), min_size=2, max_size=2, unique=True))
def test_a_merge_adds_the_two_players_points(history: Path, ids: list[str]) -> None:
    kept, merged = ids
    store = _copy(history)
    at = datetime(2026, 11, 30, 12, 0, tzinfo=CET)
    before = _points(compute_edition(store, SBU, as_of=at))
    merge_players(store, kept_id=kept, merged_id=merged, at=at - timedelta(hours=1))
    after = _points(compute_edition(store, SBU, as_of=at))
    assert after.get(kept, 0.0) == pytest.approx(before.get(kept, 0.0) + before.get(merged, 0.0))
    assert merged not in after
    assert {p: v for p, v in after.items() if p != kept} == {p: v for p, v in before.items() if p not in ids}
