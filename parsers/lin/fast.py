"""Vectorised fast path of the BBO LIN reader: the whole text at once, for every well-formed file.

`loads_columnar(data)` reads the whole text at once into a `ColumnarFile`, or returns None when it
cannot vouch for the result; the careful reader (`parsers.lin.loads`), with its positioned
diagnostics, then takes the file. Whenever it returns a file, that file equals
`columnar_from_parsed(parsers.lin.loads(data))`: the fast path accepts only files on which the
careful reader reports nothing at all, and checks at least what the careful reader checks.

What it reads: UTF-8 text without double-encoded accents, in the shapes BBO and the vugraph tools
write: "my hands" files (one `pn` block per board, on one line or many), hand records and vugraph
matches (a header `vg`, `rs`, `pw`, `mn`, then `qx|o1|` / `qx|c1|` blocks, players named in the
block, just before it or in the header), line ends (LF, CRLF or CR) between tokens, at the end of
the values the careful reader strips and inside the values it ignores (`fast_text`), commentary
and layout keys (`nt`, `at`, `sa`, `pg` ...). Declined, for the careful reader: anything it would
report, an undo (`up`), published `mp` scores, and a result taken from `rs` alone. All boards at once:
- blocks (`fast_blocks`): board numbers (heading or slot), players, rooms and teams, `rs` entries;
- deal (`fast_deals`): 13 cards per hand given, no card dealt twice;
- auction (`fast_auction`): every call legal, the auction complete and ending with its last call;
- play (`fast_play`): each card held by the player due to play it, no card twice, suit
  followed, at most 52 cards; claims consistent with the play; a result for every contract;
- `rs`: each entry names the contract played and, when it says, its tricks;
- board numbers: a board repeated in the file has the same deal, dealer and vulnerability.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

import numpy as np
import polars as pl
import pyarrow as pa

from models.events import BoardDealt, ResultRecorded
from parsers.arrow import named, series
from parsers.bridge.auction_arrays import Auctions, read_auctions
from parsers.bridge.calls import CALL_NAMES
from parsers.bridge.play_arrays import CARD_NAMES
from parsers.columnar import BOARD_SCHEMA, PLAYERS, RESULT_SCHEMA, ColumnarFile, conformed, encode_published
from parsers.lin.fast_auction import SPELLING_WIDTH, call_numbers
from parsers.lin.fast_blocks import Blocks, read_blocks
from parsers.lin.fast_bytes import (
    Declined,
    Ints,
    Names,
    Tokens,
    by_board,
    per_board,
    require,
    tokens,
    vulnerabilities,
)
from parsers.lin.fast_deals import MD_WIDTH, SEATS, card_numbers, pbn_deals, read_deals
from parsers.lin.fast_play import declarer_tricks, replay, trump_suits
from parsers.lin.fast_text import require_harmless, without_line_ends
from parsers.lin.lexer import _MOJIBAKE
from parsers.lin.reader import PARSER_VERSION

logger = logging.getLogger(__name__)

_BOM = b"\xef\xbb\xbf"
_PN_SEATS = ("south", "west", "north", "east")  # the order `pn` names the players
_SOUTH, _WEST, _NORTH, _EAST = range(4)
_CONTRACTS: dict[int, str] = {3 * bid + doubling: f"{name}{('', 'X', 'XX')[doubling]}"
                              for bid, name in enumerate(CALL_NAMES[:35]) for doubling in range(3)} | {-1: "PASS"}


def loads_columnar(data: str | bytes, *, source: str = "<string>", strict: bool = False) -> ColumnarFile | None:
    """Read LIN text (or UTF-8 bytes) into frames, or None when the careful reader must take the file.

    `strict` is accepted for symmetry with `parsers.lin.loads`; it cannot change a file this path
    returns, because such a file has no diagnostic for strict mode to turn into an error.
    Never raises.
    """
    try:
        return _read(data, source)
    except Declined as declined:
        logger.debug("%s: LIN fast path declined (%s); the careful reader takes it", source, declined)
        return None
    except Exception:  # a bug here must cost speed, never the file
        logger.exception("LIN fast path failed on %s; the careful reader takes it", source)
        return None


def _read(data: str | bytes, source: str) -> ColumnarFile:
    raw, line_ends = without_line_ends(_utf8(data))
    toks = tokens(raw)
    require_harmless(line_ends, toks)
    blocks = read_blocks(toks, line_ends)
    deals = read_deals(toks.values(blocks.md, MD_WIDTH))
    calls = _calls(toks)
    contracts = read_auctions(calls.rows, deals.dealer)
    cards = _cards(toks)
    tricks = replay(cards.rows, deals.holder, contracts.declarer, trump_suits(contracts.bid))
    require(bool(((contracts.calls > 0) | (blocks.rs == "").to_numpy()).all()),
            "a result in the results list (rs) alone")  # the careful reader takes the result from it
    taken = declarer_tricks(contracts.bid >= 0, tricks, _claims(toks))
    _require_rs_agrees(blocks.rs, contracts, taken)
    lines = _lines(toks, blocks)
    return ColumnarFile(source=source, format="lin", parser_version=PARSER_VERSION,
                        metadata=blocks.header.metadata(),
                        boards=_board_frame(lines, deals.dealer, pbn_deals(deals)),
                        results=_own_tables(_result_frame(lines, blocks, contracts, taken, calls, cards)))


_RS = r"^([1-7])(NT|[CDHSN])([NESW])(XX|X)?(=|[+-][0-9]{1,2})?$"  # `parsers.lin.values.parse_rs`


def _require_rs_agrees(rs: pl.Series, contracts: Auctions, taken: Ints) -> None:
    """Decline unless every `rs` entry of a played contract names that contract and (if it says)
    its tricks: the careful reader warns of any other."""
    checked = ((contracts.bid >= 0) & (rs != "").to_numpy())
    if not checked.any():
        return
    bid, doubling = contracts.bid[checked], contracts.doubling[checked]
    parts = rs.filter(pl.Series(checked)).str.to_uppercase().str.extract_groups(_RS).struct.unnest()
    level = bid // 5 + 1
    over = parts.get_column("5").replace("=", "0").cast(pl.Int64, strict=False).fill_null(0).to_numpy()
    agrees = pl.DataFrame({"level": level, "strain": pl.Series(list("CDHSN")).gather(bid % 5),
                           "declarer": pl.Series(SEATS).gather(contracts.declarer[checked]),
                           "doubling": pl.Series(["", "X", "XX"]).gather(doubling)}).select(
        (pl.col("level") == parts.get_column("1").cast(pl.Int64))
        & (pl.col("strain") == parts.get_column("2").str.slice(0, 1))
        & (pl.col("declarer") == parts.get_column("3"))
        & (pl.col("doubling") == parts.get_column("4").fill_null(""))).to_series().fill_null(False)
    stated = parts.get_column("5").is_not_null().to_numpy()
    require(bool(agrees.all()) and bool((~stated | (level + 6 + over == taken[checked])).all()),
            "an rs entry that differs from the table's record")


def _own_tables(results: pl.DataFrame) -> pl.DataFrame:
    """`parsers.lin.records.derived_table` for every row: the room in a team match, else the two pairs."""
    team = pl.col("room").is_not_null()
    # A pair with no names gets an id of its own and a warning from the careful reader.
    require(bool(results.select((team | ((pl.col("ns_id") != "NS") & (pl.col("ew_id") != "EW"))).all()).item()),
            "a pair with no names")
    results = results.with_columns(
        table_id=pl.when(team).then(pl.col("room")).otherwise(pl.concat_str("ns_id", pl.lit(" v "), "ew_id")))
    if results.select(pl.struct("board", "table_id").is_duplicated().any()).item():
        raise Declined("two results for one table of a board")  # the careful reader numbers and reports them
    return results


def _lines(toks: Tokens, blocks: Blocks) -> pl.DataFrame:
    """One row per block: `record`, `line`, `board`, `vulnerability`, the four players' names,
    the room (open, closed or null) and the `rs` entry."""
    every = np.arange(toks.boards)
    team = blocks.room >= 0
    return pl.DataFrame([
        pl.Series("record", every, dtype=pl.Int64), pl.Series("line", blocks.line, dtype=pl.Int64),
        pl.Series("board", blocks.number, dtype=pl.Int64), vulnerabilities(toks),
        *(series(blocks.names.of(every, (k,))).alias(seat) for k, seat in enumerate(_PN_SEATS)),
        series(named(np.maximum(blocks.room, 0), _ROOMS, team)).alias("room"), blocks.rs,
    ])


@dataclass(frozen=True)
class _Values:
    """The numbers of one key's values on every board: in text order, and one row per board."""

    flat: Ints
    """Every value, in text order."""
    count: Ints
    """How many values each board has."""
    rows: Ints
    """(boards, width): each board's values in order, -1 padded."""


