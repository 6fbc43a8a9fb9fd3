"""The readers' layout (issue 17): one package per format with the same inner shape, small modules,
and no import circle anywhere in `parsers`."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from models.diagnostics import CODE_SCHEME
from tests.conftest import CORPUS, REPO

PARSERS = REPO / "parsers"
FORMATS = ["csv", "lin", "pbn", "usebio"]
WRITTEN = ["lin", "pbn"]
MAX_LINES = 500


def module_name(path: Path) -> str:
    """`parsers/pbn/reader.py` -> `parsers.pbn.reader`; a package's `__init__.py` is the package."""
    parts = path.relative_to(REPO).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(path: Path, known: set[str]) -> set[str]:
    """The modules of `parsers` that `path` imports anywhere (inside functions too): `from a.b import c`
    counts as `a.b.c` when that is a module, else as `a.b`."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.update(f"{node.module}.{alias.name}" if f"{node.module}.{alias.name}" in known else node.module
                         for alias in node.names)
    return found & known


def import_graph() -> dict[str, set[str]]:
    """Module -> the modules of `parsers` it imports, leaving out a package's imports of its own
    submodules (an `__init__` re-exporting its modules is the package, not a circle)."""
    paths = {module_name(p): p for p in PARSERS.rglob("*.py")}
    graph = {}
    for name, path in paths.items():
        imported = imports_of(path, set(paths))
        if path.name == "__init__.py":
            imported = {m for m in imported if not m.startswith(name + ".")}
        graph[name] = imported - {name}
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every module that can reach itself, with the path that leads back (depth-first search)."""
    found = []
    for start in sorted(graph):
        stack, seen = [(start, [start])], set()
        while stack:
            node, path = stack.pop()
            for nxt in sorted(graph[node]):
                if nxt == start:
                    found.append([*path, start])
                elif nxt not in seen:
                    seen.add(nxt)
                    stack.append((nxt, [*path, nxt]))
    return found


def test_parsers_have_no_import_circle() -> None:
    graph = import_graph()
    assert "parsers.lin.fast" in graph and "parsers.lin.reader" in graph["parsers.lin.fast"]
    assert circles(graph) == []


def test_the_circle_finder_finds_one() -> None:
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}})[0] == ["a", "b", "c", "a"]


@pytest.mark.parametrize("fmt", FORMATS)
def test_each_format_is_one_package_of_the_same_shape(fmt: str) -> None:
    package = PARSERS / fmt
    assert (package / "__init__.py").is_file() and (package / "reader.py").is_file()
    assert (package / "writer.py").is_file() == (fmt in WRITTEN)
    loose = sorted(p.name for p in PARSERS.glob(f"{fmt}*.py"))
    assert loose == []


def test_no_parser_module_is_over_the_size_limit() -> None:
    sizes = {str(p.relative_to(REPO)): len(p.read_text().splitlines()) for p in PARSERS.rglob("*.py")}
    assert {path: n for path, n in sizes.items() if n > MAX_LINES} == {}


def every_diagnostic_code() -> set[str]:
    """The codes of every diagnostic the four readers give on the corpus and the sample data, careful
    reader, lenient and strict."""
    from tests.corpus import parsed

    paths = [p for root in (CORPUS, REPO / "sample_data") for p in sorted(root.rglob("*"))
             if p.suffix.lower() in (".pbn", ".lin", ".xml", ".csv")]
    return {d.code for path in paths for strict in (False, True) for d in parsed(path, strict=strict).diagnostics}


def test_every_diagnostic_code_follows_the_one_scheme() -> None:
    codes = every_diagnostic_code()
    assert {"pbn.deal.duplicate-card", "pbn.contract", "lin.syntax.stray-separator", "csv.row.result",
            "usebio.event.unsupported-type"} <= codes  # all four readers, both shapes of code
    assert sorted(c for c in codes if not CODE_SCHEME.fullmatch(c)) == []


@pytest.mark.parametrize("code", ["pbn", "PBN.deal.rank", "pbn.deal.", "pbn.deal.rank.extra", "pdf.deal.rank",
                                  "lin.pc.revoke!", "lin.pc.-revoke"])
def test_the_scheme_refuses_what_is_not_a_code(code: str) -> None:
    assert CODE_SCHEME.fullmatch(code) is None
