"""How the sample weekend was made.

`python sample_data/make_weekend.py` rewrites `sample_data/weekend/`. A federation's weekend, as
its clubs and organisers would send it in:

- Friday 20 November: two clubs' pairs evenings. Riverside sends our CSV traveller (a 7-table
  Mitchell, 14 boards); Hillside's club program sends USEBIO XML (a 5-table Mitchell, 15 boards,
  with its hand record and the players' federation ids).
- Saturday 21 November: the National Pairs, two sessions of 14 boards in two sections (A, B) of 7
  tables each. The dealer's hand records come as PBN (one file a session, both sections play the
  same boards); each section's scorer sends a PBN traveller with a ScoreTable per board and a
  TotalScoreTable naming the pairs and their member ids. The event total carries both sessions.
- Sunday 22 November: the Swiss Teams, 8 teams, 4 rounds of 6-board matches in VPs, one PBN per
  match (open and closed room as separate games, HomeTeam NS in the open room). Board 15 of round 3
  is fouled after match 2's open room played it: match 2's closed room and matches 3 and 4 play
  the fouled form, whose results the files hold under the hand record's deal.
- `members.csv`: the federation's member list. Players recur across the three days.
- `conditions/`: each event's conditions of contest.
- `timeline.toml`: the weekend in the order it happens (files arriving, publications,
  corrections inside and outside the Law 79C period, a late approval, a director's artificial
  score, a fouled board in the pairs and one in the teams), which the demo replays.
- `broken/`: a traveller that arrives broken.
- `double_dummy.json`: endplay's double-dummy analysis of every deal, written by
  `python sample_data/make_weekend.py --analyse` (needs endplay, the [dds] extra); the demo seeds the
  results site's cache from it instead of running the solver for a minute on every run.

Deals are random with a fixed seed; each table's contract and tricks follow the hands' strength
with some noise (`make_sample.table_result`), so the travellers look like real play. Scores written
into the files are Law 77 scores, as a scoring program would write them.
"""

from __future__ import annotations

import random
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent)]  # the generator reuses make_sample and the project's Laws 2 and 77

from make_sample import LEADS, deal, pbn_hand, table_result  # noqa: E402

from models.board import law2_dealer, law2_vulnerability  # noqa: E402
from pipelines.scoring.contract import contract_score  # noqa: E402

OUT = HERE / "weekend"
SEED = 20261120
SEATS = "NESW"

FIRST = ["Anna", "Ben", "Clara", "David", "Elena", "Felix", "Greta", "Hugo", "Iris", "Jonas", "Karin",
         "Lars", "Maria", "Nils", "Olga", "Paul", "Rosa", "Simon", "Tara", "Viktor", "Wanda", "Yusuf",
         "Zofia", "Adam", "Beata", "Carl", "Dora", "Emil", "Freya", "Gustav"]
LAST = ["Berg", "Novak", "Lindqvist", "Moreau", "Kowalski", "Hansen", "Rossi", "Schmidt", "Dubois",
        "Jensen", "Nowak", "Olsen", "Fischer", "Lambert", "Petrov", "Svensson", "Costa", "Weber",
        "Nielsen", "Keller", "Varga", "Horvat", "Meyer", "Laine", "Bianchi", "Kral", "Sato", "Ahmed"]
CLUBS = {"Riverside BC": "North", "Hillside BC": "South", "Lakeside BC": "North", "Harbour BC": "West"}


@dataclass(frozen=True)
class Member:
    """One row of the federation's member list."""

    federation_id: str
    name: str
    club: str
    gender: str
    birth_year: int
    region: str


@dataclass(frozen=True)
class Pair:
    """Two members playing as one contestant."""

    number: str
    players: tuple[Member, Member]

    @property
    def names(self) -> str:
        return " - ".join(p.name for p in self.players)


@dataclass(frozen=True)
class Table:
    """One table's play of a board: who sat where, and what happened."""

    board: int
    table: int
    round: int
    ns: str
    ew: str
    contract: str
    declarer: str
    tricks: str
    lead: str


def members(rng: random.Random) -> list[Member]:
    """80 members, 20 per club, with unique names."""
    names = [f"{first} {last}" for last in LAST for first in FIRST]
    rng.shuffle(names)
    out = []
    for index, name in enumerate(names[:80]):
        club = list(CLUBS)[index % 4]
        gender = "F" if name.split()[0] in {"Anna", "Clara", "Elena", "Greta", "Iris", "Karin", "Maria",
                                            "Olga", "Rosa", "Tara", "Wanda", "Zofia", "Beata", "Dora",
                                            "Freya"} else "M"
        out.append(Member(f"NBF{10001 + index}", name, club, gender, rng.randint(1942, 2006), CLUBS[club]))
    return out


