"""Law 78B: the IMP scale, as a polars expression and a scalar helper."""

from __future__ import annotations

import polars as pl

IMP_THRESHOLDS: tuple[int, ...] = (
    20, 50, 90, 130, 170, 220, 270, 320, 370, 430, 500, 600,
    750, 900, 1100, 1300, 1500, 1750, 2000, 2250, 2500, 3000, 3500, 4000,
)
"""Smallest point difference worth 1, 2, ... 24 IMPs."""


def imps_expr(difference: pl.Expr) -> pl.Expr:
    """IMPs for a signed point difference (Law 78B).

    A difference that is not a multiple of 10 (an unrounded datum) takes the lower band:
    15 is 0 IMPs, 45 is 1, as bridge-scorer does.
    """
    magnitude = difference.abs()
    steps = pl.sum_horizontal([(magnitude >= t).cast(pl.Int64) for t in IMP_THRESHOLDS])
    return (difference.sign().cast(pl.Int64) * steps).cast(pl.Int64)


def imps(points_difference: int) -> int:
    """IMPs for a signed point difference (Law 78B): imps(-750) == -13."""
    magnitude = abs(points_difference)
    steps = sum(1 for t in IMP_THRESHOLDS if magnitude >= t)
    return steps if points_difference >= 0 else -steps
