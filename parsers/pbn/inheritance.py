"""Tag value inheritance (§4.8): `#` takes the nearest previous value, `##text` sets a header.

A value `#` inherits the value of the same tag in the nearest previous game that has it (`""` when
none does). A value `##text` means "text, here and in every later game"; later games may omit the
tag, and a plain value (`#` included) ends that propagation. Dealer, Vulnerable, Deal, Declarer,
Contract, Auction, Play and notes may not inherit: in strict mode that is an error, in lenient mode
a warning (we still resolve it, because the file's intent is clear).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Iterator

from parsers.pbn.games import PbnGame
from parsers.pbn.issues import Issue, at_value, warning

FORBIDDEN = frozenset({"Dealer", "Vulnerable", "Deal", "Declarer", "Contract", "Auction", "Play", "Note"})
"""Tags that may not use # or ##."""


class Inheritance:
    """Streaming resolver: feed games in file order to `resolve`."""

    def __init__(self) -> None:
        self.previous: dict[str, str] = {}
        """Resolved value of each tag in the nearest previous game that has it."""
        self.sticky: dict[str, str] = {}
        """Values set with ## that later games get when they omit the tag."""

    def resolve(self, game: PbnGame) -> tuple[PbnGame, list[Issue]]:
        """The game with inherited values filled in, and problems with forbidden inheritance."""
        issues: list[Issue] = []
        tags = list(game.tags)
        seen: set[str] = set()
        for i, (name, value, section) in enumerate(tags):
            if name == "Note" or name in seen:
                continue
            seen.add(name)
            if value == "#" or value.startswith("##"):
                if name in FORBIDDEN:
                    issues.append(warning("pbn.inherit.forbidden", f"{name} may not inherit its value with "
                                          f"{value[:2]!r}.", at_value(i)))
                if value.startswith("##"):
                    value = value[2:]
                    self.sticky[name] = value
                else:
                    value = self.previous.get(name, "")
                    self.sticky.pop(name, None)
                tags[i] = (name, value, section)
            else:
                self.sticky.pop(name, None)
        added = [name for name in self.sticky if name not in seen]
        tags.extend((name, self.sticky[name], "") for name in added)
        for name, value, _ in reversed(tags):
            if name != "Note":
                self.previous[name] = value
        if not added and tags == list(game.tags):
            return game, issues
        return dataclasses.replace(game, tags=tuple(tags), inherited=frozenset(added)), issues


def resolve(games: Iterable[PbnGame]) -> Iterator[PbnGame]:
    """Resolve # and ## over a stream of games (problems are dropped; `load` reports them)."""
    state = Inheritance()
    for game in games:
        yield state.resolve(game)[0]
