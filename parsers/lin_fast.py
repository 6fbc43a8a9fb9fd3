"""Vectorised fast path of the BBO LIN reader, for well-formed "one board per line" files.

`loads_columnar(data)` reads the whole text at once into a `ColumnarFile`, or returns None when it
cannot vouch for the result; the careful reader (`parsers.lin.loads`), with its positioned
diagnostics, then takes the file. Whenever it returns a file, that file equals
`columnar_from_parsed(parsers.lin.loads(data))`: the fast path accepts only files on which the
careful reader reports nothing at all, and checks at least what the careful reader checks.

What it accepts (`parsers.lin_fast_lex.LINE_GRAMMAR`): UTF-8 text without double-encoded accents,
one board per line (LF or CRLF) in BBO's key order, names `pn` of four players, a heading `ah|Board N`, and
calls, cards and claims in the spellings BBO writes. Vugraph files, headers, unknown keys and
anything irregular are declined. What it checks, all boards at once:
- deal (`lin_fast_deal`): 13 cards per hand given, no card dealt twice;
- auction (`lin_fast_auction`): every call legal, the auction complete and ending with its last call;
- play (`lin_fast_play`): each card held by the player due to play it, no card twice, suit
  followed, at most 52 cards; claims consistent with the play; a result for every contract;
- board numbers: a board repeated in the file has the same deal, dealer and vulnerability.
"""

from __future__ import annotations

import logging

import numpy as np
import polars as pl

from parsers.columnar import BOARD_SCHEMA, PLAYERS, RESULT_SCHEMA, ColumnarFile, encode_published
from parsers.lin_fast_auction import CALL_NAMES, SPELLING_WIDTH, Contracts, call_numbers, read_auctions
from parsers.lin_fast_deal import CARD_NAMES, SEATS, card_numbers, pbn_deals, read_deals
from parsers.lin_fast_lex import (
    Declined,
    Ints,
    Tokens,
    board_lines,
    board_numbers,
    by_board,
    require,
    tokens,
    vulnerabilities,
    widest,
)
from parsers.lin_fast_play import declarer_tricks, replay, trump_suits
from parsers.lin_lexer import _MOJIBAKE
from parsers.records import FileMetadata

logger = logging.getLogger(__name__)

_BOM = b"\xef\xbb\xbf"
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
    text = _text(data)
    raw = _utf8(text)
    lines = board_lines(text)
    toks = tokens(raw)
    boards = lines.height
    md = toks.of("md")
    # The grammar makes every board one line with one deal; everything below relies on that.
    require(int(toks.board[-1]) + 1 == boards and np.array_equal(toks.board[md], np.arange(boards)),
            "token and line views disagree")
    deals = read_deals(toks.values(md))
    calls = _calls(toks, boards)
    contracts = read_auctions(calls, deals.dealer)
    cards = _cards(toks, boards)
    tricks = replay(cards, deals.holder, contracts.declarer, trump_suits(contracts.bid))
    taken = declarer_tricks(contracts.bid >= 0, tricks, _claims(toks, boards))
    numbered = lines.with_columns(pl.int_range(pl.len(), dtype=pl.Int64).alias("record"),
                                  pl.Series("board", board_numbers(toks, boards)), vulnerabilities(toks, boards))
    return ColumnarFile(source=source, format="lin", parser_version=_parser_version(), metadata=FileMetadata(),
                        boards=_board_frame(numbered, deals.dealer, pbn_deals(deals.holder)),
                        results=_result_frame(numbered, contracts, taken, calls, cards))


def _calls(toks: Tokens, boards: int) -> Ints:
    """Every board's calls as call numbers, one row per board (-1 padded)."""
    mb = toks.of("mb")
    values = call_numbers(toks.packed(mb, SPELLING_WIDTH))
    return by_board(toks.board[mb], values, boards, width=widest(toks.board[mb], boards))


def _cards(toks: Tokens, boards: int) -> Ints:
    """Every board's cards in played order as card numbers, one row of 52 per board (-1 padded)."""
    pc = toks.of("pc")
    return by_board(toks.board[pc], card_numbers(toks.pairs(pc)), boards, width=52)


def _claims(toks: Tokens, boards: int) -> Ints:
    """Every board's claim (`mc`, tricks for declarer in all); -1 where there is none."""
    mc = toks.of("mc")
    return by_board(toks.board[mc], _claim_numbers(toks.packed(mc, 2)), boards, width=1)[:, 0]


