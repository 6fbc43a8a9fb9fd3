"""Plots as static SVG drawn by leather, byte-for-byte the same for the same data.

leather builds the SVG as an element tree from the data alone (no ids, dates or random salts), and
draws a chart in a few milliseconds: matplotlib took about fifty per plot, and a session has one
per board and one per pair, so after one correction the plots were most of the rebuild. Text stays
text in the reader's own sans-serif; nothing is fetched.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Sequence
from functools import cache
from typing import Any

_INK, _GRID, _GAIN, _LOSS = "#1f4e79", "#c8c8c8", "#2e7d32", "#b3261e"
_FONT = "sans-serif"
_THEME: dict[str, Any] = {
    "background_color": "#ffffff", "margin": 0.02,
    "title_font_family": _FONT, "legend_font_family": _FONT, "axis_title_font_family": _FONT,
    "tick_font_family": _FONT, "axis_title_color": "#333", "label_color": "#555",
    "axis_title_font_size": 12, "axis_title_font_char_height": 12, "axis_title_font_char_width": 7,
    "tick_font_size": 11, "tick_font_char_height": 11, "tick_font_char_width": 6.5, "axis_title_gap": 10,
    "tick_color": "#e6e6e6", "zero_color": _GRID, "default_dot_radius": 3, "default_line_width": 1.5,
}
_WIDTH = 640


@cache
def _leather() -> Any:
    """leather, with the site's theme (its theme is module state; the site is its only user here)."""
    import leather

    for name, value in _THEME.items():
        setattr(leather.theme, name, value)
    return leather


def _svg(chart: Any, height: int) -> bytes:
    leather = _leather()
    text: str = leather.svg.HEADER + chart.to_svg(width=_WIDTH, height=height)
    return text.encode()


def _steps(low: int, high: int, most: int) -> list[int]:
    """At most `most` whole-number ticks from `low` to `high`, a round step apart."""
    span = max(high - low, 1)
    step = next(s for s in (1, 2, 5, 10, 20, 25, 50, 100, 200, 500, 1000) if span / s < most) \
        if span < 1000 * most else math.ceil(span / most)
    first = math.ceil(low / step) * step
    return list(range(first, high + 1, step))


def _round_ticks(low: float, high: float, most: int) -> list[float]:
    """About `most` round ticks covering [low, high]."""
    span = high - low or 1.0
    raw = span / most
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 2.5, 5, 10) if m * power >= raw)
    first = math.ceil(low / step) * step
    return [round(first + i * step, 6) for i in range(int((high - first) / step + 1e-9) + 1)]


def _number(value: float, _index: int = 0, _count: int = 0) -> str:
    return f"{value:g}"


def _line_chart(xs: Sequence[float], ys: Sequence[float], y_domain: tuple[float, float], x_ticks: Sequence[float],
                x_label: Callable[[float, int, int], str], x_name: str, y_name: str) -> Any:
    """One series, drawn as a line through dots (one layer: leather adds a legend to two or more)."""
    leather = _leather()
    chart = leather.Chart()
    chart.set_x_scale(_scale(min(x_ticks[0], xs[0]) - 0.5, max(x_ticks[-1], xs[-1]) + 0.5, x_ticks))
    y_ticks = _round_ticks(*y_domain, 5)
    chart.set_y_scale(_scale(*y_domain, y_ticks))
    chart.add_x_axis(ticks=list(x_ticks), tick_formatter=x_label, name=x_name)
    chart.add_y_axis(ticks=y_ticks, tick_formatter=_number, name=y_name)
    chart.add_series(leather.Series(list(zip(xs, ys, strict=True))), _dotted_line())
    return chart


