"""Values inside LIN tokens: the deal (`md`), vulnerability (`sv`), cards (`pc`), `rs` results.

The LIN reader builds tens of thousands of hands and cards per second, so this module checks the
invariants of `Hand`, `Deal` and `Card` itself (valid ranks, no card twice, 13 cards a hand, ranks
highest first) and then assembles the frozen models with pydantic's `model_construct`, skipping
re-validation (which costs ~0.2 ms per deal, mostly in `Deal`'s duplicate check building 52 `Card`
models). The tests check that every record built this way survives `model_validate` unchanged.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import cast

from models.board import Vulnerability
from models.cards import RANKS, SUITS, Card, Deal, Hand, Seat
from models.contract import Contract, Doubling, Strain
from parsers.bridge.cards import RANK_BIT

MASK_SEATS: tuple[Seat, ...] = (Seat.N, Seat.E, Seat.S, Seat.W)
"""Seat order of `parsers.bridge.play.hand_masks`."""
LIN_SEATS: tuple[Seat, ...] = (Seat.S, Seat.W, Seat.N, Seat.E)
"""Seat order of `md` hands and `pn` names."""
LIN_DEALER: dict[str, Seat] = {"1": Seat.S, "2": Seat.W, "3": Seat.N, "4": Seat.E}
"""`md` dealer digit -> seat."""
DEALER_DIGIT: dict[Seat, str] = {seat: digit for digit, seat in LIN_DEALER.items()}
"""Seat -> `md` dealer digit."""

def _card_tables() -> tuple[dict[str, Card], dict[str, str]]:
    cards: dict[str, Card] = {}
    codes: dict[str, str] = {}
    for suit in SUITS:
        for rank in RANKS:
            card = Card.model_construct(suit=suit, rank=rank)
            code = f"{suit.value}{rank}"
            spellings = {code, code.lower(), suit.value + rank.lower(), suit.value.lower() + rank}
            if rank == "T":
                spellings |= {f"{suit.value}10", f"{suit.value.lower()}10"}
            for spelling in spellings:
                cards[spelling] = card
                codes[spelling] = code
    return cards, codes


CARDS, CARD_CODES = _card_tables()
"""Any accepted card spelling (`SA`, `sa`, `S10`) -> the one shared `Card` instance / canonical code `SA`."""

_VULS: dict[str, Vulnerability] = {"o": Vulnerability.NONE, "O": Vulnerability.NONE, "0": Vulnerability.NONE,
                                   "n": Vulnerability.NS, "N": Vulnerability.NS,
                                   "e": Vulnerability.EW, "E": Vulnerability.EW,
                                   "b": Vulnerability.BOTH, "B": Vulnerability.BOTH}
VUL_LETTER: dict[Vulnerability, str] = {Vulnerability.NONE: "o", Vulnerability.NS: "n",
                                        Vulnerability.EW: "e", Vulnerability.BOTH: "b"}
"""Vulnerability -> the letter BBO writes."""


def parse_vulnerability(text: str) -> Vulnerability | None:
    """Read `sv` (`o`/`0`/`n`/`e`/`b`, any case, and the PBN spellings); None when unreadable."""
    vul = _VULS.get(text)
    if vul is not None:
        return vul
    try:
        return Vulnerability.parse(text)
    except ValueError:
        return None


_BBO_HAND = re.compile(r"S([^SHDC]*)H([^SHDC]*)D([^SHDC]*)C([^SHDC]*)")
_SUIT_PART = re.compile(r"([SHDC])([^SHDC]*)")
_BIT = RANK_BIT
_FULL_SUIT = (1 << 13) - 1
_ranks_cache: dict[str, tuple[int, str] | None] = {}
_mask_text: dict[int, str] = {}


def _ranks_of(mask: int) -> str:
    text = _mask_text.get(mask)
    if text is None:
        text = _mask_text[mask] = "".join(rank for i, rank in enumerate(RANKS) if mask >> i & 1)
    return text


def _suit(raw: str) -> tuple[int, str] | None:
    """Ranks of one suit -> (bit mask, ranks highest first); None for a bad or repeated rank.

    Cached: BBO writes each holding the same way (ranks low to high), so a long file keeps hitting it.
    """
    cached = _ranks_cache.get(raw, False)
    if cached is not False:
        return cached  # type: ignore[return-value]
    mask = 0
    for rank in raw.replace("10", "T"):
        bit = _BIT.get(rank, 0)
        if not bit or mask & bit:
            mask = -1
            break
        mask |= bit
    result = None if mask < 0 else (mask, _ranks_of(mask))
    if len(_ranks_cache) < 200_000:
        _ranks_cache[raw] = result
    return result


Holding = tuple[tuple[int, str], tuple[int, str], tuple[int, str], tuple[int, str]]
"""One hand as (mask, ranks) for spades, hearts, diamonds, clubs."""


def parse_hand(text: str) -> Holding | str:
    """Read one LIN hand (`S358TH28D34579C89`, `10` for T, any case, ranks in any order).

    Returns (mask, ranks highest first) per suit S, H, D, C, or an error message.
    """
    match = _BBO_HAND.fullmatch(text)
    if match is None:
        return _parse_irregular_hand(text)
    spades, hearts, diamonds, clubs = match.groups()
    suits = (_suit(spades), _suit(hearts), _suit(diamonds), _suit(clubs))
    if None in suits:
        return _parse_irregular_hand(text)
    return cast(Holding, suits)


def _parse_irregular_hand(text: str) -> Holding | str:
    token = text.strip().upper()
    if token[:1] not in ("S", "H", "D", "C") and token:
        return f"{text.strip()!r} is not a hand: it must start with a suit letter S, H, D or C"
    masks = [0, 0, 0, 0]
    for letter, raw in _SUIT_PART.findall(token):
        suit = _suit(raw.strip())
        i = "SHDC".index(letter)
        if suit is None or masks[i] & suit[0]:
            return (f"{text.strip()!r} is not a hand: {letter}{raw.strip()} has a card twice or a rank "
                    "that is not AKQJT98765432")
        masks[i] |= suit[0]
    return cast(Holding, tuple((mask, _ranks_of(mask)) for mask in masks))


@dataclass(slots=True)
class ParsedDeal:
    """What `md` said: dealer, hands by seat (None = not given), and any problems."""

    dealer: Seat | None
    """Dealer from the leading digit."""
    holdings: dict[Seat, Holding | None]
    """Per seat (mask, ranks) for S, H, D, C; the fourth hand is derived when three are given."""
    errors: list[str]
    """Problems that make the deal untrustworthy."""
    warnings: list[str]
    """Irregularities that do not."""
    _deal: Deal | None = None

    def masks(self) -> list[int] | None:
        """The hands as `parsers.bridge.play.hand_masks` (16 suit masks, N E S W); None unless all four are known."""
        masks: list[int] = []
        for seat in MASK_SEATS:
            holding = self.holdings[seat]
            if holding is None:
                return None
            masks += (holding[0][0], holding[1][0], holding[2][0], holding[3][0])
        return masks

    def deal(self) -> Deal:
        """The deal as a model (built once, without re-validation: `parse_md` checked it)."""
        if self._deal is not None:
            return self._deal
        built = {seat: None if h is None else _hand_model(h) for seat, h in self.holdings.items()}
        self._deal = Deal.model_construct(north=built[Seat.N], east=built[Seat.E],
                                          south=built[Seat.S], west=built[Seat.W])
        return self._deal


def _hand_model(h: Holding) -> Hand:
    return Hand.model_construct(spades=h[0][1], hearts=h[1][1], diamonds=h[2][1], clubs=h[3][1])


_SEAT_NAME = {Seat.N: "North", Seat.E: "East", Seat.S: "South", Seat.W: "West"}


_md_cache: dict[str, ParsedDeal] = {}


def parse_md(value: str) -> ParsedDeal:
    """Read `md`: dealer digit (1=S, 2=W, 3=N, 4=E) then hands S, W, N, E separated by commas.

    Three hands (with or without a trailing comma) are the usual form; the fourth is the rest of
    the pack. Every given hand must hold 13 cards and no card may be dealt twice. Results are
    cached (and shared: `ParsedDeal` is not modified after parsing), because a tournament file
    repeats each deal at every table.
    """
    parsed = _md_cache.get(value)
    if parsed is None:
        parsed = _parse_md(value)
        if len(_md_cache) >= 4096:
            _md_cache.clear()
        _md_cache[value] = parsed
    return parsed


def _parse_md(value: str) -> ParsedDeal:
    text = value.strip()
    errors: list[str] = []
    warnings: list[str] = []
    dealer = LIN_DEALER.get(text[:1])
    if dealer is not None:
        text = text[1:]
    elif text[:1].isdigit():
        warnings.append(f"dealer digit {text[0]!r} is not 1-4 (1=S, 2=W, 3=N, 4=E); dealer taken from Law 2")
        text = text[1:]
    else:
        warnings.append("the deal has no dealer digit; dealer taken from Law 2")
    pieces = text.split(",")
    if len(pieces) > 4 and any(p.strip() for p in pieces[4:]):
        errors.append(f"the deal lists {len(pieces)} hands; LIN gives at most four (S, W, N, E)")
    pieces += [""] * (4 - len(pieces))
    holdings: dict[Seat, Holding | None] = {}
    for seat, piece in zip(LIN_SEATS, pieces, strict=False):
        holdings[seat] = _read_seat_hand(seat, piece, errors) if piece else None
    if not errors:
        _complete_pack(holdings, errors, warnings)
    return ParsedDeal(dealer=dealer, holdings=holdings, errors=errors, warnings=warnings)


def _read_seat_hand(seat: Seat, piece: str, errors: list[str]) -> Holding | None:
    holding = parse_hand(piece)
    if isinstance(holding, str):
        if not piece.strip():
            return None
        errors.append(f"{_SEAT_NAME[seat]}: {holding}")
        return None
    count = holding[0][0].bit_count() + holding[1][0].bit_count() + holding[2][0].bit_count() \
        + holding[3][0].bit_count()
    if count != 13:
        errors.append(f"{_SEAT_NAME[seat]}'s hand has {count} cards; a hand has 13")
    return holding


def _complete_pack(holdings: dict[Seat, Holding | None], errors: list[str], warnings: list[str]) -> None:
    """Check no card is dealt twice; fill in the fourth hand from the three given."""
    known = [h for h in holdings.values() if h is not None]
    union = []
    for i, suit in enumerate("SHDC"):
        seen = 0
        for h in known:
            if seen & h[i][0]:
                twice = _ranks_of(seen & h[i][0])
                errors.append(f"card(s) {', '.join(suit + r for r in twice)} dealt to two players")
            seen |= h[i][0]
        union.append(seen)
    if errors:
        return
    missing = [seat for seat, h in holdings.items() if h is None]
    if len(missing) == 1:
        rest = tuple((m, _ranks_of(m)) for m in (_FULL_SUIT & ~u for u in union))
        holdings[missing[0]] = rest  # type: ignore[assignment]
    elif missing:
        warnings.append(f"the deal gives only {4 - len(missing)} hands; the others stay unknown")


_RS = re.compile(r"^([1-7])(NT|[CDHSN])([NESW])(XX|X)?(=|[+-]\d{1,2})?$")


def parse_rs(text: str) -> tuple[Contract, int | None] | None:
    """Read one `rs` entry (`4SW-1`, `3NE+3`, `2HE=`, `4SWx-1`, `PASS`): contract and declarer's tricks.

    Tricks are None when the entry gives no result part. Returns None when the text is unreadable.
    """
    token = text.strip().upper()
    if token in ("PASS", "P", "AP", "PASSED OUT", "ALL PASS"):
        return Contract.passed_out(), None
    match = _RS.match(token)
    if match is None:
        return None
    level, strain_text, seat, dbl, result = match.groups()
    strain = Strain.NT if strain_text in ("N", "NT") else Strain(strain_text)
    doubling = {None: Doubling.NONE, "X": Doubling.X, "XX": Doubling.XX}[dbl]
    contract = Contract(level=int(level), strain=strain, doubling=doubling, declarer=Seat(seat))
    tricks = None
    if result is not None:
        tricks = int(level) + 6 + (0 if result == "=" else int(result))
        if not 0 <= tricks <= 13:
            return None
    return contract, tricks



def format_rs(contract: Contract, tricks: int | None) -> str:
    """Write a result the way `rs` does (`4SWx-1`, `3NE+3`, `2HE=`, `PASS`)."""
    if contract.is_passed_out or contract.strain is None or contract.declarer is None:
        return "PASS"
    strain = "N" if contract.strain is Strain.NT else contract.strain.value
    text = f"{contract.level}{strain}{contract.declarer.value}{contract.doubling.value.lower()}"
    if tricks is None:
        return text
    over = tricks - contract.level - 6
    return text + ("=" if over == 0 else f"{over:+d}")
