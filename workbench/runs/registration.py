"""Run registration and private control files: who plays what campaign with which seed.

A development campaign publishes its seed and makes no secrecy claim. A private
campaign's seed lives only in a control file kept apart from the campaign and its runs
(`workbench control new`): a 256-bit random seed and a 256-bit secret `salt`. The salt
never leaves the control file; it keys the run's seed commitment (HMAC, so a run
directory gives nothing to search seeds against) and the HMAC signature of every seal of
the campaign's runs. The control file also holds, per agent, the SHA-256 of a bearer
token shown once to the operator: a host verifies a presented token with `token_agent`.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, Final, Literal

import orjson
from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError, field_validator

from ledger.canonical import dumps
from ledger.seal import keyed_commitment, seed_commitment
from sim.campaign_load import CAMPAIGN_FILE, CampaignBundle
from workbench.errors import IntegrityError, UserError
from workbench.inputs import read_bounded, refuse_over_limit
from workbench.messages import bound_lines, clip, validation_lines
from workbench.outputs import folder_holding, write_new_file

CONTROL_SCHEMA: Final = "cfwb.control/2"
RUN_SCHEMA: Final = "cfwb.run/2"
SECRET_BITS: Final = 256
WEAK_BELOW: Final = 1 << 192
"""A seed or salt below 2^192 cannot be a 256-bit random draw (chance 2^-64): refused."""
TOKEN_PREFIX: Final = "cfwb-agent-"
TOKEN_VERIFIER_PREFIX: Final = "sha256:"

Hex64 = Annotated[str, Field(pattern=r"^[0-9a-f]{64}$")]
AGENT_ID: Final = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
MAX_AGENTS: Final = 10_000
"""Agents one control file registers; its read limit (4 MiB) fits this many of the longest ids."""
AGENT_ID_RULE: Final = "1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit"
AgentId = Annotated[str, Field(pattern=f"^{AGENT_ID.pattern}$")]
TokenVerifier = Annotated[str, Field(pattern=r"^sha256:[0-9a-f]{64}$")]


def _secret(value: Any, name: str) -> str:
    """A 256-bit secret as 64 lowercase hex digits, or a ValueError saying why not."""
    hint = "make control files with `workbench control new`"
    if not isinstance(value, str) or len(value) != 64:
        raise ValueError(f"{name} must be 64 hex digits (256 random bits); {hint}")
    try:
        number = int(value, 16)
    except ValueError:
        raise ValueError(f"{name} must be 64 hex digits (256 random bits); {hint}") from None
    if number < WEAK_BELOW:
        raise ValueError(f"{name} is too weak to be 256 random bits; {hint}")
    return value.lower()


def _derive(salt: str, purpose: bytes) -> bytes:
    """A purpose-bound key from the control file's secret salt."""
    return hmac.new(bytes.fromhex(salt), b"cfwb/" + purpose, hashlib.sha256).digest()


def token_verifier(token: str) -> str:
    """What the control file stores for a bearer token: its SHA-256 (tokens are 256-bit)."""
    return TOKEN_VERIFIER_PREFIX + hashlib.sha256(token.encode()).hexdigest()


