"""PBN 2.1 writer, export format (§2.1): CRLF line ends, one empty line between games.

Two entry points:

- `dumps_games(games)` writes low-level games (`parsers.pbn.iter_games`) back out: mandatory tags
  first in their fixed order (`?` when unknown), other tags sorted by name, then the auction, the
  play and the tables. Values inherited with `#`/`##` are written out in full, spellings are
  normalised (`3N` -> `3NT`, `x` -> `X`, `PASS` -> `Pass`, deals from the dealer with ranks in
  order), suffixes become NAGs. Reading the output gives the same records as reading the input.
- `dumps(parsed)` writes records: one game per board with its hand, the board's traveller lines as a
  ScoreTable (Magic Contest dialect) and the standings as a TotalScoreTable.

Both outputs are also readable by `endplay.parsers.pbn`, as long as the games carry no NAGs or
commentary inside auctions and plays (endplay reads neither).
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date

from models.cards import Seat
from models.contract import Contract
from parsers.bridge.calls import CALL_DRIFT, CALLS
from parsers.bridge.cards import CARD_DRIFT, CARDS
from parsers.pbn.games import CallSection, PbnGame, is_table_tag, parse_call_section
from parsers.pbn.inheritance import Inheritance
from parsers.pbn.lexer import escape, section_tokens
from parsers.pbn.tables import Column, Table, parse_table, quote_cell
from parsers.pbn.validate import MANDATORY
from parsers.pbn.values import (
    deal_model,
    parse_board,
    parse_contract,
    parse_date,
    parse_deal,
    parse_result,
    parse_seat,
    parse_vulnerable,
)
from parsers.records import ArtificialRecord, BoardRecord, ContestantRecord, ParsedFile, ResultRecord

CRLF = "\r\n"
_AUCTION_SUFFIX_NAG = {"!": 1, "?": 2, "!!": 3, "??": 4, "!?": 5, "?!": 6}
_SECTIONS = frozenset({"Auction", "Play", "Note"})
_SCORE_COLUMNS = (("MP_NS", "mp_ns"), ("MP_EW", "mp_ew"), ("Percentage_NS", "pct_ns"), ("Percentage_EW", "pct_ew"),
                  ("IMP_NS", "imp_ns"), ("IMP_EW", "imp_ew"), ("ButlerDatum", "datum"))
_AWARD_CELLS = {"A+": "A+", "A": "A=", "A-": "A-"}


def dumps_games(games: Iterable[PbnGame], *, newline: str = CRLF) -> str:
    """Write games in PBN export format."""
    lines = ["% PBN 2.1", "% EXPORT"]
    inheritance = Inheritance()
    for index, game in enumerate(games):
        resolved, _ = inheritance.resolve(game)
        if index:
            lines.append("")
        lines.extend(_escapes(game.escapes))
        lines.extend(game_lines(resolved))
    return _join(lines, newline)


def _join(lines: list[str], newline: str) -> str:
    """The lines with `newline` ends, also inside multi-line comments."""
    return ("\n".join(lines) + "\n").replace("\n", newline) if newline != "\n" else "\n".join(lines) + "\n"


def _escapes(escapes: tuple[str, ...]) -> list[str]:
    """Private % lines worth keeping (META data); the version and EXPORT lines are ours."""
    kept = []
    for line in escapes:
        body = line.lstrip("%").strip().upper()
        if not (body.startswith("PBN ") or body in ("EXPORT", "IMPORT")):
            kept.append(line.rstrip())
    return kept


def game_lines(game: PbnGame) -> list[str]:
    """One game in export format (no inheritance left: resolve it first)."""
    first: dict[str, int] = {}
    for position, (name, _, _) in enumerate(game.tags):
        first.setdefault(name, position)
    lines = list(game.preamble)
    dealer = parse_seat(game.get("Dealer") or "")
    for name in MANDATORY:
        i = first.get(name)
        lines.extend(_tag_lines(game, i, name, _mandatory_value(game, name, i, dealer)))
    others = sorted(n for n in first if n not in MANDATORY and n not in _SECTIONS and not _has_data(game, n))
    for name in others:
        lines.extend(_tag_lines(game, first[name], name, game.tags[first[name]][1]))
    notes = _notes_by_section(game)
    if "Auction" in first and not _empty_section(game, first["Auction"]):
        lines.extend(_auction_lines(game, first["Auction"], dealer, notes["Auction"]))
    if "Play" in first and not _empty_section(game, first["Play"]):
        lines.extend(_play_lines(game, first["Play"], notes["Play"] + notes[""]))
    for name in sorted(n for n in first if n not in _SECTIONS and _has_data(game, n)):
        lines.extend(_section_lines(game, first[name]))
    return lines


def _empty_section(game: PbnGame, index: int) -> bool:
    """An auction or play tag with no seat and no calls or cards carries nothing (BridgeComposer writes them)."""
    _, value, data = game.tags[index]
    return not value.strip() and not parse_call_section(value, data, index).tokens


def _has_data(game: PbnGame, name: str) -> bool:
    if is_table_tag(name):
        return True
    section = next(section for tag, _, section in game.tags if tag == name)
    return any(t.kind != "comment" for t in section_tokens(section)) if section.strip() else False


def _tag_lines(game: PbnGame, index: int | None, name: str, value: str) -> list[str]:
    lines = [f'[{name} "{escape(value)}"]']
    if index is not None and index < len(game.tags):
        lines.extend(_comments(game.tags[index][2]))
    return lines


def _comments(section: str) -> list[str]:
    return [t.text for t in section_tokens(section) if t.kind == "comment"] if section.strip() else []


def _mandatory_value(game: PbnGame, name: str, index: int | None, dealer: Seat | None) -> str:
    """The value to write for a mandatory tag, in its export spelling when we can read it."""
    if index is None:
        return "?"
    value = game.tags[index][1]
    if value.strip() in ("", "?"):
        return value.strip()
    if name in ("Dealer", "Declarer"):
        return value.strip().upper()
    if name == "Vulnerable":
        vul, _ = parse_vulnerable(value)
        return value if vul is None else vul.value
    if name == "Board":
        number = parse_board(value)
        return value if number is None else str(number)
    if name == "Date":
        found, how = parse_date(value)
        return f"{found:%Y.%m.%d}" if found is not None and how == "drift" else value
    if name == "Deal":
        parsed = parse_deal(value)
        if parsed.hands is None or parsed.problem[0]:
            return value
        first = dealer or parse_seat(value.strip()[0]) or Seat.N
        return deal_model(parsed.hands).to_pbn(first)
    if name == "Contract":
        return _contract_text(value)
    if name == "Result":
        return _result_text(value, parse_seat((game.get("Declarer") or "").strip().removeprefix("^")))
    return value


def _contract_text(value: str) -> str:
    parsed = parse_contract(value)
    if parsed is None:
        return value
    if parsed.level == 0:
        return "Pass" if parsed.strain is None else parsed.strain.value
    return f"{parsed.level}{parsed.strain}{parsed.doubling.value}"


def _result_text(value: str, declarer: Seat | None) -> str:
    parsed = parse_result(value)
    if parsed is None:
        return value
    tricks = parsed.for_declarer(declarer)
    if tricks is None:
        return value
    return f"{'^' if parsed.irregular else ''}{tricks}"


def _notes_by_section(game: PbnGame) -> dict[str, list[str]]:
    notes: dict[str, list[str]] = {"Auction": [], "Play": [], "": []}
    for section, index, _, _ in game.notes:
        notes[section].append(f'[Note "{escape(game.tags[index][1])}"]')
        notes[section].extend(_comments(game.tags[index][2]))
    return notes


def _auction_lines(game: PbnGame, index: int, dealer: Seat | None, notes: list[str]) -> list[str]:
    _, seat_text, data = game.tags[index]
    section = parse_call_section(seat_text, data, index)
    seat = parse_seat(seat_text)
    tokens = list(section.tokens)
    shift = 0
    if seat is not None and dealer is not None:
        while shift < len(tokens) and tokens[shift] == "-" and seat.next(shift) != dealer:
            shift += 1
        if seat.next(shift) != dealer:
            shift = 0  # the padding does not lead to the dealer: keep the section as written
    first = seat.next(shift).value if seat is not None and shift else seat_text.strip().upper()
    items = [_item(section, i, CALLS.get(t) or CALL_DRIFT.get(t) or t, True) for i, t in enumerate(tokens)][shift:]
    return [f'[Auction "{escape(first)}"]', *_comments_before(section), *_rows(items, 4), *notes]


def _play_lines(game: PbnGame, index: int, notes: list[str]) -> list[str]:
    _, seat_text, data = game.tags[index]
    section = parse_call_section(seat_text, data, index)
    tokens = list(section.tokens)
    closing = tokens and tokens[-1] == "*"
    items = [_item(section, i, CARDS.get(t) or CARD_DRIFT.get(t) or t, False)
             for i, t in enumerate(tokens[:-1] if closing else tokens)]
    rows = _rows(items, 4)
    if closing:
        rows.append(_item(section, len(tokens) - 1, "*", False))
    return [f'[Play "{escape(seat_text.strip().upper())}"]', *_comments_before(section), *rows, *notes]


def _comments_before(section: CallSection) -> list[str]:
    ann = section.annotations.get(-1)
    return list(ann.comments) if ann is not None else []


def _item(section: CallSection, index: int, text: str, auction: bool) -> str:
    """A call or card with its annotations in export order: prefix, token, note, NAGs, comments."""
    ann = section.annotations.get(index)
    if ann is None:
        return text
    nags = list(ann.nags)
    if ann.suffix in _AUCTION_SUFFIX_NAG:
        nags.append(_AUCTION_SUFFIX_NAG[ann.suffix] + (0 if auction else 6))
    parts = [f"{ann.prefix} {text}" if ann.prefix else text]
    if ann.note is not None:
        parts.append(f"={ann.note}=")
    parts.extend(f"${n}" for n in sorted(nags))
    parts.extend(ann.comments)
    return " ".join(parts)


def _rows(items: list[str], per_row: int) -> list[str]:
    """Items `per_row` to a line; a ;-comment runs to the end of the line, so the line ends after it."""
    rows: list[str] = []
    current: list[str] = []
    for item in items:
        current.append(item)
        if len(current) == per_row or _ends_in_line_comment(item):
            rows.append(" ".join(current))
            current = []
    if current:
        rows.append(" ".join(current))
    return rows


def _ends_in_line_comment(item: str) -> bool:
    last_brace = item.rfind("}")
    semicolon = item.find(";", last_brace + 1)
    return semicolon >= 0


def _section_lines(game: PbnGame, index: int) -> list[str]:
    name, value, data = game.tags[index]
    lines = [f'[{name} "{escape(value)}"]']
    if not is_table_tag(name):
        return lines + [line.rstrip() for line in data.strip("\n").split("\n") if line.strip()]
    table = parse_table(name, value, data, index)
    lines.extend(table.comments)
    lines.extend(table_lines(table))
    return lines


def table_lines(table: Table) -> list[str]:
    """Table rows one per line, padded to the declared widths (irregular tables keep their lines)."""
    if not table.is_regular:
        return [" ".join(line) for line in table.lines]
    return [_table_row(table.columns, row) for row, _ in table.rows()]


def _table_row(columns: tuple[Column, ...], row: tuple[str, ...]) -> str:
    cells = []
    for column, cell in zip(columns, row, strict=True):
        width = column.width or 0
        cells.append(cell.rjust(width) if column.align == "R" else cell.ljust(width))
    return " ".join(cells).rstrip()


def _deal_tags(board: BoardRecord | None) -> list[tuple[str, str]]:
    """The double-dummy tricks and par the board's file published (`parsers.pbn.supplemental`),
    as the tags that read back as them."""
    published = board.published if board is not None else {}
    tags: list[tuple[str, str]] = []
    if "dd_tricks" in published:
        tags.append(("DoubleDummyTricks", str(published["dd_tricks"])))
    par = published.get("par_score_ns")
    if isinstance(par, float):
        tags.append(("OptimumScore", f"NS {par:.0f}"))
    if "par_contract" in published:
        tags.append(("ParContract", str(published["par_contract"])))
    return tags


def dumps(parsed: ParsedFile, *, newline: str = CRLF) -> str:
    """Write records: hand records with their travellers (ScoreTable) and standings (TotalScoreTable)."""
    meta = parsed.metadata
    lines = ["% PBN 2.1", "% EXPORT"]
    if meta.field_layout == "one_field":
        lines.append('% <META name=Barometer content="Y">')
    head = [("Event", meta.event_name or "?"), ("Site", meta.site or "?"),
            ("Date", f"{meta.event_date:%Y.%m.%d}" if isinstance(meta.event_date, date) else "?")]
    kinds = {c.kind for c in parsed.contestants}
    competition = "Teams" if "team" in kinds else "Individuals" if "individual" in kinds else None
    standings = _standings_by_section(parsed.contestants)
    written: set[tuple[int, str]] = set()
    tables = _by_board(parsed)
    games: list[tuple[tuple[int, str], BoardRecord | None]] = [((b.board, b.section), b) for b in parsed.boards]
    listed = {k for k, _ in games}  # once: a hand record of 100,000 boards made this loop quadratic
    games += [(key, None) for key in _board_keys(parsed) if key not in listed]
    for n, (key, board) in enumerate(games):
        dealer = board.dealer if board is not None else None
        tags = [*head, ("Board", str(key[0])), ("West", ""), ("North", ""), ("East", ""), ("South", ""),
                ("Dealer", dealer.value if dealer else "?"),
                ("Vulnerable", board.vulnerability.value if board is not None and board.vulnerability else "?"),
                ("Deal", board.deal.to_pbn(dealer or Seat.N) if board is not None and board.deal else "?"),
                ("Scoring", meta.scoring or "?"), ("Declarer", ""), ("Contract", ""), ("Result", ""),
                *_deal_tags(board)]
        if competition:
            tags.append(("Competition", competition))
        if meta.program:
            tags.append(("Application", meta.program))
        if key[1]:
            tags.append(("Section", key[1]))
        if n:
            lines.append("")
        lines.extend(f'[{name} "{escape(value)}"]' for name, value in tags)
        if key not in written:  # a board number given twice (another deal) gets its travellers once
            written.add(key)
            lines.extend(_score_table(*tables.get(key, ([], []))))
        if key[1] in standings:
            lines.extend(_total_score_table(standings.pop(key[1]), meta.scoring or "", meta.tie_breaks))
    for section, contestants in standings.items():
        lines.extend(["", *(f'[{k} "{escape(v)}"]' for k, v in head)])
        if competition:
            lines.append(f'[Competition "{competition}"]')
        if section:
            lines.append(f'[Section "{escape(section)}"]')
        lines.extend(_total_score_table(contestants, meta.scoring or "", meta.tie_breaks))
    return _join(lines, newline)


def _board_keys(parsed: ParsedFile) -> list[tuple[int, str]]:
    keys: dict[tuple[int, str], None] = {}
    records: tuple[BoardRecord | ResultRecord | ArtificialRecord, ...] = (
        *parsed.boards, *parsed.results, *parsed.artificial)
    for record in records:
        keys.setdefault((record.board, record.section), None)
    return list(keys)


def _standings_by_section(contestants: tuple[ContestantRecord, ...]) -> dict[str, list[ContestantRecord]]:
    found: dict[str, list[ContestantRecord]] = {}
    for contestant in contestants:
        found.setdefault(contestant.section, []).append(contestant)
    return found


def _number(value: float | str | None) -> str:
    if value is None or value == "":
        return "-"
    if isinstance(value, str):
        return quote_cell(value)
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def _by_board(parsed: ParsedFile) -> dict[tuple[int, str], tuple[list[ResultRecord], list[ArtificialRecord]]]:
    """(board, section) -> its results and artificial scores, in file order: read once, not once a board."""
    found: dict[tuple[int, str], tuple[list[ResultRecord], list[ArtificialRecord]]] = {}
    for result in parsed.results:
        found.setdefault((result.board, result.section), ([], []))[0].append(result)
    for award in parsed.artificial:
        found.setdefault((award.board, award.section), ([], []))[1].append(award)
    return found


def _score_table(results: list[ResultRecord], artificial: list[ArtificialRecord]) -> list[str]:
    if not results and not artificial:
        return []
    rows_published: list[dict[str, float | str]] = [r.published for r in results] + [a.published for a in artificial]
    published = {k for values in rows_published for k in values}
    extra = [(column, k) for column, k in _SCORE_COLUMNS if k in published]
    names = any(r.ns_players or r.ew_players for r in results)
    columns = ["Table", "Round", "PairId_NS", "PairId_EW", "Contract", "Declarer", "Result", "Lead", "Score_NS",
               "Score_EW", *(column for column, _ in extra), *(["Names_NS", "Names_EW"] if names else [])]
    rows = [_result_row(r, extra, names) for r in results] + [_artificial_row(a, extra, names) for a in artificial]
    widths = [max(len(cells[i]) for cells in rows) for i in range(len(columns))]
    header = ";".join(f"{c}\\{w}{'L' if c in ('Contract', 'Lead', 'Names_NS', 'Names_EW') else 'R'}"
                      for c, w in zip(columns, widths, strict=True))
    lines = [f'[ScoreTable "{header}"]']
    for cells in rows:
        lines.append(" ".join(cell.ljust(w) if c in ("Contract", "Lead", "Names_NS", "Names_EW") else cell.rjust(w)
                              for c, cell, w in zip(columns, cells, widths, strict=True)).rstrip())
    return lines


def _ids(record: ResultRecord | ArtificialRecord) -> list[str]:
    return [quote_cell(record.table_id), str(record.round) if record.round is not None else "-",
            quote_cell(record.ns_id) if record.ns_id else "-", quote_cell(record.ew_id) if record.ew_id else "-"]


def _result_row(result: ResultRecord, extra: list[tuple[str, str]], names: bool) -> list[str]:
    contract: Contract = result.contract
    score = result.published.get("score_ns")
    score_ns = _number(score) if isinstance(score, (int, float)) else "-"
    score_ew = _number(-score) if isinstance(score, (int, float)) else "-"
    cells = [*_ids(result), "Pass" if contract.is_passed_out else str(contract),
             contract.declarer.value if contract.declarer else "-",
             str(result.tricks) if result.tricks is not None else "-", str(result.lead) if result.lead else "-",
             score_ns, score_ew, *(_number(result.published.get(k)) for _, k in extra)]
    if names:
        cells.extend(quote_cell(";".join(p.name for p in players)) if players else "-"
                     for players in (result.ns_players, result.ew_players))
    return cells


def _artificial_row(record: ArtificialRecord, extra: list[tuple[str, str]], names: bool) -> list[str]:
    # An explicit award takes PBN's `^` prefix (an artificial score value): `%` is not a legal table element.
    awards = [_AWARD_CELLS[a] if isinstance(a, str) else f"^{_number(a)}" for a in (record.ns_award, record.ew_award)]
    cells = [*_ids(record), "-", "-", "-", "-", *awards, *(_number(record.published.get(k)) for _, k in extra)]
    return cells + (["-", "-"] if names else [])


def _total_score_table(contestants: list[ContestantRecord], scoring: str,
                       tie_breaks: tuple[str, ...] = ()) -> list[str]:
    total = "TotalScoreIMP" if "IMP" in scoring.upper() else "TotalScoreMP"
    columns = [("Rank", "rank"), ("PairId", ""), ("Direction", ""), ("Names", ""), (total, "total"),
               ("TotalPercentage", "percentage"), ("Tiebreak", "tiebreak"), ("NrBoards", "nr_boards"),
               ("SessionScoreMP", "session_total"), ("SessionPercentage", "session_percentage"),
               ("SessionRank", "session_rank"), ("MemberID1", ""), ("MemberID2", "")]
    published = {k for c in contestants for k in c.published}
    wanted = [(name, key) for name, key in columns
              if (key and key in published) or name == "PairId"
              or (name == "Tiebreak" and "head_to_head_mp" in tie_breaks)
              or (name == "Direction" and any(c.direction for c in contestants))
              or (name == "Names" and any(c.name or c.players for c in contestants))
              or (name.startswith("MemberID") and any(len(c.players) > int(name[-1]) - 1
                                                      and c.players[int(name[-1]) - 1].federation_id
                                                      for c in contestants))]
    lines = [f'[TotalScoreTable "{";".join(name for name, _ in wanted)}"]']
    for contestant in contestants:
        cells = []
        for name, key in wanted:
            if name == "PairId":
                cells.append(quote_cell(contestant.contestant_id))
            elif name == "Direction":
                cells.append({"NS": '"N-S"', "EW": '"E-W"'}.get(contestant.direction or "", "-"))
            elif name == "Names":
                text = contestant.name or " - ".join(p.name for p in contestant.players)
                cells.append(quote_cell(text) if text else "-")
            elif name.startswith("MemberID"):
                n = int(name[-1]) - 1
                fid = contestant.players[n].federation_id if len(contestant.players) > n else None
                cells.append(quote_cell(fid) if fid else "-")
            else:
                cells.append(_number(contestant.published.get(key)))
        lines.append(" ".join(cells))
    return lines
