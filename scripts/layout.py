"""The map of the code: every package and module with the first line of its docstring.

    python scripts/layout.py                  (models, parsers, pipelines, dags)
    python scripts/layout.py pipelines/log    (one folder)

The README's architecture section names the packages; each module says what it is in its own
docstring, and this prints them, so the map cannot fall behind the code.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
LAYERS = ("models", "parsers", "pipelines", "dags")


def first_line(path: Path) -> str:
    """The first line of a module's docstring ('' when it has none)."""
    doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8")))
    return doc.strip().splitlines()[0] if doc and doc.strip() else ""


def lines(folder: Path, depth: int = 0) -> Iterator[str]:
    """`folder` (a package) and what it holds, indented by depth: its modules, then its packages."""
    init = folder / "__init__.py"
    yield f"{'  ' * depth}{folder.relative_to(REPO)}/  {first_line(init) if init.is_file() else ''}".rstrip()
    for module in sorted(folder.glob("*.py")):
        if module.name != "__init__.py":
            yield f"{'  ' * (depth + 1)}{module.name}  {first_line(module)}".rstrip()
    for package in sorted(p for p in folder.iterdir() if p.is_dir() and any(p.glob("*.py"))):
        yield from lines(package, depth + 1)


def main(argv: list[str]) -> int:
    folders = [REPO / a for a in argv] or [REPO / layer for layer in LAYERS]
    missing = [str(f) for f in folders if not f.is_dir()]
    if missing:
        sys.stderr.write(f"no such folder: {', '.join(missing)}\n")
        return 2
    for folder in folders:
        sys.stdout.write("\n".join(lines(folder)) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
