"""The markup pieces every traveller and score card row repeats: exact bytes, every value escaped."""

from __future__ import annotations

from pipelines.site.fragments import contract, suit, who
from pipelines.site.labels import labels
from pipelines.site.views import contract_parts

WORDS = labels("en")


def test_a_suit_is_its_symbol_with_its_name_and_anything_else_is_no_trump() -> None:
    assert suit("H", WORDS) == '<span class="suit h" title="hearts">♥</span>'
    assert suit("N", WORDS) == suit(None, WORDS) == "NT"


def test_a_suit_is_named_in_the_page_language() -> None:
    polish = labels("pl")
    assert suit("D", polish) == '<span class="suit d" title="kara">♦</span>'
    assert suit("NT", polish) == "BA"
    assert contract(contract_parts("3NTX"), polish) == "3BAX"
    assert contract(contract_parts("2C"), polish) == '2<span class="suit c" title="trefle">♣</span>'


def test_a_contract_shows_level_strain_and_doubling_or_passed() -> None:
    assert contract(contract_parts("4SX"), WORDS) == '4<span class="suit s" title="spades">♠</span>X'
    assert contract(contract_parts("3NT"), WORDS) == "3NT"
    assert contract(contract_parts("PASS"), WORDS) == f'<span class="pass">{WORDS["passed"]}</span>'
    assert contract(None, WORDS) == ""


def test_a_contestant_and_its_names_are_text_never_markup() -> None:
    assert who("7", "Ann & Bob", "card-A-NS-7.html") == \
        '<a href="card-A-NS-7.html"><bdi>7</bdi></a> <span class="names"><bdi>Ann &amp; Bob</bdi></span>'
    assert who("<script>alert(1)</script>", "", None) == "<bdi>&lt;script&gt;alert(1)&lt;/script&gt;</bdi>"
    assert who(None, None, None) == "<bdi>?</bdi>"
    assert who("1", None, '"><img src=x onerror=alert(1)>') == \
        '<a href="&#34;&gt;&lt;img src=x onerror=alert(1)&gt;"><bdi>1</bdi></a>'
