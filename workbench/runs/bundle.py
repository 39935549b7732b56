"""Loading a campaign for a run: its problems become one UserError, a line per problem."""

from __future__ import annotations

from pathlib import Path

from campaigns import BUNDLED_CAMPAIGNS, resolve_campaign
from sim.campaign_load import CAMPAIGN_FILE, CampaignBundle, CampaignError, load_campaign
from workbench.errors import UserError
from workbench.messages import bound_lines, clip
from workbench.runs.registration import Registration


def campaign_problems(exc: CampaignError) -> UserError:
    """A campaign's problems as one UserError: a `campaign FOLDER: FILE: field: problem`
    line for each (the first `LINES`, then how many more), as every malformed file gets."""
    return UserError(bound_lines(exc.lines, "problems"))


def load_bundle(campaign: str | Path) -> CampaignBundle:
    """Load a campaign folder (or a bundled campaign by name); problems become one UserError."""
    try:
        return load_campaign(resolve_campaign(campaign))
    except CampaignError as exc:
        raise campaign_problems(exc) from exc


def run_campaign(
    run: Path, registration: Registration, campaign: str | Path | None = None
) -> CampaignBundle:
    """The campaign a run played, as every reader and writer of the run loads it.

    `campaign` (a folder or bundled name) overrides the folder run.json records, for a
    campaign that moved; it must be the campaign the run played, its id and its digest
    (anything else is the user's mistake, exit 2, not the run's damage). Without it the
    recorded folder is loaded; when that holds no campaign and a bundled campaign has the
    run's id and digest (a run made in another checkout), that one is. Otherwise one line
    says where the run expects its campaign and what to do.
    """
    if campaign is not None:
        bundle = load_bundle(campaign)
        if bundle.id != registration.campaign_id:
            raise UserError(
                f"{run} was played on campaign {clip(registration.campaign_id)}, "
                f"not {clip(bundle.id)} ({campaign})"
            )
        if bundle.digest != registration.campaign_digest:
            raise UserError(
                f"{campaign} is campaign {clip(bundle.id)} as it is now (digest "
                f"{bundle.digest[:12]}), not as {run} played it "
                f"({registration.campaign_digest[:12]}): name the folder with its files as "
                "they were",
                subject="campaign",
            )
        return bundle
    recorded = Path(registration.campaign_path)
    if (recorded / CAMPAIGN_FILE).is_file():
        return load_bundle(recorded)
    for bundled in BUNDLED_CAMPAIGNS:
        found = load_bundle(bundled.path)
        if (found.id, found.digest) == (registration.campaign_id, registration.campaign_digest):
            return found
    raise UserError(
        f"{run}: its campaign {registration.campaign_id} was at {recorded}, which is not a "
        "campaign folder now; name the folder it moved to",
        subject="campaign",
    )
