"""Fast path: every play of a file read from its trick lines and replayed at once.

PBN writes each trick as a line in fixed seat order from the Play tag's seat, which is the shape
`parsers.bridge.play_arrays` replays (column 0 is the opening leader). Checked as the careful
reader's strict mode does (`bridge.read_play` with the hands): each card is held by the seat whose
column it is in and is played once, suit is followed while the suit led is still held, and the
Result leaves room for the tricks the play already shows. Also required here: the opening leader
sits left of declarer, the play is whole tricks (with an optional final `*`), cards are written the
standard way (`SA`, `HT`), and there is a Result unless all 13 tricks are given.
"""

from __future__ import annotations

import numpy as np
import polars as pl

from parsers.arrow import named
from parsers.bridge.play import claim_fits
from parsers.bridge.play_arrays import CARD_NAMES, Cards, played_order, replay, require_lawful
from parsers.pbn.fast_auction import CONTRACTS
from parsers.pbn.fast_bytes import (
    Declined,
    IntArray,
    Lines,
    Source,
    list_column,
    string_series,
    tokens,
)
from parsers.pbn.fast_deals import Deals, seat_codes
from parsers.pbn.fast_lines import index_in, rows_of

_CONTRACT_ENUM = pl.Enum(CONTRACTS)
_TRUMP_OF_CONTRACT = np.array([4] + ["SHDCN".index(contract[1]) for contract in CONTRACTS[1:]], dtype=np.int64)
"""Contract code (`fast_auction.CONTRACTS`) -> trump suit number (SHDC: 0-3; 4 for notrump)."""
_STAR = 52
"""A `*` token, among the card numbers of `_card_table`'s tokens."""
_CODE = np.full(1 << 16, -1, dtype=np.int8)
"""First byte + 256 * second byte of a two-character token (`Source.pairs`) -> card code; -1 when
it is not a card."""
for _code, _name in enumerate(CARD_NAMES):
    _CODE[ord(_name[1]) << 8 | ord(_name[0])] = _code
_BYTES_2_5, _SPACES_2_5 = np.uint64(0xFF << 16 | 0xFF << 40), np.uint64(0x20 << 16 | 0x20 << 40)
"""Bytes 2 and 5 of a word, and spaces there: the first two spaces of a trick line (bytes 0-7)."""
_BYTE_5, _SPACE_5 = np.uint64(0xFF << 40), np.uint64(0x20 << 40)
"""Byte 5 of a word, and a space there: the third space of a trick line in its bytes 3-10."""
_BYTE_4, _SPACE_4 = np.uint64(0xFF << 32), np.uint64(0x20 << 32)
"""Byte 4 of a word, and a space there: the third space of a trick line in its bytes 4-11."""
_TRICK_LINE = 11
"""`SA H2 HK D4`: a trick written the export way."""
_BLOCK = 13 * (_TRICK_LINE + 1)
"""A whole play written the export way: 13 trick lines and their line feeds."""
_LINE_STEPS = (_TRICK_LINE + 1) * np.arange(13)


def read_plays(games: pl.DataFrame, lines: Lines, source: Source, deals: Deals) -> pl.DataFrame:
    """Replay the plays of `games` (rows with a Play tag, a Declarer and a contract of level 1-7, and
    `tricks` from the Result tag or null); return `record`, `play` (cards in played order), `tricks`
    (the Result, or the tricks won when all 13 were played and no Result was given) and `lead`."""
    table, count = _card_table(games["record"].to_numpy(), source, lines)
    if ((count % 4 != 0) | (count == 0)).any():
        raise Declined("a play that is not whole tricks (1 to 13)")
    tricks = count // 4
    leader, declarer = seat_codes(games["Play"]), seat_codes(games["Declarer"])
    if (leader != (declarer + 1) % 4).any():
        raise Declined("an opening leader who is not declarer's left-hand opponent")
    # The cards dealt to the seat of each column (columns are seats from the opening leader).
    seats = (leader[:, None] + np.arange(4)[None, :]) & 3
    dealt = np.take_along_axis(deals.hands[_deal_rows(games, deals)], seats, axis=1)
    contract = games["Contract"].cast(_CONTRACT_ENUM, strict=False).to_physical().to_numpy()
    play = replay(table, dealt, _TRUMP_OF_CONTRACT[contract])
    require_lawful(play, table, dealt)
    played = played_order(table, play.leaders)
    return pl.DataFrame({"record": games["record"], "play": _card_lists(played, count),
                         "tricks": _check_result(games["tricks"], tricks, play.won),
                         "lead": string_series(named(played[:, 0], CARD_NAMES))})


def _card_table(games: IntArray, source: Source, lines: Lines) -> tuple[Cards, IntArray]:
    """Card codes as written, shape (games, 13, 4) (trick, seat column; -1 = none), and how many
    cards each game has. Every token must be a card or a final `*`."""
    whole = _whole_plays(games, source, lines)
    if whole is not None:
        return whole, np.full(games.size, 52, dtype=np.int64)
    record, code = _trick_lines(source, lines) or _tokens(source, lines)
    if (code < 0).any():
        raise Declined("a play token that is not a card written the standard way")
    row = rows_of(games, record, "a play")
    count = np.bincount(row, minlength=games.size)
    star = code == _STAR
    if star.any():
        last = np.zeros_like(star)
        last[(np.cumsum(count) - 1)[count > 0]] = True
        if (star & ~last).any():
            raise Declined("'*' before the end of a play")
        row, code = row[~star], code[~star]
        count = np.bincount(row, minlength=games.size)
    if (count > 52).any():
        raise Declined("more than 52 cards")
    if (count == 52).all():  # every play complete: the cards are the table, in order
        return code.reshape(-1, 13, 4), count
    position = np.arange(row.size) - np.repeat(np.cumsum(count) - count, count)
    table = np.full((games.size, 52), -1, dtype=np.int8)
    table[row, position] = code
    return table.reshape(-1, 13, 4), count


