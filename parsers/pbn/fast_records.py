"""Fast path: tag values checked and turned into the board and result frames, for all games at once.

Each rule here is one of the careful reader's (`records.Builder`, `results`), written as an
expression over the games; where the careful reader would say anything at all (a note on spelling,
a carried-over Event, a board appearing again with another deal, a duplicate table) the fast path
raises `Declined` instead of reproducing the diagnostic.
"""

from __future__ import annotations

import numpy as np
import polars as pl
import pyarrow as pa

from models.cards import Seat
from models.contract import Doubling, Strain
from models.events import BoardDealt, ResultRecorded
from parsers.columnar import BOARD_SCHEMA, RESULT_SCHEMA, conformed, encode_published
from parsers.pbn.fast_auction import CONTRACTS, read_auctions
from parsers.pbn.fast_bytes import Declined, IntArray, list_column, run_starts
from parsers.pbn.fast_deals import Deals
from parsers.pbn.fast_lines import Games
from parsers.pbn.fast_play import read_plays
from parsers.pbn.issues import Issue
from parsers.pbn.records import CONTEXT_TAGS
from parsers.pbn.results import Tags, published_scores
from parsers.pbn.values import contract_model
from parsers.records import ContestantRecord, Position

SCORE_TAGS = ("Score", "ScoreIMP", "ScoreMP", "ScorePercentage")
_RESULTS = [str(tricks) for tricks in range(14)] + [f"0{tricks}" for tricks in range(10)]
"""A number of tricks as the careful reader reads it (`0?[0-9]|1[0-3]`): a set lookup, not a regex."""
_SIDED_RESULTS = [f"{side} {tricks}" for side in ("NS", "EW") for tricks in _RESULTS]
"""A side's tricks (`NS 9`), the other way PBN 2.1 writes a Result."""
_NUMBER = r"^[0-9]{1,9}$"  # short enough for Int64, ASCII digits only (str.isdigit takes more)
_SEATS = ["N", "E", "S", "W"]
_VULNERABLE = {"NONE": "None", "LOVE": "None", "-": "None", "NS": "NS", "EW": "EW", "ALL": "All", "BOTH": "All"}


def unknown(column: str) -> pl.Expr:
    """The careful reader's `is_unknown`: no tag, '' or '?' (values never have spaces around them here)."""
    return pl.col(column).is_null() | pl.col(column).is_in(["", "?"])


def vulnerability() -> pl.Expr:
    """The Vulnerable tag as the careful reader's `parse_vulnerable` reads it without a note (any
    case; Love and - are None, Both is All); null for anything else."""
    return pl.col("Vulnerable").str.to_uppercase().replace_strict(
        list(_VULNERABLE), list(_VULNERABLE.values()), default=None)


def result_tricks() -> pl.Expr:
    """Declarer's tricks from the Result tag (`ParsedResult.for_declarer`): the number, or from a
    side's tricks (`NS 9`: 9 for a declarer of NS, 4 for one of EW); null when not given."""
    bare = pl.col("Result").cast(pl.Int64, strict=False)
    sided = pl.col("Result").str.slice(3).cast(pl.Int64, strict=False)
    ours = pl.col("Result").str.head(2) == pl.when(pl.col("Declarer").is_in(["N", "S"])).then(
        pl.lit("NS")).otherwise(pl.lit("EW"))
    return pl.coalesce(bare, pl.when(ours).then(sided).otherwise(13 - sided))


def text(column: str) -> pl.Expr:
    """The careful reader's `Tags.text`: the value, '' when absent or '?'."""
    return pl.when(pl.col(column).is_null() | (pl.col(column) == "?")).then(pl.lit("")).otherwise(pl.col(column))