def pairs_from(pool: Sequence[Member], count: int, rng: random.Random, first: int = 1) -> list[Pair]:
    """`count` pairs drawn from `pool` without repeating a member."""
    chosen = rng.sample(list(pool), 2 * count)
    return [Pair(str(first + i), (chosen[2 * i], chosen[2 * i + 1])) for i in range(count)]


def mitchell(tables: int, per_round: int) -> Iterator[tuple[int, int, int, int]]:
    """(round, table, ew_pair, board) of a Mitchell with an odd number of tables.

    NS stay at their table; EW move up one table and the boards down one table each round, so
    every pair plays every board once and meets every pair of the other direction once.
    """
    for rnd in range(1, tables + 1):
        for table in range(1, tables + 1):
            ew = (table - rnd) % tables + 1
            set_index = (table + rnd - 2) % tables
            for k in range(per_round):
                yield rnd, table, ew, set_index * per_round + k + 1


def play(deals: dict[int, dict[str, list[str]]], tables: int, per_round: int,
         rng: random.Random) -> list[Table]:
    """Every table's result of a Mitchell session over `deals` (numbered from any board), ordered by
    board then table."""
    offset = min(deals) - 1
    rows = []
    for rnd, table, ew, index in mitchell(tables, per_round):
        board = index + offset
        contract, declarer, tricks = table_result(deals[board], rng)
        lead = "" if contract == "PASS" else rng.choice(LEADS)
        rows.append(Table(board, table, rnd, str(table), str(ew), contract, declarer, tricks, lead))
    return sorted(rows, key=lambda t: (t.board, t.table))


def ns_score(row: Table) -> int:
    """The NS score of a table's result by Law 77 (a passed-out board scores 0)."""
    if row.contract == "PASS":
        return 0
    level, rest = int(row.contract[0]), row.contract[1:]
    doubling = "XX" if rest.endswith("XX") else "X" if rest.endswith("X") else ""
    strain = rest[: len(rest) - len(doubling)]
    vulnerable = law2_vulnerability(row.board).is_vulnerable(row.declarer)
    score = contract_score(level, strain, doubling, int(row.tricks), vulnerable)
    return score if row.declarer in "NS" else -score


def deal_text(board: int, hands: dict[str, list[str]]) -> str:
    """A PBN Deal value, starting with the dealer."""
    first = SEATS.index(law2_dealer(board))
    order = SEATS[first:] + SEATS[:first]
    return f"{order[0]}:" + " ".join(pbn_hand(hands[s]) for s in order)


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8", newline="\n")


# --- Friday ---------------------------------------------------------------------------------------

RIVERSIDE = "riverside-pairs-2026-11-20"
HILLSIDE = "hillside-pairs-2026-11-20"


def riverside_csv(deals: dict[int, dict[str, list[str]]], pairs: list[Pair], rng: random.Random) -> str:
    """Riverside's club evening as our CSV traveller: 7 tables, NS 1-7 and EW 8-14, 14 boards."""
    rows = play(deals, 7, 2, rng)
    by_number = {pair.number: pair for pair in pairs}
    lines = ["event,session,board,section,table,ns,ew,contract,declarer,result,lead,score,ns_players,ew_players"]
    for row in rows:
        ew = str(int(row.ew) + 7)
        result = "" if row.contract == "PASS" else row.tricks
        lines.append(f"{RIVERSIDE},1,{row.board},A,{row.table},{row.ns},{ew},{row.contract},"
                     f"{row.declarer},{result},{row.lead},{ns_score(row)},"
                     f"{_csv_players(by_number[row.ns])},{_csv_players(by_number[ew])}")
    return "\n".join(lines) + "\n"


def _csv_players(pair: Pair) -> str:
    """The CSV's player cell: names with their federation ids in brackets, `;`-separated."""
    return "; ".join(f"{p.name} [{p.federation_id}]" for p in pair.players)


