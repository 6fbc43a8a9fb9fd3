"""PBN games to format-neutral records (boards, traveller lines, artificial scores, contestants).

Results come in three shapes: ScoreTable rows (one game per board), one game per table (the board
repeats with its own Contract/Declarer/Result, players, Table/Room/teams), or a single game's own
result. Two habits of real files that the standard does not cover are followed here, each
reported once per file: a game with a result but no Board, Deal or Dealer is another table of the
previous board (rpbridge), and event tags given once (Event, HomeTeam, ...) hold for later games
that omit them (LinToPbn, rpbridge).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple

from models.board import Vulnerability
from models.cards import Deal, Seat
from parsers.bridge.play import PlayFacts, PlaySection
from parsers.numbers import whole_number
from parsers.pbn.games import PbnGame
from parsers.pbn.issues import ERROR, INFO, WARNING, Anchor, Issue, at_tag, at_value, lenient, note
from parsers.pbn.results import (
    CARD_MODELS,
    ROOMS,
    Tags,
    contract_from_auction,
    pair_by_players,
    players,
    published_scores,
    read_calls,
    read_cards,
    read_contract,
    read_tricks,
    report_unread_play,
    sides,
)
from parsers.pbn.scoretables import place_number, standing, table_rows, traveller_line
from parsers.pbn.supplemental import DEAL_TAGS, deal_published
from parsers.pbn.values import (
    Hands,
    deal_model,
    is_unknown,
    parse_board,
    parse_date,
    parse_deal,
    parse_seat,
    parse_vulnerable,
)
from parsers.records import ArtificialRecord, BoardRecord, ContestantRecord, Position, ResultRecord

CONTEXT_TAGS = ("Event", "Site", "Date", "EventDate", "Scoring", "Competition", "Stage", "HomeTeam", "VisitTeam")
"""Event-level tags that hold for later games that omit them."""
FILE_START: Anchor = ("offset", 0, 0)
_DEAL_TAGS = (*DEAL_TAGS, "OptimumResultTable")
"""Tags whose values the board's published values come from (`parsers.pbn.supplemental`)."""


class GameRecords(NamedTuple):
    """Records built from one game, and how many the builder left out."""

    boards: list[BoardRecord]
    results: list[ResultRecord]
    artificial: list[ArtificialRecord]
    standings: list[ContestantRecord]
    quarantined: int = 0

    def size(self) -> int:
        """Number of records."""
        return len(self.boards) + len(self.results) + len(self.artificial) + len(self.standings)


class _Board(NamedTuple):
    number: int
    section: str
    dealer: Seat | None
    vulnerability: Vulnerability | None
    hands: Hands | None
    deal: Deal | None


