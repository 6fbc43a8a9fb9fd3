"""PBN 2.1: the reader (`reader`), its vectorised fast path (`fast`) and the writer (`writer`).

    parsed = parsers.pbn.load("session.pbn")            # lenient: keep going, quarantine bad boards
    report = parsers.pbn.loads(text, strict=True)       # strict: every violation of PBN 2.1 is an error
    for game in parsers.pbn.iter_games(text): ...       # the low-level games (what the writer writes)
    text = parsers.pbn.dumps(parsed)                    # records back out as PBN

Modules: `encoding` and `lexer` (bytes to tag pairs and sections), `games` (one game at a time),
`values`, `tables`, `sections`, `results`, `scoretables` and `records` (a game's records),
`inheritance` (`#` and `##`), `validate` (strict mode), `issues` (findings and their anchors),
`reader` (the reader loop), `writer`; `fast*` the vectorised fast path.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from parsers.pbn.games import Annotation, CallSection, PbnGame
from parsers.pbn.lexer import TagPair
from parsers.pbn.reader import PARSER_VERSION, iter_games, load, loads
from parsers.pbn.tables import Column, Table
from parsers.pbn.writer import dumps, dumps_games

if TYPE_CHECKING:
    from parsers.pbn.fast import loads_columnar

__all__ = ["PARSER_VERSION", "Annotation", "CallSection", "Column", "PbnGame", "Table", "TagPair", "dumps",
           "dumps_games", "iter_games", "load", "loads", "loads_columnar"]


def __getattr__(name: str) -> Any:
    # The fast path (numpy, pyarrow and its own modules) loads on first use, not with the package:
    # the results site imports the writer alone, and paid a tenth of a second for the reader's fast path.
    if name == "loads_columnar":
        from parsers.pbn.fast import loads_columnar

        return loads_columnar
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
