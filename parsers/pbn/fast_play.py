"""Fast path: every play of a file replayed at once, one trick at a time for all games together.

PBN writes each trick as a line in fixed seat order from the Play tag's seat, so who led a trick
is known only once the trick before it is won; a loop over the 13 tricks advances every game by
one trick. Checked as the careful reader's strict mode does (`bridge.read_play` with the hands):
each card is held by the seat whose column it is in and is played once, suit is followed while
the suit led is still held, and the Result leaves room for the tricks the play already shows.
Also required here: the opening leader sits left of declarer, the play is whole tricks (with an
optional final `*`), cards are written the standard way (`SA`, `HT`), and there is a Result unless
all 13 tricks are given.
"""

from __future__ import annotations

import numpy as np
import polars as pl
import pyarrow as pa

from parsers.pbn.fast_deals import CARD_NAMES, Deals, IntArray, seat_codes
from parsers.pbn.fast_lines import Declined, rows_of

_TRUMP = {"S": 0, "H": 1, "D": 2, "C": 3, "N": 4}
"""Trump suit code by the first letter of the strain (4: notrump, which no card's suit equals)."""
_STAR = 52
_CODE = np.full(1 << 16, -1, dtype=np.int64)
"""256 * first byte + second byte of a two-character token -> card code; -1 when it is not a card."""
for _code, _name in enumerate(CARD_NAMES):
    _CODE[ord(_name[0]) << 8 | ord(_name[1])] = _code


