"""Team sessions: every match by round, and the cross table of victory points."""

from __future__ import annotations

from collections import Counter
from typing import Any

import polars as pl

from pipelines.site.gather import SessionData, natural_key
from pipelines.site.paths import card_page
from pipelines.site.views import Names, fmt, whole

Row = dict[str, Any]
TEAM_METHODS = ("IMP_TEAMS", "VP_TEAMS")


def match_rows(data: SessionData, names: Names) -> list[Row]:
    """One row per team per match, as scoring computed it (IMPs for and against, VPs), with its round
    (the earliest of its boards') and the Laws that gave any of its boards its value."""
    from pipelines.scoring.teams import match_results

    if data.info.method not in TEAM_METHODS or data.board_scores.filter(pl.col("match_id").is_not_null()).is_empty():
        return []
    matches = match_results(data.board_scores, data.event.conditions, with_vp=data.info.method == "VP_TEAMS")
    rounds = {(r["section"], r["board"], r["table_id"]): r["round"] for r in data.results.iter_rows(named=True)}
    played: dict[tuple[str, str], int] = {}
    rules: dict[tuple[str, str], dict[str, None]] = {}
    for r in data.board_scores.filter(pl.col("match_id").is_not_null()).iter_rows(named=True):
        key = (r["section"], r["match_id"])
        found = rounds.get((r["section"], r["board"], r["table_id"]))
        if found is not None:
            played[key] = min(played.get(key, found), found)
        if r["board_rule"]:
            rules.setdefault(key, {})[f"{r['board']}: {r['board_rule']}"] = None
    rows = []
    for r in matches.iter_rows(named=True):
        section = r["section"]
        key = (section, r["match_id"])
        rows.append({
            "section": section, "team": r["team_id"], "opponent": r["opponent_id"], "match_id": r["match_id"],
            "round": played.get(key), "rules": list(rules.get(key, {})),
            "team_names": names.linked(section, r["team_id"], "ALL"),
            "opponent_names": names.linked(section, r["opponent_id"], "ALL"),
            "team_href": card_page(section, names.card_direction(section, r["team_id"], "ALL"), r["team_id"]),
            "opponent_href": card_page(section, names.card_direction(section, r["opponent_id"], "ALL"),
                                       r["opponent_id"]),
            "boards": r["boards"], "imps_for": whole(r["imps_for"]), "imps_against": whole(r["imps_against"]),
            "vp": fmt(r["vp"]), "vp_raw": r["vp"],
            "vp_value": r["vp"] if r["vp"] is not None else r["imp_margin"],
        })
    return sorted(rows, key=lambda r: (natural_key(r["section"]), natural_key(r["team"]), natural_key(r["opponent"])))


def rounds_of(matches: list[Row]) -> list[Row]:
    """The matches as a draw lists them: round by round, each match once (its teams in name order),
    with its IMPs and VPs side by side; a match whose VPs add up to other than the session's usual
    total says why (the Laws its boards were scored under)."""
    pairs: dict[tuple[str, str], list[Row]] = {}
    for row in matches:
        pairs.setdefault((row["section"], row["match_id"]), []).append(row)
    sums = Counter(round(sum(r["vp_raw"] for r in rows), 2) for rows in pairs.values()
                   if len(rows) == 2 and all(r["vp_raw"] is not None for r in rows))
    usual = sums.most_common(1)[0][0] if sums else None
    listed: dict[tuple[str, int | None], list[Row]] = {}
    for (section, _), rows in pairs.items():
        home = min(rows, key=lambda r: natural_key(r["team"]))
        total = round(sum(r["vp_raw"] for r in rows), 2) if all(r["vp_raw"] is not None for r in rows) else None
        listed.setdefault((section, home["round"]), []).append({
            # Each team's own IMPs: a fouled board's average-plus to both (Law 86B2) makes them differ
            # from the other team's IMPs against.
            **home, "imps_other": next((r["imps_for"] for r in rows if r is not home), home["imps_against"]),
            "vp_against": next((fmt(r["vp_raw"]) for r in rows if r is not home), ""),
            "vp_total": "" if total is None else fmt(total), "usual_total": "" if usual is None else fmt(usual),
            "unusual": total is not None and usual is not None and total != usual,
        })
    return [{"section": section, "round": number,
             "matches": sorted(found, key=lambda r: natural_key(r["team"]))}
            for (section, number), found in sorted(listed.items(),
                                                   key=lambda k: (natural_key(k[0][0]), k[0][1] or 0))]


def vp_table(matches: list[Row]) -> Row:
    """Teams against teams: the VPs (or, in IMP teams without VPs, the IMP margin) each scored against each."""
    teams = sorted({r["team"] for r in matches} | {r["opponent"] for r in matches}, key=natural_key)
    scored: dict[tuple[str, str], float] = {}
    for r in matches:
        scored[(r["team"], r["opponent"])] = scored.get((r["team"], r["opponent"]), 0.0) + (r["vp_value"] or 0.0)
    vp = any(r["vp"] for r in matches)
    shown = fmt if vp else whole
    rows = [{"team": team,
             "cells": ["—" if team == other else shown(scored.get((team, other))) for other in teams],
             "total": shown(sum(v for (t, _), v in scored.items() if t == team))} for team in teams]
    return {"teams": teams, "rows": rows, "vp": vp}