class Builder:
    """Turns resolved games, in file order, into records; keeps the state that spans games."""

    def __init__(self, read: Mapping[PlaySection, PlayFacts] | None = None) -> None:
        self.read = read
        """Play sections read already (`parsers.pbn.results.cards_section`)."""
        self.context: dict[str, str] = {}
        self.noted: set[str] = set()
        self.last_board: _Board | None = None
        self.boards_seen: dict[tuple[int, str], _Board] = {}
        self.table_ids: dict[tuple[int, str], set[str]] = {}
        self.metadata: dict[str, object] = {}
        self.last_date: str | None = None
        self.ids_seen: dict[tuple[str, str], tuple[Position, bool]] = {}
        self.standing_keys: set[tuple[str, str, str | None]] = set()
        self.ranks: list[tuple[str | None, float | str | None]] = []
        self.tie_break_published = False
        self.deals: dict[str, tuple[Hands, Deal]] = {}
        self.deal_published: dict[tuple[int, str], dict[str, float | str]] = {}

    def add(self, game: PbnGame) -> tuple[GameRecords, list[Issue]]:
        """Records of one game and the problems found building them."""
        issues: list[Issue] = []
        tags = Tags.of(game)
        ctx = self._context(tags, issues)
        self._metadata(tags, ctx, issues)
        out = GameRecords([], [], [], [])
        board, trusted = self._board(tags, issues)
        if not trusted:
            self.last_board = None
            return out._replace(quarantined=_expected_records(game, tags)), issues
        at = Position.model_construct(record=game.index, line=game.line)
        if board is not None:
            self._add_board(game, tags, board, at, out, issues)
        if "ScoreTable" in tags.where:
            out = self._score_table(game, tags, board, out, issues)
            report_unread_play(tags, issues)  # a traveller's rows have no play of their own
        elif not is_unknown(tags.values.get("Contract")) or ("Contract" not in tags.values and "Auction" in tags.where):
            out = self._own_result(game, tags, ctx, board, at, out, issues)
        else:
            report_unread_play(tags, issues)  # the game has no contract of its own for the play
        if "TotalScoreTable" in tags.where:
            self._standings(game, tags, ctx, out)
        return out, issues

    def _context(self, tags: Tags, issues: list[Issue]) -> dict[str, str]:
        ctx: dict[str, str] = {}
        values, context = tags.values, self.context
        for name in CONTEXT_TAGS:
            value = values.get(name)
            if value is not None and value != "?" and value.strip() != "?":
                context[name] = ctx[name] = value
            elif name in context:
                ctx[name] = context[name]
                if name not in self.noted:
                    self.noted.add(name)
                    issues.append(note("pbn.tag.carried", f"Tag {name} is given only in some games; games "
                                       f"without it took the last value given ({ctx[name]!r}).", FILE_START))
        return ctx

    def _metadata(self, tags: Tags, ctx: dict[str, str], issues: list[Issue]) -> None:
        meta = self.metadata
        for key, name in (("event_name", "Event"), ("site", "Site"), ("scoring", "Scoring")):
            if key not in meta and ctx.get(name, "").strip():
                meta[key] = ctx[name].strip()
        raw = ctx.get("Date") or ctx.get("EventDate")
        if raw is None or raw == self.last_date:
            return
        self.last_date = raw
        found, how = parse_date(raw)
        anchor = at_value(tags.where.get("Date", tags.where.get("EventDate", -1)))
        if how == "partial":
            issues.append(note("pbn.date.partial", f"Date {raw!r} is not complete; no date was taken.", anchor))
        elif how == "drift":
            issues.append(lenient(WARNING, "pbn.date.spelling", f"Date {raw!r} is not written YYYY.MM.DD; "
                                  f"read as {found}.", anchor))
        elif how == "bad":
            issues.append(lenient(WARNING, "pbn.date.value", f"Date {raw!r} is not a date (YYYY.MM.DD).", anchor))
        if found is not None and "event_date" not in meta:
            meta["event_date"] = found

    def _board(self, tags: Tags, issues: list[Issue]) -> tuple[_Board | None, bool]:
        """The game's board (None when it has none) and whether it can be trusted."""
        trusted = True
        number_text = tags.values.get("Board")
        number = None
        if not is_unknown(number_text):
            number = parse_board(number_text or "")
            if number is None:
                issues.append(lenient(ERROR, "pbn.board.number", f"Board {number_text!r} is not a positive whole "
                                      "number; the board and its results were left out.",
                                      at_value(tags.where["Board"])))
                trusted = False
        hands, deal, deal_ok = self._deal(tags, issues)
        dealer, dealer_ok = self._dealer(tags, issues)
        vul, vul_ok = self._vulnerability(tags, issues)
        if not (trusted and deal_ok and dealer_ok and vul_ok):
            return None, False
        if number is None:
            values = tags.values
            if (is_unknown(values.get("Deal")) and is_unknown(values.get("Dealer")) and self.last_board is not None
                    and not is_unknown(values.get("Contract"))):
                if "continuation" not in self.noted:
                    self.noted.add("continuation")
                    issues.append(note("pbn.board.continued", "Games with a result but no Board, Deal or Dealer "
                                       "were read as further tables of the board before them.", FILE_START))
                return self.last_board, True
            self.last_board = None
            return None, True
        board = _Board(number, tags.text("Section"), dealer, vul, hands, deal)
        self.last_board = board
        return board, True

    def _deal(self, tags: Tags, issues: list[Issue]) -> tuple[Hands | None, Deal | None, bool]:
        text = tags.values.get("Deal")
        if is_unknown(text):
            return None, None, True
        known = self.deals.get(text or "")
        if known is not None:
            return known[0], known[1], True
        parsed = parse_deal(text or "")
        anchor = at_value(tags.where["Deal"])
        if parsed.problem[0] or parsed.hands is None:
            issues.append(lenient(ERROR, parsed.problem[0], parsed.problem[1] + " The board and its results were "
                                  "left out.", anchor))
            return None, None, False
        if parsed.drift:
            issues.append(lenient(INFO, "pbn.deal.spelling", f"Deal written with {parsed.drift}.", anchor))
        if all(h is None for h in parsed.hands):
            issues.append(lenient(WARNING, "pbn.deal.empty", "The Deal gives no hand at all; read as unknown.",
                                  anchor))
            return None, None, True
        deal = deal_model(parsed.hands)
        if not parsed.drift:
            self.deals[text or ""] = (parsed.hands, deal)
        return parsed.hands, deal, True

    def _dealer(self, tags: Tags, issues: list[Issue]) -> tuple[Seat | None, bool]:
        text = tags.values.get("Dealer")
        if is_unknown(text):
            return None, True
        seat = parse_seat(text or "")
        if seat is None:
            issues.append(lenient(ERROR, "pbn.dealer", f"Dealer {text!r} is not W, N, E or S; the board and its "
                                  "results were left out.", at_value(tags.where["Dealer"])))
        return seat, seat is not None

    def _vulnerability(self, tags: Tags, issues: list[Issue]) -> tuple[Vulnerability | None, bool]:
        text = tags.values.get("Vulnerable")
        if is_unknown(text):
            return None, True
        vul, spelled = parse_vulnerable(text or "")
        anchor = at_value(tags.where["Vulnerable"])
        if vul is None:
            issues.append(lenient(ERROR, "pbn.vulnerable", f"Vulnerable {text!r} is not None, NS, EW or All; the "
                                  "board and its results were left out.", anchor))
            return None, False
        if spelled:
            issues.append(lenient(INFO, "pbn.vulnerable.spelling", f"Vulnerable written {spelled}; read as "
                                  f"{vul.value}.", anchor))
        return vul, True

    def _add_board(self, game: PbnGame, tags: Tags, board: _Board, at: Position, out: GameRecords,
                   issues: list[Issue]) -> None:
        """The board's record, the first time it is seen, with what the game publishes about the deal;
        a later game of the board may repeat that, but what it says otherwise is reported, not kept."""
        published = deal_published(tags, game.tables.get("OptimumResultTable"), issues) \
            if any(name in tags.where for name in _DEAL_TAGS) else {}
        key = (board.number, board.section)
        if self._is_new_board(board, tags, issues):
            self.deal_published[key] = published
            out.boards.append(BoardRecord.model_construct(
                board=board.number, section=board.section, dealer=board.dealer,
                vulnerability=board.vulnerability, deal=board.deal, published=published, at=at))
        elif published and published != self.deal_published.get(key):
            issues.append(Issue(
                "pbn.double-dummy.differs", f"Board {board.number}'s double-dummy tricks or par differ from "
                "what an earlier game of the board published; the earlier values were kept.",
                at_tag(tags.first_of(*_DEAL_TAGS)), WARNING, WARNING))

    def _is_new_board(self, board: _Board, tags: Tags, issues: list[Issue]) -> bool:
        key = (board.number, board.section)
        seen = self.boards_seen.get(key)
        if seen is None:
            self.boards_seen[key] = board
            return True
        if (_same_hands(board.hands, seen.hands) and board.dealer in (None, seen.dealer)
                and board.vulnerability in (None, seen.vulnerability)):
            return False
        self.boards_seen[key] = board
        issues.append(Issue("pbn.board.conflict", f"Board {board.number} appears again with a different deal, "
                            "dealer or vulnerability; it was kept as a separate board record.",
                            at_tag(tags.where.get("Deal", tags.where.get("Board", 0))), WARNING, WARNING))
        return True

    def _table_id(self, board: tuple[int, str], wanted: str | None, issues: list[Issue], anchor: Anchor,
                  round_: int | None = None) -> str:
        """The table's id, unique for the (board, section): a table named twice is told apart by its
        round when the two name rounds (a relay, a board played again later), else numbered."""
        seen = self.table_ids.setdefault(board, set())
        table = wanted or str(len(seen) + 1)
        if table in seen and round_ is not None and f"{table}-r{round_}" not in seen:
            issues.append(note("pbn.result.table-round", f"Board {board[0]} has two results for table {table}; "
                               f"the one of round {round_} was recorded as table {table}-r{round_}.", anchor))
            table = f"{table}-r{round_}"
        elif table in seen:
            base, n = table, 2
            while f"{base}#{n}" in seen:
                n += 1
            table = f"{base}#{n}"
            issues.append(Issue("pbn.result.duplicate-table", f"Board {board[0]} has two results for table "
                                f"{base}; the second was recorded as table {table}.", anchor, WARNING, WARNING))
        seen.add(table)
        return table

    def _note_id(self, contestant: str, section: str, at: Position, team: bool) -> None:
        if contestant and (section, contestant) not in self.ids_seen:
            self.ids_seen[(section, contestant)] = (at, team)

    def _own_result(self, game: PbnGame, tags: Tags, ctx: dict[str, str], board: _Board | None, at: Position,
                    out: GameRecords, issues: list[Issue]) -> GameRecords:
        """The game's own Contract/Declarer/Result as one traveller line."""
        if "Contract" not in tags.values:
            outcome = contract_from_auction(tags, board.dealer if board else None, issues)
        else:
            outcome = read_contract(tags, issues)
        if outcome.status != "ok" or outcome.contract is None:
            return out._replace(quarantined=out.quarantined + (outcome.status == "bad"))
        contract = outcome.contract
        if board is None:
            issues.append(note("pbn.result.no-board", "The game has a result but no board number; the result "
                               "was not recorded.", at_tag(tags.first_of("Contract", "Auction"))))
            return out
        auction = read_calls(game, tags, board.dealer, contract, issues)
        played, play_tricks = read_cards(game, tags, contract, issues, self.read)
        tricks = None
        if contract.level:
            outcome = read_tricks(tags, contract, play_tricks, issues)
            if outcome.status != "ok":
                return out._replace(quarantined=out.quarantined + (outcome.status == "bad"))
            tricks = outcome.tricks
        room = ROOMS.get(tags.text("Room").lower())
        ns_id, ew_id, team = sides(tags, ctx, room)
        table = tags.text("Table") or None
        wanted = f"{table}-{room}" if table and room else table or room or _players_table(tags, ns_id, ew_id, team)
        round_text = tags.text("Round")
        table_id = self._table_id((board.number, board.section), wanted, issues,
                                  at_tag(tags.first_of("Table", "Contract", "Auction")), whole_number(round_text))
        self._note_id(ns_id, board.section, at, team)
        self._note_id(ew_id, board.section, at, team)
        out.results.append(ResultRecord.model_construct(
            board=board.number, section=board.section, table_id=table_id,
            round=whole_number(round_text), room=room, ns_id=ns_id,
            ew_id=ew_id, contract=contract, tricks=tricks,
            lead=CARD_MODELS[played[0]] if played else None, auction=auction,
            play=tuple(map(CARD_MODELS.__getitem__, played)),
            ns_players=players(tags, "North", "South"), ew_players=players(tags, "East", "West"),
            published=published_scores(tags, contract, issues), at=at))
        return out

    def _score_table(self, game: PbnGame, tags: Tags, board: _Board | None, out: GameRecords,
                     issues: list[Issue]) -> GameRecords:
        tag = tags.where["ScoreTable"]
        table = game.tables["ScoreTable"]
        issues.extend(i._replace(contained=True, strict=None) for i in table.issues)
        if board is None:
            issues.append(note("pbn.result.no-board", "The game has a ScoreTable but no board number; its rows "
                               "were not recorded.", at_tag(tag)))
            return out
        if "Contract" not in table.column_names:
            issues.append(note("pbn.scoretable.not-traveller", "This ScoreTable has no Contract column (a score "
                               "distribution, not a traveller); its rows were not recorded.", at_tag(tag)))
            return out
        lines = game.element_lines(tag)
        quarantined = out.quarantined
        if not table.is_regular:
            quarantined += sum(1 for line in table.lines if len(line) != len(table.columns))
        for index, row in enumerate(table_rows(table)):
            row_issues: list[Issue] = []
            line = traveller_line(row, index, tag, row_issues)
            issues.extend(i._replace(contained=True) for i in row_issues)
            if line is None:
                quarantined += 1
                continue
            at = Position(record=game.index, line=lines[row.element])
            # A row's own Section (BridgeComposer) says where it was played: pair 1 of A is not pair 1 of B.
            section = board.section if line.section is None else line.section
            wanted = f"{line.table_id}-{line.room}" if line.room else line.table_id
            table_id = self._table_id((board.number, section), wanted, issues, ("cell", tag, row.element), line.round)
            self._note_id(line.ns_id, section, at, False)
            self._note_id(line.ew_id, section, at, False)
            if line.contract is None and line.ns_award is not None and line.ew_award is not None:
                out.artificial.append(ArtificialRecord(
                    board=board.number, section=section, table_id=table_id, round=line.round,
                    ns_id=line.ns_id, ew_id=line.ew_id, ns_award=line.ns_award, ew_award=line.ew_award,
                    published=line.published, at=at))
            elif line.contract is not None:
                out.results.append(ResultRecord(
                    board=board.number, section=section, table_id=table_id, round=line.round, room=line.room,
                    ns_id=line.ns_id, ew_id=line.ew_id, contract=line.contract, tricks=line.tricks,
                    lead=CARD_MODELS[line.lead] if line.lead else None, ns_players=line.ns_players,
                    ew_players=line.ew_players, published=line.published, at=at))
        return out._replace(quarantined=quarantined)

    def _standings(self, game: PbnGame, tags: Tags, ctx: dict[str, str], out: GameRecords) -> None:
        tag = tags.where["TotalScoreTable"]
        kind = _kind(ctx)
        section = tags.text("Section")
        lines = game.element_lines(tag)
        # Magic Contest publishes the tie-break it applied in its own column (FFB: direct encounters).
        self.tie_break_published |= "Tiebreak" in game.tables["TotalScoreTable"].column_names
        for row in table_rows(game.tables["TotalScoreTable"]):
            found = standing(row)
            if found is None:
                continue
            self.ranks.append((found.direction, place_number(found.published.get("rank"))))
            row_section = section if found.section is None else found.section
            key = (found.contestant_id, row_section, found.direction)
            if key in self.standing_keys:
                continue
            self.standing_keys.add(key)
            at = Position(record=game.index, line=lines[row.element])
            out.standings.append(ContestantRecord(
                contestant_id=found.contestant_id, kind=kind, section=row_section, direction=found.direction,
                name=found.name, players=found.players, published=found.published, at=at))

    def derived_contestants(self) -> list[ContestantRecord]:
        """Contestants named only by results (when the file has no TotalScoreTable)."""
        if self.standing_keys:
            return []
        kind = _kind(self.context)
        return [ContestantRecord(contestant_id=cid, kind="team" if team else kind, section=section, at=at)
                for (section, cid), (at, team) in self.ids_seen.items()]

    def tie_breaks(self) -> tuple[str, ...]:
        """The tie-breaks the file says it applied: a `Tiebreak` standings column (Magic Contest)
        holds each tied pair's points from its direct encounters with the others tied with it."""
        return ("head_to_head_mp",) if self.tie_break_published else ()

    def field_layout(self, escapes: list[str]) -> str | None:
        """'one_field' when the file says barometer/Howell, or ranks both directions in one list."""
        for line in escapes:
            lowered = line.lower().replace(" ", "")
            if ("barometer" in lowered and 'content="y"' in lowered) or "howell" in lowered:
                return "one_field"
        if {d for d, _ in self.ranks} >= {"NS", "EW"}:
            leaders = {d for d, rank in self.ranks if rank == 1.0}
            if len(leaders) == 1:
                return "one_field"
        return None


