"""Double-dummy tables and par of real deals, held to endplay's own calc_dd_table and par (the oracle)."""

from __future__ import annotations

from typing import Any

import pytest

from parsers.pbn import load
from pipelines.site.analysis import SEATS, STRAINS, canonical_deal, solve
from tests.conftest import CORPUS

FILES = ("ffb_dn1_finale_2022_seance1.pbn", "endplay_eyc1998_export.pbn", "pbnref_correct_21.pbn")
"""A French national final (30 boards), a European youth championship board, the PBN reference's par file."""


def _corpus_boards() -> list[tuple[str, str, str, str]]:
    boards = []
    for name in FILES:
        for board in load(CORPUS / "pbn" / name).boards:
            deal = canonical_deal(board.deal.to_pbn() if board.deal else None)
            if deal is not None and board.dealer is not None and board.vulnerability is not None:
                boards.append((f"{name}#{board.board}", deal, board.dealer.value, board.vulnerability.value))
    return list({b[1]: b for b in boards}.values())  # a deal played twice is analysed once


def test_corpus_has_the_deals() -> None:
    assert (CORPUS / "pbn" / FILES[0]).exists()
    assert len(_corpus_boards()) >= 31


def test_tables_and_par_equal_endplays_own() -> None:
    from endplay.dds import calc_dd_table, par
    from endplay.types import Deal, Player, Vul

    boards = _corpus_boards()
    ours = solve([deal for _, deal, _, _ in boards])
    vul = {"None": Vul.none, "NS": Vul.ns, "EW": Vul.ew, "All": Vul.both}
    strains = {"S": 0, "H": 1, "D": 2, "C": 3, "NT": 4}
    for where, deal, dealer, vulnerability in boards:
        oracle = calc_dd_table(Deal(deal))
        grid = oracle.to_list()
        expected = {seat: {s: grid[strains[s]]["NESW".index(seat)] for s in STRAINS} for seat in SEATS}
        assert ours[deal].tricks == expected, where
        oracle_par = par(oracle, vul[vulnerability], Player.find(dealer))
        found = ours[deal].par_for(dealer, vulnerability)
        assert found is not None and found.score_ns == oracle_par.score, where
        assert _expanded(found.contracts) == _oracle_contracts(oracle_par), where


def _expanded(contracts: tuple[str, ...]) -> set[tuple[str, str, int]]:
    """`4SX EW -3` -> {(4SX, E, -3), (4SX, W, -3)}."""
    out = set()
    for text in contracts:
        contract, seats, result = text.split(" ")
        out |= {(contract, seat, 0 if result == "=" else int(result)) for seat in seats}
    return out


def _oracle_contracts(found: Any) -> set[tuple[str, str, int]]:
    strain = {"spades": "S", "hearts": "H", "diamonds": "D", "clubs": "C", "nt": "NT"}
    doubled = {"passed": "", "doubled": "X", "redoubled": "XX"}
    return {(f"{c.level}{strain[c.denom.name]}{doubled[c.penalty.name]}", c.declarer.abbr, int(c.result))
            for c in found if c.level}


@pytest.mark.parametrize(("text", "canonical"), [
    ("E:A86432.T98.A4.74 JT95.64.K93.AKQJ K7.KQ2.JT72.T982 Q.AJ753.Q865.653",
     "N:Q.AJ753.Q865.653 A86432.T98.A4.74 JT95.64.K93.AKQJ K7.KQ2.JT72.T982"),
    ("N:K652.K73.K54.742 - Q7.AQ2.QJ96.AKQ6 AT943.T654.72.53", None),  # a hand unknown: nothing to analyse
    (None, None),
])
def test_the_cache_key_is_the_deal_from_north(text: str | None, canonical: str | None) -> None:
    assert canonical_deal(text) == canonical

