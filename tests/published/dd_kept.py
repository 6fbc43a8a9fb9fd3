"""endplay's analyses of the deals the published-analysis tests compare, kept in `dd_kept.json`.

Seeded into each test's store (`pipelines.site.analysis.seed_from_file`) so that the comparisons
read the solver's results instead of solving some sixty deals each run; a test checks a few of
them against the real solver. Written by the real solver, never by hand:

    PYTHONPATH=. python -m tests.published.dd_kept
"""

from __future__ import annotations

from pathlib import Path

from pipelines.site.analysis import canonical_deal, solve, solver_version, write_analyses_file
from tests.conftest import CORPUS

KEPT = Path(__file__).with_name("dd_kept.json")
FILES = ("pbn/endplay_realbridge_2021_teams.pbn", "pbn/bridgecomposer_latin1.pbn", "pbn/pbnref_three_records_crlf.pbn",
         "pbn/bbohelper_daylong_2024-06-02.pbn", "pbn/bridgecomposer_hand_trophy_pairs.pbn")
"""The corpus files whose published double-dummy analyses the tests compare with ours."""


def corpus_deals() -> list[str]:
    """The complete deals of `FILES`, canonical (from North), sorted, each once."""
    from tests.corpus import read

    deals = {canonical_deal(board.deal.to_pbn() if board.deal else None)
             for name in FILES for board in read(CORPUS / name).boards}
    return sorted(d for d in deals if d is not None)


def main() -> None:
    """Solve every deal of `corpus_deals` with endplay and keep the analyses."""
    version = solver_version()
    assert version is not None, "endplay is not installed"
    write_analyses_file(KEPT, solve(corpus_deals()), version)


if __name__ == "__main__":
    main()
