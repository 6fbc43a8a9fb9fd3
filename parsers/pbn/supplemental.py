"""What a game publishes about its deal besides the deal: double-dummy tricks and par.

Kept as the deal's published values (`BoardRecord.published`, `BoardDealt.published`), a reference
that `pipelines.published.analysis` checks against our own analysis:

- `dd_tricks`: the tricks each declarer takes in each strain, double dummy, as 20 hex digits (lower
  case), declarer N, S, E, W, each in the strains NT, S, H, D, C. That is how `DoubleDummyTricks`
  writes them (BridgeComposer, Deep Finesse; a tag PBN 2.1 does not define, legal by §4.9: the
  order was checked on endplay's RealBridge export, whose games carry both it and the table);
  PBN's own `OptimumResultTable` (§5.7) gives the same twenty numbers as rows, read when the game
  has no `DoubleDummyTricks`.
- `par_score_ns`: par from NS's view: `OptimumScore` (§4.2.7: `NS 90`, `EW -300`, both sides), else
  `ParScore` (bare, NS's view: BEN writes `Score "EW 140"` beside `ParScore "-140"`).
- `par_contract`: `ParContract` or `OptimumContract` exactly as written (their spellings vary).

A value that cannot be read is reported with its position and not kept.
"""

from __future__ import annotations

import re

from parsers.numbers import whole_number
from parsers.pbn.issues import WARNING, Issue, at_cell, at_value, lenient
from parsers.pbn.results import Tags
from parsers.pbn.tables import Table, cell_text
from parsers.pbn.values import is_unknown, parse_sided

DD_SEATS = "NSEW"
"""Declarers in the order of `dd_tricks`."""
DD_STRAINS = ("NT", "S", "H", "D", "C")
"""Strains in the order of each declarer's five digits."""
_DD_TRICKS = re.compile(r"[0-9a-dA-D]{20}")
"""Twenty hex digits, none above 13 tricks."""
_STRAINS = {"NT": "NT", "N": "NT", "S": "S", "H": "H", "D": "D", "C": "C"}
PAR_TAGS = ("OptimumScore", "ParScore")
CONTRACT_TAGS = ("ParContract", "OptimumContract")
DEAL_TAGS = ("DoubleDummyTricks", *PAR_TAGS, *CONTRACT_TAGS)
"""The tags read here (besides the OptimumResultTable section)."""


def _undefined(code: str, message: str, at: int) -> Issue:
    """A value of a tag the standard does not define: a warning in both modes (§4.9: the tag is legal)."""
    return Issue(code, message, at_value(at), WARNING, WARNING)


def deal_published(tags: Tags, table: Table | None, issues: list[Issue]) -> dict[str, float | str]:
    """The double-dummy tricks and par a game publishes (the module docstring's keys)."""
    published: dict[str, float | str] = {}
    text = tags.text("DoubleDummyTricks")
    if text:
        if _DD_TRICKS.fullmatch(text):
            published["dd_tricks"] = text.lower()
        else:
            issues.append(_undefined("pbn.double-dummy.bad-value", f"DoubleDummyTricks {text!r} is not 20 hex "
                                     "digits (tricks 0-d for N, S, E, W in NT, S, H, D, C); it was not kept.",
                                     tags.where["DoubleDummyTricks"]))
    if table is not None and "dd_tricks" not in published:
        from_table = optimum_result_tricks(table, tags.where["OptimumResultTable"], issues)
        if from_table is not None:
            published["dd_tricks"] = from_table
    par = _par(tags, issues)
    if par is not None:
        published["par_score_ns"] = par
    for name in CONTRACT_TAGS:
        contract = tags.text(name)
        if contract:
            published["par_contract"] = contract
            break
    return published


def _par(tags: Tags, issues: list[Issue]) -> float | None:
    """Par from NS's view: OptimumScore, else ParScore; a bare number is NS's."""
    for name in PAR_TAGS:
        text = tags.get(name)
        if text is None or is_unknown(text):
            continue
        scores = parse_sided(text)
        if scores is None:
            message = f"{name} {text!r} is not a score like 'NS 420'; it was not kept."
            issues.append(lenient(WARNING, "pbn.score.optimum", message, at_value(tags.where[name]))
                          if name == "OptimumScore" else _undefined("pbn.par.bad-value", message, tags.where[name]))
            continue
        if "NS" in scores or "" in scores:
            return scores.get("NS", scores.get(""))
        return -scores["EW"]
    return None


def optimum_result_tricks(table: Table, tag_index: int, issues: list[Issue]) -> str | None:
    """The twenty numbers of an OptimumResultTable as `dd_tricks`; None (reported) when it does not
    give each declarer and strain exactly once with 0-13 tricks."""
    names = table.column_names
    if not {"Declarer", "Denomination", "Result"} <= set(names):
        return None
    found: dict[tuple[str, str], int] = {}
    problem: str | None = None
    element: int | None = None
    for row, start in table.rows():
        cells = dict(zip(names, (cell_text(cell).strip() for cell in row), strict=True))
        seat, strain = cells["Declarer"].upper(), _STRAINS.get(cells["Denomination"].upper())
        tricks = whole_number(cells["Result"], high=13)
        if seat not in DD_SEATS or strain is None or tricks is None:
            problem, element = f"row {cells['Declarer']} {cells['Denomination']} {cells['Result']}", start
            break
        if (seat, strain) in found:
            problem, element = f"{seat} {strain} given twice", start
            break
        found[seat, strain] = tricks
    if problem is None and len(found) != 20:
        problem = f"{len(found)} of the 20 declarer and strain rows"
    if problem is not None:
        issues.append(lenient(WARNING, "pbn.table.optimum-result", f"The OptimumResultTable has {problem}; its "
                              "double-dummy tricks were not kept.",
                              at_value(tag_index) if element is None else at_cell(tag_index, element)))
        return None
    return "".join(f"{found[seat, strain]:x}" for seat in DD_SEATS for strain in DD_STRAINS)


