"""ScoreTable rows to traveller records, TotalScoreTable rows to contestants.

Dialect notes (Magic Contest / FFB / Ruter, verified on corpus files): contracts like `3N`, `4SX`,
`Pass`; `Result` is tricks taken; score cells are quoted strings, positive on the side that
scored with `-` on the other; artificial scores are `"A+"`/`"A="`/`"A-"` per side (the spec's `^`
prefix and `60%` percentages are accepted too); names are `"First LAST - First LAST"` or `;`-separated.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from models.contract import Contract
from models.events import ArtificialAward, Player
from parsers.bridge.cards import CARD_DRIFT, CARDS
from parsers.numbers import whole_number
from parsers.pbn.issues import Issue, at_cell, drift, error, warning
from parsers.pbn.tables import Table, cell_text
from parsers.pbn.values import contract_model, parse_contract, parse_seat

_AWARDS: dict[str, ArtificialAward] = {"A+": "A+", "A=": "A", "A": "A", "A-": "A-"}
_PERCENT = re.compile(r"\^?(\d{1,3}(?:\.\d+)?)%?")
_NUMBER = re.compile(r"[+-]?\d+(?:\.\d+)?")
_PUBLISHED = {"MP_NS": "mp_ns", "MP_EW": "mp_ew", "Percentage_NS": "pct_ns", "Percentage_EW": "pct_ew",
              "IMP_NS": "imp_ns", "IMP_EW": "imp_ew", "ButlerDatum": "datum"}
_TOTALS = ("TotalScoreMP", "TotalScoreIMP", "TotalMP", "TotalIMP", "TotalScore")
_CONTESTANT_VALUES = {"TotalPercentage": "percentage", "SessionScoreMP": "session_total",
                      "SessionScoreIMP": "session_total", "SessionPercentage": "session_percentage",
                      "NrBoards": "nr_boards", "Tiebreak": "tiebreak"}
_PLACES = {"Rank": ("RankTie", "rank"), "SessionRank": ("SessionRankTie", "session_rank")}
"""Place columns, each with the column that ends its tie (Magic Contest writes `4` and `5` for a
place shared by two: `4-5`), and the published key."""
_TIED_PLACE = re.compile(r"(\d{1,9})\s*(?:=|-\s*\d{1,9})|=\s*(\d{1,9})")
"""A shared place as programs write it: `3=`, `=3`, `3-4`."""
_PLAYERS: dict[tuple[str, str | None], Player] = {}
_ROOMS = {"open": "open", "closed": "closed", "o": "open", "c": "closed"}


class Row(NamedTuple):
    """One logical table row: its cells by column name and where its first element is."""

    cells: dict[str, str]
    element: int
    """Index of the row's first element in the table (to position diagnostics)."""


class TravellerLine(NamedTuple):
    """What one ScoreTable row says, before it becomes a ResultRecord or ArtificialRecord."""

    table_id: str
    section: str | None
    """The row's own Section cell (BridgeComposer writes one per row); None when it has none."""
    round: int | None
    room: str | None
    """'open' or 'closed' from the row's Room cell."""
    ns_id: str
    ew_id: str
    contract: Contract | None
    tricks: int | None
    lead: str | None
    ns_award: ArtificialAward | None
    ew_award: ArtificialAward | None
    ns_players: tuple[Player, ...]
    ew_players: tuple[Player, ...]
    published: dict[str, float | str]
    element: int


def player(name: str, federation_id: str | None = None) -> Player:
    """A Player, shared between records (players repeat a lot)."""
    key = (name, federation_id)
    found = _PLAYERS.get(key)
    if found is None:
        found = Player(name=name, federation_id=federation_id)
        if len(_PLAYERS) < 100_000:
            _PLAYERS[key] = found
    return found


def split_names(names: str) -> list[str]:
    """Players of a names cell: `First LAST - First LAST`, `Last, First;Last, First` or one name."""
    text = names.strip()
    if not text or text in ("-", "?"):
        return []
    parts = text.split(";") if ";" in text else text.split(" - ")
    return [p.strip() for p in parts if p.strip()]


def table_rows(table: Table) -> list[Row]:
    """Rows of a table as dicts of cell text by column name."""
    names = table.column_names
    return [Row({name: cell_text(e) for name, e in zip(names, row, strict=True)}, start)
            for row, start in table.rows()]


def number(text: str | None) -> float | None:
    """A cell or tag as a number, when it is one (a leading ^ is ignored)."""
    if text is None:
        return None
    token = text.strip().lstrip("^")
    return float(token) if _NUMBER.fullmatch(token) else None


def place(text: str | None, tie: str | None = None) -> float | str | None:
    """A published place: its number, or its text when shared (`3=`, `3-4`, or `3` with a tie column
    ending the range, written `3-4`); None when the cell is not a place."""
    value = number(text)
    if value is not None:
        end = number(tie)
        return f"{int(value)}-{int(end)}" if end is not None and end > value else value
    token = (text or "").strip()
    return token if _TIED_PLACE.fullmatch(token) else None


def place_number(published: float | str | None) -> float | None:
    """The number of a published place (`place`): a shared place's first, 3.0 for `3=` or `3-4`."""
    if published is None or isinstance(published, float):
        return published
    found = re.search(r"\d+", published)
    return float(found.group(0)) if found else None


def award(text: str | None) -> ArtificialAward | None:
    """An artificial award cell: A+, A= (or A), A-, or a percentage like 60% / ^60."""
    if text is None:
        return None
    token = text.strip().lstrip("^")
    found = _AWARDS.get(token.upper())
    if found is not None:
        return found
    if text.strip().startswith("^") or token.endswith("%"):
        match = _PERCENT.fullmatch(token)
        if match is not None and float(match.group(1)) <= 100:
            return float(match.group(1))
    return None


