"""The index (every event by date, with its status) and each event's page (sessions, overall standings)."""

from __future__ import annotations

from typing import Any

import polars as pl

from pipelines.site.gather import EventInfo, natural_key
from pipelines.site.labels import labels
from pipelines.site.paths import event_dir, session_dir
from pipelines.site.render import direction_label, page_context, render, session_summary, status_of
from pipelines.site.views import fmt, place_text

Row = dict[str, Any]


def index_row(event: EventInfo) -> Row:
    """What the index shows of an event (plain values: the site's manifest keeps it between builds,
    so a build that touches one event need not gather every other)."""
    return {"date": event.played_on.isoformat() if event.played_on else "", "name": event.name,
            "event_id": event.event_id, "href": f"{event_dir(event.event_id)}/index.html",
            "sessions": len(event.sessions), "language": event.conditions.language,
            "status": status_of(event.status, event.open_until_us, event.conditions.timezone)}


def index_page(rows: list[Row], language: str = "en", ranking_href: str = "") -> bytes:
    """Events (`index_row`) by date, newest first, each with its status: final, or provisional
    until HH:MM; and a link to the federation ranking when one has been published."""
    words = labels(language)
    ordered = sorted(rows, key=lambda r: (r["date"], r["event_id"]), reverse=True)
    return render("index.html", lang=language, t=words, root="", crumbs=[], title=words["results"], events=ordered,
                  ranking_href=ranking_href)


def event_page(event: EventInfo, standings: pl.DataFrame) -> bytes:
    """An event's sessions and, when the conditions carry scores over, its overall standings."""
    words = labels(event.conditions.language)
    zone = event.conditions.timezone
    sessions = [{**session_summary(s, zone, words),
                 "href": f"{session_dir(s.event_id, s.session_id).split('/', 1)[1]}/index.html"}
                for s in event.sessions]
    summary = {"name": event.name, "date": event.played_on.isoformat() if event.played_on else "",
               "organiser": event.organiser, "status": status_of(event.status, event.open_until_us, zone)}
    overall = _overall(event, standings, words) if len(event.sessions) > 1 else []
    context = page_context(event, "../", [{"text": event.name, "href": ""}], event.name)
    return render("event.html", **context, event=summary, sessions=sessions, overall=overall,
                  multi=len(event.sessions) > 1)


def _overall(event: EventInfo, standings: pl.DataFrame, words: dict[str, str] | Any) -> list[Row]:
    """Totals after the last session, as `carry_over` says; empty when scores do not carry over.

    A contestant is its id within its section and direction (pair 1 NS is not pair 1 EW in a
    Mitchell), so the total is summed here per (section, direction, contestant) from each session's
    score: the last session's score plus `fraction` of the earlier ones'.
    """
    carry = event.conditions.carry_over
    if carry.mode != "cumulative":
        return []
    order = list(carry.session_order) or [s.session_id for s in event.sessions]
    mine = standings.filter(pl.col("event_id") == event.event_id)
    groups: dict[tuple[str, str], dict[str, Row]] = {}
    for row in mine.iter_rows(named=True):  # contestants x sessions: hundreds at most
        entry = groups.setdefault((row["section"], row["direction"]), {}).setdefault(
            row["contestant_id"], {"contestant": row["contestant_id"], "scores": {}})
        entry["scores"][row["session_id"]] = row["score"]
    for entries in groups.values():
        for entry in entries.values():
            played = [entry["scores"][s] for s in order if entry["scores"].get(s) is not None]
            entry["total"] = played[-1] + carry.fraction * sum(played[:-1]) if played else None
    return [_ranked(section, direction, list(entries.values()), order, words)
            for (section, direction), entries in sorted(groups.items(),
                                                        key=lambda g: (natural_key(g[0][0]), g[0][1] != "NS"))]


def _ranked(section: str, direction: str, entries: list[Row], order: list[str], words: Any) -> Row:
    entries.sort(key=lambda e: (-(e["total"] or 0.0), natural_key(e["contestant"])))
    totals = [round(e["total"] or 0.0, 6) for e in entries]
    rows = []
    for entry, total in zip(entries, totals, strict=True):
        rank = totals.index(total) + 1
        rows.append({"place": place_text(rank, totals.count(total) > 1), "contestant": entry["contestant"],
                     "players": "", "sessions": [fmt(entry["scores"].get(s)) for s in order],
                     "total": fmt(entry["total"])})
    return {"section": section, "direction": direction, "direction_label": direction_label(direction, words),
            "sessions": order, "rows": rows}
