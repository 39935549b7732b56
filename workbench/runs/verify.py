"""Factual verification: the journal's chain, its re-execution, and the seal.

A private run's seal must also carry a valid HMAC signature under the control file's
key: an edit re-sealed without that key fails here. Counterfactual answers are not
graded here: they stay pending offline grading and never count as a failed business
objective.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from ledger.journal import Journal, JournalError, TornJournal
from ledger.seal import Seal
from sim.campaign_load import CampaignBundle
from sim.metrics import TaskResult, evaluate_task
from workbench.errors import UserError
from workbench.messages import clip
from workbench.runs.bundle import run_campaign
from workbench.runs.files import (
    RunPaths,
    SealError,
    build_seal,
    header_problem,
    missing_header,
    read_journal,
    read_registration,
    read_seal,
)
from workbench.runs.lock import named_holder
from workbench.runs.registration import (
    ControlFile,
    Registration,
    check_agent,
    check_registration,
    resolve_identity,
)
from workbench.runs.replay import ReplayError, ReplayResult, replay


@dataclass
class Verification:
    """The result of verifying a run: intact or the first divergence, and the task outcome."""

    run_dir: Path
    registration: Registration
    bundle: CampaignBundle
    ok: bool
    divergence: str | None = None
    journal: Journal | None = None
    replayed: ReplayResult | None = None
    seal: Seal | None = None
    tasks: list[TaskResult] = field(default_factory=list)

    def pending_questions(self) -> list[str]:
        """Questions with a submission in this run: answered, pending offline grading."""
        if self.replayed is None:
            return []
        return sorted({s.assessment.question for s in self.replayed.submissions})


def verify_run(
    run_dir: str | Path,
    control: ControlFile | None = None,
    agent_id: str | None = None,
    campaign: str | Path | None = None,
    snapshot_days: frozenset[int] | set[int] = frozenset(),
) -> Verification:
    """Re-execute a run's journal from its campaign and seed and compare the seal.

    `snapshot_days` asks for branch points captured on the way (the evaluator's).
    """
    paths = RunPaths(Path(run_dir))
    registration = read_registration(paths)
    bundle = run_campaign(paths.root, registration, campaign)
    return verify_loaded(paths, registration, bundle, control, agent_id, snapshot_days)


def verify_loaded(
    paths: RunPaths,
    registration: Registration,
    bundle: CampaignBundle,
    control: ControlFile | None = None,
    agent_id: str | None = None,
    snapshot_days: frozenset[int] | set[int] = frozenset(),
) -> Verification:
    """Verify a run whose registration and campaign the caller has already read."""
    identity = resolve_identity(bundle, control, agent_id or registration.agent_id)
    result = Verification(paths.root, registration, bundle, ok=False)
    check_agent(str(paths.root), registration, identity)
    if bundle.id != registration.campaign_id:
        result.divergence = (
            f"{bundle.path} holds campaign {clip(bundle.id)}, not "
            f"{clip(registration.campaign_id)} that the run played: name the folder where "
            "that one is"
        )
        return result
    if bundle.digest != registration.campaign_digest:
        result.divergence = (
            f"its campaign {bundle.id} at {bundle.path} has changed since the run started "
            f"(digest {bundle.digest[:12]}, registered {registration.campaign_digest[:12]}): "
            "verify it against the campaign's files as they were"
        )
        return result
    check_registration(str(paths.root), registration, bundle, identity)
    # The seal is read before the journal: a verification racing the run's writer then
    # meets a seal of the journal it reads or of a prefix of it (an interruption, named
    # so), never a seal of entries appended after its read, which would look like an edit.
    try:
        sealed: Seal | SealError | None = read_seal(paths)
    except SealError as exc:
        sealed = exc
    try:
        journal = read_journal(paths)
    except JournalError as exc:
        if isinstance(exc, TornJournal):  # only a torn tail may be a writer at work
            _refuse_while_written(paths)
        result.divergence = exc.reason if exc.line is None else f"journal {exc}"
        return result
    result.journal = journal
    header = journal.header
    if header is None:
        if not os.path.lexists(paths.seal):  # a creation, perhaps still at work
            _refuse_while_written(paths)
        result.divergence = missing_header(paths)
        return result
    problem = header_problem(paths, journal, bundle, registration, identity.seal_key)
    if problem is not None:
        result.divergence = problem
        return result
    try:
        replayed = replay(bundle, identity.seed, journal.entries, snapshot_days)
    except ReplayError as exc:
        result.divergence = f"journal {exc}"
        return result
    result.replayed = replayed
    engine = replayed.engine
    rebuilt = build_seal(bundle, registration, journal, engine.book, engine.day, identity.seal_key)
    result.seal = rebuilt
    result.tasks = [
        evaluate_task(engine.book, bundle.metrics, t, bundle.horizon) for t in bundle.tasks
    ]
    if isinstance(sealed, SealError):
        result.divergence = str(sealed)
        return result
    stored = sealed
    if stored is None:
        result.divergence = f"{paths.seal} is missing"
        if len(journal) == 1:
            _refuse_while_written(paths)
            result.divergence += (
                f": the run's creation was interrupted before its first seal; run into "
                f"{paths.root} again to finish creating it"
            )
        return result
    if identity.seal_key is not None and not stored.signature_ok(identity.seal_key):
        state = "is unsigned" if stored.signature is None else "has a wrong signature"
        result.divergence = (
            f"{paths.seal} {state}: a private run's seal must be signed with its control "
            "file's key (re-sealed or edited without it)"
        )
        return result
    differing = stored.differences(rebuilt)
    if differing and _sealed_prefix(stored, rebuilt, journal):
        _refuse_while_written(paths)
        result.divergence = (
            f"the run was interrupted: its journal has {len(journal)} entries (day "
            f"{engine.day}) but seal.json covers only the first {stored.journal_entries} "
            f"(day {stored.final_day}); open it to play again (workbench play --run "
            f"{paths.root}): opening it seals it"
        )
        return result
    if differing:
        result.divergence = "seal differs from re-execution in: " + ", ".join(differing)
        return result
    result.ok = True
    return result


_PROGRESS_FIELDS = frozenset(
    {"journal_head", "journal_entries", "ledger_digest", "final_day", "signature"}
)
"""Seal fields that move as a run goes on; every other field names the run itself."""


def _sealed_prefix(stored: Seal, rebuilt: Seal, journal: Journal) -> bool:
    """True when the stored seal is this run's own seal of an earlier point of its journal.

    That is an honest interruption (the journal moved on, the seal did not follow), not a
    change: the seal's head is the hash of the journal's entry at the seal's length, and
    every identity field agrees.
    """
    count = stored.journal_entries
    if not 0 < count < len(journal) or stored.journal_head != journal.entries[count - 1].hash:
        return False
    return not set(stored.differences(rebuilt)) - _PROGRESS_FIELDS


def _refuse_while_written(paths: RunPaths) -> None:
    """A UserError (exit 2) when a live writer holds the run: a journal read in the middle
    of its append (a torn last line) or ahead of its seal is the writer at work, not a
    damaged or interrupted run, and is verified once the writer is done. Never asked of
    any other damage: a lock file naming a live process (a planted one too) must not turn
    a changed journal into 'busy'."""
    writer = named_holder(paths.root)
    if writer is not None:
        raise UserError(
            f"{paths.root} is being written by {writer}: verify it once that writer is done"
        )
