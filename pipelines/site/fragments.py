"""The small pieces of markup every row of a traveller or score card repeats: a suit, a contract, a
contestant with their names.

They were jinja macros; a macro call costs a frame, a context and a caller object, and a score card
makes about a hundred of them, a third of its rendering. As functions they give the same bytes. Each
value is escaped (`Markup.format`); only the fixed markup around it is trusted.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from markupsafe import Markup

_SUITS = {
    "S": Markup('<span class="suit s" title="spades">♠</span>'),
    "H": Markup('<span class="suit h" title="hearts">♥</span>'),
    "D": Markup('<span class="suit d" title="diamonds">♦</span>'),
    "C": Markup('<span class="suit c" title="clubs">♣</span>'),
}
_NO_TRUMP = Markup("NT")


def suit(strain: object) -> Markup:
    """A suit symbol, with its name for screen readers (`NT` for anything else)."""
    return _SUITS.get(strain, _NO_TRUMP) if isinstance(strain, str) else _NO_TRUMP


def contract(parts: Mapping[str, Any] | None, words: Mapping[str, str]) -> Markup:
    """A contract from `views.contract_parts`: `4♠X`, the word for passed out, or nothing."""
    if parts is None:
        return Markup("")
    if parts["passed"]:
        return Markup('<span class="pass">{}</span>').format(words["passed"])
    return Markup("{}{}{}").format(parts["level"], suit(parts["strain"]), parts["doubling"])


def who(contestant: object, names: object, href: object) -> Markup:
    """A contestant (linked to its score card when `href`), then its players' names if any."""
    if href:
        shown = Markup('<a href="{}"><bdi>{}</bdi></a>').format(href, contestant)
    else:
        shown = Markup("<bdi>{}</bdi>").format(contestant if contestant is not None else "?")
    return shown + Markup(' <span class="names"><bdi>{}</bdi></span>').format(names) if names else shown
