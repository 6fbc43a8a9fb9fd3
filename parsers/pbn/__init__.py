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

from parsers.pbn.fast import loads_columnar
from parsers.pbn.games import Annotation, CallSection, PbnGame
from parsers.pbn.lexer import TagPair
from parsers.pbn.reader import PARSER_VERSION, iter_games, load, loads
from parsers.pbn.tables import Column, Table
from parsers.pbn.writer import dumps, dumps_games

__all__ = ["PARSER_VERSION", "Annotation", "CallSection", "Column", "PbnGame", "Table", "TagPair", "dumps",
           "dumps_games", "iter_games", "load", "loads", "loads_columnar"]
