"""The hosted session's wire format: typed requests and replies of `workbench host`.

Both ends read these models: the host (workbench/host) builds replies from a local
session, the remote session (workbench/play/remote.py) parses them. Everything here is
public: the public view, one's own journal, ledger and metrics. Nothing carries a seed,
a salt, a key, a branch outcome or a fork, rewind or evaluate operation.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Final, Literal

from pydantic import BaseModel, ConfigDict, Field, JsonValue

from workbench.play.models import ActionTerms, CampaignInfo, ObjectiveTerms, QuestionContract
from workbench.runs.commands import CounterfactualAssessment

API_PREFIX: Final = "/v1"
"""Every route of the JSON API starts here; the MCP endpoint is `/mcp`."""
MCP_PATH: Final = "/mcp"
"""Where the host serves MCP over streamable HTTP."""

COMMAND_ID_PATTERN: Final = r"^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$"
"""A client-chosen command id: 1 to 128 letters, digits and `._:-`, starting alphanumeric."""
RUN_ID_PATTERN: Final = r"^run-[0-9a-f]{32}$"
"""A run id, always chosen by the host: `run-` and 32 hex digits (never a path)."""
RUN_ID_RE: Final = re.compile(RUN_ID_PATTERN)
RESERVED_COMMAND_IDS: Final = frozenset({"header"})
"""Ids the journal uses itself; a client may not choose them."""

CommandId = Annotated[
    str,
    Field(
        pattern=COMMAND_ID_PATTERN,
        description=(
            "Client-chosen id of this command. A retry with the same id and content returns "
            "the first reply and changes nothing; the same id with other content is refused (409)."
        ),
    ),
]
LedgerFormat = Literal["beancount", "csv"]
"""The ledger's export formats."""
RunId = Annotated[str, Field(pattern=RUN_ID_PATTERN, description="A run id the host chose.")]


class WireModel(BaseModel):
    """Base of every wire model: immutable, no unknown fields."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    def to_data(self) -> dict[str, Any]:
        """The JSON-ready form."""
        return self.model_dump(mode="json", by_alias=True)


# -- requests ------------------------------------------------------------------------------
class WireRequest(WireModel):
    """Base of every request: strict as well, so `"3"`, `true` or `3.0` is never a number of
    days (a lax model applied `"1_0"` as 10 days and took `3.0` for a retry of `3`)."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)


class StartRequest(WireRequest):
    """Start the calling agent's episode: its one run of the hosted campaign."""

    command_id: CommandId


class ScheduleRequest(WireRequest):
    """Schedule an action at today's decisions."""

    command_id: CommandId
    action: str = Field(min_length=1, max_length=128)


class AdvanceRequest(WireRequest):
    """Run whole days with no further decisions."""

    command_id: CommandId
    days: int = Field(default=1, ge=1, le=3650)


class SubmitRequest(WireRequest):
    """Submit a counterfactual assessment."""

    command_id: CommandId
    assessment: CounterfactualAssessment


JOURNAL_PAGE_MAX: Final = 1000
"""Journal rows one page holds at most."""


class JournalRequest(WireRequest):
    """A page of one's own journal: rows from seq `since`, at most `limit` of them."""

    since: int = Field(default=1, ge=1, le=10**9, description="First seq of the page.")
    limit: int = Field(
        default=200, ge=1, le=JOURNAL_PAGE_MAX, description="Rows at most (1 to 1000)."
    )


class FinishRequest(WireRequest):
    """End the run: the remaining days run with no decisions; then it accepts no command."""

    command_id: CommandId


# -- replies -------------------------------------------------------------------------------
class ErrorDetail(WireModel):
    """One clear message and a stable code."""

    code: str
    message: str


class RunInfo(WireModel):
    """One of the caller's runs."""

    run_id: RunId
    campaign_id: str
    day: int
    horizon: int
    finished: bool
    commands: int
    """Commands journaled so far (the header aside)."""


class UnavailableRun(WireModel):
    """One of the caller's runs the host cannot serve now, listed with the error its own
    routes answer: `run_damaged` (it failed its check, or its journal could not be made
    durable: the operator must inspect it), `run_busy` (another process is writing it) or
    `storage_failed` (the disk refused a write: try again later). `error.message` says why
    in one short line."""

    run_id: RunId
    error: ErrorDetail


class RunList(WireModel):
    """The caller's runs, oldest first, and who the caller is. A run the host cannot serve
    now is an `UnavailableRun` (it has `error` where a run has its day): one damaged run
    never hides the others."""

    agent: str
    runs: tuple[RunInfo | UnavailableRun, ...]


class StartReply(WireModel):
    """A started episode; `created` is False when the command id was already used (a retry)."""

    run: RunInfo
    created: bool


class CommandReply(WireModel):
    """What a journaled command did; `retry` is True when its id was already journaled."""

    command_id: str
    kind: Literal["schedule", "advance", "submit_assessment", "finish"]
    seq: int
    """Its place in the run's journal."""
    decision_day: int
    """The day whose decisions it belongs to."""
    day: int
    """The run's day right after it."""
    finished: bool
    """True when the run was finished right after it."""
    retry: bool


class ScheduleReply(CommandReply):
    """A schedule command: accepted, or rejected with the reason (journaled either way)."""

    action: str
    accepted: bool
    reason: str | None
    start_day: int | None


class SubmitReply(CommandReply):
    """A journaled submission: whether it beats the question's deadline, and notes."""

    question: str
    eligible: bool
    notes: tuple[str, ...]


class Preview(WireModel):
    """Would this action be accepted now, and if not, why? (changes nothing)."""

    action: str
    day: int
    accepted: bool
    reason: str | None
    term: str | None
    start_day: int | None


class JournalRow(WireModel):
    """One journaled command, public fields only (the header is not shown)."""

    seq: int
    day: int
    kind: str
    id: str
    payload: dict[str, JsonValue]
    hash: str


class JournalPage(WireModel):
    """A page of the caller's own journal: entries with seq >= `since`."""

    run_id: RunId
    head: str
    """Hash of the journal's last entry."""
    total: int
    """Journal entries in all (the header included)."""
    entries: tuple[JournalRow, ...]


class MetricSeries(WireModel):
    """Every metric at every closed day, in display units (exact decimal strings)."""

    run_id: RunId
    series: dict[str, tuple[str, ...]]


class LedgerAccount(WireModel):
    """An account and its balance (minor units) at the close of each day from `first_day`."""

    name: str
    unit: str
    balances: tuple[int, ...]


class LedgerData(WireModel):
    """The run's own ledger as balances by day: enough for a trial balance and drill-downs."""

    run_id: RunId
    first_day: int
    last_day: int
    accounts: tuple[LedgerAccount, ...]


class LedgerExport(WireModel):
    """The run's own ledger as beancount or CSV text."""

    run_id: RunId
    format: LedgerFormat
    text: str


class Briefing(WireModel):
    """What an agent reads before playing: the campaign, its objectives, the rules of play."""

    campaign: CampaignInfo
    start_date: str
    horizon: int
    tasks: tuple[ObjectiveTerms, ...]
    """The business objectives with every goal (reported apart from scores, never scored)."""
    questions: tuple[str, ...]
    """Ids of the counterfactual questions (their contracts are a resource of their own)."""
    rules: tuple[str, ...]


class Catalog(WireModel):
    """Every action with every term."""

    actions: tuple[ActionTerms, ...]


class Contracts(WireModel):
    """Every question's public contract."""

    questions: tuple[QuestionContract, ...]


class ErrorBody(WireModel):
    """Every error reply of the JSON API."""

    error: ErrorDetail
