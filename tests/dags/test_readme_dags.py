"""The README's Airflow section names every DAG in dags/, and counts them right (issue #36, item 18)."""

from __future__ import annotations

import re

from tests.conftest import REPO

NUMBERS = {"three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8}


def _airflow_section() -> str:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    start = text.index("## Airflow (production)")
    return text[start:text.index("\n## ", start + 1)]


def test_the_readme_lists_and_counts_every_dag() -> None:
    section = _airflow_section()
    dag_ids = sorted(re.search(r'dag_id="([^"]+)"', p.read_text()).group(1)  # type: ignore[union-attr]
                     for p in (REPO / "dags").glob("*.py") if 'dag_id="' in p.read_text())
    listed = sorted(re.findall(r"^\| `([a-z_]+)` \|", section, flags=re.MULTILINE))
    assert listed == dag_ids
    [count] = re.findall(r"\b([A-Z][a-z]+) DAGs\b", section)
    assert NUMBERS[count.lower()] == len(dag_ids)