def hillside_usebio(deals: dict[int, dict[str, list[str]]], pairs: list[Pair], rng: random.Random) -> str:
    """Hillside's club program writes USEBIO 1.2: 5 tables, 15 boards, players with federation ids."""
    rows = play(deals, 5, 3, rng)
    out = ['<?xml version="1.0" encoding="UTF-8"?>', '<USEBIO Version="1.2">',
           "<CLUB>", "  <CLUB_NAME>Hillside BC</CLUB_NAME>", "  <CLUB_ID_NUMBER>204</CLUB_ID_NUMBER>", "</CLUB>",
           '<EVENT EVENT_TYPE="MP_PAIRS">', f"  <EVENT_IDENTIFIER>{HILLSIDE}</EVENT_IDENTIFIER>",
           "  <EVENT_DESCRIPTION>Hillside Friday Pairs</EVENT_DESCRIPTION>",
           "  <PROGRAM_NAME>ClubScorer</PROGRAM_NAME>", "  <PROGRAM_VERSION>3.2</PROGRAM_VERSION>",
           "  <WINNER_TYPE>2</WINNER_TYPE>", "  <DATE>20/11/2026</DATE>",
           "  <SESSION_COUNT>1</SESSION_COUNT>", "  <SECTION_COUNT>1</SECTION_COUNT>",
           '  <PARTICIPANTS EVENT_TYPE="MP_PAIRS">']
    for pair in pairs:
        number = int(pair.number)
        label, direction = (f"{number}NS", "NS") if number <= 5 else (f"{number - 5}EW", "EW")
        out += ["    <PAIR>", f"      <PAIR_NUMBER>{label}</PAIR_NUMBER>", f"      <DIRECTION>{direction}</DIRECTION>"]
        for player in pair.players:
            out += ["      <PLAYER>", f"        <PLAYER_NAME>{player.name.upper()}</PLAYER_NAME>",
                    f"        <NATIONAL_ID_NUMBER>{player.federation_id}</NATIONAL_ID_NUMBER>", "      </PLAYER>"]
        out.append("    </PAIR>")
    out.append("  </PARTICIPANTS>")
    for board in sorted({r.board for r in rows}):
        out += ['  <BOARD EVENT_TYPE="MP_PAIRS">', f"    <BOARD_NUMBER>{board}</BOARD_NUMBER>"]
        for row in (r for r in rows if r.board == board):
            contract = "PASS" if row.contract == "PASS" else row.contract
            out += ["    <TRAVELLER_LINE>", f"      <NS_PAIR_NUMBER>{row.ns}NS</NS_PAIR_NUMBER>",
                    f"      <EW_PAIR_NUMBER>{row.ew}EW</EW_PAIR_NUMBER>", f"      <CONTRACT>{contract}</CONTRACT>"]
            if row.contract != "PASS":
                lead = row.lead[1:] + row.lead[0]  # USEBIO writes the rank first
                out += [f"      <PLAYED_BY>{row.declarer}</PLAYED_BY>", f"      <LEAD>{lead}</LEAD>",
                        f"      <TRICKS>{row.tricks}</TRICKS>"]
            out += [f"      <SCORE>{ns_score(row)}</SCORE>", "    </TRAVELLER_LINE>"]
        out.append("  </BOARD>")
    out.append("</EVENT>")
    out.append("<HANDSET>")
    for board in sorted(deals):
        out += ["  <BOARD>", f"    <BOARD_NUMBER>{board}</BOARD_NUMBER>"]
        for seat, name in zip(SEATS, ("North", "East", "South", "West"), strict=True):
            suits = pbn_hand(deals[board][seat]).split(".")
            out += ["    <HAND>", f"      <DIRECTION>{name}</DIRECTION>", f"      <CLUBS>{suits[3]}</CLUBS>",
                    f"      <DIAMONDS>{suits[2]}</DIAMONDS>", f"      <HEARTS>{suits[1]}</HEARTS>",
                    f"      <SPADES>{suits[0]}</SPADES>", "    </HAND>"]
        out.append("  </BOARD>")
    out += ["</HANDSET>", "</USEBIO>"]
    return "\n".join(out) + "\n"


# --- Saturday -------------------------------------------------------------------------------------

NATIONAL = "national-pairs-2026"
NATIONAL_NAME = "National Pairs Championship 2026"


def pbn_tags(tags: Sequence[tuple[str, str]]) -> str:
    return "".join(f'[{name} "{value}"]\n' for name, value in tags)


def national_hand_record(session: int, deals: dict[int, dict[str, list[str]]]) -> str:
    """The dealer's hand record of one session, as a dealing program writes it."""
    text = "% PBN 2.1\n% EXPORT\n% Dealt for the National Pairs Championship 2026\n"
    for board in sorted(deals):
        text += pbn_tags([("Event", NATIONAL_NAME), ("Site", "Federation Hall"), ("Date", "2026.11.21"),
                          ("Board", str(board)), ("Dealer", law2_dealer(board)),
                          ("Vulnerable", law2_vulnerability(board).value),
                          ("Deal", deal_text(board, deals[board]))]) + "\n"
    return text


