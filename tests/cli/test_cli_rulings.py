"""A director's rulings reach the right contestants, as a tournament director gives them on the command line.

Every expected number is worked out here from the Laws (Law 78A matchpoints, Law 78B IMPs, Laws
90/91 penalties) and the session's own recorded results, never read back from the scorer.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

from pipelines.cli.app import app
from pipelines.log.store import EventStore
from pipelines.scoring.vp import wbf_victory_points
from tests.conftest import CORPUS, SAMPLE_DATA

runner = CliRunner()

SAMPLE = ["--event", "club-championship-2026", "--session", "1"]
FFB = ["--event", "open-2-dn1-national-finale-directe-21-22-s-ance-1", "--session", "1"]
WBTC = ["--event", "bbo2-2015wbtc-bb", "--session", "1"]
RULED = ["--director", "TD", "--reason", "UI", "--requested-at", "2026-11-21T21:00+01:00",
         "--at", "2026-11-21T21:05+01:00"]
IMP_BOUNDS = [20, 50, 90, 130, 170, 220, 270, 320, 370, 430, 500, 600, 750, 900, 1100, 1300, 1500, 1750,
              2000, 2250, 2500, 3000, 3500, 4000]
"""Law 78B: the smallest difference worth 1, 2, ... 24 IMPs."""


@pytest.fixture
def store_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "rulings.duckdb"
    monkeypatch.setenv("BRIDGELEDGER_STORE", str(path))
    return path


def run(*args: str) -> str:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.output


def scored(out: Path) -> tuple[pl.DataFrame, pl.DataFrame]:
    run("score", "--out", str(out))
    return pl.read_csv(out / "board_scores.csv", infer_schema_length=None), \
        pl.read_csv(out / "standings.csv", infer_schema_length=None)


def imps(difference: int) -> int:
    return (1 if difference >= 0 else -1) * sum(abs(difference) >= bound for bound in IMP_BOUNDS)


def matchpoints(score: int, others: list[int]) -> int:
    """Law 78A: 2 for each score beaten, 1 for each tie."""
    return sum(2 if score > other else 1 if score == other else 0 for other in others)


def standing(standings: pl.DataFrame, contestant: object, direction: str = "ALL") -> dict[str, object]:
    rows = standings.filter((pl.col("contestant_id") == contestant) & (pl.col("direction") == direction))
    assert rows.height == 1
    return rows.row(0, named=True)


def board_row(boards: pl.DataFrame, board: int, table: object) -> dict[str, object]:
    rows = boards.filter((pl.col("board") == board) & (pl.col("table_id") == table))
    assert rows.height == 1
    return rows.row(0, named=True)


# --- 1. Law 12C1(c): a weighted score stays with the table's contestants --------------------------------

def test_a_weighted_score_keeps_the_board_with_its_pairs_in_a_barometer(store_file: Path, tmp_path: Path) -> None:
    run("ingest", str(CORPUS / "pbn" / "ffb_dn1_finale_2022_seance1.pbn"))
    boards, standings = scored(tmp_path / "before")
    before = board_row(boards, 1, 17)
    board_1 = boards.filter((pl.col("board") == 1) & (pl.col("table_id") != 17))
    others = board_1["score_ns"].drop_nulls().to_list()
    assert (board_1.height, len(others)) == (21, 20)  # table 16 was given A+/A-: it is compared with no one
    run("weighted", *FFB, "--board", "1", "--table", "17", "--ns", "4S:S:10:0.7", "--ns", "4S:S:9:0.3", *RULED)
    boards, after_standings = scored(tmp_path / "after")
    ruled = board_row(boards, 1, 17)
    # 4S= is +420 and 4S-1 is -50 on board 1 (nobody vulnerable). 21 comparable results on a board 22
    # tables played: Neuberg, (MP + 1) x 22/21 - 1, to the top of 42; Magic Contest shows 0.1 MP.
    weighted = (0.7 * matchpoints(420, others) + 0.3 * matchpoints(-50, others) + 1) * 22 / 21 - 1
    assert (ruled["ns_id"], ruled["ew_id"]) == (before["ns_id"], before["ew_id"]) == (28, 17)
    assert ruled["mp_ns"] == pytest.approx(round(weighted, 1))
    assert ruled["mp_ew"] == pytest.approx(round(42 - weighted, 1))
    for pair, side in ((28, "mp_ns"), (17, "mp_ew")):
        old, new = standing(standings, pair), standing(after_standings, pair)
        assert new["boards"] == old["boards"] == 30
        assert new["score"] == pytest.approx(old["score"] - before[side] + ruled[side], abs=1e-6)


def test_a_weighted_score_keeps_the_board_with_its_pairs_in_a_mitchell(store_file: Path, tmp_path: Path) -> None:
    run("ingest", str(SAMPLE_DATA / "club_championship_traveller.csv"))
    boards, standings = scored(tmp_path / "before")
    before = board_row(boards, 3, 2)
    run("weighted", *SAMPLE, "--board", "3", "--table", "2", "--ns", "4S:N:10:0.7", "--ns", "4S:N:9:0.3",
        "--ew", "4S:N:10:1", *RULED)
    boards, after_standings = scored(tmp_path / "after")
    ruled = board_row(boards, 3, 2)
    others = boards.filter((pl.col("board") == 3) & (pl.col("table_id") != 2))["score_ns"].to_list()
    # Board 3: EW vulnerable, NS not: 4S= +420, 4S-1 -50. A split score: EW as if 4S= for NS.
    top = 2 * len(others)
    assert (ruled["ns_id"], ruled["ew_id"]) == (before["ns_id"], before["ew_id"])
    assert ruled["mp_ns"] == pytest.approx(0.7 * matchpoints(420, others) + 0.3 * matchpoints(-50, others))
    assert ruled["mp_ew"] == pytest.approx(top - matchpoints(420, others))
    for direction, pair, side in (("NS", before["ns_id"], "mp_ns"), ("EW", before["ew_id"], "mp_ew")):
        old, new = standing(standings, pair, direction), standing(after_standings, pair, direction)
        assert new["boards"] == old["boards"]
        assert new["score"] == pytest.approx(old["score"] - before[side] + ruled[side], abs=1e-6)


def test_a_weighted_score_keeps_the_board_in_its_team_match(store_file: Path, tmp_path: Path) -> None:
    run("ingest", str(CORPUS / "pbn" / "lintopbn_wbtc2015_swe_pol.pbn"))
    boards, standings = scored(tmp_path / "before")
    before = board_row(boards, 1, "closed")
    # Closed room: POLAND NS, 4S by West two down (+100); open room: 4S by West one down (+50 to SWEDEN NS).
    run("weighted", *WBTC, "--board", "1", "--table", "closed", "--ns", "4S:W:10:0.6", "--ns", "4S:W:8:0.4",
        *RULED)
    boards, after_standings = scored(tmp_path / "after")
    ruled, other_room = board_row(boards, 1, "closed"), board_row(boards, 1, "open")
    poland = 0.6 * imps(-420 - 50) + 0.4 * imps(100 - 50)
    assert poland == pytest.approx(-5.2)
    assert (ruled["ns_id"], ruled["ew_id"], ruled["match_id"]) == ("POLAND", "SWEDEN", before["match_id"])
    assert (ruled["imp_ns"], ruled["imp_ew"]) == (pytest.approx(poland), pytest.approx(-poland))
    assert (other_room["imp_ns"], other_room["imp_ew"]) == (pytest.approx(-poland), pytest.approx(poland))
    for team, sign in (("POLAND", 1), ("SWEDEN", -1)):
        old, new = standing(standings, team), standing(after_standings, team)
        assert new["boards"] == old["boards"] == 16
        assert new["score"] == pytest.approx(old["score"] + sign * (poland - before["imp_ns"]), abs=1e-6)


# --- 2-4. Laws 90/91: a penalty reaches the one contestant it names, in the session's unit ----------------

def test_a_penalty_in_a_named_section_moves_the_standings_by_exactly_its_amount(
        store_file: Path, tmp_path: Path) -> None:
    run("ingest", str(SAMPLE_DATA / "club_championship_traveller.csv"))
    _, before = scored(tmp_path / "before")
    run("penalty", *SAMPLE, "--contestant", "7", "--direction", "NS", "--amount", "3", "--unit", "MP",
        "--reason", "slow play", "--law", "90B2", "--at", "2026-11-21T21:26+01:00")
    _, after = scored(tmp_path / "after")
    old, new = standing(before, 7, "NS"), standing(after, 7, "NS")
    assert new["section"] == "A"
    assert new["score"] == pytest.approx(old["score"] - 3)
    # The percentage falls by the same 3 matchpoints over the pair's total top.
    tops = old["score"] / old["percentage"] * 100
    assert new["percentage"] == pytest.approx(old["percentage"] - 3 / tops * 100, abs=1e-3)  # CSV: 4 decimals
    unchanged = pl.exclude("rank", "tied")
    assert before.filter(pl.col("contestant_id") != 7).select(unchanged).equals(
        after.filter(pl.col("contestant_id") != 7).select(unchanged))
    assert standing(after, 7, "EW")["score"] == standing(before, 7, "EW")["score"]


def test_a_penalty_in_shares_of_a_boards_top_deducts_that_share_of_one_top(store_file: Path, tmp_path: Path) -> None:
    run("ingest", str(SAMPLE_DATA / "club_championship_traveller.csv"))
    boards, before = scored(tmp_path / "before")
    run("penalty", *SAMPLE, "--contestant", "7", "--direction", "NS", "--amount", "25", "--unit", "%top",
        "--reason", "late arrival", "--law", "90B1", "--at", "2026-11-21T21:26+01:00")
    _, after = scored(tmp_path / "after")
    top = boards.filter(pl.col("board") == 1)["mp_ns"].max() + boards.filter(pl.col("board") == 1)["mp_ew"].min()
    old, new = standing(before, 7, "NS"), standing(after, 7, "NS")
    assert new["score"] == pytest.approx(old["score"] - 0.25 * top)
    recorded = [e.payload for e in EventStore(store_file).read(types=["PenaltyAwarded"])]
    assert [(p["amount"], p["unit"]) for p in recorded] == [(25.0, "TOP%")]


def test_an_ambiguous_penalty_is_refused_and_resolved_by_its_direction(store_file: Path, tmp_path: Path) -> None:
    run("ingest", str(SAMPLE_DATA / "club_championship_traveller.csv"))
    _, before = scored(tmp_path / "before")
    chain = run("verify")
    penalty = ["penalty", *SAMPLE, "--contestant", "1", "--amount", "2", "--unit", "MP", "--reason", "late",
               "--at", "2026-11-21T21:26+01:00"]
    ambiguous = runner.invoke(app, penalty)
    assert ambiguous.exit_code == 1
    assert "ambiguous" in ambiguous.output and "NS 1 in section 'A'" in ambiguous.output
    assert "EW 1 in section 'A'" in ambiguous.output and "nothing was appended" in ambiguous.output
    for wrong in (["--contestant", "99"], ["--section", "B"], ["--direction", "N"]):
        refused = runner.invoke(app, [*penalty, *wrong])
        assert refused.exit_code == 1 and "nothing was appended" in refused.output, wrong
    assert run("verify") == chain
    run(*penalty, "--direction", "EW")
    _, after = scored(tmp_path / "after")
    assert standing(after, 1, "EW")["score"] == pytest.approx(standing(before, 1, "EW")["score"] - 2)
    assert standing(after, 1, "NS")["score"] == standing(before, 1, "NS")["score"]


def test_a_penalty_in_a_unit_the_session_does_not_score_is_refused(store_file: Path, tmp_path: Path) -> None:
    run("ingest", str(SAMPLE_DATA / "club_championship_traveller.csv"))
    chain = run("verify")
    for unit in ("IMP", "VP"):
        refused = runner.invoke(app, ["penalty", *SAMPLE, "--contestant", "7", "--direction", "NS", "--amount",
                                      "1", "--unit", unit, "--reason", "x", "--at", "2026-11-21T21:26+01:00"])
        assert refused.exit_code == 1
        assert f"is scored MP: a penalty is deducted in MP or % or TOP%, not '{unit}'" in refused.output
    assert run("verify") == chain
    run("diff-published")
    scored(tmp_path / "after")


def test_a_team_penalty_needs_no_direction(store_file: Path, tmp_path: Path) -> None:
    run("ingest", str(CORPUS / "pbn" / "lintopbn_wbtc2015_swe_pol.pbn"))
    _, before = scored(tmp_path / "before")
    refused = runner.invoke(app, ["penalty", *WBTC, "--contestant", "POLAND", "--direction", "NS",
                                  "--amount", "1", "--unit", "IMP", "--reason", "x"])
    assert refused.exit_code == 1 and "one field" in refused.output
    run("penalty", *WBTC, "--contestant", "POLAND", "--amount", "1", "--unit", "IMP", "--reason", "late",
        "--at", "2015-10-01T12:00+02:00")
    _, after = scored(tmp_path / "after")
    assert standing(after, "POLAND")["score"] == pytest.approx(standing(before, "POLAND")["score"] - 1)
    assert standing(after, "SWEDEN")["score"] == standing(before, "SWEDEN")["score"]


# --- 5. Law 78D / 86: a short match keeps its scheduled VP scale ------------------------------------------

def test_a_board_missing_in_one_room_keeps_the_scheduled_vp_scale(store_file: Path, tmp_path: Path) -> None:
    event = "2021-online-qual-open-r2"
    run("ingest", str(CORPUS / "pbn" / "endplay_realbridge_2021_teams.pbn"))
    conditions = tmp_path / "vp.toml"
    conditions.write_text('method = "VP_TEAMS"\n')
    run("register", "--event", event, "--name", "RealBridge qualifier", "--conditions", str(conditions),
        "--at", "2021-01-01T00:00Z")
    boards, standings = scored(tmp_path / "out")
    match = boards.filter(pl.col("match_id") == "SWITZERLAND v TURKEY")
    assert match["board"].n_unique() == 10 and match.height == 19  # board 20 was played in one room only
    short = match.filter(pl.col("board") == 20).row(0, named=True)
    assert (short["imp_ns"], short["imp_ew"]) == (0.0, 0.0)
    assert short["board_rule"].startswith("Law 12C2(a): no result in the other room; average (0 IMPs)")
    assert match.filter(pl.col("board") != 20)["board_rule"].is_null().all()
    # SWITZERLAND's IMPs on each board, as both rooms carry them, summed once per board.
    swiss_imps = pl.when(pl.col("ns_id") == "SWITZERLAND").then(pl.col("imp_ns")).otherwise(pl.col("imp_ew"))
    per_board = match.group_by("board").agg(swiss_imps.unique().alias("imps"))
    assert all(len(values) == 1 for values in per_board["imps"])
    margin = sum(values[0] for values in per_board["imps"])
    swiss, turkey = standing(standings, "SWITZERLAND"), standing(standings, "TURKEY")
    assert (swiss["boards"], turkey["boards"]) == (10, 10)
    expected = wbf_victory_points(margin, 10)
    assert (swiss["vp"], turkey["vp"]) == (pytest.approx(expected[0]), pytest.approx(expected[1]))
    assert expected != wbf_victory_points(margin, 9)


# --- 7. the audit: a correction before publication is an ordinary fix ------------------------------------

def test_the_audit_calls_a_correction_before_publication_an_ordinary_fix(store_file: Path, tmp_path: Path) -> None:
    run("ingest", "--at", "2026-11-21T19:00+01:00", str(SAMPLE_DATA / "club_championship_traveller.csv"))
    run("correct", *SAMPLE, "--board", "1", "--table", "4", "--tricks", "9", "--id", "early", "--by", "NS 4",
        "--reason", "slip", "--at", "2026-11-21T20:50+01:00")
    run("publish", *SAMPLE, "--at", "2026-11-21T21:00+01:00")
    run("correct", *SAMPLE, "--board", "2", "--table", "4", "--tricks", "9", "--id", "inside", "--by", "NS 4",
        "--reason", "slip", "--at", "2026-11-21T21:10+01:00")
    run("audit", *SAMPLE, "--out", str(tmp_path / "audit"))
    rows = pl.read_csv(tmp_path / "audit" / "audit_club-championship-2026_1.csv")
    decided = {r["id"]: (r["window"], r["decision"], r["rule"]) for r in rows.iter_rows(named=True)}
    assert decided == {
        "early": ("before publication", "applied", "ordinary fix before publication"),
        "inside": ("inside correction period", "applied", "Law 79C1: raised within the correction period"),
    }


# --- 6. tie-breaks: applied where the organiser's file states them, ties shown otherwise ----------------

def published_standings(name: str) -> list[dict[str, str]]:
    """The TotalScoreTable rows of a corpus file, cell by cell, as the organiser published them."""
    from parsers.pbn import iter_games
    from parsers.pbn.scoretables import table_rows

    games = [g for g in iter_games((CORPUS / "pbn" / name).read_bytes()) if "TotalScoreTable" in g.tables]
    return [dict(row.cells) for row in table_rows(games[0].tables["TotalScoreTable"])]


def test_a_published_tie_break_splits_the_tied_pairs_as_the_organiser_did(store_file: Path, tmp_path: Path) -> None:
    name = "ffb_dn1_finale_2022_seance1.pbn"
    run("ingest", str(CORPUS / "pbn" / name))
    _, standings = scored(tmp_path / "out")
    published = {int(row["PairId"]): (int(row["Rank"]), row["Tiebreak"]) for row in published_standings(name)}
    ours = {c: (r, t) for c, r, t in standings.select("contestant_id", "rank", "tied").iter_rows()}
    assert {c: rank for c, (rank, _) in published.items()} == {c: rank for c, (rank, _) in ours.items()}
    assert not any(tied for _, tied in ours.values())
    # Pairs 44 and 1 tie on 593.2; they met on boards 1-2 (44.1 to 39.9 MPs): Tiebreak 2 and 0.
    assert standing(standings, 44)["score"] == standing(standings, 1)["score"]
    assert (published[44], published[1]) == ((31, "2"), (32, "0"))


def test_ties_are_shown_where_the_file_states_no_tie_break(store_file: Path, tmp_path: Path) -> None:
    name = "ffb_dn1_finale_2022_seance5.pbn"
    run("ingest", str(CORPUS / "pbn" / name))
    _, standings = scored(tmp_path / "out")
    published = {int(row["PairId"]): (int(row["SessionRank"]), row["SessionRankTie"] not in ("-", ""))
                 for row in published_standings(name)}
    ours = {c: (r, t) for c, r, t in standings.select("contestant_id", "rank", "tied").iter_rows()}
    assert ours == published
    assert sorted(c for c, (_, tied) in ours.items() if tied) == [21, 22, 30, 40]


def test_a_stored_penalty_in_a_foreign_unit_breaks_nothing(store_file: Path, tmp_path: Path) -> None:
    # Written past the command (an older version of it accepted one): scoring leaves it out and says so.
    from datetime import UTC, datetime

    from models.events import PenaltyAwarded, event_payload, session_stream
    from pipelines.log.store import EventStore, NewEvent

    run("ingest", str(SAMPLE_DATA / "club_championship_traveller.csv"))
    _, before = scored(tmp_path / "before")
    at = datetime(2026, 11, 21, 21, 30, tzinfo=UTC)
    bad = PenaltyAwarded(event_id="club-championship-2026", session_id="1", contestant_id="7", section="A",
                         direction="NS", amount=1, unit="IMP", reason="slow play")
    EventStore(store_file).append(
        [NewEvent(session_stream("club-championship-2026", "1"), bad.type, event_payload(bad), at)], recorded_at=at)
    _, after = scored(tmp_path / "after")
    assert after.equals(before)
    run("audit", *SAMPLE, "--out", str(tmp_path / "audit"))
    run("diff-published")


def test_a_penalty_to_an_id_in_two_sections_needs_its_section(store_file: Path, tmp_path: Path) -> None:
    lines = ["event,session,board,section,table,ns,ew,contract,declarer,result,lead"]
    for section in ("A", "B"):
        for board in (1, 2):
            lines += [f"two,1,{board},{section},1,1,1,3NT,N,9,", f"two,1,{board},{section},2,2,2,3NT,N,8,"]
    traveller = tmp_path / "two_sections.csv"
    traveller.write_text("\n".join(lines) + "\n")
    run("ingest", str(traveller))
    _, before = scored(tmp_path / "before")
    penalty = ["penalty", "--event", "two", "--session", "1", "--contestant", "1", "--direction", "NS",
               "--amount", "1", "--unit", "MP", "--reason", "late", "--at", "2026-11-21T21:26+01:00"]
    ambiguous = runner.invoke(app, penalty)
    assert ambiguous.exit_code == 1
    assert "NS 1 in section 'A'; NS 1 in section 'B'" in ambiguous.output and "--section" in ambiguous.output
    run(*penalty, "--section", "B")
    _, after = scored(tmp_path / "after")
    ns1 = (pl.col("contestant_id") == 1) & (pl.col("direction") == "NS")
    changed = after.filter(ns1).select("section", "score").rows()
    assert changed == [("A", before.filter(ns1 & (pl.col("section") == "A"))["score"][0]),
                       ("B", before.filter(ns1 & (pl.col("section") == "B"))["score"][0] - 1)]


def test_export_after_correct_and_adjust_on_the_command_line_writes_what_stands(store_file: Path,
                                                                               tmp_path: Path) -> None:
    # Board 1, table 4 recorded 3NT by N with 7 tricks; board 2, table 3 1NT by N with 7 tricks;
    # board 3, table 4 2D by N with 8 tricks.
    from parsers import pbn

    run("ingest", "--at", "2026-11-21T19:00+01:00", str(SAMPLE_DATA / "club_championship_handrecord.pbn"))
    run("ingest", "--at", "2026-11-21T19:00+01:00", str(SAMPLE_DATA / "club_championship_traveller.csv"))
    run("publish", *SAMPLE, "--at", "2026-11-21T21:00+01:00")
    run("correct", *SAMPLE, "--board", "2", "--table", "3", "--contract", "3NT", "--declarer", "S", "--tricks",
        "10", "--id", "c1", "--by", "EW 5", "--reason", "3NT by S, ten tricks", "--at", "2026-11-21T21:10+01:00")
    run("adjust", *SAMPLE, "--board", "3", "--table", "4", "--ns", "average-minus", "--ew", "average-plus", *RULED)
    out = tmp_path / "session.pbn"
    run("export", "pbn", *SAMPLE, "--out", str(out))
    parsed = pbn.loads(out.read_text(encoding="utf-8"), source="session.pbn", strict=True)
    assert parsed.errors == ()
    results = {(r.board, r.table_id): r for r in parsed.results}
    corrected = results[(2, "3")]
    # 3NT+1 by S, NS vulnerable on board 2 (Law 2): 100 tricks + 500 game + 30 overtrick = 630 for NS.
    assert (str(corrected.contract), corrected.contract.declarer.value if corrected.contract.declarer else None,
            corrected.tricks, corrected.published["score_ns"]) == ("3NT", "S", 10, 630)
    assert (3, "4") not in results  # the ruling stands in the table's place, not 2D by N making 8
    ruled = next(a for a in parsed.artificial if (a.board, a.table_id) == (3, "4"))
    assert (ruled.ns_award, ruled.ew_award, ruled.published["pct_ns"], ruled.published["pct_ew"]) == (
        "A-", "A+", 40.0, 60.0)


# --- issue #36, items 4 and 5: a final session stays final, and the command says what the policy decided -

def _typed_on(monkeypatch: pytest.MonkeyPatch, moment: str) -> None:
    from datetime import datetime

    from pipelines.commands import director
    monkeypatch.setattr(director, "appended_now", lambda: datetime.fromisoformat(moment))


def _board_one_table_four(tmp_path: Path, name: str) -> tuple[int, str]:
    boards, _ = scored(tmp_path / name)
    row = boards.filter((pl.col("board") == 1) & (pl.col("table_id").cast(pl.String) == "4")).row(0, named=True)
    return row["score_ns"], row["status"]


def test_republishing_a_final_session_says_it_stays_final(store_file: Path, tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    run("ingest", "--at", "2026-11-21T19:00+01:00", str(SAMPLE_DATA / "club_championship_traveller.csv"))
    _typed_on(monkeypatch, "2026-11-21T21:01+01:00")
    first = run("publish", *SAMPLE, "--at", "2026-11-21T21:00+01:00")
    assert "recorded at log position" in first and "correction period" in first
    _typed_on(monkeypatch, "2026-12-02T10:00+01:00")
    again = run("publish", *SAMPLE, "--period", "525600", "--at", "2026-12-02T10:00+01:00")
    assert "already final" in again and "is not applied" in again and "approve-late" in again
    assert _board_one_table_four(tmp_path, "out")[1] == "final"


def test_correct_says_what_the_policy_decided(store_file: Path, tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    run("ingest", "--at", "2026-11-21T19:00+01:00", str(SAMPLE_DATA / "club_championship_traveller.csv"))
    _typed_on(monkeypatch, "2026-11-21T21:01+01:00")
    run("publish", *SAMPLE, "--at", "2026-11-21T21:00+01:00")
    table = ["--board", "1", "--table", "4", "--tricks", "9", "--by", "NS 4", "--reason", "nine tricks"]
    _typed_on(monkeypatch, "2026-11-21T21:11+01:00")
    inside = run("correct", *SAMPLE, *table, "--id", "inside", "--at", "2026-11-21T21:10+01:00")
    assert "applied (inside correction period): Law 79C1" in inside
    _typed_on(monkeypatch, "2026-11-21T21:41+01:00")
    late = run("correct", *SAMPLE, *table, "--id", "late", "--at", "2026-11-21T21:40+01:00")
    assert "rejected: Law 79C1: correction period had expired" in late and "approve-late --id late" in late


def test_a_back_dated_correction_waits_for_an_acknowledgement(store_file: Path, tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    # The case: typed on 2 December, claiming the morning of the 21st, for a session final since 21:30.
    run("ingest", "--at", "2026-11-21T19:00+01:00", str(SAMPLE_DATA / "club_championship_traveller.csv"))
    _typed_on(monkeypatch, "2026-11-21T21:01+01:00")
    run("publish", *SAMPLE, "--at", "2026-11-21T21:00+01:00")
    _typed_on(monkeypatch, "2026-12-02T10:00+01:00")
    table = ["--board", "1", "--table", "4", "--tricks", "9", "--by", "NS 4", "--reason", "nine tricks"]
    said = run("correct", *SAMPLE, *table, "--id", "c1", "--at", "2026-11-21T10:00+01:00")
    assert "not applied: back-dated" in said and "acknowledge-back-dated --id c1" in said
    assert _board_one_table_four(tmp_path, "held")[0] == -100  # (its status: at the log's clock, still the 21st)
    alone = runner.invoke(app, ["correct", *SAMPLE, *table, "--id", "c2", "--acknowledge-back-dated", "why"])
    assert alone.exit_code == 2 and "--acknowledged-by" in alone.output
    acknowledged = run("acknowledge-back-dated", "--id", "c1", "--by", "TD Smith", "--reason", "slip found Monday")
    assert "applied (before publication): ordinary fix before publication; back-dated, acknowledged by TD Smith" \
        in acknowledged
    assert _board_one_table_four(tmp_path, "let-in") == (400, "final")
    audit = run("audit", *SAMPLE, "--out", str(tmp_path / "audit"))
    assert "acknowledged by TD Smith" in audit
    rows = pl.read_csv(tmp_path / "audit" / "audit_club-championship-2026_1.csv")
    assert rows.select("id", "decision", "recorded_at").rows() == [("c1", "applied", "2026-12-02T09:00:00+0000")]
    assert rows["back_dated"][0].startswith("yes") and rows["back_dated"][0].endswith("TD Smith: slip found Monday")
