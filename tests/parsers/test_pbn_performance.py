"""Throughput against endplay's PBN parser on generated games with full auction and play."""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest
from endplay.parsers import pbn as endplay_pbn

import parsers.pbn as pbn
from tests.parsers.conftest import random_file


def cpu_seconds(work: Callable[[], object], runs: int = 3) -> float:
    """Best CPU time of a few runs (CPU time, because the machine may be shared)."""
    best = float("inf")
    for _ in range(runs):
        start = time.process_time()
        work()
        best = min(best, time.process_time() - start)
    return best


@pytest.mark.slow
def test_reader_is_several_times_faster_than_endplay() -> None:
    text = random_file(2000, seed=11)
    parsed = pbn.loads(text)
    assert len(parsed.boards) == 2000 and len(parsed.results) == 2000 and parsed.diagnostics == ()
    assert all(len(r.play) == 52 for r in parsed.results)
    ours = cpu_seconds(lambda: pbn.loads(text))
    theirs = cpu_seconds(lambda: endplay_pbn.loads(text))
    # Measured about 4.5-5x on the 10,000-game benchmark; 2.5x leaves room for a loaded machine.
    assert theirs / ours > 2.5, f"ours {ours:.3f}s, endplay {theirs:.3f}s"
