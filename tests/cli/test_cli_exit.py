"""The `bridgeledger` process ends without the interpreter's teardown, and loses nothing by it: the
exit code, every byte written to a pipe, the exit handlers of the command, and the store's data."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import duckdb
import pytest

from pipelines.cli.exit import exit_code
from tests.conftest import REPO


def run_probe(body: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    """Run `body` (which defines `command`) through `run_then_exit` in a fresh process."""
    script = ("import sys, atexit, os\nfrom pipelines.cli.exit import run_then_exit\n"
              + textwrap.dedent(body) + "\nrun_then_exit(command)\n")
    return subprocess.run([sys.executable, "-c", script], cwd=tmp_path, capture_output=True, text=True,
                          env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"})


@pytest.mark.parametrize(("raised", "code"), [("SystemExit(0)", 0), ("SystemExit(3)", 3),
                                              ("SystemExit(None)", 0), ("SystemExit('no such store')", 1)])
def test_the_process_ends_with_the_commands_exit_code(tmp_path: Path, raised: str, code: int) -> None:
    run = run_probe(f"def command():\n    raise {raised}\n", tmp_path)
    assert run.returncode == code
    if "no such store" in raised:
        assert run.stderr.strip() == "no such store"  # Python prints a message exit, as it always does


def test_a_command_that_returns_ends_with_zero(tmp_path: Path) -> None:
    assert run_probe("def command():\n    print('done')\n", tmp_path).stdout == "done\n"


def test_an_escaping_exception_prints_its_traceback_and_ends_with_one(tmp_path: Path) -> None:
    run = run_probe("def command():\n    raise RuntimeError('a bug')\n", tmp_path)
    assert run.returncode == 1
    assert "Traceback" in run.stderr and "RuntimeError: a bug" in run.stderr


def test_every_byte_written_to_a_pipe_arrives(tmp_path: Path) -> None:
    # Far more than a pipe's buffer, written without a flush: the buffered tail must not be lost.
    run = run_probe("""
        def command():
            for number in range(200_000):
                sys.stdout.write(f"{number}\\n")
            sys.stderr.write("tail of stderr")
            raise SystemExit(4)
        """, tmp_path)
    assert run.returncode == 4
    lines = run.stdout.splitlines()
    assert len(lines) == 200_000 and lines[-1] == "199999"
    assert run.stderr == "tail of stderr"


def test_the_commands_exit_handlers_and_logging_still_run(tmp_path: Path) -> None:
    run = run_probe("""
        import logging, logging.handlers
        def command():
            atexit.register(lambda: open("handler-ran", "w").write("yes"))
            # A buffering handler writes only when it is flushed at logging's shutdown.
            handler = logging.handlers.MemoryHandler(100, target=logging.FileHandler("log.txt"))
            logging.getLogger("probe").addHandler(handler)
            logging.getLogger("probe").warning("kept")
            raise SystemExit(0)
        """, tmp_path)
    assert run.returncode == 0, run.stderr
    assert (tmp_path / "handler-ran").read_text() == "yes"
    assert (tmp_path / "log.txt").read_text() == "kept\n"


def test_a_write_command_leaves_its_store_checkpointed(tmp_path: Path) -> None:
    store = tmp_path / "store.duckdb"
    traveller = REPO / "sample_data" / "club_championship_traveller.csv"
    run = subprocess.run([sys.executable, "-m", "pipelines.cli", "ingest", str(traveller), "--store", str(store)],
                         cwd=REPO, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    # The connection was closed before the process ended: nothing is left in a write-ahead log.
    assert not Path(f"{store}.wal").exists()
    with duckdb.connect(str(store), read_only=True) as con:
        row = con.execute("SELECT count(*) FROM events WHERE type = 'ResultRecorded'").fetchone()
    assert row is not None and row[0] > 0


def test_a_failing_command_keeps_its_code() -> None:
    run = subprocess.run([sys.executable, "-m", "pipelines.cli", "site", "--no-such-option"],
                         cwd=REPO, capture_output=True, text=True)
    assert run.returncode == 2  # click's usage error
    assert "No such option" in run.stderr


@pytest.mark.parametrize(("code", "expected"), [(None, 0), (0, 0), (2, 2), (256 + 5, 5), ("message", 1)])
def test_exit_code_is_pythons_own(code: object, expected: int) -> None:
    assert exit_code(SystemExit(code)) == expected


def test_importing_the_command_line_registers_no_exit_handler_but_loggings() -> None:
    # The end-of-process handler is registered when the command starts, so one registered earlier,
    # while the command line's modules are imported, would run after it: never. Only logging's is
    # (and `run_then_exit` shuts logging down itself); this fails the day an import adds another.
    probe = ("import atexit, logging\n"
             "before = atexit._ncallbacks()\n"
             "import pipelines.cli.app\n"
             "print(before, atexit._ncallbacks())\n")
    run = subprocess.run([sys.executable, "-c", probe], cwd=REPO, capture_output=True, text=True, check=True)
    before, after = map(int, run.stdout.split())
    assert before == 1  # logging's own, registered when logging is imported
    assert after == before, "a module imported by pipelines.cli.app registers an exit handler that would be skipped"
