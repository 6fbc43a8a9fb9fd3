"""Members from a CSV list, players from files, and how one is found for the other."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path

import polars as pl
import pytest

from parsers.csv import loads
from pipelines.log.store import EventStore
from pipelines.ranking.inputs import RankingInputs
from pipelines.ranking.members import MemberListError, import_member_list, parse_member_list
from pipelines.ranking.players import normalised_name, resolve_players
from tests.conftest import RECORDED_AT
from tests.ranking.scenario import CET, MEMBERS_AT

HEADER = "federation_id,name,club,gender,birth_year,region\n"


def parse(text: str) -> list[str]:
    return [m.federation_id for m in parse_member_list(text, source="m.csv", federation="PZBS", sha256="0")]


def test_a_member_list_reads_any_column_order_and_optional_columns() -> None:
    members = parse_member_list("name,federation_id,gender\nAnna Nowak,1,K\nJan  Kot,2,\n", source="m.csv",
                                federation="PZBS", sha256="0")
    assert [(m.federation_id, m.name, m.gender, m.club, m.source.line if m.source else 0) for m in members] == [
        ("1", "Anna Nowak", "F", None, 2), ("2", "Jan Kot", None, None, 3)]


@pytest.mark.parametrize(("text", "where", "what"), [
    ("name,club\nA,B\n", "m.csv:1:1", "missing column 'federation_id'"),
    (HEADER.replace("region", "shoe_size"), "m.csv:1:6", "unknown column 'shoe_size'"),
    (HEADER + "1,A,C,F,1990,R\n2,,C,F,1990,R\n", "m.csv:3:2", "name is empty"),
    (HEADER + "1,A,C,Q,1990,R\n", "m.csv:2:4", "gender 'Q'; expected F, M or X"),
    (HEADER + "1,A,C,F,90,R\n", "m.csv:2:5", "birth year '90'; expected four digits"),
    (HEADER + "1,A,C,F,1990,R\n1,B,C,F,1990,R\n", "m.csv:3:1", "federation id 1 already on line 2"),
])
def test_a_bad_member_list_names_file_line_and_column(text: str, where: str, what: str) -> None:
    with pytest.raises(MemberListError) as caught:
        parse(text)
    assert str(caught.value).startswith(f"{where}: {what}")


def test_a_newer_list_appends_only_new_and_changed_members(store: EventStore, tmp_path: Path) -> None:
    first = tmp_path / "2026-10.csv"
    first.write_text(HEADER + "1,Anna Nowak,Club A,F,1980,North\n2,Jan Kot,Club B,M,1975,South\n")
    assert import_member_list(store, first, federation="PZBS", at=MEMBERS_AT, recorded_at=RECORDED_AT).appended == 2
    again = import_member_list(store, first, federation="PZBS", at=MEMBERS_AT, recorded_at=RECORDED_AT)
    assert again.already_ingested and again.appended == 0
    second = tmp_path / "2026-11.csv"
    second.write_text(HEADER + "1,Anna Nowak,Club C,F,1980,North\n2,Jan Kot,Club B,M,1975,South\n3,Ewa Lis,,F,,\n")
    report = import_member_list(store, second, federation="PZBS", at=datetime(2026, 11, 20, tzinfo=CET),
                                recorded_at=RECORDED_AT)
    assert (report.rows, report.appended, report.unchanged) == (3, 2, 1)
    clubs = [e.payload["club"] for e in store.read(types=["MemberRegistered"])]
    assert clubs == ["Club A", "Club B", "Club C", None]


def test_names_match_without_accents_case_punctuation_or_word_order() -> None:
    names = pl.DataFrame({"n": ["Łukasz  Żółć", "ZOLC, Lukasz", "Żółć-Łukasz", "Lukas Zolc", "Søren Ærø"]})
    got = names.select(normalised_name(pl.col("n"))).to_series().to_list()
    assert got[:3] == ["lukasz zolc"] * 3
    assert got[3] == "lukas zolc" and got[4] == "aero soren"


def _inputs(members: list[tuple[str, str, str]], links: list[tuple[str, str, str]] = (),  # type: ignore[assignment]
            merges: list[tuple[str, str]] = ()) -> RankingInputs:  # type: ignore[assignment]
    empty = pl.DataFrame()
    return RankingInputs(
        members=pl.DataFrame(members, schema=["federation_id", "name", "federation"], orient="row"),
        links=pl.DataFrame(list(links), schema=["event_id", "player_name", "federation_id"], orient="row"),
        merges=pl.DataFrame(list(merges), schema=["kept_id", "merged_id"], orient="row"),
        tournaments=empty, sessions=empty, contestants=empty)


def test_evidence_order_link_then_file_id_then_a_unique_name() -> None:
    inputs = _inputs(
        [("1", "Anna Nowak", "PZBS"), ("2", "Jan Kot", "PZBS"), ("3", "Jan Kot", "PZBS"), ("4", "Ewa Lis", "PZBS"),
         ("5", "Ewa Lis", "EBU")],
        links=[("e", "J. Kot", "3")], merges=[("1", "4")])
    players = pl.DataFrame({
        "event_id": ["e"] * 6, "contestant_id": ["1", "1", "2", "2", "3", "3"],
        "player_name": ["Anna Nowak", "Jan Kot", "J. Kot", "Ewa Lis", "Nobody", "Someone"],
        "file_id": [None, None, None, None, "4", "77"],
    })
    resolved = resolve_players(players, inputs, "PZBS").select(
        "player_name", "original_id", "player_id", "matched_by", "unmatched_reason").rows()
    assert resolved == [
        ("Anna Nowak", "1", "1", "name", None),
        ("Jan Kot", None, None, None, "2 members share this name"),
        ("J. Kot", "3", "3", "link", None),
        ("Ewa Lis", "4", "1", "name", None),  # the EBU's Ewa Lis is another federation's member
        ("Nobody", "4", "1", "file id", None),
        ("Someone", None, None, None, "id 77 is not a member; no member of that name"),
    ]


def test_csv_travellers_may_name_the_players() -> None:
    text = ("event,session,board,section,table,ns,ew,contract,declarer,result,ns_players,ew_players\n"
            "e,1,1,A,1,1,2,3NT,N,9,Anna Nowak [1041]; Jan Nowak,Ola Kot\n"
            "e,1,2,A,1,1,2,3NT,N,9,Anna [,\n")
    parsed = loads(text, source="t.csv")
    first = parsed.results[0]
    assert [(p.name, p.federation_id) for p in first.ns_players] == [("Anna Nowak", "1041"), ("Jan Nowak", None)]
    assert [(p.name, p.federation_id) for p in first.ew_players] == [("Ola Kot", None)]
    assert [(d.line, d.column, d.message) for d in parsed.diagnostics] == [
        (3, 23, "player 'Anna [': expected a name, optionally followed by [federation id]; row left out")]


# --- members are (federation, id) ---------------------------------------------------------------------

def test_another_federation_numbering_its_members_alike_leaves_the_first_ranking_whole(
        store: EventStore, tmp_path: Path) -> None:
    from pipelines.ranking.edition import compute_edition
    from pipelines.ranking.rules import load_rules
    from tests.ranking.scenario import FINAL, build_session

    build_session(store, tmp_path)
    before = compute_edition(store, load_rules("sbu"), as_of=FINAL + timedelta(days=1))
    others = tmp_path / "other.csv"
    # The same ids, other people: another federation's list.
    others.write_text(HEADER + "".join(f"{i},Other Person {i},,,,\n" for i in before.ranking["player_id"]))
    imported = import_member_list(store, others, federation="ABF", at=MEMBERS_AT, recorded_at=RECORDED_AT)
    assert imported.appended == before.ranking.height
    after = compute_edition(store, load_rules("sbu"), as_of=FINAL + timedelta(days=1))
    assert after.ranking.height == before.ranking.height == 20
    assert after.ranking.select("player_id", "name", "points").equals(before.ranking.select("player_id", "name",
                                                                                         "points"))
    assert after.unmatched.is_empty()


def test_the_same_list_imported_for_another_federation_is_that_federation_s(store: EventStore,
                                                                            tmp_path: Path) -> None:
    path = tmp_path / "list.csv"
    path.write_text(HEADER + "1,Anna Nowak,Club A,F,1980,North\n2,Jan Kot,Club B,M,1975,South\n")
    assert import_member_list(store, path, federation="PZBS", at=MEMBERS_AT, recorded_at=RECORDED_AT).appended == 2
    other = import_member_list(store, path, federation="SBU", at=MEMBERS_AT, recorded_at=RECORDED_AT)
    assert not other.already_ingested and other.appended == 2
    assert import_member_list(store, path, federation="SBU", at=MEMBERS_AT, recorded_at=RECORDED_AT).already_ingested
    federations = sorted((e.payload["federation"], e.payload["federation_id"])
                         for e in store.read(types=["MemberRegistered"]))
    assert federations == [("PZBS", "1"), ("PZBS", "2"), ("SBU", "1"), ("SBU", "2")]