def traveller_line(row: Row, index: int, tag_index: int, issues: list[Issue]) -> TravellerLine | None:
    """Read one ScoreTable row; None (with an error in `issues`) when it cannot be trusted."""
    cells, where = row.cells, at_cell(tag_index, row.element)
    table = _known(cells.get("Table")) or str(index + 1)
    contract_text = _known(cells.get("Contract"))
    published = _published(cells)
    ns_award = ew_award = None
    contract: Contract | None = None
    tricks: int | None = None
    if contract_text is None:
        ns_award = _side_award(cells, "NS")
        ew_award = _side_award(cells, "EW")
        if ns_award is None or ew_award is None:
            issues.append(warning("pbn.scoretable.no-result", f"Row for table {table} has no contract and no "
                                  "artificial score for both sides; it was left out.", where))
            return None
        published.pop("score_ns", None)
    else:
        parsed = parse_contract(contract_text)
        if parsed is None or (parsed.level == 0 and parsed.strain is not None):
            issues.append(error("pbn.scoretable.contract", f"Contract {contract_text!r} on table {table} is "
                                "not a contract; the row was left out.", where))
            return None
        if parsed.drift:
            issues.append(drift("pbn.contract.spelling", f"Contract written {parsed.drift}; read as standard.",
                                where))
        declarer = parse_seat(cells.get("Declarer", ""))
        if parsed.level and declarer is None:
            issues.append(error("pbn.scoretable.declarer", f"Declarer {cells.get('Declarer', '')!r} on table "
                                f"{table} is not W, N, E or S; the row was left out.", where))
            return None
        contract = contract_model(parsed.level, parsed.strain, parsed.doubling, declarer if parsed.level else None)
        if parsed.level:
            result = (cells.get("Result") or "").strip()
            if whole_number(result, high=13) is None:
                issues.append(error("pbn.scoretable.result", f"Result {result!r} on table {table} is not a number "
                                    "of tricks 0-13; the row was left out.", where))
                return None
            tricks = int(result)
    lead = _lead(cells.get("Lead"), where, issues)
    return TravellerLine(table, _known(cells.get("Section")), _round(cells.get("Round")),
                         _ROOMS.get((cells.get("Room") or "").strip().lower()), _known(cells.get("PairId_NS")) or "",
                         _known(cells.get("PairId_EW")) or "", contract, tricks, lead, ns_award, ew_award,
                         _names(cells.get("Names_NS")), _names(cells.get("Names_EW")), published, row.element)


def _side_award(cells: dict[str, str], side: str) -> ArtificialAward | None:
    """A side's award from its score cell, else from a ^-marked percentage cell."""
    found = award(cells.get(f"Score_{side}"))
    percentage = cells.get(f"Percentage_{side}")
    if found is None and percentage is not None and percentage.strip().startswith("^"):
        found = award(percentage)
    return found


def _known(text: str | None) -> str | None:
    if text is None:
        return None
    token = text.strip()
    return None if token in ("", "-", "?") else token


def _round(text: str | None) -> int | None:
    token = (text or "").strip()
    return whole_number(token)


def _names(text: str | None) -> tuple[Player, ...]:
    return tuple(player(name) for name in split_names(text or ""))


def _lead(text: str | None, where: tuple[str, int, int], issues: list[Issue]) -> str | None:
    token = _known(text)
    if token is None:
        return None
    card = CARDS.get(token) or CARD_DRIFT.get(token)
    if card is None:
        issues.append(warning("pbn.scoretable.lead", f"Lead {token!r} is not a card; it was left out.", where))
    return card


def _published(cells: dict[str, str]) -> dict[str, float | str]:
    published: dict[str, float | str] = {}
    score_ns, score_ew = number(cells.get("Score_NS")), number(cells.get("Score_EW"))
    if score_ns is not None:
        published["score_ns"] = score_ns
    elif score_ew is not None:
        published["score_ns"] = -score_ew
    for column, key in _PUBLISHED.items():
        value = number(cells.get(column))
        if value is not None:
            published[key] = value
    return published


class Standing(NamedTuple):
    """What one TotalScoreTable row says about a contestant."""

    contestant_id: str
    section: str | None
    """The row's own Section cell; None when it has none."""
    direction: str | None
    name: str | None
    players: tuple[Player, ...]
    published: dict[str, float | str]
    element: int


def standing(row: Row) -> Standing | None:
    """Read one TotalScoreTable row; None when it has no PairId."""
    cells = row.cells
    contestant = (cells.get("PairId") or "").strip()
    if contestant in ("", "-", "?"):
        return None
    direction = {"N-S": "NS", "NS": "NS", "E-W": "EW", "EW": "EW"}.get((cells.get("Direction") or "").strip())
    name = _known(cells.get("Names"))
    ids = [_known(cells.get("MemberID1")), _known(cells.get("MemberID2"))]
    names = split_names(name or "")
    players = tuple(player(n, ids[i] if i < 2 else None) for i, n in enumerate(names))
    published: dict[str, float | str] = {}
    for column, (tie_column, key) in _PLACES.items():
        found = place(cells.get(column), cells.get(tie_column))
        if found is not None:
            published[key] = found
    for column, key in _CONTESTANT_VALUES.items():
        value = number(cells.get(column))
        if value is not None:
            published.setdefault(key, value)
    for column in _TOTALS:
        value = number(cells.get(column))
        if value is not None:
            published.setdefault("total", value)
    return Standing(contestant, _known(cells.get("Section")), direction, name, players, published, row.element)
