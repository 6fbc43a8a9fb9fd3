"""A rule set's publication schedule: a checked cron, monthly by default, outside the rule hash, and
what a scheduler reads from the settings (`ranking_schedule`)."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from models.cron import CRON_PRESETS, check_cron
from models.ranking_rules import RuleSet
from pipelines.ranking.rules import load_rules, ranking_schedule

GOOD = ["0 6 1 * *", "30 7 * * MON", "*/15 0-6 * * 1-5", "0 8 1,15 JAN-jun,oct *", "5/10 * * * 7",
        "0  6   1 * *", "59 23 31 12 0", "@monthly", "@quarterly"]
BAD = {
    "0 6 1 *": "expected 5 fields (minute hour day-of-month month day-of-week) or one of @hourly, @daily, "
               "@weekly, @monthly, @quarterly, @yearly; got 4 field(s)",
    "": "got 0 field(s)",
    "60 6 1 * *": "the minute '60' is not a number from 0 to 59",
    "0 24 1 * *": "the hour '24' is not a number from 0 to 23",
    "0 6 0 * *": "the day of month '0' is not a number from 1 to 31",
    "0 6 1 13 *": "the month '13' is not a name or a number from 1 to 12",
    "0 6 * * FUN": "the day of week 'FUN' is not a name or a number from 0 to 7",
    "0 6 1-0 * *": "the day of month '0' is not a number from 1 to 31",
    "0 6 9-2 * *": "the day of month range '9-2' runs backwards",
    "*/0 * * * *": "the minute step '0' is not a number from 1 to 59",
    "0 6 1 * * *": "got 6 field(s)",
    "@monday": "got 1 field(s)",
    "0 6 L * *": "the day of month 'L' is not a number from 1 to 31",
}


@pytest.mark.parametrize("text", GOOD)
def test_a_cron_every_reader_accepts_is_accepted(text: str) -> None:
    assert check_cron(text) == " ".join(text.split())


@pytest.mark.parametrize(("text", "message"), BAD.items())
def test_a_bad_cron_is_refused_naming_the_field(text: str, message: str) -> None:
    with pytest.raises(ValueError, match="cron ") as raised:
        check_cron(text)
    assert message in str(raised.value)


def test_croniter_agrees_with_the_check() -> None:
    """Airflow reads cron with croniter: what we accept it accepts, and what we refuse as unreadable it
    refuses too (`L` and six fields are croniter extensions we do not allow)."""
    croniter = pytest.importorskip("croniter", reason="croniter comes with the [airflow] extra").croniter
    for text in GOOD:
        assert croniter.is_valid(CRON_PRESETS.get(text.strip(), text)), text
    for text in ("0 6 1 *", "", "60 6 1 * *", "0 24 1 * *", "0 6 1 13 *", "0 6 * * FUN", "@monday"):
        assert not croniter.is_valid(text), text


RULES = """
name = "nbf"
version = "2026"
effective_from = 2026-01-01
default_category = "club"
[curve]
kind = "linear"
award_to = 0.5
[categories.club]
base = 20
"""


def test_the_default_schedule_is_monthly_and_a_rule_set_may_set_its_own() -> None:
    assert RuleSet.from_toml_text(RULES).publication.schedule == "0 6 1 * *"
    weekly = RuleSet.from_toml_text(RULES + '[publication]\nschedule = "0 8 * * MON"\n')
    assert weekly.publication.schedule == "0 8 * * MON"


def test_a_rule_set_with_a_bad_schedule_does_not_load() -> None:
    with pytest.raises(ValidationError) as raised:
        RuleSet.from_toml_text(RULES + '[publication]\nschedule = "0 8 * * MONDAY"\n')
    [error] = raised.value.errors()
    assert error["loc"] == ("publication", "schedule")
    assert "the day of week 'MONDAY' is not a name or a number from 0 to 7" in error["msg"]


def test_the_schedule_is_not_part_of_the_rule_hash() -> None:
    """The hash says how a ranking is computed; when it is published changes nothing in it, so
    editions published before the schedule existed keep their hash."""
    plain = RuleSet.from_toml_text(RULES)
    weekly = RuleSet.from_toml_text(RULES + '[publication]\nschedule = "0 8 * * MON"\n')
    assert plain.content_hash() == weekly.content_hash()
    assert b"publication" not in plain.canonical_json()
    assert load_rules("sbu").content_hash().startswith("8942aa2fb82c9106")  # its hash before schedules existed


def test_ranking_schedule_reads_the_rule_set_the_settings_name(tmp_path: Path) -> None:
    path = tmp_path / "nbf.toml"
    path.write_text(RULES + '[publication]\nschedule = "0 8 * * MON"\n')
    assert ranking_schedule({"ranking_rules": str(path)}, env={}) == "0 8 * * MON"
    assert ranking_schedule(None, env={"BRIDGELEDGER_RANKING_RULES": str(path)}) == "0 8 * * MON"
    assert ranking_schedule({"ranking_rules": "sbu"}, env={}) == "0 6 1 * *"  # a preset: the default
    assert ranking_schedule(None, env={}) is None  # nothing named, nothing to publish: no schedule
    with pytest.raises(FileNotFoundError, match=r"no-such-rules\.toml: no such rule set file"):
        ranking_schedule({"ranking_rules": str(tmp_path / "no-such-rules.toml")}, env={})