def _text(data: str | bytes) -> str:
    """The text as the careful reader decodes it, with CRLF line ends as LF."""
    if isinstance(data, bytes):
        try:
            text = data.removeprefix(_BOM).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise Declined("not UTF-8 (the careful reader warns and reads it as cp1252)") from exc
    else:
        text = data
    # The careful reader repairs (and reports) values that look double-encoded; its own pattern
    # says what looks so.
    require(text.isascii() or _MOJIBAKE.search(text) is None, "text that may be double-encoded")
    if "\r" in text:
        # A CRLF is one line end for the careful reader too, so line numbers stay the same.
        text = text.replace("\r\n", "\n")
        # A lone CR ends a line for the careful reader but not for the line split here.
        require("\r" not in text, "a lone CR")
    return text


def _utf8(text: str) -> bytes:
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError as exc:  # lone surrogates in a str
        raise Declined("text that is not Unicode") from exc


def _claim_numbers(packed: Ints) -> Ints:
    """`mc` values (one or two digits per the grammar, packed by `Tokens.packed`) as numbers."""
    first, second = (packed & 0xFF).astype(np.int8) - ord("0"), (packed >> 8).astype(np.int8) - ord("0")
    return np.where(second >= 0, 10 * first + second, first).astype(np.int8)


def _parser_version() -> str:
    # Imported here: `parsers.lin` imports this module to re-export `loads_columnar`.
    from parsers.lin import PARSER_VERSION

    return PARSER_VERSION


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
    return frame.cast(BOARD_SCHEMA)


def _lists(codes: Ints, names: tuple[str, ...]) -> pl.Series:
    """Rows of codes (-1 padded at the end) as a list column of their names."""
    table = pl.Series([*names, None], dtype=pl.String)
    # Padding gathers the trailing null, then each row is cut to its length (`list.drop_nulls` is 8x slower).
    flat = table.gather(np.where(codes >= 0, codes, len(names)).ravel().astype(np.uint32))
    rows = pl.DataFrame({"row": flat.reshape(codes.shape).arr.to_list(), "length": (codes >= 0).sum(axis=1)})
    return rows.select(pl.col("row").list.head(pl.col("length"))).to_series()


def _pairs(first: pl.Series, second: pl.Series) -> pl.Series:
    """Each row's pair as `parsers.lin_board` names it: both players, unless neither has a name."""
    rows = first.len()
    # Interleaved (first, second, first, second ...) then cut in twos: `concat_list` of structs is ~25x slower.
    names = pl.concat([first, second]).gather(np.arange(2 * rows).reshape(2, rows).T.ravel())
    players = pl.DataFrame({"name": names, "federation_id": pl.repeat(None, 2 * rows, dtype=pl.String, eager=True)})
    pairs = players.to_struct().reshape((rows, 2)).arr.to_list()
    unnamed = (first == "") & (second == "")
    return pl.select(pl.when(unnamed).then(pl.lit(pl.Series([[]], dtype=PLAYERS))).otherwise(pairs)).to_series()


def _side_id(first: str, second: str, fallback: str) -> pl.Expr:
    unnamed = (pl.col(first) == "") & (pl.col(second) == "")
    return pl.when(unnamed).then(pl.lit(fallback)).otherwise(pl.concat_str(first, pl.lit("/"), second))


def _result_frame(lines: pl.DataFrame, contracts: Contracts, taken: Ints, calls: Ints, cards: Ints) -> pl.DataFrame:
    """One result per board with an auction; a passed-out board has no declarer, tricks or lead."""
    contract = contracts.bid >= 0
    frame = lines.with_columns(
        pl.Series("contract", np.where(contract, 3 * contracts.bid + contracts.doubling, -1)),
        pl.Series("declarer", np.where(contract, contracts.declarer, -1)),
        pl.Series("tricks", taken),
        pl.Series("lead", cards[:, 0]),
        _lists(calls, CALL_NAMES).alias("auction"),
        _lists(cards, CARD_NAMES).alias("play"),
    ).filter(pl.Series(contracts.calls > 0))
    return frame.select(
        "record", "line", pl.lit("").alias("section"), "board",
        (pl.col("record") + 1).cast(pl.String).alias("table_id"),
        pl.lit(None, dtype=pl.Int64).alias("round"), pl.lit(None, dtype=pl.String).alias("room"),
        _side_id("north", "south", "NS").alias("ns_id"), _side_id("east", "west", "EW").alias("ew_id"),
        pl.col("contract").replace_strict(_CONTRACTS, return_dtype=pl.String),
        pl.col("declarer").replace_strict(dict(enumerate(SEATS)), default=None, return_dtype=pl.String),
        pl.when(pl.col("tricks") >= 0).then(pl.col("tricks")).alias("tricks"),
        pl.col("lead").replace_strict(dict(enumerate(CARD_NAMES)), default=None, return_dtype=pl.String),
        "auction", "play", pl.lit(encode_published({})).alias("published"),
        _pairs(frame.get_column("north"), frame.get_column("south")).alias("ns_players"),
        _pairs(frame.get_column("east"), frame.get_column("west")).alias("ew_players"),
    ).cast(RESULT_SCHEMA)
