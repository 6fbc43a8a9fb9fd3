"""`bridgeledger --help` loads the command line and nothing else: no reader, no store, no rich help.

Measured by the modules a fresh process has loaded when the help is printed, not by time: a list of
modules is the same on every machine, a time is not.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO

HEAVY = ("polars", "duckdb", "pyarrow", "numpy", "pydantic", "orjson", "jinja2", "matplotlib", "defusedxml",
         "rich", "markdown_it", "pygments", "typer.rich_utils", "models", "parsers")
"""Top-level packages (or modules) that no help page needs."""

LIGHT_PIPELINES = {"pipelines", "pipelines.base", "pipelines.cli", "pipelines.cli.app", "pipelines.cli.common",
                   "pipelines.cli.director", "pipelines.cli.log", "pipelines.cli.ranking",
                   "pipelines.base.neutralise"}
"""The only modules of ours that the help may load."""


def modules_after(*argv: str) -> tuple[str, list[str]]:
    """The help text and every module loaded by a fresh `bridgeledger ARGV...`."""
    probe = ("import json, sys\n"
             f"sys.argv = ['bridgeledger', *{list(argv)!r}]\n"
             "from pipelines.cli.app import app\n"
             "try:\n    app()\nexcept SystemExit:\n    pass\n"
             "print(json.dumps(sorted(sys.modules)), file=sys.stderr)\n")
    run = subprocess.run([sys.executable, "-c", probe], cwd=REPO, capture_output=True, text=True, check=True)
    return run.stdout, json.loads(run.stderr.strip().splitlines()[-1])


def test_help_loads_no_heavy_module() -> None:
    text, loaded = modules_after("--help")
    assert "Usage: bridgeledger" in text and "ingest" in text and "export" in text
    assert sorted(m for m in loaded if m.split(".")[0] in HEAVY or m in HEAVY) == []
    ours = {m for m in loaded if m.split(".")[0] == "pipelines"}
    assert ours <= LIGHT_PIPELINES, sorted(ours - LIGHT_PIPELINES)


@pytest.mark.parametrize("argv", [("rank", "--help"), ("ingest", "--help"), ("export", "--help")])
def test_a_command_help_loads_none_of_ours(argv: tuple[str, ...]) -> None:
    # typer itself coerces a command's parameters with pydantic: that much a command's help pays.
    text, loaded = modules_after(*argv)
    assert f"Usage: bridgeledger {argv[0]}" in text
    heavy = sorted(m for m in loaded if (m.split(".")[0] in HEAVY or m in HEAVY) and m.split(".")[0] != "pydantic")
    assert heavy == []
    ours = {m for m in loaded if m.split(".")[0] == "pipelines"}
    assert ours <= LIGHT_PIPELINES, sorted(ours - LIGHT_PIPELINES)


def test_the_probe_sees_a_command_that_does_load_them() -> None:
    # The same probe on a command that reads files: it must see the reader and polars come in, or
    # the test above would pass by seeing nothing.
    _, loaded = modules_after("check", str(REPO / "sample_data" / "club_championship_traveller.csv"))
    assert {"polars", "pydantic", "parsers.formats", "pipelines.files.ingest"} <= set(loaded)


NOT_FOR_ONE_FILE = ("pyarrow.compute", "rich.progress", "pipelines.scoring", "pipelines.replay.frames", "jinja2",
                    "pipelines.site", "pipelines.ranking", "endplay")
"""What ingesting one file never needs: Arrow's compute kernels (polars' pyarrow path imports them
for a check our columns never need: `parsers.arrow`), the progress bar (shown from three files on),
scoring, replay, the site, the ranking and the solver."""


@pytest.mark.parametrize("sample", ["club_championship_traveller.csv", "weekend/saturday/national_pairs_s1_A.pbn"])
def test_ingesting_one_file_loads_only_what_ingest_needs(sample: str, tmp_path: Path) -> None:
    text, loaded = modules_after("ingest", str(REPO / "sample_data" / sample), "--store", f"{tmp_path}/s.duckdb")
    assert "events appended" in text
    assert {"polars", "duckdb", "pipelines.files.ingest"} <= set(loaded)
    needless = sorted(m for m in loaded if any(m == n or m.startswith(n + ".") for n in NOT_FOR_ONE_FILE))
    assert needless == []


def test_ingesting_a_file_the_fast_path_takes_loads_no_compute_kernels(tmp_path: Path) -> None:
    """The vectorised reader's columns reach polars without `pyarrow.compute` too (`parsers.arrow`)."""
    from benchmarks.wild_pbn import text
    from parsers.pbn.fast import loads_columnar

    path = tmp_path / "wild.pbn"
    path.write_text(text(150, 3), encoding="utf-8")  # (above `Reader.columnar_from`: a smaller file is read carefully)
    assert loads_columnar(path.read_bytes(), source=path.name) is not None  # the fast path takes it
    said, loaded = modules_after("ingest", str(path), "--store", str(tmp_path / "s.duckdb"))
    assert "events appended" in said and "0 record(s) quarantined" in said
    assert "parsers.pbn.fast_records" in loaded
    needless = sorted(m for m in loaded if any(m == n or m.startswith(n + ".") for n in NOT_FOR_ONE_FILE))
    assert needless == []