def check_values(tags: pl.DataFrame) -> None:
    """Every tag value the fast path uses is written the standard way; no game leans on another."""
    rules = {
        "a Board that is not a positive number": ~pl.col("Board").str.contains(_NUMBER).fill_null(False)
        | (pl.col("Board").cast(pl.Int64, strict=False) == 0),
        "a Dealer that is not N, E, S or W": ~(unknown("Dealer") | pl.col("Dealer").is_in(_SEATS)),
        "a Vulnerable that is not None, NS, EW or All": ~(unknown("Vulnerable") | vulnerability().is_not_null()),
        "a Contract not written the standard way": ~(unknown("Contract") | pl.col("Contract").is_in(list(CONTRACTS))),
        "a Round that is not a number": ~(unknown("Round") | pl.col("Round").str.contains(_NUMBER)),
        "an Auction without a Contract tag (the careful reader takes the contract from it)":
            pl.col("Contract").is_null() & pl.col("Auction").is_not_null(),
        "a game without a contract but with a declarer, result, auction or play": unknown("Contract") & ~(
            unknown("Declarer") & unknown("Result") & pl.col("Auction").is_null() & pl.col("Play").is_null()),
        "a passed-out game with a declarer, result or play": (pl.col("Contract") == "Pass") & ~(
            unknown("Declarer") & unknown("Result") & pl.col("Play").is_null()),
        "a contract without a declarer": ~unknown("Contract") & (pl.col("Contract") != "Pass")
        & ~pl.col("Declarer").is_in(_SEATS).fill_null(False),
        "a Result not written as a number of tricks": ~(
            unknown("Result") | pl.col("Result").is_in(_RESULTS) | pl.col("Result").is_in(_SIDED_RESULTS)),
        "a contract without a Result or a play": ~unknown("Contract") & (pl.col("Contract") != "Pass")
        & unknown("Result") & pl.col("Play").is_null(),
    }
    for context in CONTEXT_TAGS:
        if not _any_given(tags, context):
            continue  # no game gives it: none can leave it out
        given = ~pl.col(context).is_null() & (pl.col(context) != "?")
        rules[f"a game without the {context} an earlier game gave"] = ~given & given.cum_max().shift(1).fill_null(False)
    broken = tags.select(**{why: rule.any() for why, rule in rules.items()}).row(0, named=True)
    for why, found in broken.items():
        if found:
            raise Declined(why)


def board_groups(frame: pl.DataFrame) -> IntArray:
    """A number for each game's (board, section), the key the careful reader keeps boards and tables by."""
    section: IntArray = frame.select(text("Section").rank("dense")).to_series().to_numpy().astype(np.int64)
    board: IntArray = frame["Board"].cast(pl.Int64).to_numpy().astype(np.int64)
    return board * (int(section.max(initial=0)) + 1) + section


def boards(tags: pl.DataFrame, deals: Deals) -> pl.DataFrame:
    """The hand records: one per board and section, from the first game that has it; a later game
    may leave out the deal, dealer or vulnerability but not give different ones."""
    games = _attach(tags, deals.frame).select(
        "record", "line", section=text("Section"), board=pl.col("Board").cast(pl.Int64),
        dealer=pl.when(pl.col("Dealer").is_in(_SEATS)).then(pl.col("Dealer")),
        vulnerability=vulnerability(), deal=pl.col("deal"))
    _, first, group = np.unique(board_groups(tags), return_index=True, return_inverse=True)
    if first.size == games.height:  # one game a board: no board appears again
        return conformed(games, BOARD_SCHEMA, BoardDealt)
    firsts = games.select("dealer", "vulnerability", "deal")[first[group]]
    differs = pl.any_horizontal(
        games[name].is_not_null() & (games[name] != firsts[name]).fill_null(True) for name in firsts.columns)
    if games.select(differs.any()).item():
        raise Declined("a board that appears again with another deal, dealer or vulnerability")
    return conformed(games[np.sort(first)], BOARD_SCHEMA, BoardDealt)


def results(games: Games, deals: Deals) -> pl.DataFrame:
    """The traveller lines: one per game with a contract, its auction and play checked (a frame of
    `RESULT_SCHEMA` and `team`, whether the sides are teams)."""
    played = games.tags.filter(~unknown("Contract"))
    auctions = read_auctions(played.filter(pl.col("Auction").is_not_null()), games.auction, games.source)
    plays = read_plays(played.filter(pl.col("Play").is_not_null()).with_columns(
        tricks=result_tricks()), games.play, games.source, deals)
    rows = _attach(_attach(played, auctions), plays.rename({"tricks": "tricks_played"}))
    passed = pl.col("Contract") == "Pass"
    rows = rows.with_columns(
        section=text("Section"), board=pl.col("Board").cast(pl.Int64),
        round=pl.when(text("Round") != "").then(pl.col("Round").cast(pl.Int64, strict=False)),
        room=pl.col("Room").str.to_lowercase().replace_strict(["open", "closed"], ["open", "closed"], default=None),
        contract=pl.when(passed).then(pl.lit("PASS")).otherwise(pl.col("Contract")),
        declarer=pl.when(~passed).then(pl.col("Declarer")),
        tricks=pl.when(~passed).then(pl.coalesce("tricks_played", result_tricks())),
        auction=pl.col("auction").fill_null([]), play=pl.col("play").fill_null([]))
    rows = _table_ids(_sides(rows))
    rows = _published(rows)
    rows = rows.with_columns(ns_players=_players(rows, "North", "South"), ew_players=_players(rows, "East", "West"))
    return conformed(rows, RESULT_SCHEMA, ResultRecorded).with_columns(rows["team"])


