"""Fast path, first stage: a whole PBN text cut into games, tag values and section lines.

Comments, escape lines and annotations are first blanked out in place (`fast_clean`), and the
blanks at either end of each line left out of it. Then the layout taken is the one where the
careful reader's scanners (`fast_tags` and `scan_chunk`) cannot disagree and report nothing: games
separated by semi-empty lines (a line that held only a comment or an escape is none), each line
of a game either a tag pair alone on its line, `[Name "value"]`, or section data after an Auction
or Play tag (calls or cards) or after a table tag that is read past. Anything else (strings in
sections, text outside tag pairs, a tag split over lines, two on a line) raises `Declined`, and
the careful reader takes the file.

The text is read as bytes (`fast_bytes.Source`): each check is a numpy expression over the first
byte of every line, the quotes of every tag line or the bytes of every value, and the tag values
become String columns that point into the text.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import polars as pl

from parsers.pbn.fast_bytes import (
    MASKS,
    BoolArray,
    ByteArray,
    Declined,
    IntArray,
    Lines,
    Source,
    Tokens,
    Vocabulary,
    run_starts,
    segments,
    string_column,
    tokens,
    view_column,
    views,
)
from parsers.pbn.fast_clean import blank_annotations, blank_comments

USED_TAGS = (
    "Event", "Site", "Date", "EventDate", "Scoring", "Competition", "Stage", "HomeTeam", "VisitTeam", "Board",
    "Section", "West", "North", "East", "South", "Dealer", "Vulnerable", "Deal", "Declarer", "Contract", "Result",
    "Auction", "Play", "Room", "Table", "Round", "PairNS", "PairEW", "Score", "ScoreIMP", "ScoreMP",
    "ScorePercentage", "Application", "Generator", "OptimumScore", "ParScore", "ParContract", "OptimumContract",
    "DoubleDummyTricks")
"""Tags whose values the careful reader uses in lenient mode, and the fast path reproduces."""
IGNORED_TAGS = (
    "Time", "UTCDate", "UTCTime", "Description", "DealId", "Termination", "Annotator", "AnnotatorNA", "BidSystemEW",
    "BidSystemNS", "WestNA", "NorthNA", "EastNA", "SouthNA", "WestType", "NorthType", "EastType", "SouthType",
    "EventSponsor", "TimeControl", "TimeCall", "TimeCard", "Mode", "FrenchMP", "Note", "BCFlags",
    "OptimumResultTable", "OptimumPlayTable")
"""Tags that the careful reader reads past in lenient mode (so the fast path may too); they may repeat."""
IGNORED_TABLES = ("OptimumResultTable", "OptimumPlayTable")
"""Ignored tags with a table section (its rows are read past too)."""
SECTION_TAGS = ("Auction", "Play")
_NAME_WORDS = 3
TAG_NAMES = Vocabulary(USED_TAGS + IGNORED_TAGS, words=_NAME_WORDS)
"""Tag names by code (a name's index here), looked up as three words (24 bytes)."""
AUCTION, PLAY = USED_TAGS.index("Auction"), USED_TAGS.index("Play")
_TABLE_CODES = np.array([len(USED_TAGS) + IGNORED_TAGS.index(name) for name in IGNORED_TABLES])
_OPTIMUM_RESULT_TABLE = len(USED_TAGS) + IGNORED_TAGS.index("OptimumResultTable")


def _byte_set(characters: str) -> BoolArray:
    found = np.zeros(256, dtype=bool)
    found[np.frombuffer(characters.encode("ascii"), dtype=np.uint8)] = True
    return found


# A tag pair alone on its line: no backslash, bracket, quote or tab in the value, nor white space at
# either end (`_tag_pairs`). Then both of the careful reader's scanners read the same value, with no escapes to
# undo, and `Tags.text` reads it as it is.
_NOT_A_TAG_PAIR = "a line starting with [ is not one tag pair alone on its line"
_ASCII_SPACE = _byte_set(" \t\n\r\x0b\x0c")
_EDGE_SPACE = r"^\s|\s$"
"""White space at either end of a value, Unicode's included: for the values that start or end with
a character beyond ASCII, checked as text (`\\s` is what the careful reader strips)."""
# Auction data: plain words (calls, `-`, `*`, `+`). No annotation, comment or string, so the
# careful reader splits the section on whitespace too.
_AUCTION_BYTES = _byte_set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789*+- \t\n")


@dataclass(frozen=True)
class Games:
    """The games of a file: tag values by game, and the tokens of their auction and play sections."""

    source: Source
    tags: pl.DataFrame
    """One row per game: `record` (game index), `line` (line of its first tag) and one String column
    per tag of `USED_TAGS` (null when the game does not have the tag)."""
    auction: Tokens
    """Auction tokens in file order (`record` the game of each)."""
    play: Lines
    """Lines of the play sections in file order (not yet checked: `fast_play` reads them)."""
    escapes: tuple[str, ...]
    """The escape lines at the top of the file."""


def read_games(text: str | bytes) -> Games:
    """Cut normalised text (LF line ends; a str or its UTF-8 bytes) into games; raise `Declined` for
    any other layout."""
    source = Source.of(text)
    held = blank_comments(source)  # lines that held (part of) a comment, None for none
    escaped = source.data[source.start] == ord("%")  # escape lines: read, then blanked like comments
    escape_lines, escape_texts = _read_escapes(source, escaped)
    source = _trimmed(source)
    empty = source.end <= source.start  # nothing but spaces and tabs (once comments are blanked)
    void = escaped if held is None else escaped | (empty & held)
    blank = empty & ~void  # semi-empty lines: they end a game (a line that held a comment does not)
    body = np.flatnonzero(~empty & ~escaped)  # line index of each line of a game
    if not body.size:
        raise Declined("the file has no game")
    begin = int(body[0])
    escapes = _kept_escapes(escape_lines, escape_texts, blank, body)
    separators = np.cumsum(blank)
    starts_game = np.empty(body.size, dtype=bool)  # semi-empty lines between two lines start a game
    starts_game[:1] = True
    np.not_equal(separators[body[1:]], separators[body[:-1]], out=starts_game[1:])
    record = np.cumsum(starts_game) - 1
    is_tag = source.data[source.start[body]] == ord("[")
    if not is_tag[starts_game].all():
        raise Declined("a game does not start with a tag pair")
    tag_lines, tag_record = body[is_tag], record[is_tag]
    names, value_start, value_length = _tag_pairs(
        source, source.start[tag_lines], source.end[tag_lines], int(source.start[begin]),
        int(np.searchsorted(tag_record, 1)))
    tags = _tag_table(source, tag_record, tag_lines + 1, names, value_start, value_length)
    # Whether each game has an OptimumResultTable (its rows are read past, but the careful reader
    # reads them as the deal's double-dummy tricks when the game gives no DoubleDummyTricks).
    tables = np.zeros(tags.height, dtype=bool)
    tables[tag_record[names == _OPTIMUM_RESULT_TABLE]] = True
    tags = tags.with_columns(optimum_result_table=pl.Series(tables))
    # The tag each line of section data follows: the last tag line before it (a game starts with one).
    owner = names[np.cumsum(is_tag)[~is_tag] - 1]
    auction, play = _sections(source, body[~is_tag], record[~is_tag], owner)
    blank_annotations(source, auction, play)
    return Games(source, tags, _auction_tokens(source, auction), play, escapes)


def _sections(source: Source, lines: IntArray, record: IntArray, owner: IntArray) -> tuple[Lines, Lines]:
    """The lines of section data (`lines`, of games `record`, after tag `owner`): auction, then play."""
    auction, play = owner == AUCTION, owner == PLAY
    if not (auction | play | np.isin(owner, _TABLE_CODES)).all():
        raise Declined("data after a tag that has no section")
    return _lines(source, lines, record, np.flatnonzero(auction)), _lines(source, lines, record, np.flatnonzero(play))


def _lines(source: Source, lines: IntArray, record: IntArray, taken: IntArray) -> Lines:
    """The lines `lines[taken]` of games `record[taken]` (indices, not a mask: each is read thrice)."""
    chosen = lines[taken]
    return Lines(record[taken], source.start[chosen], source.end[chosen])


def rows_of(games: IntArray, records: IntArray, what: str) -> IntArray:
    """Row in `games` (distinct game indices) of each of `records`; all must be there."""
    row = index_in(games, records)
    if (row < 0).any():
        raise Declined(f"{what} in a game that should not have one")
    return row


def index_in(games: IntArray, records: IntArray) -> IntArray:
    """Row in `games` (distinct game indices) of each of `records`, -1 where it is not there."""
    lookup = np.full(int(max(games.max(initial=-1), records.max(initial=-1))) + 1, -1, dtype=np.int64)
    lookup[games] = np.arange(games.size)
    return lookup[records]


def _trimmed(source: Source) -> Source:
    """The source with each line's spaces and tabs at either end left out of it (`start`/`end`):
    the careful reader reads past them (a line of nothing else comes out empty)."""
    data, start, end = source.data, source.start.copy(), source.end.copy()
    # A step at a time for all lines that still start (end) with a blank: runs of blanks are short.
    # The few lines with a longer run are finished one by one, so a long run costs no more steps.
    lines = np.flatnonzero((end > start) & _is_blank(data[start]))
    for _ in range(_STEPS):
        if not lines.size:
            break
        start[lines] += 1
        lines = lines[(start[lines] < end[lines]) & _is_blank(data[start[lines]])]
    for line in lines.tolist():
        text = data[start[line]:end[line]].tobytes()
        start[line] += len(text) - len(text.lstrip(b" \t"))
    lines = np.flatnonzero((end > start) & _is_blank(data[np.maximum(end - 1, 0)]))
    for _ in range(_STEPS):
        if not lines.size:
            break
        end[lines] -= 1
        lines = lines[(end[lines] > start[lines]) & _is_blank(data[end[lines] - 1])]
    for line in lines.tolist():
        text = data[start[line]:end[line]].tobytes()
        end[line] -= len(text) - len(text.rstrip(b" \t"))
    return replace(source, start=start, end=end)


_STEPS = 8
"""Blanks trimmed from all lines at once before the lines still blank-edged are trimmed one by one."""


def _is_blank(codes: ByteArray) -> BoolArray:
    blank: BoolArray = (codes == ord(" ")) | (codes == ord("\t"))
    return blank


def _read_escapes(source: Source, escaped: BoolArray) -> tuple[IntArray, list[str]]:
    """The escape lines and their text; then their bytes are blanked out like comments'."""
    lines = np.flatnonzero(escaped)
    if lines.size > 400:
        raise Declined("hundreds of escape lines (the careful reader keeps only some)")
    if not lines.size:
        return lines, []
    start, end = source.start[lines], source.end[lines]
    texts = [source.text(int(a), int(b)) for a, b in zip(start, end, strict=True)]
    source.data[segments(start, end - start)] = ord(" ")
    return lines, texts


def _kept_escapes(lines: IntArray, texts: list[str], blank: BoolArray, body: IntArray) -> tuple[str, ...]:
    """The escape lines the careful reader keeps: those before the end of the last game (the first
    semi-empty line after its last line); those after it belong to no game."""
    if not lines.size:
        return ()
    after_last = np.flatnonzero(blank[int(body[-1]):])
    stop = int(body[-1]) + int(after_last[0]) if after_last.size else blank.size
    return tuple(text for line, text in zip(lines.tolist(), texts, strict=True) if line < stop)


def _tag_pairs(source: Source, start: IntArray, end: IntArray, body: int,
               first_game: int) -> tuple[IntArray, IntArray, IntArray]:
    """Name codes (`TAG_NAMES`), value starts and value lengths of the tag lines [start, end) of
    the games (which begin at byte `body`, the first with `first_game` tag lines): each must be
    `[Name "value"]` exactly, with a known name."""
    data = source.data
    uniform = _uniform_tag_pairs(source, start, end, body, first_game)
    if uniform is None:
        opening, closing = _quotes(source, start, body)
        if not ((start <= opening) & (closing == end - 2) & (data[end - 1] == ord("]"))
                & (opening - start >= 3) & (data[opening - 1] == ord(" "))).all():
            raise Declined(_NOT_A_TAG_PAIR)
    else:
        names, opening = uniform
        closing = end - 2
    value_start, value_length = opening + 1, closing - opening - 1
    if _space_at_either_end(source, value_start, value_length):
        raise Declined(_NOT_A_TAG_PAIR)
    _check_brackets(source, start, end, body)
    if uniform is None:
        names = _tag_codes(source, start, opening - start - 2)
        if (names < 0).any():
            raise Declined("a tag the fast path does not know (or the careful reader flags)")
    return names, value_start, value_length


def _tag_codes(source: Source, start: IntArray, name_length: IntArray) -> IntArray:
    """The code of the name of each tag line (at most 24 bytes from `start + 1`), -1 for none."""
    keys = np.zeros((start.size, _NAME_WORDS), dtype=np.uint64)
    keys[:, 0] = source.word(start + 1, name_length)
    for word in range(1, _NAME_WORDS):  # later words only where there are some (few names are long)
        long = np.flatnonzero(name_length > 8 * word)
        keys[long, word] = source.word(start[long] + 1 + 8 * word, name_length[long] - 8 * word)
    return np.where(name_length <= 8 * _NAME_WORDS, TAG_NAMES.find(keys), -1)


def _uniform_tag_pairs(source: Source, start: IntArray, end: IntArray, body: int,
                       first_game: int) -> tuple[IntArray, IntArray] | None:
    """Name codes and opening quotes of the tag lines when every game has the first game's known
    tags in the same order (the usual export) and each line is `[Name "value"]`; None otherwise
    (the lines are then read one by one, and any fault found).

    The first game's names give where each line's ` "` must be; a line is taken when it is there,
    the line ends in `"]` and its name's bytes are the first game's. With twice as many quotes in
    the games as tag lines, those two of each line are all of them."""
    count = start.size
    if not first_game or count % first_game:
        return None
    name_length = _name_lengths(source, start[:first_game], end[:first_game])
    if name_length is None:
        return None
    codes = _tag_codes(source, start[:first_game], name_length)
    if (codes < 0).any():
        return None
    games = count // first_game
    lengths = np.tile(name_length, games)
    opening = start + lengths + 2
    data = source.data
    if not (opening < end - 2).all():  # a line too short for its name: no gathers past the text
        return None
    # (Byte by byte: gathers from `data` are several times faster than from the unaligned views.)
    if not ((data[opening - 1] == ord(" ")) & (data[opening] == ord('"')) & (data[end - 2] == ord('"'))
            & (data[end - 1] == ord("]"))).all():
        return None
    if np.count_nonzero(data[body:source.size] == ord('"')) != 2 * count:
        return None
    first_words = source.word(start[:first_game] + 1, name_length)
    masks = np.tile(MASKS[np.minimum(name_length, 8)], games)
    if not ((source.words[start + 1] & masks) == np.tile(first_words, games)).all():
        return None
    for word in range(1, _NAME_WORDS):  # (names up to 24 bytes: `_tag_codes` found them)
        long = np.flatnonzero(name_length > 8 * word)
        if not long.size:
            break
        skip = 1 + 8 * word
        rest = source.word(start[:first_game][long] + skip, name_length[long] - 8 * word)
        lines = (long[None, :] + first_game * np.arange(games)[:, None]).ravel()
        if not (source.word(start[lines] + skip, lengths[lines] - 8 * word) == np.tile(rest, games)).all():
            return None
    return np.tile(codes, games), opening


def _name_lengths(source: Source, start: IntArray, end: IntArray) -> IntArray | None:
    """The length of the name of each of a few tag lines (up to the first space), None if one has none."""
    lengths = []
    for first, after in zip(start.tolist(), end.tolist(), strict=True):
        space = source.data[first + 1:after].tobytes().find(b" ")
        if space < 1:
            return None
        lengths.append(space)
    return np.array(lengths, dtype=np.int64)


def _quotes(source: Source, start: IntArray, body: int) -> tuple[IntArray, IntArray]:
    """The first quote at or after each start, and the quote after it: for a tag pair, the two ends
    of its value."""
    quotes = np.flatnonzero(source.data[body:source.size] == ord('"')) + body
    if quotes.size == 2 * start.size:
        # The usual case, two quotes a tag line and none elsewhere: the quotes pair up in order.
        # (If the checks that follow pass, each line holds its pair, so this is the general answer.)
        return quotes[0::2], quotes[1::2]
    if quotes.size < 2:
        raise Declined(_NOT_A_TAG_PAIR)
    nth = np.minimum(np.searchsorted(quotes, start), quotes.size - 2)
    return quotes[nth], quotes[nth + 1]


def _check_brackets(source: Source, start: IntArray, end: IntArray, body: int) -> None:
    """No bracket but those around the tag pairs (which have been checked), no backslash and no tab
    in a tag pair: so no value holds any of them (nor a quote: each line has just its two)."""
    games = source.data[body:source.size]
    # `[`, `\` and `]` are 0x5B-0x5D, one range (below 0x5B wraps round to the top): each tag line
    # has been seen to start with a `[` and end with a `]`, so there must be just twice as many
    # brackets. A backslash is kept as it is unless it escapes a quote or a backslash.
    special = np.flatnonzero((games - np.uint8(ord("["))) < 3)
    if special.size != 2 * start.size:
        slashes = special[games[special] == ord("\\")] + body
        if special.size - slashes.size != 2 * start.size:
            raise Declined("a bracket other than the brackets around tag pairs")
        following = source.data[slashes + 1]
        if ((following == ord("\\")) | (following == ord('"'))).any():
            raise Declined("an escaped quote or backslash in a value")
    tab = games == ord("\t")
    if not tab.any():
        return
    tabs = np.flatnonzero(tab) + body  # semi-empty lines and section data may have tabs
    line = np.searchsorted(start, tabs, side="right") - 1  # the last tag line starting before each
    if ((line >= 0) & (tabs < end[line])).any():
        raise Declined(_NOT_A_TAG_PAIR)


def _space_at_either_end(source: Source, start: IntArray, length: IntArray) -> bool:
    """Whether a value starts or ends with white space (an empty one reads its quotes here: no)."""
    first, last = source.data[start], source.data[start + length - 1]
    if (np.take(_ASCII_SPACE, first) | np.take(_ASCII_SPACE, last)).any():
        return True
    beyond = np.flatnonzero((first >= 0x80) | (last >= 0x80))  # a character beyond ASCII: read it as text
    return bool(beyond.size) and bool(string_column(source, start[beyond], length[beyond]).str.contains(
        _EDGE_SPACE).any())


def _tag_table(source: Source, record: IntArray, line: IntArray, names: IntArray, value_start: IntArray,
               value_length: IntArray) -> pl.DataFrame:
    """One row per game: `record`, `line` of its first tag and a column per used tag, the values
    pointing into the text."""
    starts = run_starts(record)
    games = starts.size  # records are 0, 1, ... (every game starts with a tag line)
    values = views(source, value_start, value_length)
    absent = view_column(np.zeros((games, 2), dtype=np.uint64), None, np.zeros(games, dtype=bool))
    columns = {"record": pl.Series(np.arange(games)), "line": pl.Series(line[starts])}
    for name, lines in zip(USED_TAGS, _lines_by_tag(record, names, games), strict=True):
        taken = np.take(values, lines, axis=0)  # the views of the tag's values (`take`: rows are slow to index)
        if lines.size == games:  # every game has it (the usual export): no nulls
            columns[name] = view_column(taken, source)
        elif not lines.size:
            columns[name] = absent
        else:
            found, given = np.zeros((games, 2), dtype=np.uint64), np.zeros(games, dtype=bool)
            found[record[lines]], given[record[lines]] = taken, True
            columns[name] = view_column(found, source, given)
    return pl.DataFrame(columns)


def _lines_by_tag(record: IntArray, names: IntArray, games: int) -> list[IntArray]:
    """For each of `USED_TAGS`, its tag lines (indices into `names`) in game order; no tag may be
    repeated in a game."""
    width = names.size // games
    if width * games == names.size and (names.reshape(-1, width) == names[:width]).all():
        # Every game has the same tags in the same order (the usual export): a tag is every width-th line.
        first = names[:width][names[:width] < len(USED_TAGS)]
        if np.unique(first).size != first.size:
            raise Declined("a tag repeated in one game")
        place = {int(code): column for column, code in enumerate(names[:width])}
        return [np.arange(place[code], names.size, width) if code in place else np.arange(0)
                for code in range(len(USED_TAGS))]
    used = np.flatnonzero(names < len(USED_TAGS))  # (the tags read past may repeat: Note tags do)
    if np.bincount(record[used] * len(USED_TAGS) + names[used]).max(initial=0) > 1:
        raise Declined("a tag repeated in one game")
    order = np.argsort(names.astype(np.int16), kind="stable")  # a radix sort: tag lines by name, then file order
    bounds = np.searchsorted(names[order], np.arange(len(USED_TAGS) + 1))
    return [order[bounds[code]:bounds[code + 1]] for code in range(len(USED_TAGS))]


def _auction_tokens(source: Source, lines: Lines) -> Tokens:
    """The whitespace-separated tokens of auction lines, in file order."""
    return tokens(source, lines, allowed=_AUCTION_BYTES)