def read_plays(games: pl.DataFrame, lines: pl.DataFrame, deals: Deals) -> pl.DataFrame:
    """Replay the plays of `games` (rows with a Play tag, a Declarer and a contract of level 1-7, and
    `tricks` from the Result tag or null); return `record`, `play` (cards in played order), `lead`
    and `tricks` (the Result, or the tricks won when all 13 were played and no Result was given)."""
    table, count = _card_table(games["record"].to_numpy(), lines)
    if ((count % 4 != 0) | (count == 0)).any():
        raise Declined("a play that is not whole tricks (1 to 13)")
    leader, declarer = seat_codes(games["Play"]), seat_codes(games["Declarer"])
    if (leader != (declarer + 1) % 4).any():
        raise Declined("an opening leader who is not declarer's left-hand opponent")
    rows = _deal_rows(games, deals)
    _check_held(table, count, leader, deals.holder[rows])
    trump = games["Contract"].str.slice(1, 1).replace_strict(_TRUMP, return_dtype=pl.Int64).to_numpy()
    leaders, won = _replay(table, count // 4, leader, declarer, trump)
    # Each trick in played order: columns from the trick's leader round the table.
    order = ((leaders - leader[:, None])[:, :, None] + np.arange(4)[None, None, :]) % 4
    played = table.ravel()[52 * np.arange(games.height)[:, None, None] + 4 * np.arange(13)[None, :, None] + order]
    _check_revokes(table, count // 4, leader, played[:, :, 0] // 13, deals.lengths[rows])
    tricks = _check_result(games["tricks"], count // 4, won)
    cards = _card_lists(played.reshape(-1, 52), count)
    return pl.DataFrame({"record": games["record"], "play": cards, "tricks": tricks}).with_columns(
        lead=pl.col("play").list.first())


def _card_table(games: IntArray, lines: pl.DataFrame) -> tuple[IntArray, IntArray]:
    """Card codes as written, shape (games, 52) (column = 4 * trick + seat column, -1 = none), and
    how many cards each game has. Every token must be a card or a final `*`."""
    record, code = _trick_lines(lines) or _tokens(lines)
    if (code < 0).any():
        raise Declined("a play token that is not a card written the standard way")
    row = rows_of(games, record, "a play")
    count = np.bincount(row, minlength=games.size)
    star = code == _STAR
    last = np.zeros_like(star)
    last[(np.cumsum(count) - 1)[count > 0]] = True
    if (star & ~last).any():
        raise Declined("'*' before the end of a play")
    row, code = row[~star], code[~star]
    count = np.bincount(row, minlength=games.size)
    if (count > 52).any():
        raise Declined("more than 52 cards")
    position = np.arange(row.size) - np.repeat(np.cumsum(count) - count, count)
    table = np.full((games.size, 52), -1, dtype=np.int64)
    table[row, position] = code
    return table, count


def _trick_lines(lines: pl.DataFrame) -> tuple[IntArray, IntArray] | None:
    """The game and code of each token when the play is written the export way, a trick per line
    (`SA H2 HK D4`) and `*` alone on a line; None for any other layout."""
    star = (lines["text"] == "*").to_numpy()
    tricks = lines["text"].filter(pl.Series(~star))
    if not ((tricks.str.len_bytes() == 11) & (tricks.str.len_chars() == 11)).all():
        return None
    data = np.frombuffer(tricks.str.join("").item().encode("ascii") if tricks.len() else b"",
                         dtype=np.uint8).reshape(-1, 11)
    if not (data[:, [2, 5, 8]] == ord(" ")).all():
        return None
    per_line = np.where(star, 1, 4)
    code = np.full(int(per_line.sum()), _STAR, dtype=np.int64)
    first = (np.cumsum(per_line) - per_line)[~star]
    code[(first[:, None] + np.arange(4)).ravel()] = _CODE[
        data[:, [0, 3, 6, 9]].astype(np.int64) << 8 | data[:, [1, 4, 7, 10]]].ravel()
    return np.repeat(lines["record"].to_numpy(), per_line), code


def _tokens(lines: pl.DataFrame) -> tuple[IntArray, IntArray]:
    """The game and code of each token, whatever the layout: the lines are read as bytes."""
    text = lines["text"].str.join("\n").item() if lines.height else ""
    try:
        data = np.frombuffer(text.encode("ascii"), dtype=np.uint8)
    except UnicodeEncodeError as exc:
        raise Declined("a play token that is not a card written the standard way") from exc
    space = data <= ord(" ")  # space, tab or line end: other control characters were declined
    edge = np.diff(space.view(np.int8), prepend=1, append=1)
    starts, ends = np.flatnonzero(edge == -1), np.flatnonzero(edge == 1)  # a token is a run of non-space
    pair = data[starts].astype(np.int64) << 8 | data[np.minimum(starts + 1, data.size - 1)]
    code = np.where(ends - starts == 2, _CODE[pair], np.where((ends - starts == 1) & (data[starts] == ord("*")),
                                                               _STAR, -1))
    line = np.cumsum(data == ord("\n"), dtype=np.int32)[starts]  # the line each token is on
    return lines["record"].to_numpy()[line], code


def _deal_rows(games: pl.DataFrame, deals: Deals) -> IntArray:
    """Row of each game's deal in `deals`; every play needs a known deal to be checked against."""
    found = games.select("record").join(deals.frame.select("record").with_row_index("row"), on="record",
                                        how="left", maintain_order="left")["row"]
    if found.null_count():
        raise Declined("a play without the deal")
    return found.to_numpy().astype(np.int64)


def _check_held(table: IntArray, count: IntArray, leader: IntArray, holder: IntArray) -> None:
    """Each card is held by the seat of its column, and no card is played twice."""
    present = np.arange(52)[None, :] < count[:, None]
    seat = (leader[:, None] + np.arange(52)[None, :]) % 4
    held_by = holder.ravel()[52 * np.arange(table.shape[0])[:, None] + np.where(present, table, 0)]
    if (present & (held_by != seat)).any():
        raise Declined("a card played by a seat that was not dealt it")
    keys = (52 * np.arange(table.shape[0])[:, None] + table)[present]
    if keys.size and np.bincount(keys).max() > 1:
        raise Declined("a card played twice")


def _replay(table: IntArray, tricks: IntArray, leader: IntArray, declarer: IntArray,
            trump: IntArray) -> tuple[IntArray, IntArray]:
    """The leader of each trick (games, 13) and declarer's tricks.

    A card's strength does not depend on the order of play, only on the suit led: trumps beat the
    suit led, which beats the rest, and within a suit the rank decides."""
    suits = table.reshape(-1, 13, 4) // 13
    strength = np.where(suits == trump[:, None, None], 200, 0) + 12 - table.reshape(-1, 13, 4) % 13
    games = np.arange(table.shape[0])
    leaders = np.zeros((table.shape[0], 13), dtype=np.int64)
    current, won = leader.copy(), np.zeros_like(leader)
    for trick in range(int(tricks.max(initial=0))):
        active = trick < tricks
        leaders[:, trick] = current
        led = suits[games, trick, (current - leader) % 4]
        column = (strength[:, trick] + np.where(suits[:, trick] == led[:, None], 100, 0)).argmax(axis=1)
        winner = (leader + column) % 4  # columns are seats from the opening leader
        won += active & (winner % 2 == declarer % 2)
        current = np.where(active, winner, current)
    return leaders, won


def _check_revokes(table: IntArray, tricks: IntArray, leader: IntArray, led: IntArray, lengths: IntArray) -> None:
    """No card of another suit while the suit led is still held (as the careful reader checks revokes).

    Columns are seats, so what a seat holds of a suit before trick t is what it was dealt less the
    cards of that suit in its column above row t."""
    games = table.shape[0]
    suits = table.reshape(games, 13, 4) // 13  # -1 where there is no card
    present = np.arange(13)[None, :, None] < tricks[:, None, None]
    led = np.broadcast_to(np.where(present[:, :, 0], led, 0)[:, :, None], suits.shape)
    played_before = np.choose(led, [np.cumsum(suits == suit, axis=1, dtype=np.int8) - (suits == suit)
                                    for suit in range(4)])
    seat = (leader[:, None] + np.arange(4)[None, :]) % 4
    dealt = np.take_along_axis(lengths, seat[:, :, None], axis=1).reshape(-1)  # 16 * game + 4 * column + suit
    slot = 16 * np.arange(games)[:, None, None] + 4 * np.arange(4)[None, None, :]
    still_held = dealt[slot + led] > played_before
    if (present & (suits != led) & still_held).any():
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


def _card_lists(played: IntArray, count: IntArray) -> pl.Series:
    """The first `count` cards of each row as a list-of-strings column, built from Arrow buffers
    (card codes as a dictionary array: no Python string per card)."""
    flat = played[np.arange(52)[None, :] < count[:, None]]
    values = pa.DictionaryArray.from_arrays(pa.array(flat.astype(np.int8)), pa.array(CARD_NAMES))
    lists = pa.ListArray.from_arrays(pa.array(np.concatenate(([0], np.cumsum(count))).astype(np.int32)), values)
    series = pl.from_arrow(lists)
    assert isinstance(series, pl.Series)
    return series.cast(pl.List(pl.String))
