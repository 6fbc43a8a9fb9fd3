"""Fast path, first stage: a whole PBN text cut into games, tag values and section tokens, as frames.

Only the plainest layout is taken, the one where the careful reader's scanners (`fast_tags` and
`scan_chunk`) cannot disagree and report nothing: escape lines (`%`) only at the top of the file,
then games separated by semi-empty lines, each line of a game either a tag pair alone on its line,
`[Name "value"]`, or section data (calls or cards) after an Auction or Play tag. Anything else
(comments, strings or annotations in sections, text outside tag pairs, a tag split over lines)
raises `Declined`, and the careful reader takes the file.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import polars as pl

USED_TAGS = (
    "Event", "Site", "Date", "EventDate", "Scoring", "Competition", "Stage", "HomeTeam", "VisitTeam", "Board",
    "Section", "West", "North", "East", "South", "Dealer", "Vulnerable", "Deal", "Declarer", "Contract", "Result",
    "Auction", "Play", "Room", "Table", "Round", "PairNS", "PairEW", "Score", "ScoreIMP", "ScoreMP",
    "ScorePercentage", "Application", "Generator")
"""Tags whose values the careful reader uses in lenient mode, and the fast path reproduces."""
IGNORED_TAGS = (
    "Time", "UTCDate", "UTCTime", "Description", "DealId", "Termination", "Annotator", "AnnotatorNA", "BidSystemEW",
    "BidSystemNS", "WestNA", "NorthNA", "EastNA", "SouthNA", "WestType", "NorthType", "EastType", "SouthType",
    "EventSponsor", "TimeControl", "TimeCall", "TimeCard", "Mode", "FrenchMP", "OptimumScore")
"""PBN 2.1 tags that the careful reader reads past in lenient mode (so the fast path may too)."""
SECTION_TAGS = ("Auction", "Play")
IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]

# A tag pair alone on its line. No backslash, bracket or tab in the value, nor a space at either end:
# then both of the careful reader's scanners read the same value, with no escapes to undo, and
# `Tags.text` reads it as it is.
_TAG_LINE = r'^\[([A-Za-z0-9_]+) "((?:[^"\\\[\]\s](?:[^"\\\[\]\t]*[^"\\\[\]\s])?)?)"\]$'
# Auction data: plain words (calls, `-`, `*`, `+`). No annotation, comment or string, so the
# careful reader splits the section on whitespace too.
_DATA_LINE = r"^[A-Za-z0-9*+\- \t]*$"
_NAMES = pl.Enum(USED_TAGS + IGNORED_TAGS)


class Declined(Exception):
    """The fast path does not vouch for this file; the message says why."""


@dataclass(frozen=True)
class Games:
    """The games of a file: tag values by game, and the tokens of their auction and play sections."""

    tags: pl.DataFrame
    """One row per game: `record` (game index), `line` (line of its first tag) and one String column
    per tag of `USED_TAGS` (null when the game does not have the tag)."""
    auction: pl.DataFrame
    """Auction tokens in file order: `record`, `token`."""
    play: pl.DataFrame
    """Lines of the play sections in file order: `record`, `text` (not yet checked: `fast_play` reads
    them as bytes)."""
    escapes: tuple[str, ...]
    """The escape lines at the top of the file."""


def read_games(text: str) -> Games:
    """Cut normalised text (LF line ends) into games; raise `Declined` for any other layout."""
    lines = pl.Series([text]).str.split("\n").explode()
    blank = _blank(lines)
    start = _preamble_end(lines, blank)
    preamble = lines.head(start)
    escapes = tuple(preamble.filter(preamble.str.starts_with("%")))
    if text.find("%", int(preamble.str.len_chars().sum()) + start) >= 0:
        raise Declined("an escape line or % below the first game")
    body = np.flatnonzero(~blank[start:]) + start  # line index of each line of a game
    record = np.cumsum(np.diff(body, prepend=-2) > 1) - 1  # a gap (semi-empty lines) starts a game
    body_lines = lines.gather(body)
    is_tag = body_lines.str.starts_with("[").to_numpy()
    first_line = np.flatnonzero(np.diff(record, prepend=-1))
    if not is_tag[first_line].all():
        raise Declined("a game does not start with a tag pair")
    names, values = _tag_pairs(body_lines.filter(pl.Series(is_tag)), record[is_tag])
    tags = _tag_table(record[is_tag], body[is_tag] + 1, names, values)
    # The tag each line of section data follows: the last tag line before it.
    last_tag = np.maximum.accumulate(np.where(is_tag, np.arange(body.size), 0))
    owner = np.zeros(body.size, dtype=np.int64)
    owner[is_tag] = names.to_physical().to_numpy()
    owner = owner[last_tag][~is_tag]
    data_lines = body_lines.filter(pl.Series(~is_tag))
    if not np.isin(owner, [USED_TAGS.index(name) for name in SECTION_TAGS]).all():
        raise Declined("data after a tag that has no section")
    data_record = record[~is_tag]
    in_play = owner == USED_TAGS.index("Play")
    play = pl.DataFrame({"record": data_record[in_play], "text": data_lines.filter(pl.Series(in_play))})
    return Games(tags, _tokens(data_lines.filter(pl.Series(~in_play)), data_record[~in_play]), play, escapes)


def rows_of(games: IntArray, records: IntArray, what: str) -> IntArray:
    """Row in `games` (distinct game indices) of each of `records`; all must be there."""
    lookup = np.full(int(max(games.max(initial=-1), records.max(initial=-1))) + 1, -1, dtype=np.int64)
    lookup[games] = np.arange(games.size)
    row = lookup[records]
    if (row < 0).any():
        raise Declined(f"{what} in a game that should not have one")
    return row


def _blank(lines: pl.Series) -> BoolArray:
    """Semi-empty lines (nothing, or only spaces and tabs): they separate games."""
    blank = (lines.str.len_bytes() == 0).to_numpy().copy()
    indented = np.flatnonzero((lines.str.starts_with(" ") | lines.str.starts_with("\t")).to_numpy())
    blank[indented] = (lines.gather(indented).str.strip_chars(" \t") == "").to_numpy()
    return blank


def _preamble_end(lines: pl.Series, blank: BoolArray) -> int:
    """Index of the first line that is neither semi-empty nor an escape line (the first tag)."""
    content = np.flatnonzero(~blank & ~lines.str.starts_with("%").to_numpy())
    if not content.size:
        raise Declined("the file has no game")
    return int(content[0])


def _tag_pairs(lines: pl.Series, record: IntArray) -> tuple[pl.Series, pl.Series]:
    """Names (as `_NAMES`) and values of tag lines; known names only, none repeated in a game."""
    if not lines.str.contains(_TAG_LINE).all():
        raise Declined("a line starting with [ is not one tag pair alone on its line")
    # `[Name "value"]` with no quote inside the value: cut at the one ' "'.
    parts = lines.str.split_exact(' "', 1)
    names = parts.struct.field("field_0").str.slice(1).cast(_NAMES, strict=False)
    if names.null_count():
        raise Declined("a tag the fast path does not know (or the careful reader flags)")
    key = record * len(_NAMES.categories) + names.to_physical().to_numpy()
    if np.bincount(key).max() > 1:
        raise Declined("a tag repeated in one game")
    return names, parts.struct.field("field_1").str.head(-2)


def _tag_table(record: IntArray, line: IntArray, names: pl.Series, values: pl.Series) -> pl.DataFrame:
    """One row per game: `record`, `line` of its first tag and a column per used tag."""
    starts = np.flatnonzero(np.diff(record, prepend=-1))
    games = pl.DataFrame({"record": record[starts], "line": line[starts]})
    codes = names.to_physical().to_numpy()
    width = codes.size // starts.size
    if width * starts.size == codes.size and (codes.reshape(-1, width) == codes[:width]).all():
        # Every game has the same tags in the same order (the usual export): a column is every
        # width-th value.
        order = list(codes[:width])
        absent = pl.repeat(None, starts.size, dtype=pl.String, eager=True)
        columns = {name: values.gather(np.arange(order.index(code), codes.size, width))
                   if (code := USED_TAGS.index(name)) in order else absent for name in USED_TAGS}
        return games.with_columns(**columns)
    pairs = pl.DataFrame({"record": record, "name": names.cast(pl.String), "value": values})
    wide = pairs.filter(pl.col("name").is_in(USED_TAGS)).pivot(
        on="name", index="record", values="value", aggregate_function="first")
    missing = [pl.lit(None, pl.String).alias(name) for name in USED_TAGS if name not in wide.columns]
    wide = wide.with_columns(missing).select("record", *USED_TAGS)
    return games.join(wide, on="record", how="left", maintain_order="left")


def _tokens(lines: pl.Series, record: IntArray) -> pl.DataFrame:
    """The whitespace-separated tokens of section lines, in file order: `record`, `token`."""
    if lines.len() and not lines.str.contains(_DATA_LINE).all():
        raise Declined("section data other than plain calls and cards")
    if lines.str.contains("\t", literal=True).any():
        lines = lines.str.replace_all("\t", " ", literal=True)
    words = lines.str.split(" ")
    tokens = pl.DataFrame({"record": np.repeat(record, words.list.len().to_numpy()), "token": words.explode()})
    return tokens.filter(pl.col("token") != "")
