"""Team sessions: every match's result and the cross table of victory points."""

from __future__ import annotations

from typing import Any

import polars as pl

from pipelines.site.gather import SessionData, natural_key
from pipelines.site.paths import card_page
from pipelines.site.views import Names, fmt

Row = dict[str, Any]
TEAM_METHODS = ("IMP_TEAMS", "VP_TEAMS")


def match_rows(data: SessionData, names: Names) -> list[Row]:
    """One row per team per match, as scoring computed it (IMPs for and against, VPs)."""
    from pipelines.scoring.teams import match_results

    if data.info.method not in TEAM_METHODS or data.board_scores.filter(pl.col("match_id").is_not_null()).is_empty():
        return []
    matches = match_results(data.board_scores, data.event.conditions, with_vp=data.info.method == "VP_TEAMS")
    rows = []
    for r in matches.iter_rows(named=True):
        section = r["section"]
        rows.append({
            "section": section, "team": r["team_id"], "opponent": r["opponent_id"],
            "team_names": names.players(section, r["team_id"], "ALL"),
            "opponent_names": names.players(section, r["opponent_id"], "ALL"),
            "team_href": card_page(section, names.card_direction(section, r["team_id"], "ALL"), r["team_id"]),
            "opponent_href": card_page(section, names.card_direction(section, r["opponent_id"], "ALL"),
                                       r["opponent_id"]),
            "boards": r["boards"], "imps_for": fmt(r["imps_for"]), "imps_against": fmt(r["imps_against"]),
            "vp": fmt(r["vp"]), "vp_value": r["vp"] if r["vp"] is not None else r["imp_margin"],
        })
    return sorted(rows, key=lambda r: (natural_key(r["section"]), natural_key(r["team"]), natural_key(r["opponent"])))


def vp_table(matches: list[Row]) -> Row:
    """Teams against teams: the VPs (or, in IMP teams without VPs, the IMP margin) each scored against each."""
    teams = sorted({r["team"] for r in matches} | {r["opponent"] for r in matches}, key=natural_key)
    scored: dict[tuple[str, str], float] = {}
    for r in matches:
        scored[(r["team"], r["opponent"])] = scored.get((r["team"], r["opponent"]), 0.0) + (r["vp_value"] or 0.0)
    rows = [{"team": team,
             "cells": ["—" if team == other else fmt(scored.get((team, other))) for other in teams],
             "total": fmt(sum(v for (t, _), v in scored.items() if t == team))} for team in teams]
    return {"teams": teams, "rows": rows, "vp": any(r["vp"] for r in matches)}
