"""The small pieces of markup every row of a traveller or score card repeats: a suit, a contract, a
contestant with their names.

They were jinja macros; a macro call costs a frame, a context and a caller object, and a score card
makes about a hundred of them, a third of its rendering. As functions they give the same bytes. Each
value is escaped (`_text`); only the fixed markup around it is trusted. (`Markup.format` would do the
same through `string.Formatter`, at several times the cost.)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from markupsafe import Markup, escape

_SUITS = {
    "S": Markup('<span class="suit s" title="spades">♠</span>'),
    "H": Markup('<span class="suit h" title="hearts">♥</span>'),
    "D": Markup('<span class="suit d" title="diamonds">♦</span>'),
    "C": Markup('<span class="suit c" title="clubs">♣</span>'),
}
_NO_TRUMP = Markup("NT")


def _text(value: object) -> str:
    """A value as escaped HTML text (None as `None`, as jinja prints it)."""
    return str(escape(value))


def suit(strain: object) -> Markup:
    """A suit symbol, with its name for screen readers (`NT` for anything else)."""
    return _SUITS.get(strain, _NO_TRUMP) if isinstance(strain, str) else _NO_TRUMP


def contract(parts: Mapping[str, Any] | None, words: Mapping[str, str]) -> Markup:
    """A contract from `views.contract_parts`: `4♠X`, the word for passed out, or nothing."""
    if parts is None:
        return Markup("")
    if parts["passed"]:
        return Markup(f'<span class="pass">{_text(words["passed"])}</span>')
    return Markup(f"{_text(parts['level'])}{suit(parts['strain'])}{_text(parts['doubling'])}")


def who(contestant: object, names: object, href: object) -> Markup:
    """A contestant (linked to its score card when `href`), then its players' names if any."""
    if href:
        shown = f'<a href="{_text(href)}"><bdi>{_text(contestant)}</bdi></a>'
    else:
        shown = f"<bdi>{_text(contestant if contestant is not None else '?')}</bdi>"
    return Markup(f'{shown} <span class="names"><bdi>{_text(names)}</bdi></span>' if names else shown)
