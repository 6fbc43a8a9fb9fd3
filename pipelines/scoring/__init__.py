"""Scoring under the Laws, as polars expressions over frames.

Public helpers for a single value (the frame-wide scorers live in the submodules):
`contract_score` (Law 77), `imps` (Law 78B), `wbf_victory_points` (Law 78D, WBF 2013 scale) and
`neuberg` (factoring a board's matchpoints to the full top).
"""

from pipelines.scoring.contract import contract_score
from pipelines.scoring.imps import imps
from pipelines.scoring.neuberg import neuberg
from pipelines.scoring.vp import wbf_victory_points

__all__ = ["contract_score", "imps", "neuberg", "wbf_victory_points"]
