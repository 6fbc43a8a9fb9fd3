"""Fast path: every play of a file replayed at once, one trick at a time for all games together.

PBN writes each trick as a line in fixed seat order from the Play tag's seat, so who led a trick
is known only once the trick before it is won; a loop over the 13 tricks advances every game by
one trick. Checked as the careful reader's strict mode does (`bridge.read_play` with the hands):
each card is held by the seat whose column it is in and is played once, suit is followed while
the suit led is still held, and the Result leaves room for the tricks the play already shows.
Also required here: the opening leader sits left of declarer, the play is whole tricks (with an
optional final `*`), cards are written the standard way (`SA`, `HT`), and there is a Result unless
all 13 tricks are given.

Cards are small integers (int8 codes, `fast_deals.CARD_NAMES`) in a (game, trick, column) table,
and sets of cards are 52-bit masks: what a column played, what its seat was dealt, what it still
holds before each trick.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import polars as pl

from parsers.pbn.fast_bytes import (
    BoolArray,
    Declined,
    IntArray,
    Lines,
    Source,
    WordArray,
    list_column,
    named,
    string_series,
    tokens,
)
from parsers.pbn.fast_deals import CARD_NAMES, Deals, seat_codes
from parsers.pbn.fast_lines import index_in, rows_of

Cards = npt.NDArray[np.int8]
"""Card codes (0-51), -1 where there is no card; 52 (`_STAR`) for a `*` token."""

_TRUMP = {"S": 0, "H": 1, "D": 2, "C": 3, "N": 4}
"""Trump suit code by the first letter of the strain (4: notrump, which no card's suit equals)."""
_STAR = 52
_CODE = np.full(1 << 16, -1, dtype=np.int8)
"""First byte + 256 * second byte of a two-character token (`Source.pairs`) -> card code; -1 when
it is not a card."""
for _code, _name in enumerate(CARD_NAMES):
    _CODE[ord(_name[1]) << 8 | ord(_name[0])] = _code
_BYTES_2_5, _SPACES_2_5 = np.uint64(0xFF << 16 | 0xFF << 40), np.uint64(0x20 << 16 | 0x20 << 40)
"""Bytes 2 and 5 of a word, and spaces there: the first two spaces of a trick line (bytes 0-7)."""
_BYTE_5, _SPACE_5 = np.uint64(0xFF << 40), np.uint64(0x20 << 40)
"""Byte 5 of a word, and a space there: the third space of a trick line in its bytes 3-10."""
_SUIT_CARDS = np.array([((1 << 13) - 1) << (13 * suit) for suit in range(4)], dtype=np.uint64)
"""Suit -> the mask of its 13 cards."""
_TRICK_LINE = 11
"""`SA H2 HK D4`: a trick written the export way."""


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
    seats = (leader[:, None] + np.arange(4)[None, :]) % 4
    dealt = np.take_along_axis(deals.hands[_deal_rows(games, deals)], seats, axis=1)
    present = table >= 0
    bits = np.where(present, np.left_shift(np.uint64(1), np.maximum(table, 0).astype(np.uint64)), np.uint64(0))
    played_so_far = np.bitwise_or.accumulate(bits, axis=1)  # by each column up to each trick
    _check_held(bits, played_so_far[:, -1], dealt)
    trump = games["Contract"].str.slice(1, 1).replace_strict(_TRUMP, return_dtype=pl.Int64).to_numpy()
    leaders, led, won = _replay(table, tricks, leader, declarer, trump)
    _check_revokes(table, played_so_far, dealt, led, present)
    played = _in_played_order(table, (leaders - leader[:, None]) % 4)
    return pl.DataFrame({"record": games["record"], "play": _card_lists(played, count),
                         "tricks": _check_result(games["tricks"], tricks, won),
                         "lead": string_series(named(played[:, 0], CARD_NAMES))})


def _card_table(games: IntArray, source: Source, lines: Lines) -> tuple[Cards, IntArray]:
    """Card codes as written, shape (games, 13, 4) (trick, seat column; -1 = none), and how many
    cards each game has. Every token must be a card or a final `*`."""
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
    if (count == 52).all():  # every play complete (the usual export): the cards are the table, in order
        return code.reshape(-1, 13, 4), count
    position = np.arange(row.size) - np.repeat(np.cumsum(count) - count, count)
    table = np.full((games.size, 52), -1, dtype=np.int8)
    table[row, position] = code
    return table.reshape(-1, 13, 4), count


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


def _check_held(bits: WordArray, by_column: WordArray, dealt: WordArray) -> None:
    """Each card is held by the seat of its column, and no card is played twice: with distinct cards
    the sum of their bits is their OR, with a card twice it is more."""
    if (by_column & ~dealt).any():
        raise Declined("a card played by a seat that was not dealt it")
    if (bits.sum(axis=(1, 2), dtype=np.uint64) != np.bitwise_or.reduce(by_column, axis=1)).any():
        raise Declined("a card played twice")


def _replay(table: Cards, tricks: IntArray, leader: IntArray, declarer: IntArray,
            trump: IntArray) -> tuple[IntArray, Cards, IntArray]:
    """The leader of each trick (games, 13), the suit led to it and declarer's tricks.

    A card's strength does not depend on the order of play, only on the suit led: trumps beat the
    suit led, which beats the rest, and within a suit the rank decides. Each card's key is
    4 * strength + its column, so the largest key of a trick names the winner's column. Tables are
    turned to (trick, column, game) so that each step works on whole rows."""
    suits = table // 13  # -1 where there is no card
    rank = (table - 13 * suits).astype(np.int16)  # 0 = ace (`%` is slow on small integers)
    # Strength 13 - rank, +32 for a trump (+16 for the suit led, added per trick), times 4.
    trumps = (suits == trump.astype(np.int8)[:, None, None]).astype(np.int16) << 7
    key = np.ascontiguousarray((((13 - rank) << 2) + np.arange(4, dtype=np.int16) + trumps).transpose(1, 2, 0))
    suits_by_trick = np.ascontiguousarray(suits.transpose(1, 2, 0))  # (trick, column, game)
    games = table.shape[0]
    at = np.arange(games)
    leaders = np.zeros((13, games), dtype=np.int64)
    led = np.full((13, games), -1, dtype=np.int8)
    current, won, side = leader.copy(), np.zeros_like(leader), declarer & 1
    for trick in range(int(tricks.max(initial=0))):
        leaders[trick] = current
        # The card in the leader's column (`& 3` is `% 4` on these integers, and much faster).
        led[trick] = suits_by_trick[trick].ravel()[((current - leader) & 3) * games + at]
        following = (suits_by_trick[trick] == led[trick]).astype(np.int16) << 6  # + 16 strength
        # The largest key's last two bits are the winner's column; columns are seats from the leader.
        winner = (leader + (key[trick] + following).max(axis=0)) & 3
        active = trick < tricks
        won += active & ((winner & 1) == side)
        current = np.where(active, winner, current)
    return np.ascontiguousarray(leaders.T), np.ascontiguousarray(led.T), won


def _check_revokes(table: Cards, played_so_far: WordArray, dealt: WordArray, led: Cards, present: BoolArray) -> None:
    """No card of another suit while the suit led is still held (as the careful reader checks revokes):
    what a column's seat holds at a trick is what it was dealt less what the column played before."""
    off_suit = np.flatnonzero(present & (table // 13 != led[:, :, None]))  # (game, trick, column) flat
    game, trick, column = off_suit // 52, off_suit // 4 % 13, off_suit & 3
    # The column's cards up to the trick before (the same column one row up), none at the first.
    played_before = np.where(trick > 0, played_so_far.ravel()[np.maximum(off_suit - 4, 0)], np.uint64(0))
    still_held = dealt[game, column] & ~played_before
    if (still_held & _SUIT_CARDS[led.ravel()[off_suit // 4]]).any():
        raise Declined("a revoke: a card of another suit while the suit led was still held")


def _check_result(result: pl.Series, tricks: IntArray, won: IntArray) -> pl.Series:
    """Declarer's tricks: the Result, which cannot be fewer than declarer has already won nor leave
    the defence fewer than it has; without a Result, the tricks won in a complete play."""
    given = result.to_numpy().astype(np.float64)  # NaN where no Result was given
    missing = np.isnan(given)
    if (missing & (tricks != 13)).any():
        raise Declined("no Result and an incomplete play")
    taken = np.where(missing, won, given)
    if ((taken < won) | (13 - taken < tricks - won)).any():
        raise Declined("a Result that the play contradicts")
    return pl.Series(taken.astype(np.int64))


def _in_played_order(table: Cards, first: IntArray) -> Cards:
    """Each trick's cards from its leader's column (`first`) round the table, shape (games, 52).

    A trick's four one-byte codes are one 32-bit word, so this is a rotation of each word by
    8 * `first` bits (the word written twice side by side, then shifted)."""
    words = np.ascontiguousarray(table).view("<u4").reshape(first.shape).astype(np.uint64)  # column 0 lowest
    doubled = words | (words << np.uint64(32))
    rotated = (doubled >> (np.uint64(8) * first.astype(np.uint64))).astype("<u4")
    played: Cards = rotated.view(np.int8).reshape(-1, 52)
    return played


def _card_lists(played: Cards, count: IntArray) -> pl.Series:
    """The first `count` cards of each row as a list-of-strings column, built from Arrow views (no
    Python string per card)."""
    flat = played.ravel() if (count == 52).all() else played[np.arange(52)[None, :] < count[:, None]]
    return list_column(named(flat, CARD_NAMES), np.concatenate(([0], np.cumsum(count))))