def _calls(toks: Tokens) -> _Values:
    """Every board's calls as call numbers."""
    mb = toks.of("mb")
    values, count = call_numbers(toks.packed(mb, SPELLING_WIDTH)), per_board(toks, mb)
    # (At least one column, so that rows are never empty.)
    return _Values(flat=values, count=count, rows=by_board(count, values, width=max(1, int(count.max(initial=0)))))


def _cards(toks: Tokens) -> _Values:
    """Every board's cards in played order as card numbers (rows of 52)."""
    pc = toks.of("pc")
    values, count = card_numbers(*toks.letters(pc)), per_board(toks, pc)
    return _Values(flat=values, count=count, rows=by_board(count, values, width=52))


def _claims(toks: Tokens) -> Ints:
    """Every board's claim (`mc`, tricks for declarer in all); -1 where there is none."""
    mc = toks.of("mc")
    require(bool((toks.length[mc] > 0).all()), "an empty claim")
    return by_board(per_board(toks, mc), _claim_numbers(toks.packed(mc, 2)), width=1)[:, 0]


def _utf8(data: str | bytes) -> bytes:
    """The UTF-8 bytes of the text as the careful reader decodes it."""
    if isinstance(data, str):
        try:
            raw = data.encode("utf-8")
        except UnicodeEncodeError as exc:  # lone surrogates in a str
            raise Declined("text that is not Unicode") from exc
    else:
        raw = data.removeprefix(_BOM)
    if not raw.isascii():  # (ASCII is UTF-8, and nothing in it looks double-encoded)
        if isinstance(data, bytes):
            _require_utf8(raw)
        # The careful reader repairs (and reports) values that look double-encoded; its own pattern
        # says what looks so, and is run only where its first two characters may stand.
        if _may_be_double_encoded(raw):
            require(_MOJIBAKE.search(raw.decode("utf-8")) is None, "text that may be double-encoded")
    return raw


