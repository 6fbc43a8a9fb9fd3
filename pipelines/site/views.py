"""A session's data arranged as its pages show it: standings, travellers and score cards.

Plain Python over a session's rows (tens of contestants, a few hundred tables) is clearer here
than frame expressions; scoring has already been done column-wise.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import polars as pl
from markupsafe import Markup

from models.awards import named_award
from parsers.records import ContestantRecord
from pipelines.site import analysis as solver
from pipelines.site.analysis import SEATS, STRAINS, DoubleDummy, canonical_deal
from pipelines.site.fragments import names_markup
from pipelines.site.gather import SessionData, natural_key
from pipelines.site.paths import audit_anchor, card_page, table_anchor
from pipelines.site.ranked import contestant_points

_CONTRACT = re.compile(r"^([1-7])(NT|[SHDC])(X{0,2})$")
Row = dict[str, Any]
DIRECTION_ORDER = {"NS": 0, "EW": 1, "ALL": 2}
"""Standings tables: NS first, as results sheets print them."""


@dataclass(frozen=True)
class Columns:
    """Which score columns a session shows, by scoring method."""

    unit: str
    """`mp`, `imp` or `points`: the label key of a board's value."""
    percent: bool
    """Whether boards and totals have a percentage (matchpoints)."""


def columns_for(method: str) -> Columns:
    """The columns of a method: MP shows matchpoints and %, IMP methods IMPs, total points points."""
    if method == "MP":
        return Columns("mp", True)
    if method == "TOTAL":
        return Columns("points", False)
    return Columns("imp", False)


def contract_parts(contract: str | None) -> Row | None:
    """`4SX` -> level 4, strain S, doubling X; `PASS` -> passed; None for no contract."""
    if contract is None:
        return None
    found = _CONTRACT.match(contract)
    if found is None:
        return {"passed": True}
    return {"passed": False, "level": found[1], "strain": found[2], "doubling": found[3]}


def result_text(contract: str | None, tricks: int | None) -> str:
    """Tricks against the contract: `=`, `+1`, `-2` (empty when passed out or unknown)."""
    found = _CONTRACT.match(contract or "")
    if found is None or tricks is None:
        return ""
    over = tricks - (int(found[1]) + 6)
    return "=" if over == 0 else f"{over:+d}"


@dataclass
class Names:
    """Who a contestant id is, in a section and direction, where its score card is, and which of its
    players have a page in the ranking the site shows."""

    records: Mapping[tuple[str, str, str], ContestantRecord]
    directions: Mapping[tuple[str, str], frozenset[str]]
    """(section, contestant) -> the directions its standings rows are under (NS, EW or ALL)."""
    ranked: Mapping[tuple[str, str, str, str], str] = field(default_factory=dict)
    """(section, standings direction, contestant, player's name as the file gives it) -> the player's
    id in the ranking the site shows, for the players it ranks."""
    root: str = ""
    """From the pages' folder back to the site's root (where the ranking's folder is)."""

    @classmethod
    def of(cls, data: SessionData, root: str = "") -> Names:
        """Index the session's registered contestants, its standings and its ranked players."""
        found: dict[tuple[str, str, str], ContestantRecord] = {}
        for record in data.records.contestants:
            found[(record.section, record.contestant_id, record.direction or "")] = record
        directions: dict[tuple[str, str], set[str]] = {}
        for section, contestant, direction in data.standings.select(
                "section", "contestant_id", "direction").iter_rows():
            directions.setdefault((section, contestant), set()).add(direction)
        return cls(found, {k: frozenset(v) for k, v in directions.items()}, ranked_players(data.ranking), root)

    def record(self, section: str, contestant: str, direction: str) -> ContestantRecord | None:
        """The registration for this direction, else for the contestant without one."""
        return self.records.get((section, contestant, direction)) or self.records.get((section, contestant, ""))

    def players(self, section: str, contestant: str, direction: str) -> str:
        """Its players' names (or the pair's or team's name), joined."""
        return "".join(text for text, _ in self.segments(section, contestant, direction))

    def segments(self, section: str, contestant: str, direction: str) -> list[tuple[str, str]]:
        """`players` in pieces, (text, ranked player's id or ''): each player's name a piece of its own."""
        record = self.record(section, contestant, direction)
        if record is None:
            return []
        standing = self.card_direction(section, contestant, direction) if direction in ("NS", "EW") else direction
        players = [(readable_name(p.name), self.ranked.get((section, standing, contestant, p.name), ""))
                   for p in record.players if p.name]
        named: list[tuple[str, str]] = []
        for index, player in enumerate(players):
            named.extend([(" – ", ""), player] if index else [player])
        own = readable_name(record.name) if record.name else ""
        if own and players and _squeezed(own) != _squeezed("".join(text for text, _ in players)):
            return [(f"{own}: ", ""), *named]  # a team's or pair's own name, then its players
        return named or ([(own, "")] if own else [])

    def linked(self, section: str, contestant: str, direction: str) -> Markup:
        """`players` as markup, each ranked player's name linked to their ranking page."""
        return names_markup(self.segments(section, contestant, direction), self.root)

    def card_direction(self, section: str, contestant: str, side: str) -> str:
        """The standings direction a contestant's card is filed under when it sat `side`."""
        known = self.directions.get((section, contestant), frozenset())
        return side if side in known or "ALL" not in known else "ALL"