def _attach(rows: pl.DataFrame, extra: pl.DataFrame) -> pl.DataFrame:
    """`rows` with the columns of `extra` (by `record`; null where it has no row)."""
    if extra.height == rows.height and extra["record"].equals(rows["record"]):
        return rows.hstack(extra.drop("record"))  # the usual case: every game has one
    return rows.join(extra, on="record", how="left", maintain_order="left")


def _table_ids(rows: pl.DataFrame) -> pl.DataFrame:
    """Table (and room) as written, else the pairs when their players name them, else the count of
    the board's tables so far; no two alike."""
    table = text("Table")
    wanted = (pl.when((table != "") & pl.col("room").is_not_null()).then(table + "-" + pl.col("room"))
              .when(table != "").then(table).when(pl.col("room").is_not_null()).then(pl.col("room"))
              .when(pl.col("by_players")).then(pl.concat_str("ns_id", pl.lit(" v "), "ew_id")))
    group = board_groups(rows)
    order = np.argsort(group, kind="stable")
    starts = run_starts(group[order])
    count = np.empty_like(group)
    count[order] = np.arange(group.size) - np.repeat(starts, np.diff(np.append(starts, group.size))) + 1
    counted = pl.Series(count).cast(pl.String)
    if not _any_given(rows, "Table", "room") and not rows["by_players"].any():
        # No table written (the usual case): the counts, which no two games of a board share.
        return rows.with_columns(table_id=counted)
    rows = rows.with_columns(table_id=pl.coalesce(wanted, counted))
    if starts.size == rows.height:  # one game a board: no two alike
        return rows
    table_rank = rows["table_id"].rank("dense").to_numpy().astype(np.int64)
    if np.unique(group * (rows.height + 1) + table_rank).size != rows.height:
        raise Declined("two results for one table of a board")
    return rows


def _sides(rows: pl.DataFrame) -> pl.DataFrame:
    """NS and EW ids as `results.sides` finds them: PairNS/PairEW, teams by room, or pair names.

    A way of naming the sides whose tags no game has (the usual case) is left out of the
    expressions: it could not apply to any row, and the rest is much less work."""
    north, south, east, west = text("North"), text("South"), text("East"), text("West")
    named = (north != "") & (north == south) & (east != "") & (east == west) & (north != east)
    ns_id = pl.when(named).then(north).otherwise(_by_players(north, south))
    ew_id = pl.when(named).then(east).otherwise(_by_players(east, west))
    teams: pl.Expr = pl.lit(False)
    if _any_given(rows, "HomeTeam", "VisitTeam"):
        home, visit, closed = text("HomeTeam"), text("VisitTeam"), pl.col("room") == "closed"
        teams = (home != "") | (visit != "")
        ns_id = pl.when(teams & closed).then(visit).when(teams).then(home).otherwise(ns_id)
        ew_id = pl.when(teams & closed).then(home).when(teams).then(visit).otherwise(ew_id)
    if _any_given(rows, "PairNS", "PairEW"):
        pairs = (pl.col("PairNS").is_not_null() | pl.col("PairEW").is_not_null()) & (
            (text("PairNS") != "") | (text("PairEW") != ""))
        teams = ~pairs & teams
        ns_id = pl.when(pairs).then(text("PairNS")).otherwise(ns_id)
        ew_id = pl.when(pairs).then(text("PairEW")).otherwise(ew_id)
    by_players: pl.Expr = ~named & ~teams & ((ns_id != "") | (ew_id != ""))
    if _any_given(rows, "PairNS", "PairEW"):
        by_players = by_players & ~pairs
    return rows.with_columns(ns_id=ns_id, ew_id=ew_id, team=teams, by_players=by_players)


def _by_players(first: pl.Expr, second: pl.Expr) -> pl.Expr:
    """`results.pair_by_players`: `First/Second`, '' when neither is named."""
    return pl.when((first != "") | (second != "")).then(pl.concat_str(first, pl.lit("/"), second)).otherwise(
        pl.lit(""))


