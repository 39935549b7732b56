"""The typed report of `workbench validate counterfactual` (report.json), DESIGN §9.

Every report is built from these models and dumped through them, so a field cannot be
misspelt or left out. Numbers that must stay exact (outcomes, effects, losses, scores)
are decimal strings.
"""

from __future__ import annotations

import hashlib
from typing import Annotated, Any, Final, Literal

from pydantic import BaseModel, ConfigDict, Field, NonNegativeInt

from ledger.canonical import dumps
from ledger.seal import hmac_signature, signature_matches
from workbench.play.models import QuestionContract

REPORT_SCHEMA: Final = "cfwb.counterfactual-report/2"
DISCLAIMER: Final = (
    "These are effects of the registered simulator choices under one paired realization "
    "(common random numbers): not identified real-world treatment effects, not a model "
    "identity attestation, and not evidence that every possible plan has been explored."
)

Hex64 = Annotated[str, Field(pattern=r"^[0-9a-f]{64}$")]
"""A SHA-256 (or HMAC) digest in lower-case hex."""
EpisodeId = Annotated[str, Field(pattern=r"^ep-[0-9a-f]{16}$")]
"""A branch's episode id (`branches.episode_id`)."""
Day = NonNegativeInt
"""A simulated day (day 0 is the campaign's first)."""

BranchStatus = Literal["ok", "rejected", "failed"]
QuestionStatus = Literal["scored", "unsubmitted", "unresolved", "invalid", "failed"]
Verdict = Literal["met", "wrong", "missing", "unresolved"]
QUESTION_STATUSES: Final[tuple[QuestionStatus, ...]] = (
    "scored",
    "unsubmitted",
    "unresolved",
    "invalid",
    "failed",
)


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)


class RegistrationInfo(_Model):
    """Which campaign, visibility, agent and seed commitment the run was registered with."""

    campaign_id: str
    campaign_digest: Hex64
    visibility: Literal["development", "private"]
    agent_id: str
    seed_commitment: Hex64


class VerificationInfo(_Model):
    """The factual verification: intact, or the first divergence."""

    ok: bool
    divergence: str | None = None


class Factual(_Model):
    """The factual run that was verified before anything was scored."""

    run: str
    company: str
    journal_head: Hex64 | None
    seal_digest: Hex64 | None
    final_day: Day | None
    verification: VerificationInfo


class Execution(_Model):
    """What executed the branches (no timing: identical for any number of workers)."""

    engine_version: str
    python: str
    numpy: str
    bit_generator: str
    platform: str


class BusinessObjective(_Model):
    """A factual task, reported apart and never scored."""

    task: str
    title: str
    met: bool


class SubmissionUsed(_Model):
    """The latest eligible submission, the one that counts."""

    seq: Annotated[int, Field(ge=1)]
    day: Day
    value: str
    conclusion: str | list[str] | None
    choice: str | None


class ScheduleStep(_Model):
    """One action a branch scheduled: the outcome and the digest of its registered terms."""

    action: str
    accepted: bool
    reason: str | None
    start_day: Day | None
    terms_digest: Hex64


class BranchRecord(_Model):
    """One branch: status, outcome (display units), reason, schedule and its seal file."""

    name: str
    choice: str
    actions: list[str]
    episode_id: EpisodeId
    status: BranchStatus
    reason: str | None
    outcome: str | None
    schedule: list[ScheduleStep]
    seal_file: str | None = None
    seal_sha256: Hex64 | None = None
    seal_digest: Hex64 | None = None


def contract_digest(contract: QuestionContract) -> str:
    """SHA-256 of a question contract's canonical data: the entry's `contract_digest`."""
    return hashlib.sha256(dumps(contract.to_data())).hexdigest()


class Branches(_Model):
    """Both branches of a question (None when a branch was never run)."""

    baseline: BranchRecord | None = None
    intervention: BranchRecord | None = None

    def named(self) -> tuple[tuple[str, BranchRecord | None], ...]:
        """Both records with their branch names, baseline first."""
        return (("baseline", self.baseline), ("intervention", self.intervention))


