"""A CSV traveller whose NS and EW are the same pair is refused where it says so (issue #35, item 8)."""

from __future__ import annotations

from parsers.csv.reader import loads

HEADER = "event,session,board,section,table,ns,ew,contract,declarer,result"


def traveller(*rows: str, header: str = HEADER) -> str:
    return "\n".join([header, *rows]) + "\n"


def test_pair_numbers_alone_are_the_movements_to_give() -> None:
    # In a Mitchell NS 1 and EW 1 are two pairs (round 1: they meet at table 1); only players named on
    # both sides show one pair playing itself.
    parsed = loads(traveller("e,1,1,A,1,1,1,4S,N,10", "e,1,1,A,2,2,3,3NT,S,9", "e,1,1,A,3,3,2,4S,N,11"))
    assert [(r.ns_id, r.ew_id) for r in parsed.results] == [("1", "1"), ("2", "3"), ("3", "2")]
    assert parsed.diagnostics == ()


def test_a_player_named_on_both_sides_of_a_table_is_refused_with_that_row() -> None:
    header = HEADER + ",ns_players,ew_players"
    parsed = loads(traveller("e,1,1,A,1,1,2,4S,N,10,Anna Nowak [1041]; Jan Kos,Ewa Lis; Anna Nowak [1041]",
                             "e,1,1,A,2,3,4,3NT,S,9,Piotr Zając,Olga Wrona", header=header), source="club.csv")
    assert [(r.ns_id, r.ew_id) for r in parsed.results] == [("3", "4")]
    [diagnostic] = parsed.diagnostics
    assert (diagnostic.code, diagnostic.line) == ("csv.row.same-pair", 2)
    assert diagnostic.column == len("e,1,1,A,1,1,2,4S,N,10,Anna Nowak [1041]; Jan Kos,") + 1
    assert "[1041] sits both NS (pair 1) and EW at this table" in diagnostic.message
