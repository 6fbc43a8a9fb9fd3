"""Conditions of contest: defaults are the Laws', files validate strictly, files' own statements map."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path

import pytest
from pydantic import ValidationError

from models.conditions import (
    ACBL_20_VP,
    SEED001_24_BOARDS,
    ConditionsOfContest,
    UnsupportedScoringError,
    conditions_from_scoring_tag,
)


def test_defaults_are_the_laws() -> None:
    c = ConditionsOfContest()
    assert c.matchpoints.scale == "2/1/0"
    assert c.matchpoints.factoring == "neuberg"
    assert (c.artificial.avg_plus_pct, c.artificial.avg_pct, c.artificial.avg_minus_pct) == (60, 50, 40)
    assert (c.artificial.avg_plus_imps, c.artificial.avg_imps, c.artificial.avg_minus_imps) == (3, 0, -3)
    assert c.artificial.law_12c2c is True
    assert c.correction_period_minutes == 30  # Law 79C1
    assert c.appeal_period_minutes == 30  # Law 92B
    assert c.victory_points.scale == "wbf_2013"
    assert c.victory_points.fractional_margin == "interpolate"
    assert c.tie_breaks == ()
    assert c.teams.knockout_averaging is False


def test_toml_file_validates(tmp_path: Path) -> None:
    path = tmp_path / "coc.toml"
    path.write_text(
        """
method = "BUTLER"
correction_period_minutes = 45
tie_breaks = ["head_to_head_vp", "imp_quotient"]

[butler]
trim = "count"
trim_count = 1
rounding = "half_even"

[victory_points]
scale = "discrete"
preset = "seed001_24"

