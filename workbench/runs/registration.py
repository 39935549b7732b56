"""Run registration and private control files: who plays what campaign with which seed.

A development campaign publishes its seed. A private campaign's seed lives only in a
control file kept apart from the campaign; nothing else substitutes for it.
"""

from __future__ import annotations

from pathlib import Path

import orjson
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ledger.seal import seed_commitment
from sim.campaign_load import CampaignBundle
from workbench.errors import UserError
from workbench.inputs import read_bounded
from workbench.messages import clip, validation_message


class ControlFile(BaseModel):
    """A private campaign's registration: seed, salt, agents and campaign digest."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    campaign_id: str
    campaign_digest: str
    seed: int = Field(ge=0)
    salt: str = Field(min_length=8)
    agents: tuple[str, ...] = Field(min_length=1)


class Registration(BaseModel):
    """run.json: the public registration of a run (never the seed)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    schema_: str = Field(default="cfwb.run/1", alias="schema")
    campaign_id: str
    campaign_path: str
    campaign_digest: str
    visibility: str
    agent_id: str
    seed_commitment: str
    salt: str


def load_control(path: str | Path) -> ControlFile:
    """Read and validate a control file, or raise a UserError naming the file and field."""
    path = Path(path)
    raw = read_bounded(path, "control file")
    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        raise UserError(f"control file {path} is not valid JSON: {exc}") from None
    try:
        return ControlFile.model_validate(data)
    except ValidationError as exc:
        raise UserError(validation_message(exc, f"control file {path}")) from None


def resolve_seed(
    bundle: CampaignBundle, control: ControlFile | None, agent_id: str | None
) -> tuple[int, str, str]:
    """(seed, salt, agent id) for playing or checking `bundle`, enforcing the control file."""
    if bundle.campaign.visibility == "development":
        if control is not None:
            raise UserError(
                f"campaign {bundle.id} is a development campaign: it takes no control file"
            )
        assert bundle.campaign.development_seed is not None
        return bundle.campaign.development_seed, bundle.digest, agent_id or "player"
    if control is None:
        raise UserError(
            f"campaign {bundle.id} is private: its control file is required "
            "(--control FILE); no seed override exists"
        )
    if control.campaign_id != bundle.id or control.campaign_digest != bundle.digest:
        raise UserError(
            f"control file is for campaign {control.campaign_id} "
            f"({control.campaign_digest[:12]}), not {bundle.id} "
            f"({bundle.digest[:12]})"
        )
    if agent_id is None:
        raise UserError("a private campaign needs --agent AGENT_ID")
    if agent_id not in control.agents:
        raise UserError(f"agent {clip(agent_id)} is not registered in the control file")
    return control.seed, control.salt, agent_id


def make_registration(bundle: CampaignBundle, seed: int, salt: str, agent_id: str) -> Registration:
    """The run.json content for a new run."""
    return Registration(
        campaign_id=bundle.id,
        campaign_path=str(bundle.path),
        campaign_digest=bundle.digest,
        visibility=bundle.campaign.visibility,
        agent_id=agent_id,
        seed_commitment=seed_commitment(seed, salt),
        salt=salt,
    )
