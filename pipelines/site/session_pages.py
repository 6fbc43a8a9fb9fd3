"""Every file of one session's folder, rendered from that session's data alone.

`session_files` is a pure function of (`SessionData`, the deals' analyses): the same session gives
the same bytes, and nothing of another session can change them.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from functools import partial
from typing import Any

import polars as pl

from models.board import law2_dealer, law2_vulnerability
from models.events import session_stream
from parsers.records import BoardRecord
from pipelines.log.store import EventStore
from pipelines.replay.audit import AUDIT_COLUMNS, audit_rows
from pipelines.replay.audit_before import remembered
from pipelines.replay.projections import ScoredEdition
from pipelines.site.analysis import DoubleDummy, canonical_deal
from pipelines.site.cards import score_cards
from pipelines.site.csvsafe import neutralised
from pipelines.site.gather import SessionData, natural_key, of_session
from pipelines.site.labels import audit_words, labels
from pipelines.site.pages import Pages
from pipelines.site.paths import audit_anchor, board_page, plot_name, table_anchor
from pipelines.site.plots import distribution_plot, running_plot
from pipelines.site.render import direction_label, iso, render, session_name, session_summary, stamp
from pipelines.site.teams import TEAM_METHODS, match_rows, rounds_of, vp_table
from pipelines.site.views import (
    Names,
    columns_for,
    contract_parts,
    dd_view,
    hand_diagram,
    result_text,
    standings_groups,
    table_rows,
)

ROOT = "../../"
"""From a session's folder back to the site's root."""
Row = dict[str, Any]


def session_files(data: SessionData, analyses: Mapping[str, DoubleDummy], audit: pl.DataFrame,
                  pages: Pages | None = None, deals: list[str | None] | None = None) -> dict[str, bytes]:
    """Relative path -> bytes for every page, plot and download of the session.

    `deals`: each board record's deal as the analyses key it (`build.board_deals`), when the
    caller has them; else they are read here.

    With `pages` (the digests of the folder's last build), a traveller, score card or plot made
    from the same inputs as the file the folder holds is not rendered: it is left out of the
    result and listed in `pages.kept`.
    """
    pages = pages if pages is not None else Pages(b"")
    words = labels(data.event.conditions.language)
    names = Names.of(data, ROOT)
    tables = table_rows(data, names, words)
    shared = _shared(data, words)
    keys = sorted(set(tables) | {(b.section, b.board) for b in data.records.boards},
                  key=lambda k: (natural_key(k[0]), k[1]))
    if deals is None:
        deals = [canonical_deal(b.deal.to_pbn()) if b.deal else None for b in data.records.boards]
    records: dict[tuple[str, int], tuple[BoardRecord, str | None]] = {}
    for record, deal in zip(data.records.boards, deals, strict=True):
        records.setdefault((record.section, record.board), (record, deal))  # the first, as the hand record lists it
    bounds = section_bounds(keys)
    for position, key in enumerate(keys):
        _board_files(pages, records.get(key), key, tables.get(key, []), analyses, shared, keys, position,
                     bounds[key[0]], data.fouled_deals.get(key, {}))
    matches = match_rows(data, names)
    cards = score_cards(data, names, tables, matches)
    for card in cards:
        _card_files(pages, card, shared)
    pages.put("index.html", _session_page(data, names, keys, shared, matches))
    for name, content in {**_downloads(data), **_audit_files(audit, shared)}.items():
        pages.put(name, content)
    return pages.files


def _shared(data: SessionData, words: Mapping[str, str]) -> Row:
    zone = data.event.conditions.timezone
    team = data.info.method in TEAM_METHODS
    session = {**session_summary(data.info, zone, words), "position": data.last_position}
    crumbs = [{"text": data.event.name, "href": "../index.html"},
              {"text": session_name(data.info, words), "href": "index.html"}]
    return {"event": {"name": data.event.name}, "session": session, "crumbs": crumbs, "words": words, "zone": zone,
            "lang": data.event.conditions.language,
            "unit": columns_for(data.info.method).unit,
            "contestant_label": words["team"] if team else words["pair"]}


def _base(shared: Row, title: str, extra_crumb: str | None = None, *, position: bool = False) -> Row:
    """What base.html needs, for a page of this session.

    Only the session's own page and its audit name the log position the session was scored at
    (`position`): a traveller or score card points to the session page for it. Every correction
    moves that position, and a page that showed it would be rendered and rewritten after any
    correction of any board, its own content the same."""
    crumbs = list(shared["crumbs"])
    if extra_crumb:
        crumbs.append({"text": extra_crumb, "href": ""})
    session = shared["session"] if position else {k: v for k, v in shared["session"].items() if k != "position"}
    return {"lang": shared["lang"], "t": shared["words"], "root": ROOT, "crumbs": crumbs, "title": title,
            "event": shared["event"], "session": session, "unit": shared["unit"],
            "contestant_label": shared["contestant_label"]}


def _session_page(data: SessionData, names: Names, keys: list[tuple[str, int]], shared: Row,
                  matches: list[Row]) -> bytes:
    words = shared["words"]
    groups = standings_groups(data, names)
    for group in groups:
        group["direction_label"] = direction_label(group["direction"], words)
    context = _base(shared, f"{data.event.name} · {session_name(data.info, words)}", position=True)
    context["crumbs"] = [shared["crumbs"][0], {"text": session_name(data.info, words), "href": ""}]
    return render("session.html", **context, groups=groups, matches=matches, rounds=rounds_of(matches),
                  vp_table=vp_table(matches) if matches else None,
                  boards=[{"section": s, "board": b, "href": board_page(s, b)} for s, b in keys])


_VULNERABLE_WORDS = {"None": "none", "NS": "ns", "EW": "ew", "All": "both"}
"""The label that names each vulnerability (`models.board.Vulnerability`) on a page."""


def _board_files(pages: Pages, board_record: tuple[BoardRecord, str | None] | None, key: tuple[str, int],
                 rows: list[Row], analyses: Mapping[str, DoubleDummy], shared: Row, keys: list[tuple[str, int]],
                 position: int, bounds: tuple[int, int], fouled: Mapping[str, str]) -> None:
    section, board = key
    words = shared["words"]
    record, canonical = board_record if board_record is not None else (None, None)
    dealer = (record.dealer if record and record.dealer else law2_dealer(board)).value
    vulnerability = (record.vulnerability if record and record.vulnerability else law2_vulnerability(board)).value
    page = board_page(section, board)
    scores = [r["score_raw"] for r in rows if r["score_raw"] is not None]
    if scores:
        axes = {"xlabel": words["plot_score_ns"], "ylabel": words["plot_tables"]}
        pages.add(plot_name(page), ("distribution_plot", scores, axes), lambda: distribution_plot(scores, **axes))
    prev_key = keys[position - 1] if position else None
    next_key = keys[position + 1] if position + 1 < len(keys) else None
    analysis = analyses.get(canonical) if canonical else None
    versions = deal_versions(canonical, fouled, rows, words)
    view = {
        "section": section, "board": board, "dealer": dealer, "vulnerability": vulnerability,
        "vulnerable": words[_VULNERABLE_WORDS[vulnerability]],
        "hands": hand_diagram(canonical), "dd": dd_view(analysis, dealer, vulnerability),
        "prev": board_page(*prev_key) if prev_key else "", "next": board_page(*next_key) if next_key else "",
        "prev_label": f"{words['board']} {prev_key[1]}" if prev_key else "",
        "next_label": f"{words['board']} {next_key[1]}" if next_key else "",
        "versions": versions,
        "record_caption": _record_caption(versions, rows, words) if versions else "",
    }
    unit = shared["unit"]
    show_datum = any(r["datum"] for r in rows)
    span = 8 + {"mp": 4, "imp": 2, "points": 2}[unit] + (1 if show_datum else 0)  # the cells after the table's
    title = f"{words['board']} {board}"
    classes = {c for r in rows for c in r["classes"].split()}
    context = {**_base(shared, title, title), "board": view, "rows": by_ns_score(rows), "show_datum": show_datum,
               "note_span": span, "plot": plot_name(page) if scores else "",
               "strip": board_strip(keys, position, bounds), "legend": {
                   "corrected": "corrected" in classes, "adjusted": bool(classes & {"adjusted", "weighted"}),
                   "fouled": "fouled" in classes}}
    pages.add(page, ("board.html", _without_words(context)), lambda: render("board.html", **context))


def _without_words(context: Row) -> Row:
    """A page's context as its digest takes it (`Pages.add`): without the page's words (`t`), which
    are `labels(lang)` (the language is in the context, the code in every digest). Writing out the
    two hundred words took a quarter of the time of a page per board of a session of 100,000."""
    return {name: value for name, value in context.items() if name != "t"}


def deal_versions(shown: str | None, fouled: Mapping[str, str], rows: list[Row],
                  words: Mapping[str, str]) -> list[Row]:
    """A fouled board's deals (Law 87) other than the hand record's (`shown`, canonical), as the
    director recorded them, each with its caption (the group and its tables) and its hands; the
    original group first."""
    versions = []
    for label in sorted(fouled, key=lambda g: (g != "original", g)):
        hands = hand_diagram(fouled[label])
        if hands is None or canonical_deal(fouled[label]) == shown:
            continue  # the hand record's deal is on the page already
        versions.append({"label": label, "hands": hands,
                         "caption": _deal_caption(words, _group_word(label, words), _tables_of(rows, [label]))})
    return versions


def _record_caption(versions: list[Row], rows: list[Row], words: Mapping[str, str]) -> str:
    """The hand record's deal's caption beside a fouled version: the tables of the groups whose
    ruling recorded no other deal for them."""
    others = {v["label"] for v in versions}
    groups = sorted({r["group"] for r in rows if r["group"] and r["group"] not in others})
    return _deal_caption(words, words["hand_record_deal"], _tables_of(rows, groups))


def _deal_caption(words: Mapping[str, str], deal: str, tables: list[str]) -> str:
    text = words["deal_played_at"].format(deal=deal, tables=", ".join(tables)) if tables else deal
    return text[:1].upper() + text[1:]


def _group_word(label: str, words: Mapping[str, str]) -> str:
    """A group's name as the traveller's notes say it (`the fouled deal`), else its own label."""
    return words["group_deal"].format(group=words.get(f"group_{label}", label))


def _tables_of(rows: list[Row], groups: list[str]) -> list[str]:
    return sorted((r["table"] for r in rows if r["group"] in groups), key=natural_key)


def by_ns_score(rows: list[Row]) -> list[Row]:
    """A traveller's rows as a results sheet lists them: the highest NS score first, a row without
    a score (an adjusted one) last, a tie by table; a fouled board's groups (Law 87) one after the
    other, the original deal's first, each scored on its own."""
    return sorted(rows, key=lambda r: (r["group"] == "fouled", r["score_raw"] is None, -(r["score_raw"] or 0),
                                       natural_key(r["table"])))


STRIP_ALL = 100
"""A section of at most this many boards lists every one on each board's strip (JFR's)."""
STRIP_NEAR = 10
"""Boards listed either side of the one shown on the strip of a longer section (a hand record of
100,000 boards), between its first and its last: every page still links its neighbours, and a
page's size (and the build's time) does not grow with the section's length."""


def section_bounds(keys: list[tuple[str, int]]) -> dict[str, tuple[int, int]]:
    """Section -> the range of its boards' positions in `keys` (sorted by section: each is one run)."""
    bounds: dict[str, tuple[int, int]] = {}
    for position, (section, _) in enumerate(keys):
        start, _end = bounds.get(section, (position, position))
        bounds[section] = (start, position + 1)
    return bounds


def board_strip(keys: list[tuple[str, int]], position: int,
                bounds: tuple[int, int] | None = None) -> list[Row]:
    """The section's boards as a strip of links (JFR's), the one shown marked: every board of a
    section of up to `STRIP_ALL`, else the first, `STRIP_NEAR` either side of this one and the
    last, a gap (`…`) where boards are left out. `bounds`: the section's range in `keys`
    (`section_bounds`; found here when not given)."""
    start, end = bounds if bounds is not None else section_bounds(keys)[keys[position][0]]
    if end - start <= STRIP_ALL:
        shown = list(range(start, end))
    else:
        near = range(max(start + 1, position - STRIP_NEAR), min(end - 1, position + STRIP_NEAR + 1))
        shown = [start, *near, end - 1]
    strip: list[Row] = []
    for before, i in zip([None, *shown], shown, strict=False):
        if before is not None and i > before + 1:
            strip.append({"text": "…", "href": "", "current": False, "gap": True})
        strip.append({"text": str(keys[i][1]), "href": board_page(*keys[i]), "current": i == position, "gap": False})
    return strip


def _card_files(pages: Pages, card: Row, shared: Row) -> None:
    words = shared["words"]
    title = f"{shared['contestant_label']} {card['contestant']}"
    rows = card["rows"]
    plot = ""
    if rows:
        percent = bool(card["has_percent"])
        values = [r["running_percent_value"] if percent else r["running_value"] for r in rows]
        if all(v is not None for v in values):
            plot = plot_name(card["page"])
            boards = [r["board"] for r in rows]
            ylabel = words["running_percent"] if percent else words["running_total"]
            xlabel = words["plot_boards_played"]
            pages.add(plot, ("running_plot", boards, values, percent, ylabel, xlabel),
                      lambda: running_plot(boards, values, percent=percent, ylabel=ylabel, xlabel=xlabel))
    context = {**_base(shared, title, title), "card": card, "plot": plot}
    pages.add(card["page"], ("card.html", _without_words(context)), lambda: render("card.html", **context))


def _downloads(data: SessionData) -> dict[str, bytes]:
    from parsers.pbn.writer import dumps

    keys = ["section", "direction", "board", "rank", "contestant_id", "table_id"]
    boards = data.board_scores.sort([k for k in keys if k in data.board_scores.columns], nulls_last=True)
    standings = data.standings.sort([k for k in keys if k in data.standings.columns], nulls_last=True)
    return {
        "session.pbn": dumps(data.records).encode(),
        "board_scores.csv": neutralised(boards).write_csv(float_precision=4).encode(),
        "standings.csv": neutralised(standings).write_csv(float_precision=4).encode(),
    }


def _audit_files(audit: pl.DataFrame, shared: Row) -> dict[str, bytes]:
    """audit.csv keeps every column in `AUDIT_COLUMNS` order (ids and all, for the record); the page
    shows each correction or ruling as a player reads it: the board (linked), what it changed in
    bridge notation, the decision and the Law, who asked and why, and when, in the event's time."""
    words = shared["words"]
    _, values = audit_words(shared["lang"])
    context = _base(shared, words["audit"], words["audit"], position=True)
    entries = [_audit_entry(row, values, shared["zone"]) for row in audit.to_dicts()]
    return {
        "audit.csv": neutralised(audit).write_csv(float_precision=2).encode(),
        "audit.html": render("audit.html", **context, entries=entries,
                             mp=any(e["before"]["mp"] or e["after"]["mp"] for e in entries),
                             imp=any(e["before"]["imp"] or e["after"]["imp"] for e in entries)),
    }


def _audit_entry(row: Row, values: Mapping[str, str], zone: str) -> Row:
    """One audit row as its page shows it (every fixed value in the page's language)."""
    def said(value: object) -> str:
        return "" if value in (None, "") else values.get(str(value), str(value))

    section, board, table = row["section"] or "", row["board"], str(row["table_id"] or "")
    return {
        "board": board, "section": section, "table": table,
        "href": "" if board is None else board_page(section, int(board)) + (f"#{table_anchor(table)}" if table else ""),
        "anchor": audit_anchor(section, int(board), table) if board is not None else "",
        "kind": said(row["kind"]), "kind_raw": row["kind"] or "",
        "decision": said(row["decision"]), "decision_class": row["decision"] or "",
        "rule": said(row["rule"]), "window": said(row["window"]), "requested_by": row["requested_by"] or "",
        "reason": row["reason"] or "", "asked": row["asked"] or "",
        "raised": _moment(row["raised_at"], zone), "raised_iso": _moment(row["raised_at"], zone, iso_form=True),
        "before": _audit_side(row, "before"), "after": _audit_side(row, "after"),
    }


def _audit_side(row: Row, side: str) -> Row:
    """A table's result before or after: contract (for the suit symbols), declarer, result, score, MPs, IMPs."""
    contract, tricks = row[f"{side}_contract"], row[f"{side}_tricks"]
    tricks_value = None if tricks in (None, "") else int(float(tricks))
    return {"contract": contract_parts(contract or None), "declarer": row[f"{side}_declarer"] or "",
            "result": result_text(contract, tricks_value), "score": _plain(row[f"{side}_score_ns"]),
            "mp": _plain(row[f"{side}_mp_ns"]), "imp": _plain(row[f"{side}_imp_ns"])}


def _plain(value: object) -> str:
    """A number as a person writes it: `9`, not `9.0`; `6.25` as it is."""
    if value in (None, ""):
        return ""
    number = float(str(value))
    return str(int(number)) if number.is_integer() else f"{round(number, 2):g}"


def _moment(value: object, zone: str, *, iso_form: bool = False) -> str:
    """An ISO time from the audit in the event's zone, as every page writes a time (or as ISO for `<time>`)."""
    if value in (None, ""):
        return ""
    moment = datetime.fromisoformat(str(value))
    micros = round(moment.timestamp() * 1_000_000)
    return iso(micros, zone) if iso_form else stamp(micros, zone)


def session_audit(edition: ScoredEdition, data: SessionData, store: EventStore | None = None) -> pl.DataFrame:
    """The session's corrections and rulings (pipelines.replay.audit), and with `store` its fouled boards
    (Law 87, and Law 86B2 between a match's rooms); a session without any correction or ruling
    skips the rescoring, and with `store` the "before" scores are kept in it, so the next rewrite
    only looks them up."""
    projection = edition.projection
    key = (pl.col("event_id") == data.info.event_id) & (pl.col("session_id") == data.info.session_id)
    requests = projection.corrections.filter(key).height if projection.corrections.height else 0
    rulings = projection.rulings.filter(key).height if projection.rulings.height else 0
    fouled = fouled_boards(store, edition, data) if store is not None else _no_audit()
    if not requests and not rulings:
        return fouled
    found = audit_rows(of_session(edition, data.info.event_id, data.info.session_id), data.info.event_id,
                       data.info.session_id, remember=None if store is None else partial(remembered, store))
    # The page shows a fouled board with its groups (`fouled_boards`) and penalties in the standings.
    found = found.filter(pl.col("kind").is_in(["correction", "ruling"]))
    if fouled.is_empty():
        return found
    # The fouled boards' rows take the audit's own types: audit.csv writes its numbers as ever.
    return pl.concat([found, fouled.cast(found.schema, strict=False)], how="vertical") \
        .sort(["raised_at", "id"], nulls_last=True)


def _no_audit() -> pl.DataFrame:
    return pl.DataFrame(schema=dict.fromkeys(AUDIT_COLUMNS, pl.String))


def fouled_boards(store: EventStore, edition: ScoredEdition, data: SessionData) -> pl.DataFrame:
    """The director's Law 87 rulings on the session's boards (`BoardFouled`, up to the edition's
    position), as audit rows: when, which board, its groups of tables, the reason, and the Law the
    scoring applied (a team board's `board_rule`, else Law 87's groups)."""
    rules = {(r["section"], r["board"]): r["board_rule"]
             for r in data.board_scores.filter(pl.col("board_rule").is_not_null()).iter_rows(named=True)}
    late = edition.projection.late_facts
    held = {} if late.is_empty() else {
        r["position"]: r["rule"] for r in late.filter(~pl.col("applied")).iter_rows(named=True)}
    rows = []
    for event in store.read(types=["BoardFouled"], up_to=edition.position,
                            stream_id=session_stream(data.info.event_id, data.info.session_id)):
        found = event.payload
        section, board = found.get("section") or "", int(found["board"])
        groups = "; ".join(f"{label}: {', '.join(tables)}"  # the original deal's tables first, as the traveller
                           for label, tables in sorted(found["groups"].items(), key=lambda g: g[0] != "original"))
        rows.append({**dict.fromkeys(AUDIT_COLUMNS), "kind": "ruling", "event_id": data.info.event_id,
                     "session_id": data.info.session_id, "section": section, "board": str(board),
                     # as pipelines.replay.audit writes it
                     "raised_at": f"{event.occurred_at.astimezone(UTC):%Y-%m-%dT%H:%M:%S%z}",
                     "reason": found.get("reason") or "",
                     "decision": "awaiting acknowledgement" if event.position in held else "applied",
                     "asked": groups,
                     "rule": held.get(event.position) or rules.get((section, board))
                     or "Law 87: fouled board; each group scored on its own"})
    return pl.DataFrame(rows, schema=dict.fromkeys(AUDIT_COLUMNS, pl.String)) if rows else _no_audit()
