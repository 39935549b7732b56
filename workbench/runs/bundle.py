"""Loading a campaign for a run: its problems become one UserError listing each on one line."""

from __future__ import annotations

from pathlib import Path

from sim.campaign_load import CampaignBundle, CampaignError, load_campaign
from workbench.errors import UserError, reraised


def load_bundle(campaign: str | Path) -> CampaignBundle:
    """Load a campaign, turning its problems into a UserError naming the folder and each."""
    with reraised(UserError, CampaignError, where=str(campaign)):
        return load_campaign(campaign)
