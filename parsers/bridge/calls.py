"""Calls: the one vocabulary of the auction, and every spelling the readers accept.

The rules a call must follow (Laws 18 and 19) are not here but in `auction_arrays`, the only place
they are written.

Calls are spelled as `ResultRecord.auction` stores them: `Pass`, `X`, `XX`, `1C` ... `7NT`. Each
format's spellings are built here from that vocabulary, so that no reader or writer keeps a table of
its own:

- `CALLS` (PBN's standard spellings, upper or lower case) and `CALL_DRIFT` (what PBN files write
  instead: `PASS`, `p`, `1N`, `Dbl`; accepted with a note);
- `CALL_SPELLINGS` (LIN and the other formats: `p`, `d`, `r`, `1n`, a trailing alert `!`).
"""

from __future__ import annotations

from models.contract import Strain

PASS, DOUBLE, REDOUBLE = "Pass", "X", "XX"
"""The three calls that are not bids."""

STRAINS: tuple[Strain, ...] = (Strain.C, Strain.D, Strain.H, Strain.S, Strain.NT)
"""Strains from lowest to highest."""

BIDS: tuple[str, ...] = tuple(f"{level}{strain.value}" for level in range(1, 8) for strain in STRAINS)
"""The 35 bids from 1C to 7NT, in ascending order."""

BID_RANK: dict[str, int] = {bid: rank for rank, bid in enumerate(BIDS)}
"""Bid -> its place in `BIDS` (a higher bid has a higher rank)."""


# The engine's numbers (`auction_arrays`), here so that a module wording its verdicts needs no numpy.
CALL_NAMES: tuple[str, ...] = (*BIDS, PASS, DOUBLE, REDOUBLE)
"""Normalised calls (`ResultRecord.auction` spelling) by call number."""
CALL_NUMBERS: dict[str, int] = {call: number for number, call in enumerate(CALL_NAMES)}
"""Normalised call -> its call number."""
PASS_CALL, DOUBLE_CALL, REDOUBLE_CALL = 35, 36, 37

ALL_PASSES = 4
"""Passes enough to end any auction, whatever came before (PBN's `AP` stands for those up to its end)."""

LEGAL, INSUFFICIENT, BAD_DOUBLE, BAD_REDOUBLE, AFTER_END = range(5)
"""What `auction_arrays.Auctions.problem` says of a call: nothing wrong (or no call), a bid that does
not outrank the last bid, a double or a redouble the Laws do not allow there, a call after the end."""


def _pbn_spellings() -> tuple[dict[str, str], dict[str, str]]:
    standard: dict[str, str] = {}
    for call in (PASS, DOUBLE, REDOUBLE, *BIDS):
        standard[call] = call
        standard[call.lower()] = call
    drift: dict[str, str] = {"PASS": PASS, "P": PASS, "p": PASS, "PAS": PASS, "Dbl": DOUBLE, "DBL": DOUBLE,
                             "Rdbl": REDOUBLE, "RDBL": REDOUBLE, "D": DOUBLE, "R": REDOUBLE}
    for level in range(1, 8):
        for spelling in ("N", "n", "Nt", "nT", "SA", "sa"):
            drift[f"{level}{spelling}"] = f"{level}NT"
        for strain in "CDHS":
            drift.setdefault(f"{level}{strain.lower()}", f"{level}{strain}")
    for mixed in ("PaSS", "pASS", "PAss"):
        drift[mixed] = PASS
    return standard, drift


CALLS, CALL_DRIFT = _pbn_spellings()
"""PBN's standard spellings of calls (upper and lower case), and its drift spellings (PASS, p, 1N)."""


def _common_spellings() -> dict[str, str]:
    table: dict[str, str] = {}
    plain = {"P": PASS, "PASS": PASS, "D": DOUBLE, "X": DOUBLE, "DBL": DOUBLE,
             "R": REDOUBLE, "XX": REDOUBLE, "RDBL": REDOUBLE}
    for bid in BIDS:
        plain[bid] = bid
        if bid.endswith("NT"):
            plain[bid[:-1]] = bid
    for text, call in plain.items():
        for variant in {text, text.lower(), text.capitalize()}:
            table[variant] = call
            table[variant + "!"] = call
    return table


CALL_SPELLINGS: dict[str, str] = _common_spellings()
"""Common spellings of calls (`p`, `PASS`, `d`, `r`, `1n`, `2S!`) -> the call, for LIN and the
other formats that do not tell standard spellings from drift."""


def normalise_call(text: str) -> str | None:
    """Spell a call the way records store it: `p`/`PASS` -> Pass, `d`/`x` -> X, `r` -> XX, `1n` -> 1NT.

    A trailing alert mark (`1C!`) is dropped. Returns None when `text` is not a call.
    """
    call = CALL_SPELLINGS.get(text)
    if call is None:
        call = CALL_SPELLINGS.get(text.strip().upper().rstrip("!").replace(" ", ""))
    return call