def _any_given(rows: pl.DataFrame, *columns: str) -> bool:
    """Whether any row has any of these tags."""
    return any(rows[column].null_count() < rows.height for column in columns)


def _players(rows: pl.DataFrame, first: str, second: str) -> pl.Series:
    """Players of two seat tags: names separated by ';', '' and '?' naming nobody.

    The two values of a row are its names when neither holds a ';' (the usual case: values have no
    white space at either end, so there is nothing to strip); else the values are joined with a ';'
    and split. The names are kept or dropped in one flat column, and the lists built on their offsets."""
    pair = rows.select(pl.col(first).fill_null(""), pl.col(second).fill_null(""))
    # (Polars' literal search rather than Arrow's faster one: importing `pyarrow.compute` costs a
    # fresh `ingest` process more than all the searches it would speed up.)
    if any(pair[name].str.contains(";", literal=True).any() for name in (first, second)):
        parts = pair.select(pl.concat_str(first, second, separator=";").str.split(";")).to_series()
        row = np.repeat(np.arange(rows.height), parts.list.len().to_numpy())
        names = parts.explode().str.strip_chars()
    else:
        row = np.repeat(np.arange(rows.height), 2)
        names = pl.concat([pair[first], pair[second]]).gather(_interleaved(rows.height))
    keep = ((names != "") & (names != "?")).to_numpy()
    kept = names.filter(keep)
    offsets = np.concatenate(([0], np.cumsum(np.bincount(row[keep], minlength=rows.height))))
    values = pa.StructArray.from_arrays([kept.to_arrow(), pa.nulls(kept.len(), pa.large_string())],
                                        names=["name", "federation_id"])
    return list_column(values, offsets)


def _interleaved(count: int) -> IntArray:
    """0, count, 1, count + 1, ...: the rows of two stacked columns of `count` rows, row by row."""
    return np.arange(2 * count).reshape(2, count).T.ravel()


def _published(rows: pl.DataFrame) -> pl.DataFrame:
    """Rows with `published`: the score tags as canonical JSON, by the careful reader's own
    `published_scores`, run once per distinct set of score tags (they repeat a lot)."""
    if rows.select(pl.all_horizontal(pl.col(SCORE_TAGS).is_null()).all()).item():
        return rows.with_columns(published=pl.lit("{}"))  # the usual case: no score tag anywhere
    rows = rows.with_columns(side=pl.when(pl.col("declarer").is_in(["E", "W"])).then(pl.lit("E")).otherwise(
        pl.lit("N")))
    keys = rows.select(*SCORE_TAGS, "side").unique(maintain_order=True)
    found: list[str] = []
    for key in keys.iter_rows():
        issues: list[Issue] = []
        pairs = tuple((name, value, "") for name, value in zip(SCORE_TAGS, key, strict=False) if value is not None)
        # Only the declarer's side matters to published_scores (an unsided Score is declarer's).
        values = published_scores(Tags(pairs), contract_model(1, Strain.NT, Doubling.NONE, Seat(key[-1])), issues)
        if issues:
            raise Declined("a score tag the careful reader cannot read")
        found.append(encode_published(values))
    keys = keys.with_columns(published=pl.Series(found, dtype=pl.String))
    return rows.join(keys, on=[*SCORE_TAGS, "side"], how="left", nulls_equal=True, maintain_order="left")


def contestants(rows: pl.DataFrame, tags: pl.DataFrame) -> tuple[ContestantRecord, ...]:
    """Contestants named by the results, in order of first appearance (no TotalScoreTable here)."""
    competition = tags.filter(pl.col("Competition").is_not_null() & (pl.col("Competition") != "?"))["Competition"]
    last = competition[-1].strip().lower() if competition.len() else ""
    kind = {"teams": "team", "individuals": "individual"}.get(last, "pair")
    sides = pl.concat([rows.select("record", "line", "section", "team", id=pl.col(name), order=2 * pl.int_range(
        pl.len()) + offset) for offset, name in enumerate(("ns_id", "ew_id"))]).sort("order")
    first = sides.filter(pl.col("id") != "").unique(["section", "id"], keep="first", maintain_order=True)
    return tuple(ContestantRecord(contestant_id=row["id"], kind="team" if row["team"] else kind,
                                  section=row["section"], at=Position(record=row["record"], line=row["line"]))
                 for row in first.iter_rows(named=True))
