"""Score cards: every board a pair or team played, from its own side, with a running total."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pipelines.site.gather import SessionData, natural_key
from pipelines.site.paths import board_page, card_page
from pipelines.site.views import Names, columns_for, fmt, place_text

Row = dict[str, Any]


def score_cards(data: SessionData, names: Names, tables: Mapping[tuple[str, int], list[Row]],
                matches: list[Row] | None = None) -> list[Row]:
    """One card per standings row (contestant and direction), boards in the order they were played;
    in team play (`matches`: `teams.match_rows`), each match closed by its IMPs and VPs."""
    by_match = {(m["section"], m["team"], m["match_id"]): m for m in matches or []}
    columns = columns_for(data.info.method)
    rounds = {(r["section"], r["board"], r["table_id"]): r["round"] for r in data.results.iter_rows(named=True)}
    # Each table row under the contestants that sat at it, in the travellers' order: a card then
    # looks at its own rows, not at every row of the session (tens of cards times a thousand rows).
    sat: dict[tuple[str, str], list[Row]] = {}
    for rows in tables.values():
        for row in rows:
            for contestant in dict.fromkeys((row["ns"], row["ew"])):
                sat.setdefault((row["section"], contestant), []).append(row)
    cards = []
    for standing in data.standings.iter_rows(named=True):  # tens of contestants
        section, direction, contestant = standing["section"], standing["direction"], standing["contestant_id"]
        played = [(side, row) for row in sat.get((section, contestant), [])
                  for side in _sides(row, contestant, direction)]
        played.sort(key=lambda p: (rounds.get((section, p[1]["board"], p[1]["table"])) or 0, p[1]["board"],
                                   natural_key(p[1]["table"])))
        cards.append({
            "section": section, "direction": direction, "contestant": contestant,
            "page": card_page(section, direction, contestant),
            "players": names.linked(section, contestant, direction),
            "place": place_text(standing["rank"], standing["tied"]), "score": fmt(standing["score"]),
            "percent": fmt(standing["percentage"]),
            "rows": _with_subtotals(_running(played, names, columns.unit), section, contestant, by_match),
            "unit": columns.unit, "has_percent": columns.percent,
        })
    return sorted(cards, key=lambda c: (natural_key(c["section"]), c["direction"], natural_key(c["contestant"])))


def _with_subtotals(rows: list[Row], section: str, team: str, matches: Mapping[tuple[str, str, str], Row]) -> list[Row]:
    """A team's card: the last board of each of its matches carries the match's result (the team's
    IMPs, the opponents', its VPs), as a scorer's match sheet closes each match."""
    last = {row["match_id"]: i for i, row in enumerate(rows) if row["match_id"] is not None}
    for match_id, index in last.items():
        match = matches.get((section, team, match_id))
        if match is not None:
            rows[index] = {**rows[index], "subtotal": {
                "opponent": match["opponent"], "imps_for": match["imps_for"],
                "imps_against": match["imps_against"], "vp": match["vp"]}}
    return rows


def _sides(row: Row, contestant: str, direction: str) -> list[str]:
    sides = []
    if row["ns"] == contestant and direction in ("NS", "ALL"):
        sides.append("NS")
    if row["ew"] == contestant and direction in ("EW", "ALL"):
        sides.append("EW")
    return sides


def _running(played: list[tuple[str, Row]], names: Names, unit: str) -> list[Row]:
    """Own-side rows with the running total and %; a team's board counts once for both rooms."""
    total, tops, counted = 0.0, 0.0, set()
    rows = []
    for side, row in played:
        own, other = ("ns", "ew") if side == "NS" else ("ew", "ns")
        value = row[f"{unit}_{own}_raw"]
        once = (row["board"], row["match_id"]) if row["match_id"] is not None else (row["board"], row["table"])
        if value is not None and once not in counted:
            counted.add(once)
            total += value
            tops += row["top"] or 0.0
        score = row["score_raw"]
        opponent = row[other]
        rows.append({
            "board": row["board"], "href": f"{board_page(row['section'], row['board'])}#{row['anchor']}",
            "side": side, "table": row["table"], "opponent": opponent,
            "opponent_names": names.linked(row["section"], opponent, side.translate(str.maketrans("NSEW", "EWNS"))),
            "opponent_href": row[f"{other}_href"], "contract": row["contract"], "declarer": row["declarer"],
            "lead": row["lead"], "result": row["result"], "tricks": row["tricks"],
            "score": fmt(None if score is None else (score if side == "NS" else -score)),
            "value": fmt(value), "percent": row[f"pct_{own}"], "running": fmt(total),
            "running_percent": fmt(100 * total / tops) if tops and unit == "mp" else "",
            "running_value": total, "running_percent_value": 100 * total / tops if tops else None,
            "note": row["note"], "classes": row["classes"], "match_id": row["match_id"], "subtotal": None,
        })
    return rows
