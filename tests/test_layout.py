"""The customer's layout: top-level packages from this repository, imports one way only."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

from tests.conftest import REPO

LAYERS = ["models", "parsers", "pipelines", "dags"]


@pytest.mark.parametrize("package", ["models", "parsers", "pipelines"])
def test_packages_resolve_to_this_repository(package: str) -> None:
    module = importlib.import_module(package)
    assert module.__file__ is not None
    assert Path(module.__file__).resolve().parent == REPO / package


def _imported_top_levels(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


@pytest.mark.parametrize("layer", LAYERS)
def test_imports_run_one_way(layer: str) -> None:
    """models <- parsers <- pipelines <- dags: a layer imports only the layers before it."""
    forbidden = set(LAYERS[LAYERS.index(layer) + 1:])
    offenders = {
        str(path.relative_to(REPO)): sorted(_imported_top_levels(path) & forbidden)
        for path in (REPO / layer).rglob("*.py")
        if _imported_top_levels(path) & forbidden
    }
    assert offenders == {}


WIRING = "common.py"
"""The one module of `dags/` that is not a DAG: settings, retries and the failure notice, in
Airflow's vocabulary, shared by the DAG files."""


def test_dag_files_only_call_into_pipelines() -> None:
    """Thin edges: a DAG file imports nothing of ours but `pipelines` and the shared wiring, and
    defines no helpers."""
    for path in (REPO / "dags").glob("*.py"):
        imported = _imported_top_levels(path)
        assert not imported & {"models", "parsers"}, path.name
        if path.name == WIRING:
            continue
        tree = ast.parse(path.read_text())
        top_functions = [n.name for n in tree.body if isinstance(n, ast.FunctionDef)]
        assert len(top_functions) <= 1, f"{path.name} holds logic: {top_functions}"


def test_the_shared_wiring_does_no_bridgeledger_work() -> None:
    """dags/common.py reads Airflow's settings and maps errors; every piece of work is in pipelines."""
    tree = ast.parse((REPO / "dags" / WIRING).read_text())
    functions = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    assert sorted(functions) == ["call", "configured", "notify_failure", "notify_run_failure", "ranking_schedule",
                                 "run_time", "scheduled_time", "settings", "site_tasks"]
    for function in functions.values():
        assert len(function.body) <= 12, f"{function.name} is growing logic"


def _architecture_section() -> str:
    text = (REPO / "README.md").read_text()
    start = text.index("\n## Architecture\n")
    return text[start:text.index("\n## ", start + 1)]


STAGES = ["base", "log", "scoring", "rulings", "replay", "files", "commands", "ranking", "site", "published",
          "edges", "cli"]
"""The packages of `pipelines`, in the order the README's architecture lists them: a stage imports
only the stages before it."""


def _packages() -> list[Path]:
    """Every folder of Python modules under the layers and `scripts`, the layers themselves included."""
    roots = [REPO / layer for layer in [*LAYERS, "scripts"]]
    return roots + sorted(p for root in roots for p in root.rglob("*") if p.is_dir() and "__pycache__" not in p.parts
                          and any(m.name != "__init__.py" for m in p.glob("*.py")))  # not a package of data alone


def test_the_readme_architecture_names_every_package_once() -> None:
    """The README's architecture section is the map a newcomer reads: a line for each package, so a
    package added without its line (or renamed) is caught here; each module's own line is its
    docstring's first (`scripts/layout.py` prints them all)."""
    section = _architecture_section()
    items = [line.strip() for line in section.splitlines() if line.strip().startswith("- `")]
    named = [item.split("`")[1] for item in items]
    wanted = [f"{p.name}/" for p in _packages()]
    assert sorted(n for n in named if n in wanted) == sorted(wanted)
    assert [n for n in named if named.count(n) > 1] == []
    assert len(section.splitlines()) < 60  # the map, not an inventory: the modules speak for themselves


def test_every_module_says_what_it_is() -> None:
    modules = [p for root in _packages() for p in sorted(root.glob("*.py")) if p.name != "__init__.py"]
    assert len(modules) > 150
    silent = [str(p.relative_to(REPO)) for p in modules if not ast.get_docstring(ast.parse(p.read_text()))]
    assert silent == []


def test_the_map_prints_every_module_with_its_line() -> None:
    import subprocess
    import sys

    printed = subprocess.run([sys.executable, str(REPO / "scripts" / "layout.py")], capture_output=True, text=True,
                             check=True).stdout.splitlines()
    assert printed[0].startswith("models/  ")
    log_line = next(line for line in printed if line.strip().startswith("pipelines/log/"))
    assert log_line.startswith("  pipelines/log/  The event log's owner")
    store = next(line for line in printed if line.strip().startswith("store.py"))
    assert store.startswith("    store.py  The event store:")
    assert len(printed) > 180


def _imports_of(path: Path) -> set[str]:
    """The modules of ours that `path` imports, at its top or inside a function."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


def _pipelines_modules() -> dict[str, Path]:
    return {".".join(p.relative_to(REPO).with_suffix("").parts): p for p in (REPO / "pipelines").rglob("*.py")
            if p.name != "__init__.py"}


def test_a_stage_imports_only_the_stages_before_it() -> None:
    assert sorted(STAGES) == sorted(p.name for p in (REPO / "pipelines").iterdir()
                                    if p.is_dir() and (p / "__init__.py").is_file())
    assert [p.name for p in (REPO / "pipelines").glob("*.py")] == ["__init__.py"]  # no module outside a stage
    offenders = {}
    for name, path in _pipelines_modules().items():
        stage = name.split(".")[1]
        later = {imported.split(".")[1] for imported in _imports_of(path)
                 if imported.startswith("pipelines.") and imported.split(".")[1] in STAGES} - {stage}
        later = {other for other in later if STAGES.index(other) > STAGES.index(stage)}
        if later:
            offenders[name] = sorted(later)
    assert offenders == {}


def test_no_import_circle_in_pipelines() -> None:
    """Imports inside functions count too: a circle there is a knot a reader must untie all the same."""
    modules = _pipelines_modules()
    graph = {name: {m for m in _imports_of(path) if m in modules and m != name} for name, path in modules.items()}
    state: dict[str, int] = {}
    circles: list[list[str]] = []

    def visit(name: str, trail: list[str]) -> None:
        state[name] = 1
        for imported in sorted(graph[name]):
            if state.get(imported) == 1:
                circles.append([*trail[trail.index(imported):], imported])
            elif imported not in state:
                visit(imported, [*trail, imported])
        state[name] = 2

    for name in sorted(graph):
        if name not in state:
            visit(name, [name])
    assert circles == []
