"""The small pieces of markup every row of a traveller or score card repeats: a suit, a contract, a
contestant with their names.

They were jinja macros; a macro call costs a frame, a context and a caller object, and a score card
makes about a hundred of them, a third of its rendering. As functions they give the same bytes. Each
value is escaped (`_text`); only the fixed markup around it is trusted. (`Markup.format` would do the
same through `string.Formatter`, at several times the cost.)
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from functools import cache
from typing import Any

from markupsafe import Markup, escape

from pipelines.site.paths import RANKING_DIR, player_page

_SUITS = {"S": ("s", "spades", "♠"), "H": ("h", "hearts", "♥"), "D": ("d", "diamonds", "♦"), "C": ("c", "clubs", "♣")}
"""A suit's class, the label of its name, and its symbol."""


_CONTROLS = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
"""Control characters a file may carry (a NUL from a CSV): no page shows them (HTML forbids most),
so they are left out of the text; the log keeps the file's bytes."""


def shown(value: Any) -> Any:
    """A value as a page prints it: a string without control characters; markup (already made of
    shown values) and anything else as it is. jinja's `finalize` for every `{{ }}`."""
    if isinstance(value, str) and not isinstance(value, Markup) and not value.isprintable():
        return _CONTROLS.sub("", value)  # (printable text has no control character: most values)
    return value


def _text(value: object) -> str:
    """A value as escaped HTML text (None as `None`, as jinja prints it)."""
    return str(escape(shown(value)))


@cache
def _suit_markup(css: str, name: str, symbol: str) -> Markup:
    return Markup(f'<span class="suit {css}" title="{_text(name)}">{symbol}</span>')


def suit(strain: object, words: Mapping[str, str]) -> Markup:
    """A suit symbol, with its name in the page's language for screen readers (the page's word for
    no trump for anything else)."""
    shape = _SUITS.get(strain) if isinstance(strain, str) else None
    if shape is None:
        return Markup(_text(words["nt"]))
    css, name, symbol = shape
    return _suit_markup(css, words[name], symbol)


def contract(parts: Mapping[str, Any] | None, words: Mapping[str, str]) -> Markup:
    """A contract from `views.contract_parts`: `4♠X`, the word for passed out, or nothing."""
    if parts is None:
        return Markup("")
    if parts["passed"]:
        return Markup(f'<span class="pass">{_text(words["passed"])}</span>')
    return Markup(f"{_text(parts['level'])}{suit(parts['strain'], words)}{_text(parts['doubling'])}")


def who(contestant: object, names: object, href: object) -> Markup:
    """A contestant (linked to its score card when `href`), then its players' names if any."""
    if href:
        shown = f'<a href="{_text(href)}"><bdi>{_text(contestant)}</bdi></a>'
    else:
        shown = f"<bdi>{_text(contestant if contestant is not None else '?')}</bdi>"
    return Markup(f'{shown} <span class="names"><bdi>{_text(names)}</bdi></span>' if names else shown)


def names_markup(segments: Sequence[Sequence[str]], root: str) -> Markup:
    """A contestant's names from (text, player id) pieces (`views.Names.segments`): a piece with a
    player id is linked to that player's page in the ranking, from a page `root` away from the site's root."""
    return Markup("".join(f'<a href="{_text(root + RANKING_DIR + "/" + player_page(player))}">{_text(text)}</a>'
                          if player else _text(text) for text, player in segments))


def strip_items(strip: list[Mapping[str, Any]]) -> Markup:
    """A board page's strip of board links (`session_pages.board_strip`), one `<li>` a line: a gap,
    the board shown (marked as the current page) or a link. A page per board of a session of
    100,000: as a loop in the template its twenty-odd links were a fifth of the page's rendering."""
    items = []
    for item in strip:
        text = _text(item["text"])
        if item["gap"]:
            items.append(f'<li><span class="gap">{text}</span></li>\n')
        elif item["current"]:
            items.append(f'<li><a href="{_text(item["href"])}" aria-current="page">{text}</a></li>\n')
        else:
            items.append(f'<li><a href="{_text(item["href"])}">{text}</a></li>\n')
    return Markup("".join(items))


def hand_lines(lines: list[Mapping[str, Any]], words: Mapping[str, str]) -> Markup:
    """A hand of a deal diagram (`views.hand_diagram`), a suit a line."""
    return Markup("".join(f'<div class="line">{suit(line["suit"], words)} {_text(line["ranks"])}</div>'
                          for line in lines))
