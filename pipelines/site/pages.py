"""A session's pages rendered again only when what they are made from changed.

A correction changes a session's standings and every score card (each pair's running total moves),
but only the traveller (and its plot) of the board it corrected: the other boards' pages are the
same bytes. Each traveller, score card and plot is a pure function of its template (or plot
function), the values handed to it and this package's code, so a digest of those is kept per page
in the site's manifest; a rebuild renders only the pages whose digest moved, or whose file is gone.
A build from an empty folder renders every page, and gives the same bytes.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

DIGEST_CHARS = 16
"""Hex characters of a page's digest kept (64 bits): enough to tell one page's inputs from its last
build's, and the manifest of a large site stays small (a session holds a hundred pages or more)."""


@dataclass
class Pages:
    """The pages of one session folder as a build makes them: rendered, or kept from the last build."""

    code: bytes
    """The package's code version (`build._code_version`): new code renders every page again."""
    known: Mapping[str, str] = field(default_factory=dict)
    """Page name -> its digest at the folder's last build (the manifest's)."""
    present: Callable[[str], bool] = lambda _name: False
    """Whether the folder still holds a page (by name)."""
    files: dict[str, bytes] = field(default_factory=dict)
    """Pages rendered by this build."""
    digests: dict[str, str] = field(default_factory=dict)
    """Page name -> digest of what this build made it from (rendered or kept)."""
    kept: list[str] = field(default_factory=list)
    """Pages not rendered: the same inputs as the file the folder holds."""

    def add(self, name: str, inputs: object, make: Callable[[], bytes]) -> None:
        """The page `name`, made by `make()` from `inputs` (everything it depends on: the template or
        plot function's name and the values it is given, as plain data whose repr is exact)."""
        digest = hashlib.sha256(self.code + repr(inputs).encode()).hexdigest()[:DIGEST_CHARS]
        self.digests[name] = digest
        if self.known.get(name) == digest and self.present(name):
            self.kept.append(name)
            return
        self.files[name] = make()

    def put(self, name: str, content: bytes) -> None:
        """A file rendered every time (the session's own page, downloads, audit)."""
        self.files[name] = content

    @property
    def names(self) -> list[str]:
        """Every file of the folder, rendered or kept, sorted."""
        return sorted({*self.files, *self.kept})