def _require_utf8(raw: bytes) -> None:
    """Decline unless the bytes are UTF-8 (the careful reader would warn and read them as cp1252).

    Only the runs of non-ASCII bytes are decoded, each with the ASCII byte after it, which ends
    any character: valid runs so separated are valid in place (decoding the whole text as a
    `str` costs ten times as much).
    """
    text = np.frombuffer(raw, dtype=np.uint8)
    high = text >= 0x80
    keep = high.copy()
    keep[1:] |= high[:-1]
    try:
        text[keep].tobytes().decode("utf-8")
    except UnicodeDecodeError as exc:
        raise Declined("not UTF-8 (the careful reader warns and reads it as cp1252)") from exc


# The UTF-8 lead bytes of the characters that may follow the first of `_MOJIBAKE`'s pattern:
# U+0080-U+00BF (C2), and the cp1252 punctuation it lists (C5, C6, CB, E2).
_SECOND_LEADS = np.array([0xC2, 0xC5, 0xC6, 0xCB, 0xE2], dtype=np.uint8)


def _may_be_double_encoded(raw: bytes) -> bool:
    """Whether the UTF-8 bytes hold a character U+00C2-U+00F4 (C3 82-B4) followed by a character
    that `_MOJIBAKE` pairs with it: a quick test over the bytes before its regex over the text."""
    text = np.frombuffer(raw, dtype=np.uint8)
    lead = np.flatnonzero(text[:-2] == 0xC3)
    second, third = text[lead + 1], text[lead + 2]
    return bool(((second >= 0x82) & (second <= 0xB4) & np.isin(third, _SECOND_LEADS)).any())


def _claim_numbers(packed: Ints) -> Ints:
    """`mc` values (one or two bytes, packed by `Tokens.packed`) as numbers; declines any but digits."""
    first, second = (packed & 0xFF).astype(np.int16) - ord("0"), (packed >> 8).astype(np.int16) - ord("0")
    one = second == -ord("0")  # no second byte
    digits = (first >= 0) & (first <= 9) & (one | ((second >= 0) & (second <= 9)))
    require(bool(digits.all()), "a claim not in digits")
    return np.where(one, first, 10 * first + second).astype(np.int8)


