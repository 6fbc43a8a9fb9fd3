"""The bridgeledger CSV traveller (README, "The CSV traveller format"): the reader.

    parsed = parsers.csv.load("traveller.csv")

Modules: `reader` (rows to records, with the values' grammar).
"""

from __future__ import annotations

from parsers.csv.reader import PARSER_VERSION, load, loads

__all__ = ["PARSER_VERSION", "load", "loads"]