[sessions.S2]
method = "CROSS_IMP"
""",
        encoding="utf-8",
    )
    c = ConditionsOfContest.from_toml(path)
    assert c.method == "BUTLER"
    assert c.butler.trim == "count" and c.butler.rounding == "half_even"
    assert c.correction_period_minutes == 45
    assert c.tie_breaks == ("head_to_head_vp", "imp_quotient")
    assert c.victory_points.discrete_tables() == (SEED001_24_BOARDS,)
    assert c.session_method("S1", "MP") == "BUTLER"
    assert c.session_method("S2", "MP") == "CROSS_IMP"


def test_payload_dict_validates_and_schedule_decides_when_silent() -> None:
    c = ConditionsOfContest.model_validate({"matchpoints": {"scale": "1/0.5/0"}})
    assert c.matchpoints.scale == "1/0.5/0"
    assert c.session_method("S", "VP_TEAMS") == "VP_TEAMS"
    assert c.session_layout("S", "one_field") == "one_field"


@pytest.mark.parametrize(
    "payload",
    [
        {"unknown_option": 1},
        {"matchpoints": {"scale": "3/1/0"}},
        {"butler": {"trim_fraction": 0.5}},
        {"victory_points": {"scale": "discrete"}},  # a discrete scale needs a table
        {"victory_points": {"scale": "discrete", "tables": [{"lower_bounds": [5, 3]}]}},
        {"correction_period_minutes": -1},
    ],
)
def test_invalid_conditions_are_rejected(payload: dict[str, object]) -> None:
    with pytest.raises(ValidationError):
        ConditionsOfContest.model_validate(payload)


def test_d1_correction_and_appeal_windows_default_to_30_minutes() -> None:
    """D1: scores published 21:00, organiser silent: both windows close at 21:30 (Laws 79C1, 92B)."""
    c = ConditionsOfContest()
    published = datetime(2026, 3, 14, 21, 0)
    assert published + timedelta(minutes=c.correction_period_minutes) == datetime(2026, 3, 14, 21, 30)
    assert published + timedelta(minutes=c.appeal_period_minutes) == datetime(2026, 3, 14, 21, 30)
    later = ConditionsOfContest(correction_period_minutes=24 * 60, appeal_period_minutes=48 * 60)
    assert (later.correction_period_minutes, later.appeal_period_minutes) == (1440, 2880)


def test_conditions_are_frozen() -> None:
    c = ConditionsOfContest()
    with pytest.raises(ValidationError):
        c.method = "MP"  # type: ignore[misc]


def test_acbl_preset_covers_1_to_36_boards() -> None:
    covered = {b for t in ACBL_20_VP for b in range(t.min_boards, (t.max_boards or 0) + 1)}
    assert covered == set(range(1, 37))


@pytest.mark.parametrize(
    ("tag", "method", "check"),
    [
        ("MatchPoints;MP1", "MP", lambda c: c.matchpoints.scale == "2/1/0"),
        ("MP", "MP", lambda c: c.matchpoints.scale == "2/1/0"),
        ("MP;MP2", "MP", lambda c: c.matchpoints.scale == "1/0.5/0"),
        ("##Matchpoints", "MP", lambda c: True),
        ("IMP;Butler-2;Mean", "BUTLER", lambda c: c.butler.trim == "count" and c.butler.trim_count == 1),
        ("IMP;Butler", "BUTLER", lambda c: c.butler.trim == "none"),
        ("IMP;Butler;Median", "BUTLER", lambda c: c.butler.statistic == "median"),
        ("IMP;Cross", "CROSS_IMP", lambda c: c.cross_imps.divisor == "sum"),
        ("IMP;Cross1", "CROSS_IMP", lambda c: c.cross_imps.divisor == "n"),
        ("IMP;Cross2;Mean", "CROSS_IMP", lambda c: c.cross_imps.divisor == "n-1"),
        ("MP_PAIRS", "MP", lambda c: True),
        ("BUTLER_PAIRS", "BUTLER", lambda c: True),
        ("CROSS_IMP", "CROSS_IMP", lambda c: True),
        ("SWISS_TEAMS", "VP_TEAMS", lambda c: True),
        ("P", "MP", lambda c: True),
    ],
)
def test_scoring_tags_map_to_conditions(tag: str, method: str, check: object) -> None:
    c = conditions_from_scoring_tag(tag)
    assert c.method == method
    assert callable(check) and check(c)


@pytest.mark.parametrize("tag", [None, "", "IMP", "I"])
def test_silent_or_ambiguous_tags_leave_the_method_to_the_schedule(tag: str | None) -> None:
    c = conditions_from_scoring_tag(tag)
    assert c.method is None
    assert c.session_method("S", "IMP_TEAMS") == "IMP_TEAMS"
    assert c.session_method("S", "CROSS_IMP") == "CROSS_IMP"


@pytest.mark.parametrize("tag", ["Chicago", "Rubber", "IMP;BAM", "NOTSUP", "B", "Instant"])
def test_unsupported_methods_raise(tag: str) -> None:
    with pytest.raises(UnsupportedScoringError):
        conditions_from_scoring_tag(tag)


def test_models_do_not_import_pipelines() -> None:
    source = Path(__file__).resolve().parents[2] / "models" / "conditions.py"
    assert "pipelines" not in "".join(
        line for line in source.read_text(encoding="utf-8").splitlines() if line.startswith(("from", "import"))
    )


def test_a_files_program_adds_its_known_conventions() -> None:
    from models.conditions import conditions_from_file

    compscore = conditions_from_file("BUTLER_PAIRS", "Compscore3 13-Mar-26 Pianola")
    assert (compscore.method, compscore.butler.trim, compscore.butler.trim_count) == ("BUTLER", "count", 1)
    assert (compscore.matchpoints.factoring_basis, compscore.matchpoints.display_basis) == ("section", "board")
    assert conditions_from_file("MatchPoints;MP1", "Magic Contest France 4.13.3.4").board_decimals == 1
    unknown = conditions_from_file("IMP;Butler-2;Mean", "Some Other Scorer 1.0")
    assert (unknown.butler.trim, unknown.board_decimals) == ("count", None)
    stated_wins = conditions_from_file("IMP;Butler;Mean", "Compscore3")
    assert stated_wins.butler.trim == "none"  # the file's own statement beats the program's habit


def test_programs_that_factor_otherwise_get_their_rule_without_a_conditions_file() -> None:
    from models.conditions import conditions_from_file

    assert conditions_from_file("MP", "ScoreBridge 7.2").matchpoints.factoring == "average"
    bbo = conditions_from_file("MP", "BBO Helper browser add-on (Matthew Kidd)")
    assert bbo.matchpoints.factoring == "none"
    assert conditions_from_file("MP", "BridgeComposer Version 5.57").matchpoints.factoring == "neuberg"