class ContractEvidence(_Model):
    """A contract component as the intervention branch's ledger shows it."""

    ledger_cents: int
    declared: str
    matches_declared: bool


class EffectsEvidence(_Model):
    """Each declared effect's gauge in both branches at the outcome day."""

    baseline_gauges: dict[str, int]
    intervention_gauges: dict[str, int]


class ConclusionCheck(_Model):
    """A required conclusion's verdict, kept apart from the forecast's score."""

    kind: str
    action: str
    component: str | None
    submitted: str | list[str] | None
    expected: str | list[str] | None
    verdict: Verdict
    decidable: bool
    evidence: ContractEvidence | EffectsEvidence | None
    reason: str | None = None


class QuestionEntry(_Model):
    """One question: contract, submission used, both branches, effect, score, verdict, status."""

    id: str
    contract: QuestionContract
    contract_digest: Hex64
    submission: SubmissionUsed | None
    branches: Branches
    effect: str | None
    conclusion: ConclusionCheck | None
    loss: str | None
    score: str | None
    status: QuestionStatus
    reason: str | None

    @property
    def conclusion_met(self) -> bool:
        """True when the question requires no conclusion or its conclusion is met."""
        return self.conclusion is None or self.conclusion.verdict == "met"


class Summary(_Model):
    """Counts by status, the mean score, and how many required conclusions were met."""

    questions: NonNegativeInt
    scored: NonNegativeInt
    unsubmitted: NonNegativeInt
    unresolved: NonNegativeInt
    invalid: NonNegativeInt
    failed: NonNegativeInt
    mean_score: str | None
    conclusions_required: NonNegativeInt
    conclusions_met: NonNegativeInt
    all_scored: bool
    all_conclusions_met: bool


class Artifacts(_Model):
    """The SHA-256 of SHA256SUMS, which covers every branch seal written."""

    sha256sums: Hex64 = Field(alias="SHA256SUMS")


class CounterfactualReport(_Model):
    """report.json."""

    schema_: Literal["cfwb.counterfactual-report/2"] = Field(default=REPORT_SCHEMA, alias="schema")
    disclaimer: str = DISCLAIMER
    registration: RegistrationInfo
    factual: Factual
    execution: Execution
    business_objective: list[BusinessObjective]
    questions: list[QuestionEntry] = Field(default_factory=list)
    summary: Summary | None = None
    artifacts: Artifacts | None = None
    signature: str | None = None
    """A private run's report is signed by its evaluator (`signed`): HMAC-SHA256 under a key
    derived from the control file's salt, over the canonical report without this field;
    it covers SHA256SUMS, and through it every branch seal. Absent when unsigned."""

    @property
    def passed(self) -> bool:
        """True when every question is scored and every required conclusion is met."""
        return (
            self.summary is not None
            and self.summary.all_scored
            and (self.summary.all_conclusions_met)
        )

    def to_json(self) -> dict[str, Any]:
        """The JSON-ready document (aliases, no Python-only types; no `signature` unsigned)."""
        data = self.model_dump(mode="json", by_alias=True)
        if data["signature"] is None:
            del data["signature"]
        return data

    def to_bytes(self) -> bytes:
        """Canonical bytes of report.json (newline-terminated)."""
        return dumps(self.to_json()) + b"\n"

    def _unsigned_bytes(self) -> bytes:
        return self.model_copy(update={"signature": None}).to_bytes()

    def signed(self, key: bytes) -> CounterfactualReport:
        """The report with its signature under `key` (see `signature`)."""
        return self.model_copy(update={"signature": hmac_signature(key, self._unsigned_bytes())})

    def signature_ok(self, key: bytes) -> bool:
        """True when the report carries the signature `key` makes over everything else."""
        return signature_matches(self.signature, key, self._unsigned_bytes())
