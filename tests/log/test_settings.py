"""An orchestrator's settings name the log as a DuckDB file or a PostgreSQL URL."""

from __future__ import annotations

from pathlib import Path

import pytest

from pipelines.edges.operations import SettingsError, resolve_settings


def test_a_file_store_puts_every_folder_beside_it(tmp_path: Path) -> None:
    settings = resolve_settings({"store": str(tmp_path / "fed" / "bridgeledger.duckdb")}, env={})
    assert settings.store == str(tmp_path / "fed" / "bridgeledger.duckdb")
    assert (settings.inbox, settings.site) == (tmp_path / "fed" / "inbox", tmp_path / "fed" / "site")


def test_a_postgresql_store_keeps_its_url_and_puts_folders_beside_the_analytics_file(tmp_path: Path) -> None:
    url = "postgresql://pipeline@db.example:5432/federation"
    settings = resolve_settings({"store": url}, env={"BRIDGELEDGER_ANALYTICS": str(tmp_path / "a" / "x.duckdb")})
    assert settings.store == url
    assert (settings.inbox, settings.outdir) == (tmp_path / "a" / "inbox", tmp_path / "a" / "outputs")


def test_a_postgresql_store_without_an_analytics_file_is_refused() -> None:
    with pytest.raises(SettingsError, match="needs BRIDGELEDGER_ANALYTICS"):
        resolve_settings({"store": "postgresql://pipeline@db.example/federation"}, env={})
