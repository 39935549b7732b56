"""Bundled campaigns (data only). `default/` runs with no arguments.

`BUNDLED_CAMPAIGNS` lists every bundled campaign by name, so `workbench play NAME` and the
dashboard's start can offer them; `resolve_campaign` turns a name or a folder into a folder.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

CAMPAIGNS_DIR = Path(__file__).resolve().parent
DEFAULT_CAMPAIGN = CAMPAIGNS_DIR / "default"
SCHEMA_DIR = CAMPAIGNS_DIR / "schema"
"""JSON Schemas of the campaign files, written from the models (`workbench schema --write`)."""


@dataclass(frozen=True)
class BundledCampaign:
    """A campaign shipped with the workbench: its name, folder and a one-line summary."""

    name: str
    path: Path
    summary: str


BUNDLED_CAMPAIGNS: tuple[BundledCampaign, ...] = (
    BundledCampaign(
        "default",
        DEFAULT_CAMPAIGN,
        "Harbor Roasters: 180 days at a coffee roastery (cash-tight growth, port strikes)",
    ),
    BundledCampaign(
        "gelato",
        CAMPAIGNS_DIR / "gelato",
        "Marina Gelato: a year at a seaside ice-cream maker (strong seasons, weather, kiosk)",
    ),
)


def resolve_campaign(campaign: str | Path) -> Path:
    """A campaign folder from a folder path or a bundled name (an existing folder wins)."""
    path = Path(campaign)
    if path.is_dir():
        return path
    for bundled in BUNDLED_CAMPAIGNS:
        if str(campaign) == bundled.name:
            return bundled.path
    return path