def national_traveller(session: int, section: str, deals: dict[int, dict[str, list[str]]],
                       pairs: list[Pair], rng: random.Random) -> str:
    """One section's travellers of one session: a ScoreTable per board, the pairs in a TotalScoreTable.

    Section A numbers its pairs 1-14 (NS 1-7, EW 8-14), section B 15-28, the same in both sessions.
    """
    first = int(pairs[0].number)
    rows = play(deals, 7, 2, rng)
    text = f"% PBN 2.1\n% EXPORT\n% {NATIONAL_NAME}, session {session}, section {section}\n"
    for index, board in enumerate(sorted(deals)):
        tags = [("Event", NATIONAL_NAME), ("Site", "Federation Hall"), ("Date", "2026.11.21"),
                ("Board", str(board)), ("Section", section), ("Dealer", law2_dealer(board)),
                ("Vulnerable", law2_vulnerability(board).value), ("Deal", deal_text(board, deals[board])),
                ("Scoring", "MP"), ("Declarer", ""), ("Contract", ""), ("Result", "")]
        text += pbn_tags(tags)
        if index == 0:
            text += '[TotalScoreTable "PairId\\2R;Direction\\3L;Names\\34L;MemberID1\\8R;MemberID2\\8R"]\n'
            for pair in pairs:
                direction = "N-S" if int(pair.number) - first < 7 else "E-W"
                ids = " ".join(f'"{p.federation_id}"' for p in pair.players)
                text += f'{pair.number:>2} "{direction}" "{pair.names}" {ids}\n'
        text += ('[ScoreTable "Table\\2R;Round\\2R;PairId_NS\\2R;PairId_EW\\2R;Contract\\5L;Declarer\\1R;'
                 'Result\\2R;Lead\\2L;Score_NS\\5R;Score_EW\\5R"]\n')
        for row in (r for r in rows if r.board == board):
            played = Table(board, row.table, row.round, str(first - 1 + int(row.ns)),
                           str(first + 6 + int(row.ew)), row.contract, row.declarer, row.tricks, row.lead)
            score = ns_score(played)
            passed = played.contract == "PASS"
            cells = [played.table, played.round, played.ns, played.ew,
                     "Pass" if passed else played.contract, "-" if passed else played.declarer,
                     "-" if passed else played.tricks, "-" if passed else played.lead,
                     score if score > 0 else "-", -score if score < 0 else "-"]
            text += " ".join(str(c) for c in cells) + "\n"
        text += "\n"
    return text


# --- Sunday ---------------------------------------------------------------------------------------

SWISS = "swiss-teams-2026"
SWISS_NAME = "Swiss Teams 2026"
TEAM_NAMES = ["Riverside Rapids", "Hillside Hawks", "Lakeside Loons", "Harbour Herons",
              "Northern Lights", "Southern Cross", "Westerly Winds", "Federation Firsts"]
BOARDS_PER_MATCH = 6
ROUNDS = 4
FOULED_BOARD = 15
"""Round 3's board that went back into its wallets wrongly after match 2's open room played it."""
FOULED_FORMS = {"original": ("1-open", "1-closed", "2-open"),
                "fouled": ("2-closed", "3-open", "3-closed", "4-open", "4-closed")}
"""Law 87: which rooms (table-room, as ingest names them) played which form of the fouled board.
Match 2's rooms played different forms (no comparison: Law 86B2); matches 3 and 4 played the
fouled form in both rooms and compare as usual."""


@dataclass(frozen=True)
class Team:
    """Four members under one name."""

    name: str
    players: tuple[Member, Member, Member, Member]


