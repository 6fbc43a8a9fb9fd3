"""Plots as static SVG drawn by matplotlib, byte-for-byte the same for the same data.

matplotlib's SVG writer is deterministic once its id salt and the file's metadata are fixed. Text
stays text (`svg.fonttype` none: the reader's own sans-serif draws it, and nothing is fetched), and
axes carry a handful of ticks: drawing glyphs as paths and a tick per board took most of a site build.
"""

from __future__ import annotations

import io
from collections import Counter
from collections.abc import Sequence
from typing import Any

_STYLE: Any = {  # matplotlib types its rc keys as literals
    "svg.hashsalt": "bridgeledger",
    "svg.fonttype": "none",
    "font.family": "sans-serif",
    "font.size": 9,
    "axes.spines.top": False,
    "axes.spines.right": False,
}
_METADATA = {"Date": None, "Creator": None, "Format": None, "Type": None}
_INK, _GRID, _GAIN, _LOSS = "#1f4e79", "#c8c8c8", "#2e7d32", "#b3261e"


def _figure(width: float, height: float) -> Any:
    from matplotlib.figure import Figure

    figure = Figure(figsize=(width, height))
    # Fixed margins: a constrained layout measures every label first and doubles the drawing time.
    figure.subplots_adjust(left=0.1, right=0.98, top=0.95, bottom=0.22)
    return figure


def _svg(figure: Any) -> bytes:
    import matplotlib

    buffer = io.StringIO()
    with matplotlib.rc_context(_STYLE):
        figure.savefig(buffer, format="svg", metadata=_METADATA)
    return buffer.getvalue().encode()


def running_plot(boards: Sequence[int], values: Sequence[float], *, percent: bool, ylabel: str) -> bytes:
    """A contestant's running percentage (or total) board by board."""
    import matplotlib
    from matplotlib.ticker import MaxNLocator

    with matplotlib.rc_context(_STYLE):
        figure = _figure(6.4, 2.6)
        axes = figure.add_subplot()
        steps = list(range(1, len(values) + 1))
        axes.plot(steps, values, color=_INK, marker="o", markersize=3, linewidth=1.5)
        if percent:
            axes.axhline(50, color=_GRID, linewidth=1, zorder=0)
            low, high = min([*values, 50.0]), max([*values, 50.0])
            axes.set_ylim(max(0.0, low - 5), min(100.0, high + 5))
        else:
            axes.axhline(0, color=_GRID, linewidth=1, zorder=0)
        # Boards by the count played, a few ticks: the score card above the plot lists every board.
        axes.xaxis.set_major_locator(MaxNLocator(6, integer=True))
        axes.yaxis.set_major_locator(MaxNLocator(5))
        axes.set_xlim(0.5, len(values) + 0.5)
        axes.set_xlabel(f"boards played (boards {boards[0]} to {boards[-1]})" if boards else "boards played")
        axes.set_ylabel(ylabel)
        axes.grid(axis="y", color=_GRID, linewidth=0.5)
        return _svg(figure)


def distribution_plot(scores_ns: Sequence[int]) -> bytes:
    """How many tables scored each NS score on a board (positive scores green, negative red)."""
    import matplotlib
    from matplotlib.ticker import MaxNLocator

    counts = sorted(Counter(scores_ns).items())
    with matplotlib.rc_context(_STYLE):
        figure = _figure(6.4, 2.4)
        axes = figure.add_subplot()
        labels = [str(score) for score, _ in counts]
        axes.bar(range(len(counts)), [n for _, n in counts], color=[_GAIN if s >= 0 else _LOSS for s, _ in counts])
        axes.set_xticks(range(len(counts)), labels, fontsize=7, rotation=45 if len(counts) > 8 else 0)
        axes.set_xlabel("score for NS")
        axes.set_ylabel("tables")
        axes.yaxis.set_major_locator(MaxNLocator(4, integer=True))
        axes.grid(axis="y", color=_GRID, linewidth=0.5)
        return _svg(figure)
