"""Where each page lives in the site, as relative paths that work from a folder, a server or a zip.

Ids come from files and may hold any character, so every path segment is a slug: letters, digits,
`-` and `_` kept, anything else replaced, and a short digest of the original appended whenever
something was replaced, so that two different ids never share a file.
"""

from __future__ import annotations

import hashlib
import re

_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")

STYLESHEET = "assets/site.css"
"""The one stylesheet, relative to the site's root."""


def slug(text: str) -> str:
    """A file-name-safe form of an id that no other id shares."""
    safe = _UNSAFE.sub("_", text)[:40]
    if safe == text and text:
        return text
    return f"{safe}~{hashlib.sha256(text.encode()).hexdigest()[:8]}".lstrip("~")


def event_dir(event_id: str) -> str:
    """The folder of an event's pages."""
    return f"e-{slug(event_id)}"


def session_dir(event_id: str, session_id: str) -> str:
    """The folder of a session's pages."""
    return f"{event_dir(event_id)}/s-{slug(session_id)}"


def board_page(section: str, board: int) -> str:
    """A board's traveller, relative to its session's folder."""
    return f"board-{slug(section)}-{board}.html" if section else f"board-{board}.html"


def card_page(section: str, direction: str, contestant: str) -> str:
    """A contestant's score card, relative to its session's folder."""
    prefix = f"{slug(section)}-" if section else ""
    return f"card-{prefix}{direction.lower()}-{slug(contestant)}.html"


def plot_name(page: str) -> str:
    """The SVG plot beside a page (same name, in the session's `plots` folder)."""
    return f"plots/{page.removesuffix('.html')}.svg"


RANKING_DIR = "ranking"
"""The folder of the federation ranking's pages."""


def player_page(player_id: str) -> str:
    """A ranked player's page, relative to the ranking's folder."""
    return f"player-{slug(player_id)}.html"


def table_anchor(table: str) -> str:
    """A table's row on its traveller: the `id` a score card's link points to (a slug, so any table
    id from a file makes a valid `id` and fragment)."""
    return f"t-{slug(table)}"


def audit_anchor(section: str, board: int, table: str) -> str:
    """A table's entries on its session's audit page."""
    return f"a-{slug(section)}-{board}-{slug(table)}" if section else f"a-{board}-{slug(table)}"
