"""Finding a rule set: a TOML file, or a preset shipped with bridgeledger (`pzbs-3`, `wbf`, ...).

Light on purpose (no store, no DuckDB): a scheduler's DAG file asks `ranking_schedule` when it is
parsed, which happens every few seconds.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from importlib import resources
from pathlib import Path

from models.ranking_rules import RuleSet

PRESETS_PACKAGE = "pipelines.ranking.presets"
RULES_ENV = "BRIDGELEDGER_RANKING_RULES"
"""Environment variable naming the ranking rule set (a TOML file or a preset) when no setting does."""


def preset_names() -> list[str]:
    """The presets shipped as package data, by name."""
    folder = resources.files(PRESETS_PACKAGE)
    return sorted(entry.name.removesuffix(".toml") for entry in folder.iterdir() if entry.name.endswith(".toml"))


def load_rules(spec: str | Path) -> RuleSet:
    """A rule set from a TOML file path, else from the preset of that name.

    Raises `FileNotFoundError` naming the presets when `spec` is neither.
    """
    path = Path(spec)
    if path.is_file():
        return RuleSet.from_toml(path)
    name = str(spec)
    if name in preset_names():
        return RuleSet.from_toml_text(resources.files(PRESETS_PACKAGE).joinpath(f"{name}.toml").read_text("utf-8"))
    raise FileNotFoundError(f"{spec}: no such rule set file, and not a preset (presets: {', '.join(preset_names())})")


def configured_rules(configured: Mapping[str, str] | None, env: Mapping[str, str] | None = None) -> str | None:
    """The rule set an orchestrator's settings name (`ranking_rules`), else `BRIDGELEDGER_RANKING_RULES`."""
    environment = os.environ if env is None else env
    return (configured or {}).get("ranking_rules") or environment.get(RULES_ENV) or None


def ranking_schedule(configured: Mapping[str, str] | None, env: Mapping[str, str] | None = None) -> str | None:
    """The publication schedule (cron, UTC) of the rule set the settings name (monthly unless the
    rule set says otherwise); None when no rule set is named, since there is nothing to publish.

    Reads the rule set (a preset, or one TOML file) and nothing else. A rule set that cannot be read
    raises, naming it: a scheduler shows that instead of publishing at a time nobody chose.
    """
    spec = configured_rules(configured, env)
    return load_rules(spec).publication.schedule if spec else None