def ranked_players(ranking: pl.DataFrame) -> dict[tuple[str, str, str, str], str]:
    """(section, direction, contestant, name as written) -> player id, for the ranked players of a
    session's award rows (`SessionData.ranking`): the session's own first, then the event's overall."""
    found: dict[tuple[str, str, str, str], str] = {}
    ranked = ranking.filter(pl.col("ranked")).sort("session_id", descending=True, maintain_order=True)
    for section, direction, contestant, name, player in ranked.select(
            "section", "direction", "contestant_id", "player_name", "player_id").iter_rows():
        found.setdefault((section, direction, contestant, name), player)
    return found


def _squeezed(text: str) -> str:
    """A name cell without its separators and case, to tell `A & B` (or `A - B`, `A and B`) from
    the players A and B: a pair's name that only lists its players is not shown twice."""
    return re.sub(r"[\s;,/&+\-–]+|\band\b|\bi\b", "", text.casefold())


def readable_name(name: str) -> str:
    """A name as the pages show it: one written all in capitals (as USEBIO files from some scorers
    give them) in the usual case, `NILS KRAL` -> `Nils Kral`; any other name as it was written."""
    if not any(c.isalpha() for c in name) or name != name.upper():
        return name
    return re.sub(r"[^\W\d_]+", lambda word: word[0].capitalize(), name)


def fmt(value: float | int | None, decimals: int = 2) -> str:
    """A number as the pages print it; empty for none."""
    if value is None:
        return ""
    if isinstance(value, int):
        return str(value)
    text = f"{value:.{decimals}f}"
    return "0" + text[2:] if text.startswith("-0") and float(text) == 0 else text


def whole(value: float | None) -> str:
    """IMPs as a scorer writes them: `3`, not `3.00`; a fraction (a Butler average) keeps two places."""
    if value is None:
        return ""
    return str(int(value)) if float(value).is_integer() else fmt(value)


def place_text(rank: int | None, tied: bool | None) -> str:
    """`3` or `3=` for a shared place."""
    if rank is None:
        return ""
    return f"{rank}=" if tied else str(rank)


def standings_groups(data: SessionData, names: Names) -> list[Row]:
    """One table per section and direction, in place order; where the ranking the site shows gave
    this session's results awards, the points each result earned."""
    columns = columns_for(data.info.method)
    earned = contestant_points(data.ranking, data.info.session_id)
    rows = sorted(data.standings.iter_rows(named=True),
                  key=lambda r: (natural_key(r["section"]), DIRECTION_ORDER.get(r["direction"], 3), r["rank"] or 0,
                                 natural_key(r["contestant_id"])))
    groups: dict[tuple[str, str], Row] = {}
    for row in rows:
        group = groups.setdefault((row["section"], row["direction"]), {
            "section": row["section"], "direction": row["direction"], "rows": [],
            "percent": columns.percent, "cumulative": False, "vp": False, "players": False, "ranking": bool(earned)})
        group["cumulative"] = group["cumulative"] or row["cumulative_score"] is not None
        group["vp"] = group["vp"] or row["vp"] is not None
        players = names.linked(row["section"], row["contestant_id"], row["direction"])
        group["players"] = group["players"] or bool(players)
        group["rows"].append({
            "place": place_text(row["rank"], row["tied"]), "tied": bool(row["tied"]),
            "contestant": row["contestant_id"],
            "href": card_page(row["section"], row["direction"], row["contestant_id"]),
            "players": players, "score": fmt(row["score"]), "percent": fmt(row["percentage"]), "boards": row["boards"],
            "cumulative": fmt(row["cumulative_score"]), "vp": fmt(row["vp"]),
            "ranking_points": fmt(earned.get((row["section"], row["direction"], row["contestant_id"]))),
        })
    return list(groups.values())


