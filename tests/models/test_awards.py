"""Law 12C2 awards have one vocabulary: the CLI, the CSV reader and scoring read the same spellings."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

from models.awards import AWARD_SPELLINGS, Average, parse_award
from models.conditions import ConditionsOfContest
from parsers.csv import loads as load_csv
from pipelines.cli.app import app
from pipelines.log.store import EventStore
from pipelines.scoring.engine import score
from tests.conftest import SAMPLE_DATA
from tests.scoring.builders import results, sessions, traveller


@pytest.mark.parametrize(("text", "award"), [
    ("A+", "A+"), ("average-plus", "A+"), ("Average Plus", "A+"), ("AVE+", "A+"), ("avg+", "A+"),
    ("A", "A"), ("A=", "A"), ("a0", "A"), ("average", "A"), ("AVE", "A"),
    ("A-", "A-"), ("average_minus", "A-"), ("AVE-", "A-"),
    ("60", 60.0), ("60%", 60.0), (" 45.5 % ", 45.5), ("-3", -3.0),
])
def test_every_spelling_is_one_of_the_three_awards_or_a_number(text: str, award: str | float) -> None:
    assert parse_award(text) == award


@pytest.mark.parametrize("text", ["", "B+", "A++", "101", "-100.5", "nan", "inf", "60 %%"])
def test_anything_else_is_refused(text: str) -> None:
    with pytest.raises(ValueError, match="award"):
        parse_award(text)


def test_the_stored_values_are_the_three_named_by_law_12c2a() -> None:
    assert set(AWARD_SPELLINGS.values()) == {a.value for a in Average} == {"A+", "A", "A-"}
    assert [a.law_name for a in Average] == ["average-plus", "average", "average-minus"]


def test_the_csv_reader_takes_the_same_spellings() -> None:
    head = "event,session,board,section,table,ns,ew,contract,declarer,result\n"
    rows = ["E,S,1,A,1,1,1,AVE+/AVE-,,", "E,S,1,A,2,2,2,average/A=,,", "E,S,1,A,3,3,3,60/40%,,"]
    parsed = load_csv(head + "\n".join(rows) + "\n", source="t.csv")
    assert parsed.errors == ()
    assert [(a.ns_award, a.ew_award) for a in parsed.artificial] == [("A+", "A-"), ("A", "A"), (60.0, 40.0)]


def _mp(rows: list[dict[str, object]]) -> list[float]:
    boards, _ = score(results(rows), sessions("MP"), {"E": ConditionsOfContest()})
    return boards.sort(pl.col("table_id").cast(pl.Int64))["pct_ns"].to_list()


def test_scoring_reads_a_stored_older_spelling_as_the_award_it_names() -> None:
    # An event stored before the one vocabulary may hold `A=` or `ave-`: it scores as average / average-minus.
    canonical = _mp(traveller([420, 450, 400, "A/A-"]))
    older = _mp(traveller([420, 450, 400, " a= /ave-"]))
    assert older == canonical
    assert canonical[3] == 50.0


def test_the_adjust_command_takes_the_laws_names(tmp_path: Path) -> None:
    store = tmp_path / "cli.duckdb"
    runner = CliRunner()
    common = ["--store", str(store)]
    assert runner.invoke(app, ["ingest", *common, "--at", "2026-11-21T19:00+01:00",
                               str(SAMPLE_DATA / "club_championship_traveller.csv")]).exit_code == 0
    adjust = ["adjust", *common, "--event", "club-championship-2026", "--session", "1", "--board", "5",
              "--table", "2", "--director", "TD", "--reason", "late arrival",
              "--requested-at", "2026-11-21T21:20+01:00", "--at", "2026-11-21T21:25+01:00"]
    done = runner.invoke(app, [*adjust, "--ns", "average-plus", "--ew", "Average-Minus"])
    assert done.exit_code == 0, done.output
    refused = runner.invoke(app, [*adjust, "--ns", "B+", "--ew", "A"])
    assert refused.exit_code != 0 and "'B+' is not an award" in refused.output
    awarded = [e.payload for e in EventStore(store).read() if e.type == "ArtificialScoreAwarded"
               and e.payload.get("director") == "TD"]
    assert [(p["ns_award"], p["ew_award"]) for p in awarded] == [("A+", "A-")]
