"""The order names are shown in: tables, pairs and teams by their numbers, never a tie."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from pipelines.site.gather import natural_key

NAMES = st.text(alphabet=st.sampled_from("0127٣²aAb "), max_size=6)


def test_numbers_go_by_their_value_and_text_by_its_characters() -> None:
    names = ["10", "7", "07", "2", "a1", "a", "1a", "1", "٣", "A10", "A9", "", "1" * 5000]
    assert sorted(names, key=natural_key) == ["", "1", "1a", "2", "٣", "07", "7", "10", "1" * 5000, "A9", "A10",
                                              "a", "a1"]


@given(st.lists(NAMES, unique=True))
def test_no_two_names_tie_so_the_order_never_depends_on_the_input(names: list[str]) -> None:
    names = sorted(set(names) | {"0" + name for name in names})  # `7` and `07` read as one number
    keys = {natural_key(name) for name in names}
    assert len(keys) == len(names)
    assert sorted(names, key=natural_key) == sorted(reversed(names), key=natural_key)
