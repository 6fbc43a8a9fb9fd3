"""A small Law 77 scoring table, only for checking the readers against published scores.

This is a test reference, not the project's scorer: it takes a contract, declarer's tricks and
whether declarer is vulnerable, and returns the score from North-South's point of view.
"""

from __future__ import annotations

from models.board import Vulnerability
from models.contract import Contract, Doubling, Strain


def _made(contract: Contract, tricks: int, vulnerable: bool) -> int:
    assert contract.strain is not None
    level, factor = contract.level, {Doubling.NONE: 1, Doubling.X: 2, Doubling.XX: 4}[contract.doubling]
    per_trick = 20 if contract.strain in (Strain.C, Strain.D) else 30
    contracted = (per_trick * level + (10 if contract.strain is Strain.NT else 0)) * factor
    score = contracted + (300 if not vulnerable else 500) if contracted >= 100 else contracted + 50
    score += {6: 500 if not vulnerable else 750, 7: 1000 if not vulnerable else 1500}.get(level, 0)
    score += {Doubling.NONE: 0, Doubling.X: 50, Doubling.XX: 100}[contract.doubling]
    over = tricks - level - 6
    if contract.doubling is Doubling.NONE:
        score += over * per_trick
    else:
        score += over * (100 if not vulnerable else 200) * (factor // 2)
    return score


def _defeated(contract: Contract, under: int, vulnerable: bool) -> int:
    if contract.doubling is Doubling.NONE:
        return -under * (100 if vulnerable else 50)
    # Doubled undertricks: vulnerable 200 then 300 each; not vulnerable 100, 200, 200 then 300 each.
    penalty = 200 + 300 * (under - 1) if vulnerable else sum((100, 200, 200)[:under]) + 300 * max(0, under - 3)
    return -penalty * (2 if contract.doubling is Doubling.XX else 1)


def score_ns(contract: Contract, tricks: int | None, vulnerability: Vulnerability) -> int:
    """North-South's score for the result (0 when passed out)."""
    if contract.is_passed_out:
        return 0
    assert contract.declarer is not None and tricks is not None
    vulnerable = vulnerability.is_vulnerable(contract.declarer.value)
    needed = contract.level + 6
    score = _made(contract, tricks, vulnerable) if tricks >= needed else _defeated(contract, needed - tricks,
                                                                                     vulnerable)
    return score if contract.declarer.side == "NS" else -score