class ControlFile(BaseModel):
    """A private campaign's registration: seed, secret salt, agents and their token verifiers."""

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    schema_: Literal["cfwb.control/2"] = Field(default=CONTROL_SCHEMA, alias="schema")
    campaign_id: str = Field(min_length=1, max_length=128)
    campaign_digest: Hex64
    seed: str = Field(repr=False, description="256 random bits, 64 hex digits.")
    salt: str = Field(repr=False, description="256 secret bits keying commitment and seals.")
    agents: tuple[AgentId, ...] = Field(min_length=1, max_length=MAX_AGENTS)
    tokens: dict[AgentId, TokenVerifier] = Field(
        description="Per agent, the SHA-256 of its bearer token (the token itself is never kept)."
    )
    _agent_of_verifier: dict[str, str] = PrivateAttr(default_factory=dict)

    @field_validator("seed", mode="before")
    @classmethod
    def _seed(cls, value: Any) -> str:
        return _secret(value, "seed")

    @field_validator("salt", mode="before")
    @classmethod
    def _salt(cls, value: Any) -> str:
        return _secret(value, "salt")

    @field_validator("agents")
    @classmethod
    def _unique(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        if len(set(value)) != len(value):
            raise ValueError("an agent is listed twice")
        return value

    @field_validator("tokens")
    @classmethod
    def _distinct_tokens(cls, value: dict[str, str]) -> dict[str, str]:
        if len(set(value.values())) != len(value):
            raise ValueError("two agents share a bearer token")
        return value

    @field_validator("tokens")
    @classmethod
    def _one_token_each(cls, value: dict[str, str], info: Any) -> dict[str, str]:
        agents = info.data.get("agents")
        if agents is not None and set(value) != set(agents):
            raise ValueError("every agent needs exactly one token verifier")
        return value

    @property
    def seed_value(self) -> int:
        """The seed as the engine takes it."""
        return int(self.seed, 16)

    def commitment(self) -> str:
        """The run's seed commitment: HMAC keyed by the salt (nothing outside can search it)."""
        material = f"cfwb-seed\x00{self.campaign_digest}\x00{self.seed}".encode()
        return keyed_commitment(_derive(self.salt, b"seed-commitment"), material)

    def seal_key(self) -> bytes:
        """The HMAC-SHA256 key that signs every seal of this campaign's runs."""
        return _derive(self.salt, b"seal-signature")

    def report_key(self) -> bytes:
        """The HMAC-SHA256 key that signs every evaluation report of this campaign's runs."""
        return _derive(self.salt, b"report-signature")

    def model_post_init(self, context: Any, /) -> None:
        """Index the agents by token verifier, so a request's token is found in O(1)."""
        self._agent_of_verifier.update({v: a for a, v in self.tokens.items()})

    def token_agent(self, token: str) -> str | None:
        """The agent a presented bearer token belongs to, or None.

        Looked up by the token's SHA-256 (whose value a caller cannot steer, so the lookup's
        timing tells nothing), then compared in constant time; a scan of every agent would
        cost a host with 10,000 agents 10,000 comparisons per request.
        """
        presented = token_verifier(token)
        agent = self._agent_of_verifier.get(presented)
        if agent is None or not hmac.compare_digest(presented, self.tokens[agent]):
            return None
        return agent


@dataclass(frozen=True)
class RunIdentity:
    """What playing or verifying a run needs: seed, agent, commitment, seal key (private)."""

    seed: int = field(repr=False)
    agent_id: str
    seed_commitment: str
    seal_key: bytes | None = field(default=None, repr=False)


class Registration(BaseModel):
    """run.json: the public registration of a run. Never the seed, never anything keyed."""

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    schema_: Literal["cfwb.run/2"] = Field(default=RUN_SCHEMA, alias="schema")
    campaign_id: str = Field(min_length=1, max_length=128)
    campaign_path: str = Field(min_length=1, max_length=4096)
    campaign_digest: Hex64
    visibility: Literal["development", "private"]
    agent_id: AgentId
    seed_commitment: Hex64


def load_control(path: str | Path) -> ControlFile:
    """Read and validate a control file, or raise a UserError naming the file and field."""
    path = Path(path)
    data = read_bounded(path, "control file")
    try:
        document = orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        raise UserError(f"control file {path} is not valid JSON: {exc}") from None
    if not isinstance(document, dict):
        raise UserError(f"control file {path} is not a JSON object")
    try:
        return ControlFile.model_validate(document)
    except ValidationError as exc:
        raise UserError(validation_lines(exc, f"control file {path}")) from None


def parse_registration(where: str, data: bytes) -> Registration:
    """Validate run.json strictly: anything but a cfwb.run/2 registration is refused (exit 3).

    run.json is written only by the workbench, in canonical encoding, so a field it does not
    write (a `salt`), an unknown visibility, a malformed digest or a re-encoding means the
    run directory was altered.
    """
    try:
        document = orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        raise IntegrityError(f"{where}: not valid JSON: {exc}") from None
    if not isinstance(document, dict):
        raise IntegrityError(f"{where}: not a JSON object")
    if "salt" in document:
        raise IntegrityError(
            f"{where}: holds a salt: a run directory must hold nothing that lets the seed "
            "be searched (an old or altered registration)"
        )
    try:
        registration = Registration.model_validate(document)
    except ValidationError as exc:
        raise IntegrityError(validation_lines(exc, where)) from None
    if dumps(document) + b"\n" != data:
        raise IntegrityError(f"{where}: not in canonical encoding (changed file)")
    return registration


def resolve_identity(
    bundle: CampaignBundle, control: ControlFile | None, agent_id: str | None
) -> RunIdentity:
    """Seed, agent, commitment and seal key for playing or checking `bundle`."""
    if bundle.campaign.visibility == "development":
        if control is not None:
            raise UserError(
                f"campaign {bundle.id} is a development campaign: it takes no control file",
                subject="control",
            )
        seed = bundle.campaign.development_seed
        assert seed is not None
        if agent_id is not None and not AGENT_ID.fullmatch(agent_id):
            raise UserError(
                f"agent {clip(agent_id)}: an agent id is {AGENT_ID_RULE}", subject="agent"
            )
        return RunIdentity(seed, agent_id or "player", seed_commitment(seed, bundle.digest))
    if control is None:
        raise UserError(
            f"campaign {bundle.id} is private: its control file is required; "
            "no seed override exists",
            subject="control",
        )
    if control.campaign_id != bundle.id or control.campaign_digest != bundle.digest:
        raise UserError(
            f"control file is for campaign {control.campaign_id} "
            f"({control.campaign_digest[:12]}), not {bundle.id} "
            f"({bundle.digest[:12]})",
            subject="control",
        )
    if agent_id is None:
        raise UserError("a private campaign needs a registered agent id", subject="agent")
    if agent_id not in control.agents:
        raise UserError(
            f"agent {clip(agent_id)} is not registered in the control file", subject="agent"
        )
    return RunIdentity(control.seed_value, agent_id, control.commitment(), control.seal_key())


def check_agent(where: str, registration: Registration, identity: RunIdentity) -> None:
    """Refuse (a usage error, as a wrong flag is) a run another agent played than the one
    named; no agent named means the run's own."""
    if identity.agent_id != registration.agent_id:
        raise UserError(
            f"{where} was played by {clip(registration.agent_id)}, not {clip(identity.agent_id)}",
            subject="agent",
        )


def check_registration(
    where: str, registration: Registration, bundle: CampaignBundle, identity: RunIdentity
) -> None:
    """Refuse a run whose registration does not match its campaign, control file or agent."""
    check_agent(where, registration, identity)
    if bundle.id != registration.campaign_id:
        raise UserError(
            f"{where} was played on campaign {clip(registration.campaign_id)}, not "
            f"{clip(bundle.id)} ({bundle.path}): open it without naming a campaign"
        )
    if bundle.digest != registration.campaign_digest:
        raise UserError(
            f"{where} was played on campaign digest {registration.campaign_digest[:12]}, "
            f"but {bundle.path} now has {bundle.digest[:12]}"
        )
    if registration.visibility != bundle.campaign.visibility:
        raise IntegrityError(
            f"{where}: run.json says visibility {clip(registration.visibility)} but campaign "
            f"{bundle.id} is {bundle.campaign.visibility!r}"
        )
    if registration.seed_commitment != identity.seed_commitment:
        if identity.seal_key is not None:
            raise UserError(
                f"{where}: wrong control file: its seed commitment does not match the "
                "run's (another campaign's control file, or a changed seed or salt)",
                subject="control",
            )
        raise IntegrityError(
            f"{where}: run.json's seed commitment is not the campaign's development commitment"
        )


def make_registration(bundle: CampaignBundle, identity: RunIdentity) -> Registration:
    """The run.json content for a new run."""
    return Registration(
        campaign_id=bundle.id,
        campaign_path=str(bundle.path),
        campaign_digest=bundle.digest,
        visibility=bundle.campaign.visibility,
        agent_id=identity.agent_id,
        seed_commitment=identity.seed_commitment,
    )


def new_control(
    bundle: CampaignBundle, agents: tuple[str, ...]
) -> tuple[ControlFile, dict[str, str]]:
    """A fresh control file for a private campaign and each agent's bearer token (shown once)."""
    if bundle.campaign.visibility != "private":
        raise UserError(
            f"campaign {bundle.id} is a development campaign (public seed): "
            "only private campaigns take a control file"
        )
    if not agents:
        raise UserError("a control file needs at least one agent id", subject="agent")
    if len(agents) > MAX_AGENTS:
        raise UserError(
            f"a control file registers at most {MAX_AGENTS:,} agents, not {len(agents):,}"
        )
    malformed = [
        f"agent {clip(agent)}: an agent id is {AGENT_ID_RULE}"
        for agent in agents
        if not AGENT_ID.fullmatch(agent)
    ]
    if malformed:
        raise UserError(bound_lines(malformed, "agents"), subject="agent")
    tokens = {agent: TOKEN_PREFIX + secrets.token_urlsafe(SECRET_BITS // 8) for agent in agents}
    try:
        control = ControlFile(
            campaign_id=bundle.id,
            campaign_digest=bundle.digest,
            seed=_random_secret(),
            salt=_random_secret(),
            agents=agents,
            tokens={agent: token_verifier(token) for agent, token in tokens.items()},
        )
    except ValidationError as exc:
        raise UserError(validation_lines(exc, "control new")) from None
    return control, tokens


def _random_secret() -> str:
    """256 random bits as 64 hex digits, drawn again in the 2^-64 case that looks weak."""
    while True:
        value = secrets.randbits(SECRET_BITS)
        if value >= WEAK_BELOW:
            return f"{value:064x}"


def write_control(path: str | Path, control: ControlFile) -> None:
    """Write a control file readable by its owner only (0600): whole or not at all, never
    over an existing file, never into a run directory (it holds the seed and the salt), and
    never larger than the limit its readers apply (it could not be read back)."""
    path = Path(path)
    document = control.model_dump(mode="json", by_alias=True)
    data = _control_bytes(document)
    refuse_over_limit(path, "control file", len(data))
    if path.exists() or path.is_symlink():
        raise UserError(f"{path} exists: a control file is never overwritten")
    campaign = folder_holding(path, CAMPAIGN_FILE)
    if campaign is not None:
        raise UserError(
            f"control file {path}: {campaign} is a campaign folder; a control file never "
            "goes with a campaign (it holds the seed and salt, and campaigns are shared)",
            subject="out",
        )
    write_new_file(
        path,
        data,
        what="control file",
        new_mode=0o600,
        why_not_in_a_run="a control file never stays with a run (it holds the seed and salt)",
    )


def _control_bytes(document: dict[str, Any]) -> bytes:
    """A control file's bytes: the canonical JSON of its document and a newline."""
    return dumps(document) + b"\n"
