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


def test_the_readme_architecture_names_every_module() -> None:
    # The README's architecture section is the map a newcomer reads: one line per module, so a
    # module added without its line (or renamed) is caught here.
    section = _architecture_section()
    modules = [path.relative_to(REPO) for layer in [*LAYERS, "scripts"] for path in sorted((REPO / layer).rglob("*.py"))
               if path.name != "__init__.py"]
    unnamed = [str(module) for module in modules if f"`{module.name}`" not in section]
    assert len(modules) > 100
    assert unnamed == []
