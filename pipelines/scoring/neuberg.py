"""Factoring matchpoints from the n comparable results of a group to the N of a complete board.

Neuberg (WBF/EBU/ACBL since 1991), in 2/1/0 units: ``MP_N = (MP_n + 1) * N / n - 1``; the 1/½/0
form ``(MP_n + 0.5) * N / n - 0.5`` is exactly half of it. The legacy "ratio" factoring
``MP_n * top_N / top_n`` is not Neuberg; it is kept only because some club programs use it, and
so is the old manual method ``MP_n + (N - n)`` (each missing comparison scored as a tie).
"""

from __future__ import annotations

import polars as pl


def neuberg(mp: float, results: int, expected: int, top_per_comparison: float = 2) -> float:
    """Neuberg-factor `mp`, scored among `results` comparable results, to `expected` results.

    `top_per_comparison` is 2 for 2/1/0 units and 1 for 1/½/0 units. `neuberg(mp, n, n)` is `mp`.
    Scoring-notes §2.2: neuberg(4, 6, 7) == 4.8333..., neuberg(2, 6, 7, 1) == 2.41666...
    """
    if results < 1 or expected < 1:
        raise ValueError(f"results and expected must be at least 1, got {results} and {expected}")
    half = top_per_comparison / 2
    return (mp + half) * expected / results - half


def neuberg_expr(raw: pl.Expr, results: pl.Expr, expected: pl.Expr) -> pl.Expr:
    """Neuberg in 2/1/0 units from `raw` = MP_n + 1 (the weighted "own frequency" form).

    With every real result's frequency multiplied by N/n, a result scores
    ``2 f (#lower) + f (#equal, itself included) - 1``; `raw` is ``2 (#lower) + (#equal)``.
    """
    return raw * expected.cast(pl.Float64) / results.cast(pl.Float64) - 1.0


def ratio_expr(raw: pl.Expr, results: pl.Expr, expected: pl.Expr) -> pl.Expr:
    """Legacy ratio factoring in 2/1/0 units: MP_n * top_N / top_n; a lone result gets 50 %."""
    top_n = 2.0 * (results.cast(pl.Float64) - 1.0)
    top_big = 2.0 * (expected.cast(pl.Float64) - 1.0)
    return pl.when(top_n > 0).then((raw - 1.0) * top_big / top_n).otherwise(top_big / 2.0)


def average_expr(raw: pl.Expr, results: pl.Expr, expected: pl.Expr) -> pl.Expr:
    """The manual method in 2/1/0 units: MP_n + (top_N - top_n) / 2 = MP_n + (N - n), every missing
    comparison scored as a tie (pjms.nl "the manual method"; it pulls scores toward 50 %)."""
    return raw - 1.0 + (expected.cast(pl.Float64) - results.cast(pl.Float64))