def _players_table(tags: Tags, ns_id: str, ew_id: str, team: bool) -> str | None:
    """A table no tag names, named by its pairs when the pairs are named by their players (BBO's
    exports, as LIN's tables are): stable across the files of one event, where a count is not."""
    by_players = (not team and (ns_id or ew_id) and ns_id == pair_by_players(tags.text("North"), tags.text("South"))
                  and ew_id == pair_by_players(tags.text("East"), tags.text("West")))
    return f"{ns_id} v {ew_id}" if by_players else None


def _same_hands(new: Hands | None, seen: Hands | None) -> bool:
    """True when every hand the new deal gives is the same seat's hand in the deal seen before."""
    if new is None or new == seen:
        return True
    return seen is not None and all(hand is None or hand == old for hand, old in zip(new, seen, strict=True))


def _kind(ctx: dict[str, str]) -> str:
    competition = ctx.get("Competition", "").strip().lower()
    return {"teams": "team", "individuals": "individual"}.get(competition, "pair")


def _expected_records(game: PbnGame, tags: Tags) -> int:
    """How many records an untrustworthy game would have given (all are quarantined)."""
    if "ScoreTable" in tags.where:
        return 1 + len(game.tables["ScoreTable"].rows())
    return 1 + (not is_unknown(tags.values.get("Contract")))
