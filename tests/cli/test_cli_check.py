"""`bridgeledger check`: reads as `ingest` does by default, as the standard with --strict (issue #12)."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from pipelines.cli.app import app
from tests.conftest import CORPUS

runner = CliRunner()
CORPUS_FILES = sorted(p for p in CORPUS.glob("*/*") if p.suffix in (".pbn", ".lin", ".xml"))
LOSING_DATA = {"pbnref_errors_10.pbn", "pbnref_errors_20.pbn", "pbnref_errors_21.pbn",
               "abf_notsupported_eventtype.xml"}
"""The corpus files whose errors lose data even in lenient mode (deliberately broken, with nothing
to score, or a USEBIO event type nobody scores): the only ones `check` fails by default."""


def test_check_says_a_file_with_nothing_to_score_will_be_refused(tmp_path: Path) -> None:
    path = tmp_path / "boards-only.pbn"
    path.write_text('[Board "1"]\n\n[Board "2"]\n')
    checked = runner.invoke(app, ["check", str(path)])
    assert checked.exit_code == 1
    assert ("boards-only.pbn:1:1: error: the file holds no results, adjusted scores, dealt hands or contestants "
            "(2 board number(s) but no deal; read as pbn): nothing in it can be scored [ingest.no-data]"
            ) in checked.output.replace("\n", "")


@pytest.mark.parametrize("path", CORPUS_FILES, ids=lambda p: p.name)
def test_check_fails_by_default_only_when_data_is_lost(path: Path) -> None:
    checked = runner.invoke(app, ["check", str(path)])
    assert checked.exit_code == (1 if path.name in LOSING_DATA else 0), checked.output


def test_strict_check_reports_the_standard_with_its_clauses() -> None:
    path = CORPUS / "pbn" / "ffb_dn1_finale_2022_seance1.pbn"  # Magic Contest writes 3N for 3NT
    assert runner.invoke(app, ["check", str(path)]).exit_code == 0
    strict = runner.invoke(app, ["check", "--strict", str(path)])
    assert strict.exit_code == 1
    assert ("ffb_dn1_finale_2022_seance1.pbn:126:2: error: Contract written '3N' (NT written N); read as "
            "standard. (PBN 2.1 §3.4.14) [pbn.contract.spelling]") in strict.output