def _whole_plays(games: IntArray, source: Source, lines: Lines) -> Cards | None:
    """The cards of the usual export (every game of `games` has 13 trick lines `SA H2 HK D4`, one
    after another, and nothing else) as a (games, 13, 4) table; None for any other layout.

    Each game's play is then one block of 13 * 12 bytes (with the line feeds): one gather takes the
    blocks, and each line is read as two words, bytes 0-7 and 4-11, through views with a 12-byte stride."""
    count = games.size
    if lines.start.size != 13 * count or not count:
        return None
    grid = lines.start.reshape(count, 13)
    first = grid[:, 0]
    if not (((lines.end - lines.start) == _TRICK_LINE).all() and (grid == first[:, None] + _LINE_STEPS).all()
            and (lines.record.reshape(count, 13) == games[:, None]).all()):
        return None
    blocks = np.ndarray((source.data.size - _BLOCK + 1,), dtype=f"V{_BLOCK}", buffer=source.data, strides=(1,))
    taken = blocks[first]  # contiguous: (game, line, 12 bytes)
    head = np.ndarray((13 * count,), dtype="<u8", buffer=taken, offset=0, strides=(12,))
    tail = np.ndarray((13 * count,), dtype="<u8", buffer=taken, offset=4, strides=(12,))
    if not (((head & _BYTES_2_5) == _SPACES_2_5) & ((tail & _BYTE_4) == _SPACE_4)).all():
        return None  # (byte 11 is a line feed: the lines end there)
    pairs = np.empty((13 * count, 4), dtype=np.int64)
    for column, (word, shift) in enumerate(((head, 0), (head, 24), (head, 48), (tail, 40))):
        np.bitwise_and(word >> np.uint64(shift), np.uint64(0xFFFF), out=pairs[:, column].view(np.uint64))
    cards: Cards = np.take(_CODE, pairs).reshape(count, 13, 4)
    if (cards < 0).any():
        raise Declined("a play token that is not a card written the standard way")
    return cards


def _trick_lines(source: Source, lines: Lines) -> tuple[IntArray, Cards] | None:
    """The game and code of each token when the play is written the export way, a trick per line
    (`SA H2 HK D4`) and `*` alone on a line; None for any other layout.

    A trick line is read as two words, bytes 0-7 and 3-10: three spaces and four pairs of bytes."""
    length = lines.end - lines.start
    star = (length == 1) & (source.data[lines.start] == ord("*"))
    tricks = ~star
    start = lines.start[tricks]
    if not (length[tricks] == _TRICK_LINE).all():
        return None
    head, tail = source.words[start], source.words[start + 3]
    if not (((head & _BYTES_2_5) == _SPACES_2_5) & ((tail & _BYTE_5) == _SPACE_5)).all():
        return None
    cards = np.empty((start.size, 4), dtype=np.int8)
    for column, (word, shift) in enumerate(((head, 0), (head, 24), (head, 48), (tail, 48))):
        pair = (word >> np.uint64(shift)) & np.uint64(0xFFFF)
        cards[:, column] = _CODE[pair.view(np.int64)]  # (as int64: numpy would convert uint64 indices)
    if not star.any():
        return np.repeat(lines.record, 4), cards.ravel()
    per_line = np.where(star, 1, 4)  # a `*` line is one token
    code = np.full(int(per_line.sum()), _STAR, dtype=np.int8)
    first = (np.cumsum(per_line) - per_line)[tricks]
    code[(first[:, None] + np.arange(4)).ravel()] = cards.ravel()
    return np.repeat(lines.record, per_line), code


def _tokens(source: Source, lines: Lines) -> tuple[IntArray, Cards]:
    """The game and code of each token, whatever the layout."""
    found = tokens(source, lines)
    card = _CODE[source.pairs[found.start]]
    star = source.data[found.start] == ord("*")
    code = np.where(found.length == 2, card, np.where((found.length == 1) & star, _STAR, -1)).astype(np.int8)
    return found.record, code


def _deal_rows(games: pl.DataFrame, deals: Deals) -> IntArray:
    """Row of each game's deal in `deals`; every play needs a known deal to be checked against."""
    rows = index_in(deals.frame["record"].to_numpy(), games["record"].to_numpy())
    if (rows < 0).any():
        raise Declined("a play without the deal")
    return rows


def _check_result(result: pl.Series, tricks: IntArray, won: IntArray) -> pl.Series:
    """Declarer's tricks: the Result, which cannot be fewer than declarer has already won nor leave
    the defence fewer than it has; without a Result, the tricks won in a complete play."""
    given = result.to_numpy().astype(np.float64)  # NaN where no Result was given
    missing = np.isnan(given)
    if (missing & (tricks != 13)).any():
        raise Declined("no Result and an incomplete play")
    taken = np.where(missing, won, given)
    if (~claim_fits(taken, won, tricks)).any():
        raise Declined("a Result that the play contradicts")
    return pl.Series(taken.astype(np.int64))


def _card_lists(played: Cards, count: IntArray) -> pl.Series:
    """The first `count` cards of each row as a list-of-strings column, built from Arrow views (no
    Python string per card)."""
    flat = played.ravel() if (count == 52).all() else played[np.arange(52)[None, :] < count[:, None]]
    return list_column(named(flat, CARD_NAMES), np.concatenate(([0], np.cumsum(count))))