def _board_frame(lines: pl.DataFrame, dealer: Ints, deal: pl.Series) -> pl.DataFrame:
    """One hand record per board number, where it first appears (as `parsers.lin` dedupes)."""
    frame = lines.select(
        "record", "line", pl.lit("").alias("section"), "board",
        pl.Series("dealer", SEATS).gather(dealer), "vulnerability", deal,
    )
    if frame.get_column("board").is_duplicated().any():
        same = frame.select(pl.struct("dealer", "vulnerability", "deal").n_unique().over("board") == 1)
        require(bool(same.to_series().all()), "a board repeated with a different deal, dealer or vulnerability")
        frame = frame.filter(pl.col("board").is_first_distinct())
    return conformed(frame, BOARD_SCHEMA, BoardDealt)


_CONTRACT_NAMES = tuple(_CONTRACTS[code] for code in range(-1, 105))  # contract code + 1
_ROOMS = ("open", "closed")


def _lists(values: _Values, rows: Ints, names: tuple[str, ...]) -> pl.Series:
    """The picked rows' values as a list column of their texts.

    The rows left out must have no values (so that the values are those of the rows, in order).
    """
    offsets = np.zeros(rows.size + 1, dtype=np.int64)
    np.cumsum(values.count[rows], out=offsets[1:])
    require(int(offsets[-1]) == values.flat.size, "values on a board without a result")
    return series(pa.LargeListArray.from_arrays(pa.array(offsets), named(values.flat, names)))


def _pairs(people: Names, first: int, second: int, rows: Ints) -> pl.Series:
    """Each row's pair as `parsers.lin.records` names it: both players (`pn` positions `first`,
    `second`), unless neither has a name."""
    unnamed = (people.length[rows, first] == 0) & (people.length[rows, second] == 0)
    players = people.of(rows[~unnamed], (first, second))
    struct = pa.StructArray.from_arrays([players, pa.nulls(len(players), pa.string_view())],
                                        names=["name", "federation_id"])
    offsets = np.zeros(rows.size + 1, dtype=np.int64)
    np.cumsum(np.where(unnamed, 0, 2), out=offsets[1:])
    return series(pa.LargeListArray.from_arrays(pa.array(offsets), struct)).cast(PLAYERS)


def _side_id(first: str, second: str, fallback: str) -> pl.Expr:
    unnamed = (pl.col(first) == "") & (pl.col(second) == "")
    return pl.when(unnamed).then(pl.lit(fallback)).otherwise(pl.concat_str(first, pl.lit("/"), second))


def _result_frame(lines: pl.DataFrame, blocks: Blocks, contracts: Auctions, taken: Ints,
                  calls: _Values, cards: _Values) -> pl.DataFrame:
    """One result per board with an auction; a passed-out board has no declarer, tricks or lead."""
    rows = np.flatnonzero(contracts.calls > 0)
    contract = contracts.bid[rows] >= 0
    lead = cards.rows[rows, 0]
    frame = lines[rows]
    people = blocks.names
    home, away = blocks.header.teams()
    ns_team = pl.when(pl.col("room") == "open").then(pl.lit(home)).otherwise(pl.lit(away))
    ew_team = pl.when(pl.col("room") == "open").then(pl.lit(away)).otherwise(pl.lit(home))
    team = pl.col("room").is_not_null()
    published = pl.when(pl.col("rs") == "").then(pl.lit(encode_published({}))).otherwise(
        pl.concat_str(pl.lit('{"rs":"'), "rs", pl.lit('"}')))
    return frame.select(
        "record", "line", pl.lit("").alias("section"), "board",
        pl.lit("").alias("table_id"),  # named by `_own_tables`
        pl.lit(None, dtype=pl.Int64).alias("round"), pl.col("room").cast(pl.String),
        pl.when(team).then(ns_team).otherwise(_side_id("north", "south", "NS")).alias("ns_id"),
        pl.when(team).then(ew_team).otherwise(_side_id("east", "west", "EW")).alias("ew_id"),
        series(named(np.where(contract, 3 * contracts.bid[rows] + contracts.doubling[rows] + 1, 0), _CONTRACT_NAMES))
        .alias("contract"),
        series(named(contracts.declarer[rows], SEATS, contract)).alias("declarer"),
        series(pa.array(taken[rows], type=pa.int64(), mask=taken[rows] < 0)).alias("tricks"),
        series(named(lead, CARD_NAMES, lead >= 0)).alias("lead"),
        _lists(calls, rows, CALL_NAMES).alias("auction"),
        _lists(cards, rows, CARD_NAMES).alias("play"),
        published.alias("published"),
        _pairs(people, _NORTH, _SOUTH, rows).alias("ns_players"),
        _pairs(people, _EAST, _WEST, rows).alias("ew_players"),
    ).pipe(conformed, RESULT_SCHEMA, ResultRecorded)