def swiss_draw(teams: int, rounds: int) -> list[list[tuple[int, int]]]:
    """Each round's matches (home, visitors) as the director drew them.

    The draw is taken from a round-robin table (the circle method), which a Swiss draw of the first
    rounds resembles and which never pairs two teams twice.
    """
    ring = list(range(teams))
    draw = []
    for _ in range(rounds):
        matches = [(ring[i], ring[teams - 1 - i]) for i in range(teams // 2)]
        draw.append(matches)
        ring = [ring[0], ring[-1], *ring[1:-1]]
    return draw


def room_game(board: int, hands: dict[str, list[str]], rnd: int, table: int, room: str, home: Team,
              visitors: Team, result: tuple[str, str, str]) -> str:
    """One room's play of a board in a match: the open room has the home team NS."""
    ns, ew = (home.players[:2], visitors.players[:2]) if room == "Open" else (visitors.players[2:], home.players[2:])
    contract, declarer, tricks = result
    tags = [("Event", SWISS_NAME), ("Site", "Federation Hall"), ("Date", "2026.11.22"), ("Round", str(rnd)),
            ("Board", str(board)), ("West", ew[1].name), ("North", ns[0].name), ("East", ew[0].name),
            ("South", ns[1].name), ("Dealer", law2_dealer(board)), ("Vulnerable", law2_vulnerability(board).value),
            ("Deal", deal_text(board, hands)), ("Scoring", "IMP"), ("Declarer", declarer),
            ("Contract", "Pass" if contract == "PASS" else contract), ("Result", tricks),
            ("Room", room), ("Table", str(table)), ("HomeTeam", home.name), ("VisitTeam", visitors.name)]
    return pbn_tags(tags) + "\n"


def fouled(hands: dict[str, list[str]], high: str = "N", low: str = "E") -> dict[str, list[str]]:
    """The fouled form of a deal: `high`'s highest card and `low`'s lowest went into each other's
    pocket (North's and East's unless told)."""
    def strength(card: str) -> int:
        return "23456789TJQKA".index(card[1])

    top, bottom = max(hands[high], key=strength), min(hands[low], key=strength)
    return {**hands, high: [c for c in hands[high] if c != top] + [bottom],
            low: [c for c in hands[low] if c != bottom] + [top]}


def swiss_match(rnd: int, table: int, home: Team, visitors: Team, deals: dict[int, dict[str, list[str]]],
                rng: random.Random) -> str:
    """One match of the Swiss as the match's scorer exports it: both rooms of every board.

    Every game carries the hand record's deal; a room that played the fouled board played (and
    scored) its fouled form, which only the director's ruling records.
    """
    text = f"% PBN 2.1\n% EXPORT\n% {SWISS_NAME}, round {rnd}: {home.name} v {visitors.name}\n"
    first = (rnd - 1) * BOARDS_PER_MATCH + 1
    for board in range(first, first + BOARDS_PER_MATCH):
        for room in ("Open", "Closed"):
            played = deals[board]
            if board == FOULED_BOARD and f"{table}-{room.lower()}" in FOULED_FORMS["fouled"]:
                played = fouled(played)
            text += room_game(board, deals[board], rnd, table, room, home, visitors, table_result(played, rng))
    return text


# --- The federation, the conditions, the timeline ---------------------------------------------------

def members_csv(people: Sequence[Member]) -> str:
    """The member list as the federation's office exports it."""
    lines = ["federation_id,name,club,gender,birth_year,region"]
    lines += [f"{m.federation_id},{m.name},{m.club},{m.gender},{m.birth_year},{m.region}" for m in people]
    return "\n".join(lines) + "\n"


CONDITIONS = {
    RIVERSIDE: """# Riverside BC, Friday pairs (club conditions of contest)
timezone = "Europe/Oslo"                # the clubs' own time: the timeline runs at +01:00
method = "MP"
field_layout = "two_field"         # Mitchell: NS and EW ranked separately
correction_period_minutes = 30     # Law 79C1
appeal_period_minutes = 30         # Law 92B
""",
    HILLSIDE: """# Hillside BC, Friday pairs (club conditions of contest)
timezone = "Europe/Oslo"                # the clubs' own time: the timeline runs at +01:00
method = "MP"
field_layout = "two_field"
correction_period_minutes = 30
appeal_period_minutes = 30
""",
    NATIONAL: """# National Pairs Championship 2026: two sessions, two sections, one championship total
timezone = "Europe/Oslo"                # the clubs' own time: the timeline runs at +01:00
method = "MP"
field_layout = "two_field"
correction_period_minutes = 30     # Law 79C1: 30 minutes after each session's scores are published
appeal_period_minutes = 30

[matchpoints]
scale = "2/1/0"
factoring = "neuberg"

[carry_over]                       # the championship is decided on both sessions together
mode = "cumulative"
fraction = 1.0
session_order = ["1", "2"]
""",
    SWISS: """# Swiss Teams 2026: 4 rounds of 6-board matches, WBF victory points
timezone = "Europe/Oslo"                # the clubs' own time: the timeline runs at +01:00
method = "VP_TEAMS"
correction_period_minutes = 30
appeal_period_minutes = 30
tie_breaks = ["head_to_head_vp", "imp_quotient"]

[victory_points]
scale = "wbf_2013"
""",
}

RANKING_RULES = """# The National Bridge Federation's ranking rules (a sample federation's own rule set).
name = "nbf"
version = "2026"
effective_from = 2026-01-01
federation = "NBF"
source = "NBF ranking regulations 2026 (sample): linear awards to the top third, national events x5."
default_category = "club"

[curve]
kind = "linear"
award_to = 0.333333333333          # a third of each ranking (section and direction) scores
awards_rounding = "ceil"

[categories.club]
base = 20
award_kind = "club"
[categories.national]
base = 100
award_kind = "national"

[ties.rounding]
mode = "half_up"
decimals = 2

[teams]
min_board_share = 0.5              # a team member scores after playing half the boards
below = "nothing"

[decay.club]                       # club points count fully for a year, half in the second
kind = "steps"
factors = [1.0, 0.5]
[decay.national]
kind = "steps"
factors = [1.0, 0.75, 0.5, 0.25]

[points_rounding]
mode = "half_up"
decimals = 2

[publication]                      # an edition every Monday morning, after the weekend's events
schedule = "0 8 * * MON"           # cron in UTC: 08:00 UTC is 09:00 CET
"""
"""The sample federation's ranking rule set (models.ranking_rules)."""

EVENT_NAMES = {RIVERSIDE: "Riverside Friday Pairs", HILLSIDE: "Hillside Friday Pairs",
               NATIONAL: NATIONAL_NAME, SWISS: SWISS_NAME}

BROKEN_CSV = """event;session;board;section;table;ns;ew;contract;declarer;result;lead
harbour-pairs-2026-11-22;1;1;A;1;1;8;3NT;N;9;C2
harbour-pairs-2026-11-22;1;1;A;2;2;9;4S;S;10;HQ
harbour-pairs-2026-11-22;1;2;A;1;1;8;2H;E;8;D7
"""
"""Harbour BC's traveller, saved from a spreadsheet with semicolons for commas: no column can be read."""


def timeline(national: dict[tuple[int, str], list[Table]], fouled_deals: dict[str, str]) -> str:
    """The weekend in the order it happens: what arrives, what is published, what the TD rules.

    Times carry their zone (CET). Corrections: one inside the Law 79C period, one after it that
    the organiser approves late (Law 79C2), one after it that nobody approves. The fouled boards'
    rulings record the fouled form each (`fouled_deals`: event -> PBN deal).
    """
    inside = next(r for r in national[(1, "A")] if r.board == 3 and r.contract != "PASS")
    late = next(r for r in national[(2, "B")] if r.board == 18 and r.contract != "PASS")
    steps = [
        _register("2026-11-20T22:15:00+01:00", RIVERSIDE, "club"),
        ("2026-11-20T22:15:00+01:00", "ingest", {"path": "friday/riverside_pairs.csv"}),
        ("2026-11-20T22:20:00+01:00", "publish", {"event": RIVERSIDE, "session": "1"}),
        _register("2026-11-20T22:30:00+01:00", HILLSIDE, "club"),
        ("2026-11-20T22:30:00+01:00", "ingest", {"path": "friday/hillside_pairs.xml"}),
        ("2026-11-20T22:35:00+01:00", "publish", {"event": HILLSIDE, "session": "1"}),
        _register("2026-11-21T09:00:00+01:00", NATIONAL, "national"),
        _national_file("2026-11-21T09:00:00+01:00", "national_pairs_s1_hands.pbn", "1"),
        _national_file("2026-11-21T13:45:00+01:00", "national_pairs_s1_A.pbn", "1"),
        _national_file("2026-11-21T13:45:00+01:00", "national_pairs_s1_B.pbn", "1"),
        ("2026-11-21T14:00:00+01:00", "publish", {"event": NATIONAL, "session": "1"}),
        ("2026-11-21T14:20:00+01:00", "correct", {
            "event": NATIONAL, "session": "1", "section": "A", "board": inside.board, "table": str(inside.table),
            "tricks": int(inside.tricks) + 1, "id": "nat-s1-1", "by": f"NS pair {int(inside.ns)}",
            "reason": "declarer made one more trick than the traveller shows"}),
        _national_file("2026-11-21T14:30:00+01:00", "national_pairs_s2_hands.pbn", "2"),
        _national_file("2026-11-21T18:45:00+01:00", "national_pairs_s2_A.pbn", "2"),
        _national_file("2026-11-21T18:45:00+01:00", "national_pairs_s2_B.pbn", "2"),
        ("2026-11-21T18:50:00+01:00", "foul", {
            "event": NATIONAL, "session": "2", "section": "B", "board": 21,
            "groups": {"original": ["1", "2", "3"], "fouled": ["4", "5", "6", "7"]},
            "reason": "two cards swapped between East and West after round 3 (Law 87)",
            "deals": {"fouled": fouled_deals[NATIONAL]}}),
        ("2026-11-21T19:00:00+01:00", "publish", {"event": NATIONAL, "session": "2"}),
        ("2026-11-21T19:50:00+01:00", "correct", {
            "event": NATIONAL, "session": "2", "section": "B", "board": late.board, "table": str(late.table),
            "tricks": max(0, int(late.tricks) - 1), "id": "nat-s2-1", "by": f"EW pair {int(late.ew)}",
            "reason": "declarer's side claimed a trick it had conceded"}),
        ("2026-11-21T20:10:00+01:00", "approve-late", {
            "id": "nat-s2-1", "organiser": "Championship Committee", "director": "Chief TD",
            "statement": "both pairs' scorecards agree; the director is satisfied beyond reasonable doubt"}),
        ("2026-11-22T09:00:00+01:00", "ingest", {"path": "broken/harbour_pairs.csv"}),
        ("2026-11-22T10:00:00+01:00", "correct", {
            "event": RIVERSIDE, "session": "1", "section": "A", "board": 5, "table": "3", "tricks": 8,
            "id": "riv-1", "by": "NS pair 3", "reason": "remembered on Sunday morning"}),
        _register("2026-11-22T10:00:00+01:00", SWISS, "national"),
    ]
    for rnd in range(1, ROUNDS + 1):
        at = f"2026-11-22T{10 + rnd * 1:02d}:{30 if rnd % 2 else 45}:00+01:00"
        steps += [(at, "ingest", {"event": SWISS, "path": f"sunday/swiss_round{rnd}_match{m}.pbn", "session": "1"})
                  for m in range(1, 5)]
    steps += [
        ("2026-11-22T15:00:00+01:00", "publish", {"event": SWISS, "session": "1"}),
        ("2026-11-22T15:10:00+01:00", "adjust", {
            "event": SWISS, "session": "1", "board": 9, "table": "1-closed", "ns": "A+", "ew": "A-",
            "director": "Chief TD", "reason": "board misboarded in the closed room; no result could be obtained",
            "requested_at": "2026-11-22T15:05:00+01:00"}),
    ]
    steps.insert(-2, ("2026-11-22T14:10:00+01:00", "foul", {
        "event": SWISS, "session": "1", "board": FOULED_BOARD,
        "groups": {form: list(rooms) for form, rooms in FOULED_FORMS.items()},
        "reason": ("North's ace of spades and East's three changed pockets after match 2's open room (Law 87); "
                   "match 2's rooms played different forms (Law 86B2), matches 3 and 4 the same one"),
        "deals": {"fouled": fouled_deals[SWISS]}}))
    return "".join(_toml_step(at, action, args) for at, action, args in steps)


def _register(at: str, event: str, category: str) -> tuple[str, str, dict[str, object]]:
    return at, "register", {"event": event, "name": EVENT_NAMES[event], "category": category}


def _national_file(at: str, name: str, session: str) -> tuple[str, str, dict[str, object]]:
    return at, "ingest", {"event": NATIONAL, "path": f"saturday/{name}", "session": session}


def _toml_step(at: str, action: str, args: dict[str, object]) -> str:
    lines = ["[[step]]", f'at = "{at}"', f'action = "{action}"']
    for key, value in args.items():
        lines.append(f"{key} = {_toml_value(value)}")
    return "\n".join(lines) + "\n\n"


def _toml_value(value: object) -> str:
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{k} = {_toml_value(v)}" for k, v in value.items()) + " }"
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    if isinstance(value, int):
        return str(value)
    return '"' + str(value).replace("\\", "\\\\").replace('"', '\\"') + '"'


def main(out: Path = OUT) -> None:
    """Write the weekend's files under `out`."""
    rng = random.Random(SEED)
    people = members(rng)
    by_club = {club: [m for m in people if m.club == club] for club in CLUBS}
    write(out / "members.csv", members_csv(people))
    for event, text in CONDITIONS.items():
        write(out / "conditions" / f"{event}.toml", text)

    riverside_deals = {b: deal(rng) for b in range(1, 15)}
    riverside = pairs_from(by_club["Riverside BC"] + by_club["Lakeside BC"], 14, rng)
    write(out / "friday" / "riverside_pairs.csv", riverside_csv(riverside_deals, riverside, rng))
    hillside_deals = {b: deal(rng) for b in range(1, 16)}
    hillside = pairs_from(by_club["Hillside BC"] + by_club["Harbour BC"], 10, rng)
    write(out / "friday" / "hillside_pairs.xml", hillside_usebio(hillside_deals, hillside, rng))

    national_pairs = pairs_from(people, 28, rng)
    played: dict[tuple[int, str], list[Table]] = {}
    fouled_deals: dict[str, str] = {}
    for session, boards in ((1, range(1, 15)), (2, range(15, 29))):
        deals = {b: deal(rng) for b in boards}
        if session == 2:  # B-21's tables 4-7 played it with an East and a West card changed (the timeline's ruling)
            fouled_deals[NATIONAL] = deal_text(21, fouled(deals[21], "E", "W"))
        write(out / "saturday" / f"national_pairs_s{session}_hands.pbn", national_hand_record(session, deals))
        for section, pairs in (("A", national_pairs[:14]), ("B", national_pairs[14:])):
            text = national_traveller(session, section, deals, pairs, rng)
            write(out / "saturday" / f"national_pairs_s{session}_{section}.pbn", text)
            played[(session, section)] = _rows_of(text)

    chosen = rng.sample(people, 32)
    teams = [Team(name, (chosen[4 * i], chosen[4 * i + 1], chosen[4 * i + 2], chosen[4 * i + 3]))
             for i, name in enumerate(TEAM_NAMES)]
    swiss_deals = {b: deal(rng) for b in range(1, ROUNDS * BOARDS_PER_MATCH + 1)}
    fouled_deals[SWISS] = deal_text(FOULED_BOARD, fouled(swiss_deals[FOULED_BOARD]))
    for rnd, matches in enumerate(swiss_draw(len(teams), ROUNDS), start=1):
        for table, (home, visitors) in enumerate(matches, start=1):
            write(out / "sunday" / f"swiss_round{rnd}_match{table}.pbn",
                  swiss_match(rnd, table, teams[home], teams[visitors], swiss_deals, rng))

    write(out / "broken" / "harbour_pairs.csv", BROKEN_CSV)
    write(out / "ranking_rules.toml", RANKING_RULES)
    write(out / "timeline.toml", "# The weekend in the order it happens; `bridgeledger demo` replays it.\n\n"
          + timeline(played, fouled_deals))


def analyse(out: Path = OUT) -> int:
    """Solve every deal of the weekend's files (endplay) and keep the analyses in double_dummy.json."""
    from pipelines.site.analysis import canonical_deal, solve, solver_version, write_analyses_file

    deals = sorted({d for path in sorted(out.rglob("*.pbn")) for d in _pbn_deals(path.read_text())}
                   | set(_usebio_deals((out / "friday" / "hillside_pairs.xml").read_text())))
    canonical = sorted({c for c in map(canonical_deal, deals) if c})
    write_analyses_file(out / "double_dummy.json", solve(canonical), solver_version() or "endplay")
    return len(canonical)


def _pbn_deals(text: str) -> list[str]:
    return [line.split('"')[1] for line in text.splitlines() if line.startswith("[Deal ")]


def _usebio_deals(text: str) -> list[str]:
    """The Hillside hand record's deals as PBN strings (`N:` first), from its HAND elements."""
    import re

    deals = []
    for board in re.findall(r"<BOARD>(.*?)</BOARD>", text.split("<HANDSET>")[1], flags=re.S):
        hands = {}
        for direction, clubs, diamonds, hearts, spades in re.findall(
                r"<DIRECTION>(\w+)</DIRECTION>\s*<CLUBS>(\w*)</CLUBS>\s*<DIAMONDS>(\w*)</DIAMONDS>\s*"
                r"<HEARTS>(\w*)</HEARTS>\s*<SPADES>(\w*)</SPADES>", board):
            hands[direction[0]] = f"{spades}.{hearts}.{diamonds}.{clubs}"
        deals.append("N:" + " ".join(hands[s] for s in SEATS))
    return deals


def _rows_of(traveller: str) -> list[Table]:
    """The table results a section's traveller text holds (what the timeline's corrections name)."""
    rows, board = [], 0
    for line in traveller.splitlines():
        if line.startswith("[Board "):
            board = int(line.split('"')[1])
        elif line[:1].isdigit() and line.count('"') == 0:
            table, rnd, ns, ew, contract, declarer, tricks, lead, *_ = line.split()
            rows.append(Table(board, int(table), int(rnd), ns, ew, contract, declarer, tricks, lead))
    return rows


if __name__ == "__main__":
    main()
    if "--analyse" in sys.argv[1:]:
        print(f"double-dummy analysis of {analyse()} deals written")
