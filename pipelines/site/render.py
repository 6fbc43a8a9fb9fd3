"""Templates and the values every page shares: language, times in the event's zone, status badges."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from functools import cache
from typing import Any
from zoneinfo import ZoneInfo

from jinja2 import Environment, FileSystemBytecodeCache, PackageLoader, StrictUndefined, select_autoescape

from pipelines.site import fragments
from pipelines.site.gather import EventInfo, SessionInfo
from pipelines.site.labels import labels

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


_DICT_ATTRIBUTES = frozenset(dir(dict))


class _Environment(Environment):
    """jinja's environment, looking a plain dict's keys up first.

    The pages' values are dicts, and `row.board` tries the attribute first: for a dict that is an
    AttributeError raised and caught every time, a fifth of the rendering. A plain dict has no
    attribute but its methods, so for any other name the key is what jinja would find anyway.
    """

    def getattr(self, obj: Any, attribute: str) -> Any:
        """`obj.attribute` in a template: the key of a plain dict, else jinja's own lookup."""
        if type(obj) is dict and attribute not in _DICT_ATTRIBUTES:
            try:
                return obj[attribute]
            except KeyError:
                pass
        return super().getattr(obj, attribute)


_CACHE_PATTERN = "__bridgeledger_site_finalize_shown_%s.cache"
"""The compiled templates' cache files. jinja keys them by the template's source alone, not by the
environment's options, and `finalize` is compiled in: a template compiled under other options must
not be read back, so the options are named in the files' names (change it with them)."""


@cache
def environment() -> Environment:
    """The site's templates, autoescaped: every value from a file is text, never markup."""
    # Compiled templates are kept between processes (jinja's own per-user cache folder, checked by
    # the templates' source): compiling them took a tenth of a fresh site build's time.
    env = _Environment(loader=PackageLoader("pipelines.site", "templates"),
                       autoescape=select_autoescape(default=True, default_for_string=True),
                       undefined=StrictUndefined, trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True,
                       auto_reload=False,  # no stat of the template files at every page: a build never edits them
                       bytecode_cache=FileSystemBytecodeCache(pattern=_CACHE_PATTERN), finalize=fragments.shown)
    env.globals.update(suit=fragments.suit, contract=fragments.contract, who=fragments.who,
                       strip_items=fragments.strip_items, hand_lines=fragments.hand_lines)
    return env


def render(template: str, **context: Any) -> bytes:
    """A page as UTF-8 bytes."""
    return environment().get_template(template).render(**context).encode()


def stylesheet() -> bytes:
    """The one stylesheet."""
    source, _, _ = environment().loader.get_source(environment(), "site.css")  # type: ignore[union-attr]
    return source.encode()


def local_time(micros: int | None, zone: str) -> datetime | None:
    """An epoch-microsecond time in the event's time zone."""
    if micros is None:
        return None
    return (_EPOCH + timedelta(microseconds=micros)).astimezone(ZoneInfo(zone))


def clock(micros: int | None, zone: str) -> str:
    """`21:30 CET`."""
    moment = local_time(micros, zone)
    return "" if moment is None else moment.strftime("%H:%M %Z")


def stamp(micros: int | None, zone: str) -> str:
    """`2026-11-21 21:30 CET`."""
    moment = local_time(micros, zone)
    return "" if moment is None else moment.strftime("%Y-%m-%d %H:%M %Z")


def iso(micros: int | None, zone: str) -> str:
    """ISO 8601 with the zone's offset, for `<time datetime>`."""
    moment = local_time(micros, zone)
    return "" if moment is None else moment.isoformat(timespec="minutes")


def status_of(status: str, until_us: int | None, zone: str) -> dict[str, str]:
    """What the badge says: final, provisional until HH:MM, or not yet published."""
    return {"status": status, "until": clock(until_us, zone) if status == "provisional" else "",
            "until_iso": iso(until_us, zone) if status == "provisional" else ""}


def page_context(event: EventInfo, root: str, crumbs: list[dict[str, str]], title: str) -> dict[str, Any]:
    """What base.html needs: language, words, the way back to the root, breadcrumbs."""
    return {"lang": event.conditions.language, "t": labels(event.conditions.language), "root": root,
            "crumbs": crumbs, "title": title}


def session_name(info: SessionInfo, words: Mapping[str, str]) -> str:
    """`Session 1`."""
    return f"{words['session']} {info.session_id}"


def direction_label(direction: str, words: Mapping[str, str]) -> str:
    """NS, EW, or the word for one field."""
    return {"NS": words["ns"], "EW": words["ew"]}.get(direction, words["all"])


def session_summary(info: SessionInfo, zone: str, words: Mapping[str, str]) -> dict[str, Any]:
    """A session as the event and session pages head it."""
    return {
        "name": session_name(info, words), "date": info.played_on.isoformat() if info.played_on else "",
        "method": words.get(f"method_{info.method}", info.method),
        "status": status_of(info.status, info.deadline_us, zone),
        "published": stamp(info.published_us, zone), "published_iso": iso(info.published_us, zone),
        "deadline": stamp(info.deadline_us, zone), "deadline_iso": iso(info.deadline_us, zone),
    }
