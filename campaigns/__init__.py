"""Bundled campaigns (data only). `default/` runs with no arguments."""

from pathlib import Path

CAMPAIGNS_DIR = Path(__file__).resolve().parent
DEFAULT_CAMPAIGN = CAMPAIGNS_DIR / "default"
