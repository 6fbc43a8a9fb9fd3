"""The static results site players read: events, sessions, travellers, score cards, plots, downloads.

`build_site` is what the CLI (`bridgeledger site`) and the DAGs call; `analyse_deals` runs the
double-dummy solver over the log's new deals (a task of its own, so page builds never wait on it).
"""

from __future__ import annotations

from pipelines.site.analysis import analyse_deals
from pipelines.site.build import SiteReport, build_site

__all__ = ["SiteReport", "analyse_deals", "build_site"]