@cache
def _fixed_scale_class() -> type:
    leather = _leather()

    class FixedScale(leather.scales.base.Scale):  # type: ignore[misc, name-defined]
        """A linear scale over exactly its domain, with the ticks given: leather's `Linear` searches
        for "nice" bounds in Decimal arithmetic, most of a chart's drawing time."""

        def __init__(self, low: float, high: float, ticks: Sequence[float] = ()) -> None:
            self.low, self.high = float(low), float(high) if high > low else float(low) + 1.0
            self._ticks = list(ticks)

        def contains(self, value: float) -> bool:
            return bool(self.low <= value <= self.high)

        def project(self, value: float, range_min: float, range_max: float) -> float:
            return (range_max - range_min) * (float(value) - self.low) / (self.high - self.low) + range_min

        def project_interval(self, value: float, range_min: float, range_max: float) -> tuple[float, float]:
            raise NotImplementedError

        def ticks(self) -> list[float]:
            return self._ticks

    return FixedScale


def _scale(low: float, high: float, ticks: Sequence[float]) -> Any:
    return _fixed_scale_class()(low, high, ticks)


@cache
def _dotted_line_class() -> type:
    leather = _leather()

    class DottedLine(leather.Line):  # type: ignore[misc, name-defined]
        """leather's line with its points marked."""

        def to_svg(self, width: float, height: float, x_scale: Any, y_scale: Any, series: Any,
                   palette: Any) -> Any:
            group = super().to_svg(width, height, x_scale, y_scale, series, palette)
            group.append(leather.Dots(_INK, 3).to_svg(width, height, x_scale, y_scale, series, palette))
            return group

    return DottedLine


def _dotted_line() -> Any:
    return _dotted_line_class()(stroke_color=_INK, width=1.5)


def running_plot(boards: Sequence[int], values: Sequence[float], *, percent: bool, ylabel: str,
                 xlabel: str = "boards played (boards {first} to {last})") -> bytes:
    """A contestant's running percentage (or total) board by board; `xlabel` in the page's language,
    with `{first}` and `{last}` for the boards played first and last."""
    steps = list(range(1, len(values) + 1))
    reference = 50.0 if percent else 0.0
    low, high = min([*values, reference]), max([*values, reference])
    if percent:
        domain = (max(0.0, low - 5), min(100.0, high + 5))
    else:
        pad = (high - low) * 0.05 or 1.0
        domain = (low - pad, high + pad)
    # 50% (or 0) always in view, on a tick. Boards by the count played, a few ticks: the score card
    # above the plot lists every board.
    name = xlabel.format(first=boards[0], last=boards[-1]) if boards else xlabel.split(" (")[0]
    chart = _line_chart(steps, values, domain, _steps(1, max(len(values), 1), 7), _number, name, ylabel)
    return _svg(chart, 260)


def distribution_plot(scores_ns: Sequence[int], *, xlabel: str = "score for NS", ylabel: str = "tables") -> bytes:
    """How many tables scored each NS score on a board (positive scores green, negative red); the
    axes named in the page's language."""
    leather = _leather()
    counts = sorted(Counter(scores_ns).items())
    chart = leather.Chart()
    labels = [str(score) for score, _ in counts]
    chart.set_x_scale(leather.Ordinal(labels))
    most = max((n for _, n in counts), default=1)
    y_ticks = _steps(0, most, 5)
    chart.set_y_scale(_scale(0, most, y_ticks))
    chart.add_x_axis(name=xlabel)
    chart.add_y_axis(ticks=y_ticks, tick_formatter=_number, name=ylabel)
    chart.add_columns([(str(score), n) for score, n in counts],
                      fill_color=lambda d: _GAIN if int(d.x) >= 0 else _LOSS)
    return _svg(chart, 240)


def history_plot(editions: Sequence[str], points: Sequence[float], *, ylabel: str,
                 xlabel: str = "published editions") -> bytes:
    """A player's ranking points edition by edition (0 where the player was not ranked)."""
    steps = list(range(len(points)))
    low, high = min([*points, 0.0]), max([*points, 0.0])
    pad = (high - low) * 0.05 or 1.0
    # The first and last editions named; the table above the plot lists the points.
    shown = sorted({0, len(editions) - 1}) if editions else [0]

    def edition(value: float, _index: int, _count: int) -> str:
        return editions[int(value)] if 0 <= int(value) < len(editions) else ""

    chart = _line_chart(steps, points, (low - pad, high + pad), shown, edition, xlabel, ylabel)
    return _svg(chart, 260)
