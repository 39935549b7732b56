"""Loading a campaign for a run: its problems become one UserError, a line per problem."""

from __future__ import annotations

from pathlib import Path

from campaigns import resolve_campaign
from sim.campaign_load import CampaignBundle, CampaignError, load_campaign
from workbench.errors import UserError
from workbench.messages import bound_lines


def campaign_problems(exc: CampaignError) -> UserError:
    """A campaign's problems as one UserError: a `campaign FOLDER: FILE: field: problem`
    line for each (the first `LINES`, then how many more), as every malformed file gets."""
    return UserError("\n".join(bound_lines(exc.lines, "problems")))


def load_bundle(campaign: str | Path) -> CampaignBundle:
    """Load a campaign folder (or a bundled campaign by name); problems become one UserError."""
    try:
        return load_campaign(resolve_campaign(campaign))
    except CampaignError as exc:
        raise campaign_problems(exc) from exc
