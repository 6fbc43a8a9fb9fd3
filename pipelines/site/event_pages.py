"""The index (every event by date, with its status) and each event's page (sessions, overall standings)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import polars as pl
from markupsafe import Markup

from pipelines.site.fragments import names_markup
from pipelines.site.gather import EventInfo, SessionData, natural_key
from pipelines.site.labels import labels
from pipelines.site.paths import card_page, event_dir, session_dir
from pipelines.site.ranked import contestant_points, no_rows
from pipelines.site.render import direction_label, local_time, page_context, render, session_summary, status_of
from pipelines.site.views import Names, fmt, place_text

Row = dict[str, Any]


def event_date(event: EventInfo) -> str:
    """The event's date; for an event whose files and registration name none, the day its results
    were first published (in the event's zone), so that no event shows a blank."""
    if event.played_on is not None:
        return event.played_on.isoformat()
    published = [s.published_us for s in event.sessions if s.published_us is not None]
    moment = local_time(min(published), event.conditions.timezone) if published else None
    return moment.date().isoformat() if moment is not None else ""


def index_row(event: EventInfo) -> Row:
    """What the index shows of an event (plain values: the site's manifest keeps it between builds,
    so a build that touches one event need not gather every other)."""
    return {"date": event_date(event), "name": event.name,
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


def contestant_names(data: SessionData) -> dict[str, list[list[str]]]:
    """Each contestant's players as the session's pages name them, keyed `section|direction|id`, in
    pieces of [text, ranked player's id or ''] (`Names.segments`): kept in the site's manifest, so
    the event page names (and links) every session's pairs without reading them all."""
    names = Names.of(data)
    return {_name_key(section, direction, contestant): [list(piece) for piece in
                                                        names.segments(section, contestant, direction)]
            for section, direction, contestant in data.standings.select(
                "section", "direction", "contestant_id").iter_rows()}


def _pieces(kept: object) -> list[tuple[str, str]]:
    """A contestant's names as `contestant_names` kept them (or as text, as an older build did)."""
    if isinstance(kept, str):
        return [(kept, "")]
    pieces = kept if isinstance(kept, list) else []
    return [(str(p[0]), str(p[1])) for p in pieces if isinstance(p, list) and len(p) == 2]


def _names_shown(kept: object) -> Markup:
    """A contestant's names, each ranked player linked from the event's folder to their ranking page."""
    return names_markup(_pieces(kept), "../")


def _names_text(kept: object) -> str:
    """A contestant's names as plain text (the winners' line names them; the standings link them)."""
    return "".join(text for text, _ in _pieces(kept))


def _name_key(section: str, direction: str, contestant: str) -> str:
    return f"{section}|{direction}|{contestant}"


def event_page(event: EventInfo, standings: pl.DataFrame, names: Mapping[str, object] | None = None,
               ranking: pl.DataFrame | None = None) -> bytes:
    """An event's sessions; when the conditions carry scores over, its overall standings (with the
    ranking points each result earned, from the event's award rows of the ranking the site shows,
    `ranking`); for an event of one session, its winners."""
    words = labels(event.conditions.language)
    zone = event.conditions.timezone
    sessions = [{**session_summary(s, zone, words),
                 "href": f"{session_dir(s.event_id, s.session_id).split('/', 1)[1]}/index.html"}
                for s in event.sessions]
    summary = {"name": event.name, "date": event_date(event),
               "organiser": event.organiser, "status": status_of(event.status, event.open_until_us, zone)}
    names = names or {}
    earned = contestant_points(ranking if ranking is not None else no_rows(), "")
    overall = _overall(event, standings, words, names, earned) if len(event.sessions) > 1 else []
    winners = _winners(event, standings, words, names) if len(event.sessions) == 1 else []
    context = page_context(event, "../", [{"text": event.name, "href": ""}], event.name)
    return render("event.html", **context, event=summary, sessions=sessions, overall=overall, winners=winners,
                  multi=len(event.sessions) > 1)


def _card_href(event_id: str, session_id: str, section: str, direction: str, contestant: str) -> str:
    """A contestant's score card in a session, from the event's folder."""
    return f"{session_dir(event_id, session_id).split('/', 1)[1]}/{card_page(section, direction, contestant)}"


def _winners(event: EventInfo, standings: pl.DataFrame, words: Mapping[str, str],
             names: Mapping[str, object]) -> list[Row]:
    """The first place of each section and direction of a one-session event (a shared first, all)."""
    [info] = event.sessions
    mine = standings.filter((pl.col("event_id") == event.event_id) & (pl.col("session_id") == info.session_id)
                            & (pl.col("rank") == 1))
    rows = sorted(mine.iter_rows(named=True), key=lambda r: (natural_key(r["section"]), r["direction"] != "NS",
                                                             natural_key(r["contestant_id"])))
    return [{"section": r["section"], "direction_label": direction_label(r["direction"], words),
             "contestant": r["contestant_id"],
             "players": _names_text(names.get(_name_key(r["section"], r["direction"], r["contestant_id"]), "")),
             "href": _card_href(event.event_id, info.session_id, r["section"], r["direction"], r["contestant_id"]),
             "score": fmt(r["score"]), "percent": fmt(r["percentage"])} for r in rows]


def _overall(event: EventInfo, standings: pl.DataFrame, words: Mapping[str, str],
             names: Mapping[str, object], earned: Mapping[tuple[str, str, str], float]) -> list[Row]:
    """Totals after the last session, as `carry_over` says; empty when scores do not carry over.

    A contestant is its id within its section and direction (pair 1 NS is not pair 1 EW in a
    Mitchell), so the total is summed here per (section, direction, contestant) from each session's
    score: the last session's score plus `fraction` of the earlier ones'. Its percentage is that
    total over the tops it was scored against, weighted the same way (a session's top is its score
    over its percentage).
    """
    carry = event.conditions.carry_over
    if carry.mode != "cumulative":
        return []
    order = list(carry.session_order) or [s.session_id for s in event.sessions]
    mine = standings.filter(pl.col("event_id") == event.event_id)
    groups: dict[tuple[str, str], dict[str, Row]] = {}
    for row in mine.iter_rows(named=True):  # contestants x sessions: hundreds at most
        entry = groups.setdefault((row["section"], row["direction"]), {}).setdefault(
            row["contestant_id"], {"contestant": row["contestant_id"], "scores": {}, "tops": {}})
        entry["scores"][row["session_id"]] = row["score"]
        if row["percentage"] and row["score"] is not None:
            entry["tops"][row["session_id"]] = row["score"] * 100 / row["percentage"]
    for (section, direction), entries in groups.items():
        for entry in entries.values():
            played = [s for s in order if entry["scores"].get(s) is not None]
            weights = [carry.fraction] * (len(played) - 1) + [1.0]
            entry["total"] = sum(w * entry["scores"][s] for w, s in zip(weights, played, strict=True)) \
                if played else None
            tops = [w * entry["tops"][s] for w, s in zip(weights, played, strict=True) if s in entry["tops"]]
            entry["percent"] = 100 * entry["total"] / sum(tops) if played and len(tops) == len(played) else None
            entry["players"] = _names_shown(names.get(_name_key(section, direction, entry["contestant"]), ""))
            entry["ranking_points"] = earned.get((section, direction, entry["contestant"]))
            entry["href"] = _card_href(event.event_id, played[-1], section, direction, entry["contestant"]) \
                if played else ""
    return [_ranked(section, direction, list(entries.values()), order, words)
            for (section, direction), entries in sorted(groups.items(),
                                                        key=lambda g: (natural_key(g[0][0]), g[0][1] != "NS"))]


def _ranked(section: str, direction: str, entries: list[Row], order: list[str], words: Mapping[str, str]) -> Row:
    entries.sort(key=lambda e: (-(e["total"] or 0.0), natural_key(e["contestant"])))
    totals = [round(e["total"] or 0.0, 6) for e in entries]
    rows = []
    for entry, total in zip(entries, totals, strict=True):
        rank = totals.index(total) + 1
        rows.append({"place": place_text(rank, totals.count(total) > 1), "contestant": entry["contestant"],
                     "players": entry["players"], "href": entry["href"],
                     "sessions": [fmt(entry["scores"].get(s)) for s in order],
                     "total": fmt(entry["total"]), "percent": fmt(entry["percent"]),
                     "ranking_points": fmt(entry["ranking_points"])})
    return {"section": section, "direction": direction, "direction_label": direction_label(direction, words),
            "sessions": [f"{words['session']} {s}" for s in order], "rows": rows,
            "percent": any(r["percent"] for r in rows), "ranking": any(r["ranking_points"] for r in rows)}
