"""A reader in the browser: opens a page of a site folder and notes what it would not want to see."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.site.conftest import ARTEFACTS

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 900}


@dataclass
class Visit:
    """One page as a reader saw it, with every request it made and every error it logged."""

    page: Any
    console_errors: list[str] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)
    dialogs: list[str] = field(default_factory=list)

    def close(self) -> None:
        """Close the page's browser context."""
        self.page.context.close()

    def texts(self, selector: str) -> list[str]:
        """The visible text of every element the selector finds."""
        return [t.strip() for t in self.page.locator(selector).all_inner_texts()]

    def assert_clean(self, site: Path) -> None:
        """No console error, no script dialog, no request outside the site's folder."""
        root = site.resolve().as_uri() + "/"
        assert self.console_errors == []
        assert self.dialogs == []
        assert self.requests, "the page made no request at all"
        assert [url for url in self.requests if not url.startswith(root)] == []


def visit(browser: Any, site: Path, relative: str, *, viewport: dict[str, int] = DESKTOP,
          screenshot: str | None = None) -> Visit:
    """Open `relative` in a fresh browser context sized to `viewport`; keep a screenshot if named."""
    context = browser.new_context(viewport=viewport)
    page = context.new_page()
    seen = Visit(page)
    page.on("console", lambda message: seen.console_errors.append(message.text) if message.type == "error" else None)
    page.on("pageerror", lambda error: seen.console_errors.append(str(error)))
    page.on("request", lambda request: seen.requests.append(request.url))
    page.on("dialog", lambda dialog: (seen.dialogs.append(dialog.message), dialog.dismiss()))
    page.goto((site / relative).resolve().as_uri())
    page.wait_for_load_state("load")
    if screenshot:
        ARTEFACTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(ARTEFACTS / f"{screenshot}.png"), full_page=True)
    return seen