def _kinds(data: SessionData) -> dict[tuple[str, int, str], Row]:
    return {(r["section"], r["board"], r["table_id"]): r for r in data.results.iter_rows(named=True)}


def _leads(data: SessionData) -> dict[tuple[str, int, str], str]:
    return {(r.section, r.board, r.table_id): str(r.lead) for r in data.records.results if r.lead is not None}


def _award_text(award: str | None) -> str:
    if award is None:
        return ""
    named = named_award(award)  # a stored older spelling (`A=`) is shown as the one vocabulary's
    return named if named is not None else f"{award}%"


def _weighted_text(components: list[Row] | None) -> str:
    return " + ".join(f"{c['weight'] * 100:g}% × {fmt(c['score_ns'])}" for c in components or [])


def table_rows(data: SessionData, names: Names, labels: Mapping[str, str]) -> dict[tuple[str, int], list[Row]]:
    """Every board's table rows, keyed by (section, board)."""
    kinds, leads = _kinds(data), _leads(data)
    groups = _fouled_groups(kinds)
    boards: dict[tuple[str, int], list[Row]] = {}
    ordered = sorted(data.board_scores.iter_rows(named=True),
                     key=lambda r: (natural_key(r["section"]), r["board"], natural_key(r["table_id"])))
    for row in ordered:
        key = (row["section"], row["board"], row["table_id"])
        boards.setdefault((row["section"], row["board"]), []).append(
            _table_row(row, kinds.get(key, {}), leads.get(key, ""), key in data.corrected_tables, names, labels,
                       groups.get(key)))
    return boards


def _fouled_groups(kinds: Mapping[tuple[str, int, str], Row]) -> dict[tuple[str, int, str], Row]:
    """A fouled board's tables (Law 87): each table's group, the tables in it, and the board's field."""
    members: dict[tuple[str, int, str], list[str]] = {}
    field: dict[tuple[str, int], int] = {}
    for (section, board, table), row in kinds.items():
        field[(section, board)] = field.get((section, board), 0) + 1
        if row.get("fouled_group"):
            members.setdefault((section, board, row["fouled_group"]), []).append(table)
    return {(section, board, table): {"group": group, "tables": sorted(tables, key=natural_key),
                                      "field": field[(section, board)]}
            for (section, board, group), tables in members.items() for table in tables}