def test_a_correction_appends_without_loading_pyarrow(tmp_path: Path) -> None:
    # A director's command appends a few events: they go into DuckDB as a bare Arrow stream, and the
    # command does not pay for importing pyarrow and numpy. The event stored is the one asked for, on
    # an intact hash chain.
    from pipelines.files.ingest import ingest_file
    from pipelines.log.store import EventStore
    from tests.conftest import RECORDED_AT

    store = EventStore(tmp_path / "s.duckdb")
    ingest_file(store, REPO / "sample_data" / "club_championship_traveller.csv", recorded_at=RECORDED_AT)
    said, loaded = modules_after("correct", "--event", "club-championship-2026", "--session", "1", "--board", "2",
                                 "--table", "3", "--tricks", "9", "--id", "c-1", "--by", "NS 3",
                                 "--reason", "nine tricks", "--at", "2026-11-21T20:10Z", "--store", str(store.path))
    assert "recorded at log position" in said
    assert sorted(m for m in loaded if m.split(".")[0] in ("pyarrow", "numpy")) == []
    assert "pipelines.log.store" in loaded
    stored = store.read(types=["ScoreCorrectionRequested"])
    assert [(e.payload["correction_id"], e.payload["tricks"], e.stream_version > 1) for e in stored] == \
        [("c-1", 9, True)]
    assert store.verify().ok


@pytest.mark.parametrize("full", [False, True])
def test_scoring_a_store_loads_no_pyarrow(tmp_path: Path, full: bool) -> None:
    # The live projections are created, rebuilt and filled from bare Arrow streams: DuckDB reads a
    # polars frame handed to it through pyarrow, a tenth of a second to import. The tables are filled.
    from pipelines.files.ingest import ingest_file
    from pipelines.log.store import EventStore
    from tests.conftest import RECORDED_AT

    store = EventStore(tmp_path / "s.duckdb")
    ingest_file(store, REPO / "sample_data" / "club_championship_traveller.csv", recorded_at=RECORDED_AT)
    _, loaded = modules_after("score", *(["--full"] if full else []), "--store", str(store.path))
    assert "pipelines.replay.live" in loaded and sorted(m for m in loaded if m.split(".")[0] == "pyarrow") == []
    with store.reader() as con:
        assert con.execute("SELECT count(*) FROM board_scores").fetchall() == [(338,)]


def test_an_analysts_small_query_loads_no_pyarrow(tmp_path: Path) -> None:
    # A few rows of plain types are built from Python rows, as every read of ours does (`frame_of`);
    # a type polars takes only through Arrow (a zoned time) still goes through it.
    from pipelines.files.ingest import ingest_file
    from pipelines.log.store import EventStore
    from tests.conftest import RECORDED_AT

    store = EventStore(tmp_path / "s.duckdb")
    ingest_file(store, REPO / "sample_data" / "club_championship_traveller.csv", recorded_at=RECORDED_AT)
    said, loaded = modules_after("sql", "SELECT count(*) AS n FROM events", "--store", str(store.path))
    assert f"│ {store.head()} │" in said
    assert sorted(m for m in loaded if m.split(".")[0] == "pyarrow") == []
    said, loaded = modules_after("sql", "SELECT min(occurred_at) AS first FROM events", "--store", str(store.path))
    assert "2026" in said and "pyarrow" in loaded
