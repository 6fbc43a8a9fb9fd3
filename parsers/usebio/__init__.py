"""USEBIO 1.0-1.3 XML (EBU/ABF results files): the reader.

    parsed = parsers.usebio.load("results.xml")

Modules: `tree` (bytes to a bounded element tree, through defusedxml), `hands` (HANDSET boards),
`values` (dates, contracts), `reader` (events, participants, travellers and the reader loop).
"""

from __future__ import annotations

from parsers.usebio.reader import PARSER_VERSION, load, loads

__all__ = ["PARSER_VERSION", "load", "loads"]