def _table_row(row: Row, kind_row: Row, lead: str, corrected: bool, names: Names,
               labels: Mapping[str, str], fouled: Row | None = None) -> Row:
    kind = kind_row.get("kind") or "result"
    score = row["score_ns"]
    notes, classes = [], []
    if kind == "artificial":
        notes.append(f"{labels['artificial_note']}: {labels['ns']} {_award_text(kind_row.get('ns_award'))}, "
                     f"{labels['ew']} {_award_text(kind_row.get('ew_award'))}")
        classes.append("adjusted")
    elif kind == "weighted":
        ew = kind_row.get("ew_components")
        notes.append(f"{labels['weighted_note']}: {labels['ns']} {_weighted_text(kind_row.get('ns_components'))}"
                     + (f"; {labels['ew']} {_weighted_text(ew)}" if ew else ""))
        classes.append("weighted")
    if fouled is not None:  # Law 87: scored within its group; matchpoints factored up to the board's whole field
        note = "fouled_note" if row.get("mp_ns") is not None else "fouled_note_imps"
        notes.append(labels[note].format(group=labels.get(f"group_{fouled['group']}", fouled["group"]),
                                                  tables=", ".join(fouled["tables"]), n=len(fouled["tables"]),
                                                  field=fouled["field"]))
        classes.append("fouled")
    if corrected:  # the page links the audit beside the notes
        classes.append("corrected")
    if row.get("board_rule"):  # team play: the Law that gave the board its value (a fouled board, one room)
        notes.append(row["board_rule"])
    section = row["section"]
    return {
        "table": row["table_id"], "section": section, "board": row["board"],
        "anchor": table_anchor(row["table_id"]), "group": fouled["group"] if fouled is not None else "",
        # A file that names no table (USEBIO from ABF scorers) gets `<ns>-<ew>` as its id: the pairs
        # are in their own columns, so the table's cell is left empty rather than say them again.
        "table_shown": "" if row["table_id"] == f"{row['ns_id']}-{row['ew_id']}" else row["table_id"],
        "audit_href": f"audit.html#{audit_anchor(section, row['board'], row['table_id'])}" if corrected else "",
        "ns": row["ns_id"], "ew": row["ew_id"],
        "ns_names": names.linked(section, row["ns_id"] or "", "NS"),
        "ew_names": names.linked(section, row["ew_id"] or "", "EW"),
        "ns_href": _card_link(names, section, row["ns_id"], "NS"),
        "ew_href": _card_link(names, section, row["ew_id"], "EW"),
        "contract": contract_parts(row["contract"]), "declarer": row["declarer"] or "", "lead": lead,
        "tricks": "" if row["tricks"] is None else row["tricks"], "result": result_text(row["contract"], row["tricks"]),
        "score_ns": fmt(score) if score is not None and score >= 0 else "",
        "score_ew": fmt(-score) if score is not None and score < 0 else "",
        "score_signed": fmt(score), "score_raw": score, "mp_ns": fmt(row["mp_ns"]), "mp_ew": fmt(row["mp_ew"]),
        "imp_ns": whole(row["imp_ns"]), "imp_ew": whole(row["imp_ew"]),
        "points_ns": fmt(row["points_ns"]), "points_ew": fmt(row["points_ew"]),
        "pct_ns": fmt(row["pct_ns"]), "pct_ew": fmt(row["pct_ew"]), "datum": fmt(row["datum"], 0),
        "kind": kind, "note": "; ".join(notes), "classes": " ".join(classes),
        "mp_ns_raw": row["mp_ns"], "mp_ew_raw": row["mp_ew"], "imp_ns_raw": row["imp_ns"], "imp_ew_raw": row["imp_ew"],
        "points_ns_raw": row["points_ns"], "points_ew_raw": row["points_ew"], "top": row["top"],
        "match_id": row["match_id"],
    }


def _card_link(names: Names, section: str, contestant: str | None, side: str) -> str:
    """The score card of the pair that sat `side`; none when the row does not say who (a ruling's row)."""
    if contestant is None:
        return ""
    return card_page(section, names.card_direction(section, contestant, side), contestant)


def hand_diagram(deal_pbn: str | None) -> Row | None:
    """The four hands, suit by suit, with tens written `10`; None when the board has no full deal."""
    canonical = canonical_deal(deal_pbn)
    if canonical is None:
        return None
    # The canonical deal is `N:` and four complete hands N, E, S, W, each S.H.D.C, ranks in order:
    # read as text, not through the Deal model again (a page per board of 100,000).
    return {seat: [{"suit": suit, "ranks": ranks.replace("T", "10") or "—"}
                   for suit, ranks in zip("SHDC", hand.split("."), strict=True)]
            for seat, hand in zip("NESW", canonical[2:].split(" "), strict=True)}


def dd_view(analysis: DoubleDummy | None, dealer: str, vulnerability: str) -> Row | None:
    """The double-dummy table (declarers by strains) and par for the board's dealer and vulnerability;
    without an analysis, `{"pending": True}` when the solver is installed (the analysis task will
    solve the deal), None when it is not."""
    if analysis is None:
        return {"pending": True} if solver.solver_version() is not None else None
    par = analysis.par_for(dealer, vulnerability)
    return {
        "pending": False,
        "strains": STRAINS,
        "rows": [{"seat": seat, "tricks": [analysis.tricks[seat][s] for s in STRAINS]} for seat in SEATS],
        "par_score": None if par is None else par.score_ns,
        "par_contracts": [] if par is None else [_par_parts(c) for c in par.contracts],
    }


def _par_parts(text: str) -> Row:
    contract, seats, result = text.split(" ")
    return {"contract": contract_parts(contract), "seats": seats, "result": result}

