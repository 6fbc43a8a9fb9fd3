"""Finding a rule set: a TOML file, or a preset shipped with bridgeledger (`pzbs-3`, `wbf`, ...)."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from models.ranking_rules import RuleSet

PRESETS_PACKAGE = "pipelines.ranking.presets"


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
