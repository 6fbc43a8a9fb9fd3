"""USEBIO HANDSET boards to deals: pure functions that return findings instead of reporting them."""

from __future__ import annotations

from dataclasses import dataclass, field

from pydantic import ValidationError

from models.board import Vulnerability
from models.cards import Deal, Hand, Seat
from models.diagnostics import Severity
from parsers.numbers import whole_number
from parsers.usebio.tree import Node

SEATS: dict[str, Seat] = {"N": Seat.N, "E": Seat.E, "S": Seat.S, "W": Seat.W}
"""First letter of a direction (`North`, `N`) -> seat."""


@dataclass(slots=True)
class Finding:
    """A problem found in a hand record, for the reader to report."""

    severity: Severity
    """error or warning."""
    code: str
    """Stable diagnostic code."""
    message: str
    """What is wrong, in words."""
    node: Node
    """Element it concerns."""


@dataclass(slots=True)
class HandRecord:
    """What one HANDSET BOARD says."""

    number: int | None
    """Board number, None when unreadable."""
    deal: Deal | None = None
    """The hands (the fourth filled in from three), None when none could be read."""
    dealer: Seat | None = None
    """DEALER when the file gives it."""
    vulnerability: Vulnerability | None = None
    """VULNERABILITY when the file gives it."""
    findings: list[Finding] = field(default_factory=list)
    """Problems found."""


def seat_of(text: str) -> Seat | None:
    """Seat from `North`/`N`/`n` (None when not a direction)."""
    return SEATS.get(text.strip().upper()[:1])


def read_hand_record(node: Node) -> HandRecord:
    """Read a HANDSET BOARD: BOARD_NUMBER, HAND (DIRECTION, SPADES ... CLUBS) x 3-4, DEALER, VULNERABILITY."""
    text = node.get("BOARD_NUMBER") or ""
    record = HandRecord(number=whole_number(text, low=1))
    if record.number is None:
        record.findings.append(Finding(Severity.ERROR, "usebio.hand.bad-number",
                                       f"hand record board number {text!r} is not a number", node))
    hands: dict[Seat, Hand | None] = {}
    for hand_node in node.find_all("HAND"):
        seat, hand = _hand(hand_node, record.findings)
        if seat is not None and hand is not None:
            hands[seat] = hand
    record.deal = _deal(node, hands, record.findings)
    record.dealer = seat_of(node.get("DEALER") or "")
    record.vulnerability = _vulnerability(node, record.findings)
    return record


def _hand(node: Node, findings: list[Finding]) -> tuple[Seat | None, Hand | None]:
    seat = seat_of(node.get("DIRECTION") or "")
    if seat is None:
        findings.append(Finding(Severity.ERROR, "usebio.hand.bad-direction",
                                f"hand direction {node.get('DIRECTION')!r} is not North, East, South or West", node))
        return None, None
    suits = [(node.get(name) or "").replace(" ", "").replace("-", "") for name in
             ("SPADES", "HEARTS", "DIAMONDS", "CLUBS")]
    try:
        hand = Hand(spades=suits[0], hearts=suits[1], diamonds=suits[2], clubs=suits[3])
    except ValidationError as exc:
        findings.append(Finding(Severity.ERROR, "usebio.hand.bad-hand", f"{seat.value}'s hand: {first_error(exc)}",
                                node))
        return seat, None
    if len(hand) != 13:
        findings.append(Finding(Severity.ERROR, "usebio.hand.bad-hand",
                                f"{seat.value}'s hand has {len(hand)} cards; a hand has 13", node))
    return seat, hand


def _deal(node: Node, hands: dict[Seat, Hand | None], findings: list[Finding]) -> Deal | None:
    try:
        deal = Deal.from_hands(hands).with_fourth_hand()
    except ValidationError as exc:
        findings.append(Finding(Severity.ERROR, "usebio.hand.bad-deal",
                                f"the hand record is impossible: {first_error(exc)}", node))
        return None
    return deal if any(deal.hand(seat) is not None for seat in Seat) else None


def _vulnerability(node: Node, findings: list[Finding]) -> Vulnerability | None:
    text = node.get("VULNERABILITY") or node.get("VULNERABLE")
    if not text:
        return None
    try:
        return Vulnerability.parse(text)
    except ValueError as exc:
        findings.append(Finding(Severity.WARNING, "usebio.hand.bad-vulnerability", str(exc), node))
        return None


def first_error(exc: ValidationError) -> str:
    """The first validation message, without pydantic's `Value error, ` prefix."""
    errors = exc.errors()
    return str(errors[0]["msg"]).removeprefix("Value error, ") if errors else str(exc)
