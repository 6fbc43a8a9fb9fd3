"""endplay's own double-dummy tables and par for corpus deals, kept in `dd_oracle.json`.

The solver takes about a second a deal on a loaded machine, so the tests hold `analysis.solve` to
these kept results (the solver itself stood in by the tables it gave) and check a few of them
against the real solver each run. Written by the real solver, never by hand:

    PYTHONPATH=. python -m tests.site.dd_oracle
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson

from pipelines.site.analysis import canonical_deal
from tests.conftest import CORPUS

KEPT = Path(__file__).with_name("dd_oracle.json")
FILES = ("ffb_dn1_finale_2022_seance1.pbn", "endplay_eyc1998_export.pbn", "pbnref_correct_21.pbn")
"""A French national final (30 boards), a European youth championship board, the PBN reference's par file."""
STRAIN_NAMES = {"spades": "S", "hearts": "H", "diamonds": "D", "clubs": "C", "nt": "NT"}
PENALTIES = {"passed": "", "doubled": "X", "redoubled": "XX"}


def corpus_boards() -> list[tuple[str, str, str, str]]:
    """(where, canonical deal, dealer, vulnerability) of every complete deal of `FILES`, each deal once."""
    from tests.corpus import read

    boards = []
    for name in FILES:
        for board in read(CORPUS / "pbn" / name).boards:
            deal = canonical_deal(board.deal.to_pbn() if board.deal else None)
            if deal is not None and board.dealer is not None and board.vulnerability is not None:
                boards.append((f"{name}#{board.board}", deal, board.dealer.value, board.vulnerability.value))
    return list({b[1]: b for b in boards}.values())  # a deal played twice is analysed once


def oracle_contracts(found: Any) -> list[list[Any]]:
    """endplay's par contracts, one per declarer: [contract, seat, result], sorted."""
    return sorted([f"{c.level}{STRAIN_NAMES[c.denom.name]}{PENALTIES[c.penalty.name]}", c.declarer.abbr,
                   int(c.result)] for c in found if c.level)


def solved_by_endplay(deal: str, dealer: str, vulnerability: str) -> dict[str, Any]:
    """endplay's calc_dd_table of the deal ([strain S, H, D, C, NT][seat N, E, S, W]) and its par for
    the board's dealer and vulnerability."""
    from endplay.dds import calc_dd_table, par
    from endplay.types import Deal, Player, Vul

    table = calc_dd_table(Deal(deal))
    vul = {"None": Vul.none, "NS": Vul.ns, "EW": Vul.ew, "All": Vul.both}[vulnerability]
    found = par(table, vul, Player.find(dealer))
    return {"table": [list(row) for row in table.to_list()], "par_score": int(found.score),
            "par_contracts": oracle_contracts(found)}


def kept() -> dict[str, dict[str, Any]]:
    """The kept results by canonical deal, each with where it was found, its dealer and vulnerability."""
    return orjson.loads(KEPT.read_bytes())["deals"]  # type: ignore[no-any-return]


def main() -> None:
    """Solve every deal of `corpus_boards` with endplay and keep the results."""
    from pipelines.site.analysis import solver_version

    deals = {deal: {"where": where, "dealer": dealer, "vulnerability": vulnerability,
                    **solved_by_endplay(deal, dealer, vulnerability)}
             for where, deal, dealer, vulnerability in corpus_boards()}
    KEPT.write_bytes(orjson.dumps({"solver": solver_version(), "deals": deals},
                                  option=orjson.OPT_SORT_KEYS | orjson.OPT_INDENT_2) + b"\n")


if __name__ == "__main__":
    main()
