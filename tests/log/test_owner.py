"""The log's owner is the only code that speaks SQL to the log (issue #32 item 1).

Every read of the log's tables (`events`, `commands`) is a named function of `pipelines/log/` or a
method of `pipelines/log/store.py`; any other module calls one of them. Checked on the source text:
a string literal naming one of those tables after FROM or JOIN, in any case, even split across
the pieces of an implicitly joined string. Docstrings and comments are prose, and are not read.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from pathlib import Path

from tests.conftest import REPO

OWNERS = ("pipelines/log/", "pipelines/log/store.py")
"""The log's owner: the package, and the store's door to it."""

LOG_READ = re.compile(
    r"\b(?:FROM|JOIN)"
    r"(?:\s|[\"'](?:\s|\\)*(?:[rbfu]{1,2})?[\"'])+"  # spaces, or the end of one string piece and the next's start
    r"(?:[\w\"]+\.)*\"?(?P<table>events|commands)\b",
    re.IGNORECASE,
)
"""A table of the log named after FROM or JOIN (also qualified, `event_log.main.events`)."""


def test_no_module_outside_the_logs_owner_reads_the_logs_tables() -> None:
    offenders = [found for path in sorted((REPO / "pipelines").rglob("*.py"))
                 if not path.relative_to(REPO).as_posix().startswith(OWNERS)
                 for found in log_reads(path, REPO)]
    assert offenders == [], "read the log through pipelines/log/ instead:\n" + "\n".join(offenders)


def test_the_owner_itself_is_seen_reading_the_log() -> None:
    """The check finds what it looks for where it is allowed: were it blind, the test above would pass."""
    owners = ("pipelines/log/store.py", "pipelines/log/reads.py")
    owned = [found for owner in owners for found in log_reads(REPO / owner, REPO)]
    assert any(found.startswith("pipelines/log/store.py:") and "FROM commands" in found for found in owned)
    assert any(found.startswith("pipelines/log/reads.py:") and "FROM events" in found for found in owned)


def test_a_read_split_across_string_pieces_is_found_and_prose_is_not(tmp_path: Path) -> None:
    module = tmp_path / "pipelines" / "sample.py"
    module.parent.mkdir()
    module.write_text(
        '"""Read from events at a position (prose)."""\n'
        "\n"
        "LIMIT = 3\n"
        '"""At most this many rows from commands (prose)."""\n'
        "\n"
        "def head(con):\n"
        '    """The last position, from events."""\n'
        "    # the count from commands, a comment\n"
        '    first = con.execute("select max(position) from Events").fetchall()\n'
        '    second = con.execute("SELECT count(*) FROM"\n'
        '                         f" commands WHERE {first}")\n'
        '    third = con.sql("SELECT * FROM event_log.main.events JOIN projection_sessions USING (x)")\n'
        '    return con.sql("SELECT * FROM events_kept LEFT JOIN eventsource ON true"), second, third\n',
        encoding="utf-8")
    assert log_reads(module, tmp_path) == [
        "pipelines/sample.py:9: from Events",
        'pipelines/sample.py:11: FROM" f" commands',
        "pipelines/sample.py:12: FROM event_log.main.events",
    ]


def log_reads(path: Path, root: Path) -> list[str]:
    """`file:line: text` of each read of the log's tables in the module's string literals (not
    its docstrings), the line being the table name's."""
    strings = _string_literals(path.read_text(encoding="utf-8"))
    where = path.relative_to(root).as_posix()
    return [f"{where}:{strings.count(chr(10), 0, match.start('table')) + 1}: {' '.join(match.group(0).split())}"
            for match in LOG_READ.finditer(strings)]


_LITERAL_TOKENS = {tokenize.STRING, *(getattr(tokenize, name) for name in ("FSTRING_START", "FSTRING_MIDDLE",
                                                                           "FSTRING_END") if hasattr(tokenize, name))}
"""A string literal's tokens (an f-string is three kinds of them from Python 3.12 on)."""


def _string_literals(source: str) -> str:
    """The source with everything but its string literals blanked, docstrings too (each character
    left where it was, so line numbers hold): code, names and comments are not SQL."""
    prose = {number for node in ast.walk(ast.parse(source)) if _is_string_statement(node)
             for number in range(node.lineno, (node.end_lineno or node.lineno) + 1)}
    starts = [0]
    for line in source.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))
    kept = list(re.sub(r"[^\n]", " ", source))
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type in _LITERAL_TOKENS and token.start[0] not in prose:  # a string statement: a docstring
            begin, end = (starts[row - 1] + column for row, column in (token.start, token.end))
            kept[begin:end] = source[begin:end]
    return "".join(kept)


def _is_string_statement(node: ast.AST) -> bool:
    """A string on its own as a statement: it does nothing, so it is a docstring (of code or of a name)."""
    return isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)
