"""The rules of card play over arrays: the bridge engine's one implementation, for every reader.

Who holds which card, following suit (and revokes), which card wins a trick, the winner leading the
next one, and the tricks declarer's side takes: `replay` establishes all of it for every board of a
file at once, and reports what it finds rather than judging it. The vectorised fast paths decline a
file on any finding (`require_lawful`); the careful readers turn each finding into a diagnostic where
it stands (`parsers.bridge.play`).

A card is a number, suit by suit in PBN's order and ace to two within a suit (SA=0, S2=12, HA=13 ...
C2=51: `CARD_NAMES`); -1 where there is no card, and `UNKNOWN` (or any number from 52 to 127) for a
card that was played but is not known (PBN's `-`, a token that is no card). A board's play is a
(trick, column) table: column 0 is the seat that leads the first trick, and the columns go on
clockwise. That is how PBN writes a play; cards in the order they were played (LIN) are put in it by
`replay_in_order` (or by `by_column`, which trusts the holder of each trick's first card).

Who leads a trick is known only once the trick before it is won, so `replay` follows the leads one
trick at a time, on whole rows of boards (for a few boards it first wins each trick for every
possible leader, and then follows the leads by lookups: there numpy's cost per call is the work);
the cards are checked against the hands on all tricks at once. Arrays are laid out (trick, column,
board) inside, so that every step works on long rows. Whether a claim (or a Result) fits the tricks
won and the tricks left is `parsers.bridge.play.claim_fits`, for one board or arrays of them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from parsers.bridge.cards import CARD_NAMES
from parsers.declined import require

Cards = npt.NDArray[np.int8]
"""Card numbers; -1 where there is no card."""
Ints = npt.NDArray[np.integer[Any]]
Counts = npt.NDArray[np.int64]
Bools = npt.NDArray[np.bool_]
Masks = npt.NDArray[np.uint64]
"""Sets of cards: bit `card number` set for each card in the set."""

__all__ = ["CARD_NAMES", "NO_TRUMP", "UNKNOWN", "Play", "by_column", "dealt_by_column", "holders", "played_order",
           "played_twice", "replay", "replay_in_order", "require_lawful"]

NO_TRUMP = 4
"""The trump suit number of a notrump contract (no card's suit)."""
UNKNOWN = 52
"""A card that was played but is not known."""

_U4, _U13, _U64, _U128 = np.uint8(4), np.uint8(13), np.uint8(64), np.uint8(128)
"""(One-byte factors: numpy shifts bytes several times slower than it multiplies them.)"""
_NO_SUIT = np.uint8(255)
"""The trump of a notrump contract inside: a card's byte // 13 is its suit (0-3), an unknown card's
(4-9) is no suit, and no card's (byte 255) is 19: none of them is ever 255."""
_ALL_CARDS = np.uint64((1 << 52) - 1)
_SUIT_CARDS = np.zeros(256, dtype=np.uint64)
_SUIT_CARDS[:4] = [((1 << 13) - 1) << (13 * suit) for suit in range(4)]
"""Suit (a card's byte // 13) -> the set of its 13 cards; empty for no suit."""
_PLACE_BITS = np.array([[3], [2], [1], [0]], dtype=np.uint8)
"""(leader + this) & 3 is 3 - the place of each column in the order of play."""


def _bits(cells: Ints) -> Masks:
    """Each card's bit in a set of cards (none for no card or an unknown one), from its byte."""
    bits: Masks = np.left_shift(np.uint64(1), cells.astype(np.uint64))  # 0 from a shift past 63
    bits &= _ALL_CARDS
    return bits


@dataclass(frozen=True)
class Play:
    """What the play of every board established. Tricks after `complete` but the first are not
    followed: who led them is unknown, and their cards were not checked."""

    leaders: Ints
    """(boards, tricks): the column that led each trick, given or rightful (see `replay`)."""
    rightful: Ints
    """(boards, tricks): the column whose lead it was: the winner of the trick before (0 for the first)."""
    winners: Ints
    """(boards, tricks): the column that won each complete trick; -1 for the others."""
    won: Counts
    """Tricks won by declarer's side among the complete tricks."""
    complete: Counts
    """Complete tricks: the first tricks of four known cards (a trick with an unknown card ends them)."""
    cards: Counts
    """Cards played, known or not."""
    checked: Bools
    """(boards, tricks, 4) by column: the card was checked against its player's hand (the hand and
    the card are known, and so is who led the trick)."""
    not_held: Bools
    """(boards, tricks, 4): a checked card that its player did not hold then (never dealt it, or
    played it already)."""
    revoked: Bools
    """(boards, tricks, 4): a checked card of another suit than the one led, played while holding
    that suit: a revoke (the trick stands as played)."""


def replay(table: Cards, dealt: Masks | None, trump: Ints, *, known: Bools | None = None,
           side: Ints | None = None, leads: Ints | None = None) -> Play:
    """Follow the play of every board and check it against the hands.

    `table` is (boards, tricks, 4): each trick's cards by column. `dealt` is (boards, 4), the cards
    of each column's seat, or None when no hand is known (nothing is checked then, the tricks are
    still won); `known` (boards, 4) says which of them are known (all by default). `trump` is each
    board's trump suit number (0-3, anything else for none); `side` the parity of declarer's
    columns (1 by default: column 0 is declarer's left-hand opponent; -1 for no declarer). `leads`
    (boards, tricks) names the column that led a trick, -1 where the rightful leader did: a lead
    out of turn stands, and the trick is won as it was played.
    """
    boards, tricks = table.shape[:2]
    out = _Out(boards, tricks)
    trumps, sides = _trumps(trump), _sides(side, boards)
    # A few thousand boards at a time: each pass then works in the processor's caches.
    for start in range(0, boards, _CHUNK):
        part = slice(start, start + _CHUNK)
        cells = np.ascontiguousarray(table[part].view(np.uint8).transpose(1, 2, 0))  # (trick, column, board)
        suit, key = _suits_and_keys(cells, trumps[part])
        complete = _complete(cells)
        given = None if leads is None else np.ascontiguousarray(np.asarray(leads[part], dtype=np.int8).T)
        _follow_leads(out, part, suit, key, given, cells, complete)
        _settle(out, part, cells, suit, complete, sides[part], None if dealt is None else dealt[part],
                None if known is None else known[part])
    return out.play()


_CHUNK = 8192
_FEW = 128
"""So few boards that numpy's cost per call is more than the work: each trick is won for every
leader at once, and what each seat played before is gathered in one call."""


class _Out:
    """`Play`'s arrays, laid out (trick, column, board), filled a part of the boards at a time."""

    def __init__(self, boards: int, tricks: int) -> None:
        self.leaders = np.zeros((tricks, boards), dtype=np.int8)
        self.rightful = np.zeros((tricks, boards), dtype=np.int8)
        self.winners = np.zeros((tricks, boards), dtype=np.int8)
        self.won = np.zeros(boards, dtype=np.int64)
        self.complete = np.zeros(boards, dtype=np.int64)
        self.cards = np.zeros(boards, dtype=np.int64)
        self.checked = np.zeros((tricks, 4, boards), dtype=bool)
        self.not_held = np.zeros((tricks, 4, boards), dtype=bool)
        self.revoked = np.zeros((tricks, 4, boards), dtype=bool)

    def play(self) -> Play:
        """The arrays as `Play`, (board, trick, column) (views: nothing is copied)."""
        return Play(leaders=self.leaders.T, rightful=self.rightful.T, winners=self.winners.T, won=self.won,
                    complete=self.complete, cards=self.cards, checked=self.checked.transpose(2, 0, 1),
                    not_held=self.not_held.transpose(2, 0, 1), revoked=self.revoked.transpose(2, 0, 1))


def _trumps(trump: Ints) -> Ints:
    trumps: Ints = _TRUMP_BYTE.take(np.asarray(trump) + 1, mode="clip")
    return trumps


_TRUMP_BYTE = np.array([_NO_SUIT, 0, 1, 2, 3, _NO_SUIT], dtype=np.uint8)
"""Trump suit number + 1 (clipped to 0-5) -> the trump inside (0-3, or none)."""


def _sides(side: Ints | None, boards: int) -> Counts:
    return np.ones(boards, dtype=np.int64) if side is None else np.asarray(side, dtype=np.int64)


def _complete(cells: Ints) -> Counts:
    """The first tricks of four known cards, (trick, column, board) -> (board)."""
    tricks, _, boards = cells.shape
    if not tricks:
        return np.zeros(boards, dtype=np.int64)
    whole = (cells < 52).all(axis=1)
    complete: Counts = np.where(whole.all(axis=0), tricks, whole.argmin(axis=0))
    return complete


def _settle(out: _Out, part: slice, cells: Ints, suit: Ints, complete: Counts, sides: Ints, dealt: Masks | None,
            known: Bools | None) -> None:
    """With the leaders and winners in `out`: the tricks counted, and the cards checked."""
    tricks, _, boards = cells.shape
    trick = np.arange(tricks)[:, None]
    counted = trick < complete
    winners = out.winners[:, part]
    out.won[part] = (((winners & 1) == sides) & counted).sum(axis=0)
    np.copyto(winners, -1, where=~counted)
    out.complete[part], out.cards[part] = complete, (cells != 255).sum(axis=(0, 1))
    if dealt is not None and tricks:
        led = suit[trick, out.leaders[:, part], np.arange(boards)]  # (trick, board)
        alive = counted | ((trick == complete) & (led < 4))
        _check(out, part, cells, suit, led, alive, dealt, known)


def _suits_and_keys(cells: Ints, trumps: Ints) -> tuple[Ints, Ints]:
    """Each card's suit (its byte // 13: 0-3 for a card) and its key in a trick but for the suit led
    and its place (`_winning_columns`): 128 for a trump, then its rank as bits 2-5 (ace 52, two 4)."""
    suit = cells // _U13
    rank = cells - _U13 * suit
    key = (_U13 - rank) * _U4 | (suit == trumps).view(np.uint8) * _U128
    return suit, key


def _winning_columns(suit: Ints, key: Ints, leader: Ints, led: Ints) -> Ints:
    """The column (uint8) that wins each trick when `leader` leads it with a card of suit `led`
    (both (..., boards), or broadcast to it); `suit` and `key` are (..., 4, boards).

    A card's key adds 64 for the suit led, and 3 - its place in the order of play: the largest key
    wins, and a card played twice in one trick (which only a play checked against no hand can hold)
    wins at its first place. The key's last two bits then name the winner."""
    places = (leader[..., None, :] + _PLACE_BITS) & 3
    best = (key | (suit == led[..., None, :]).view(np.uint8) * _U64 | places).max(axis=-2)
    winner: Ints = (leader + 3 - (best & 3)) & 3
    return winner


_EVERY_LEADER = np.arange(4, dtype=np.uint8)[:, None]


def _follow_leads(out: _Out, part: slice, suit: Ints, key: Ints, leads: Ints | None, cells: Ints,
                  complete: Counts) -> None:
    """Fill `out`'s leaders (given, or the rightful ones), rightful leaders and winners.

    When every trick with a card names its leader, every trick is won at once; otherwise trick by
    trick, each leader the winner of the trick before (where none is named)."""
    tricks, _, boards = suit.shape
    leaders, winners = out.leaders[:, part], out.winners[:, part]
    at = np.arange(boards)
    if leads is not None and bool(((leads >= 0) | (cells == 255).all(axis=1)).all()):
        leaders[:] = np.maximum(leads, 0)
        led = suit[np.arange(tricks)[:, None], leaders, at]
        winners[:] = _winning_columns(suit, key, leaders.view(np.uint8), led)
    else:
        # (trick, leader, board): who wins each trick when each column leads it (for a few boards).
        every = _winning_columns(suit[:, None], key[:, None], _EVERY_LEADER, suit) if boards <= _FEW else None
        column: Ints = np.zeros(boards, dtype=np.uint8)
        led_by, won_by = [], []
        for trick in range(min(tricks, int(complete.max(initial=-1)) + 1)):
            if leads is not None:
                column = np.where(leads[trick] >= 0, leads[trick], column).astype(np.uint8)
            led_by.append(column)
            column = every[trick][column, at] if every is not None else \
                _winning_columns(suit[trick], key[trick], column, suit[trick][column, at])
            won_by.append(column)
        if led_by:
            leaders[:len(led_by)], winners[:len(won_by)] = np.stack(led_by), np.stack(won_by)
    out.rightful[1:, part] = winners[:-1]


def _check(out: _Out, part: slice, cells: Ints, suit: Ints, led: Ints, alive: Bools, dealt: Masks,
           known: Bools | None) -> None:
    """Checked, not held and revoked, into `out`: every known card of a trick whose leader is known,
    against what its column's seat still holds (dealt, less what it played in earlier tricks)."""
    bits = _bits(cells)
    holding = np.empty_like(bits)
    holding[0] = 0
    if cells.shape[2] <= _FEW:
        np.bitwise_or.accumulate(bits[:-1], axis=0, out=holding[1:])
    else:  # (a loop: on many boards `accumulate` along this axis is many times slower)
        for trick in range(1, len(bits)):
            np.bitwise_or(holding[trick - 1], bits[trick - 1], out=holding[trick])
    np.invert(holding, out=holding)
    holding &= np.ascontiguousarray(dealt.T)
    checked = out.checked[:, :, part]
    np.logical_and(alive[:, None], bits != 0, out=checked)
    if known is not None:
        checked &= np.ascontiguousarray(known.T)
    not_held = out.not_held[:, :, part]
    np.logical_and(checked, np.bitwise_and(bits, holding, out=bits) == 0, out=not_held)
    # A card of another suit than the one led, while the seat holds that suit (this card, of another
    # suit, does not change that).
    holding &= _SUIT_CARDS[led][:, None]
    out.revoked[:, :, part] = checked & ~not_held & (suit != led[:, None]) & (holding != 0)


def require_lawful(play: Play, table: Cards, dealt: Masks) -> None:
    """Decline unless every card was held by its player and suit was followed (the fast paths)."""
    if play.not_held.any():
        never_dealt = (_bits(table.view(np.uint8)) & dealt[:, None, :]) == 0  # (by column, as the table)
        require(not (play.not_held & never_dealt).any(), "a card played by a seat that was not dealt it")
        require(False, "a card played twice")
    require(not play.revoked.any(), "a revoke: a card of another suit while the suit led was still held")


def replay_in_order(played: Cards, dealt: Masks | None, trump: Ints, *, known: Bools | None = None,
                    side: Ints | None = None) -> tuple[Play, Cards]:
    """`replay` for cards in the order they were played, (boards, 4 * tricks), -1 padded; and the
    `replay` table they make (each trick's cards by column).

    Each trick's first card is the rightful leader's (the winner of the trick before), the others
    follow round the table: a card played out of turn is one its column's seat may not hold."""
    boards = played.shape[0]
    rows = np.ascontiguousarray(played, dtype=np.int8).reshape(boards, played.shape[1] // 4, 4)
    by_place = np.ascontiguousarray(rows.view(np.uint8).transpose(1, 2, 0))  # (trick, place, board)
    tricks = by_place.shape[0]
    suit, key = _suits_and_keys(by_place, _trumps(trump))
    # With the first card in column 0 a trick's winning column is its winning place.
    place = _winning_columns(suit, key, np.zeros((tricks, boards), dtype=np.uint8), suit[:, 0])
    out = _Out(boards, tricks)
    out.leaders[1:] = np.cumsum(place[:-1], axis=0) & 3
    out.winners[:] = (out.leaders + place) & 3
    out.rightful[1:] = out.winners[:-1]
    table = _rotate(rows, out.leaders.T)
    cells = np.ascontiguousarray(table.view(np.uint8).transpose(1, 2, 0))
    _settle(out, slice(None), cells, cells // _U13, _complete(by_place), _sides(side, boards), dealt, known)
    return out.play(), table


def _rotate(rows: Cards, shift: Ints) -> Cards:
    """Each trick's four cards (boards, tricks, 4) moved `shift` (boards, tricks) columns on:
    place k to column shift + k. A trick's four one-byte numbers are one 32-bit word (place 0
    lowest), so this rotates the word by 8 * shift bits (written twice side by side, then shifted)."""
    words = np.ascontiguousarray(rows).view("<u4")[..., 0].astype(np.uint64)
    doubled = words | (words << np.uint64(32))
    turned = (doubled >> (np.uint64(8) * ((4 - shift) & 3).astype(np.uint64))).astype("<u4")
    table: Cards = turned[..., None].view(np.int8)
    return table


def played_order(table: Cards, leaders: Ints) -> Cards:
    """Each trick's cards from its leader's column round the table, shape (boards, 4 * tricks)."""
    played: Cards = _rotate(table, -np.asarray(leaders)).reshape(table.shape[0], 4 * table.shape[1])
    return played


def played_twice(played: Cards) -> Bools:
    """(boards, cards) in the order played: the card was played before (an unknown card never was)."""
    bits = _bits(np.ascontiguousarray(played, dtype=np.int8).view(np.uint8))
    seen = np.bitwise_or.accumulate(bits, axis=1)
    twice = np.zeros(bits.shape, dtype=bool)
    twice[:, 1:] = (bits[:, 1:] & seen[:, :-1]) != 0
    return twice


def holders(table: Cards, dealt: Masks, leaders: Ints, board: Ints, trick: Ints, column: Ints) -> Counts:
    """The column holding each card named (by board, trick and column) just before it was played
    there: the column dealt it, unless that column played it already; -1 when none does."""
    card = table[board, trick, column]
    bit = _bits(card.view(np.uint8))
    owner = np.argmax((dealt[board] & bit[:, None]) != 0, axis=1)
    dealt_to = (dealt[board, owner] & bit) != 0
    lead = leaders[board, trick]
    mine = table[board, :, owner]  # (cards named, tricks)
    parted = ((mine == card[:, None]) & (np.arange(table.shape[1]) < trick[:, None])).any(axis=1) \
        | ((mine[np.arange(card.size), trick] == card) & (((owner - lead) & 3) < ((column - lead) & 3)))
    return np.where(dealt_to & ~parted, owner, -1).astype(np.int64)


def by_column(played: Ints, holder: Ints, opening_leader: Ints) -> tuple[Cards, Ints]:
    """Cards in played order (rows of 52, -1 padded) as `replay`'s table, and the column of each
    trick's first card (-1 for a trick without cards).

    `holder` (boards, 52) is the seat number of each card's holder, `opening_leader` each board's
    opening leader's. A trick's first card goes to its holder's column and the others to the
    columns after it, in turn round the table: `replay` with these as `leads` then finds a card that
    the seat of its column does not hold (played out of turn, or not held at all), and whether each
    trick was led by the winner of the one before (`Play.rightful`).
    """
    rows = np.ascontiguousarray(played, dtype=np.int8)
    lead = rows[:, ::4]
    seat = np.take_along_axis(holder, np.maximum(lead, 0).astype(np.intp), axis=1)
    first = np.where(lead >= 0, (seat - opening_leader[:, None]) & 3, -1)
    table = _rotate(rows.reshape(rows.shape[0], rows.shape[1] // 4, 4), np.maximum(first, 0))
    return table, first


def dealt_by_column(holder: Ints, opening_leader: Ints) -> Masks:
    """(boards, 4): the cards of each column's seat, from each card's holder (`by_column`'s terms)."""
    column = (holder - opening_leader[:, None]) & 3
    masks = np.zeros((holder.shape[0], 4, 8), dtype=np.uint8)
    for which in range(4):
        masks[:, which, :7] = np.packbits(column == which, axis=1, bitorder="little")
    dealt: Masks = masks.view("<u8")[:, :, 0]
    return dealt
