"""The vectorised LIN reader on files from the second, independent generator (`benchmarks.wild_lin`)
and on every corpus file the careful reader reads without a word: the same frames as the careful
reader's. Vugraph mutations the careful reader reports are declined, and the ones it reads quietly
but the fast path does not (a result from `rs` alone) are declined too, never read differently.
"""

from __future__ import annotations

import io
import itertools
import re
from pathlib import Path

import pytest
from endplay.parsers import lin as endplay_lin

from benchmarks import wild_lin
from parsers import lin

from .conftest import CORPUS
from .test_lin_fast import careful, fast, read_exactly

LIN_FILES = sorted((CORPUS / "lin").glob("*.lin"))


@pytest.mark.parametrize("seed", range(1, 9))
def test_a_wild_file_is_read_exactly(seed: int) -> None:
    text = wild_lin.text(120, seed)
    answer = read_exactly(text.encode())
    assert read_exactly(text).results.equals(answer.results)
    assert answer.boards.height == (60 if seed % 2 else 120)  # both rooms of a match share a board


@pytest.mark.parametrize(("count", "seed"), [(1, 1), (1, 2), (2, 3), (3, 5), (5, 4)])
def test_a_small_wild_file_is_read_exactly(count: int, seed: int) -> None:
    read_exactly(wild_lin.text(count, seed))


@pytest.mark.parametrize("strict", [False, True])
def test_a_wild_file_is_read_the_same_in_strict_mode(strict: bool) -> None:
    read_exactly(wild_lin.text(60, 7), strict=strict)


@pytest.mark.parametrize("seed", [1, 2, 17])
def test_endplay_reads_as_many_boards_from_a_wild_file(seed: int) -> None:
    boards = endplay_lin.load(io.StringIO(wild_lin.text(90, seed)))
    assert len(boards) == 90
    assert all(board.deal is not None for board in boards)


def test_the_wild_files_hold_the_shapes_real_programs_write() -> None:
    texts = [wild_lin.text(200, seed) for seed in range(1, 7)]
    every = "".join(texts)
    for piece in ("vg|", "rs|", "pw|", "qx|o1", "qx|c1", "qx|o2,BOARD 2|", "sv|o\n|sa|0|", "st||", "an|", "nt|",
                  "mc|", "pg||", "!|", "mb|d|", "mb|r|"):
        assert piece in every, piece
    assert any("\r\n" in text for text in texts) and any("\r\n" not in text for text in texts)
    vugraph = [text for text in texts if "qx|" in text]
    assert vugraph and any(line.startswith("pn|") and "|qx|" in line for line in vugraph[0].splitlines())


def test_a_wild_match_reads_as_a_team_match() -> None:
    text = wild_lin.text(40, 3)
    home, away = text.split("|", 2)[1].split(",")[5:8:2]
    results = read_exactly(text).results
    assert set(results["room"]) == {"open", "closed"}
    assert results["table_id"].to_list() == results["room"].to_list()
    open_room = results.filter(results["room"] == "open")
    assert set(open_room["ns_id"]) == {home} and set(open_room["ew_id"]) == {away}
    assert all(p.startswith('{"rs":"') for p in results["published"])
    assert fast(text) is not None and fast(text).metadata.scoring == "I"  # type: ignore[union-attr]


@pytest.mark.parametrize("path", LIN_FILES, ids=[p.name for p in LIN_FILES])
def test_every_corpus_file_the_careful_reader_reads_quietly_is_read_exactly(path: Path) -> None:
    data = path.read_bytes()
    if lin.loads(data).diagnostics:
        assert fast(data) is None
    else:
        read_exactly(data)
        read_exactly(data, strict=True)


# -- vugraph mutations ---------------------------------------------------------------------------------

MATCH = wild_lin.text(8, 5).replace("\r\n", "\n")
_RS_LINE = next(line for line in MATCH.splitlines() if line.startswith("rs|"))
_CLOSED_DEAL = MATCH.index("md|", MATCH.index("qx|c1"))  # where the closed room's deal of board 1 starts
_OPEN_PN = next(line for line in MATCH.splitlines() if "qx|o1" in line).split("pn|")[1].split("|")[0]


def _results_list(entry: str) -> str:
    """The match with every entry of `rs` for a contract replaced by `entry`."""
    entries = [e if e in ("", "PASS") else entry for e in _RS_LINE[3:-1].split(",")]
    return MATCH.replace(_RS_LINE, "rs|" + ",".join(entries) + "|")


# name -> (the careful reader's diagnostic, the mutated text)
VUGRAPH_MUTATIONS: dict[str, tuple[str, str]] = {
    "heading differs from the slot": ("lin.ah.differs-from-qx", MATCH.replace("ah|Board 2|", "ah|Board 7|", 1)),
    "bad slot": ("lin.qx.bad-slot", MATCH.replace("qx|c2", "qx|x2", 1)),
    "rs of another contract": ("lin.rs.mismatch", _results_list("7NWxx+0")),
    "rs unreadable": ("lin.rs.bad-entry", _results_list("4Z")),
    "players NS in both rooms": ("lin.pn.team-orientation", MATCH[:_CLOSED_DEAL] + f"pn|{_OPEN_PN}|"
                                 + MATCH[_CLOSED_DEAL:]),
    "five names": ("lin.pn.bad-names", MATCH.replace(f"pn|{_OPEN_PN}|", f"pn|{_OPEN_PN},x|", 1)),
    "line end inside a card": ("lin.pc.bad-card", re.sub(r"pc\|(.)(.)\|", "pc|\\1\n\\2|", MATCH, count=1)),
    "block without a deal": ("lin.md.missing", MATCH.replace("qx|c2", "qx|c2|pg||qx|c9", 1)),
}


@pytest.mark.parametrize("name", list(VUGRAPH_MUTATIONS))
def test_a_vugraph_mutation_is_declined_and_the_careful_reader_says_why(name: str) -> None:
    code, text = VUGRAPH_MUTATIONS[name]
    assert text != MATCH
    assert code in {d.code for d in careful(text).diagnostics}, careful(text).diagnostics
    assert fast(text) is None


def test_a_result_from_the_results_list_alone_is_left_to_the_careful_reader() -> None:
    # A block with its auction but neither play nor claim: the careful reader takes the tricks
    # from `rs`, quietly; the fast path leaves that to it.
    starts = [m.start() for m in re.finditer(r"qx\|", MATCH)]
    start, end = next((a, b) for a, b in itertools.pairwise(starts) if "mc|" in MATCH[a:b])
    text = MATCH[:start] + re.sub(r"(pc|mc)\|[^|]*\|", "", MATCH[start:end]) + MATCH[end:]
    assert careful(text).diagnostics == ()
    assert len(careful(text).results) == len(careful(MATCH).results)
    assert fast(text) is None
