"""BBO LIN: the reader (`reader`), its vectorised fast path (`fast`) and the writer (`writer`).

    parsed = parsers.lin.load("board.lin")              # lenient: keep going, quarantine bad boards
    report = parsers.lin.loads(text, strict=True)       # strict: every irregularity is an error
    text = parsers.lin.dumps(parsed)                    # records back out as LIN

Modules: `lexer` (text to key|value| tokens with their positions), `values` (md, rs, sv, ...),
`records` (one board block to records), `reader` (the reader loop), `writer`; `fast*` the
vectorised fast path.
"""

from __future__ import annotations

from parsers.lin.fast import loads_columnar
from parsers.lin.reader import PARSER_VERSION, load, loads
from parsers.lin.writer import dumps

__all__ = ["PARSER_VERSION", "dumps", "load", "loads", "loads_columnar"]
