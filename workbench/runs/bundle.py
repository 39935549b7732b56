"""Loading a campaign for a run: its problems become one UserError listing each on one line."""

from __future__ import annotations

from pathlib import Path

from campaigns import resolve_campaign
from sim.campaign_load import CampaignBundle, CampaignError, load_campaign
from workbench.errors import UserError, reraised


def load_bundle(campaign: str | Path) -> CampaignBundle:
    """Load a campaign folder (or a bundled campaign by name); problems become one UserError."""
    with reraised(UserError, CampaignError):
        return load_campaign(resolve_campaign(campaign))
