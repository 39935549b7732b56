"""The player session: the one object the CLI and the dashboard play through.

It creates or resumes a run directory, journals every command before applying it
(write-ahead), and offers public views only. It has no fork, rewind or
counterfactual oracle: branches exist only in the offline evaluator and author checks,
and the evaluator takes only finished runs. A run is finished at its horizon or after
a journaled `finish`; a finished run accepts no further command.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any

from ledger.journal import HEADER_KIND, Entry, Journal, JournalError
from ledger.seal import seal_signature_ok
from sim.campaign_load import CampaignBundle
from sim.engine import Engine, EngineError
from sim.metrics import TaskResult, evaluate_task
from sim.scheduling import ScheduleOutcome
from sim.state import DayStats
from workbench.errors import IntegrityError, UserError
from workbench.play import public_view
from workbench.play.objective import (
    Briefing,
    CampaignSummary,
    ObjectiveProgress,
    briefing,
    campaign_summary,
    objective_progress,
)
from workbench.play.traps import Trap, sprung_traps, traps_if_scheduled
from workbench.runs.assessment import (
    ParsedAssessment,
    SubmissionRecord,
    eligible,
    parse_assessment,
)
from workbench.runs.bundle import load_bundle
from workbench.runs.commands import (
    Advance,
    CounterfactualAssessment,
    Finish,
    Schedule,
    SubmitAssessment,
    command_payload,
)
from workbench.runs.files import (
    RunPaths,
    build_seal,
    header_payload,
    read_registration,
    read_seal,
    write_registration,
    write_seal,
)
from workbench.runs.registration import (
    ControlFile,
    Registration,
    RunIdentity,
    check_registration,
    make_registration,
    resolve_identity,
)
from workbench.runs.replay import ReplayError, apply_command, replay

EXPORT_FORMATS = ("beancount", "csv")
"""Ledger export formats a session writes into its run directory."""


@dataclass(frozen=True)
class SubmitResult:
    """What happened to a submission: schema errors (nothing changed) or its journal entry."""

    errors: tuple[str, ...]
    seq: int | None = None
    eligible: bool = False
    notes: tuple[str, ...] = ()

    @property
    def accepted(self) -> bool:
        """True when the submission was journaled."""
        return not self.errors


def _check_signed_seal(paths: RunPaths, journal: Journal, key: bytes) -> None:
    """Resume a private run only under a seal its key signed over this very journal.

    The seal may lag the journal by the commands of an interrupted session (they are
    re-sealed now), but an edit of any sealed entry changes every later hash, so the
    sealed head is no longer on the chain: the session refuses to re-seal (launder) it.
    """
    stored = read_seal(paths)
    if stored is None:
        raise IntegrityError(f"{paths.seal} is missing: a private run is always sealed")
    if not seal_signature_ok(stored, key):
        raise IntegrityError(
            f"{paths.seal} is not signed with the control file's key (re-sealed or edited)"
        )
    if stored.get("journal_head") not in {entry.hash for entry in journal.entries}:
        raise IntegrityError(
            f"{paths.seal} does not seal this journal: an entry was changed after it was sealed"
        )


class PlayerSession:
    """Play one run: schedule actions, advance days, submit assessments, read public views."""

    def __init__(
        self,
        paths: RunPaths,
        bundle: CampaignBundle,
        registration: Registration,
        identity: RunIdentity,
        journal: Journal,
        engine: Engine,
        submissions: list[SubmissionRecord],
        outcomes: dict[int, dict[str, Any]],
        autoseal: bool,
    ) -> None:
        self.paths = paths
        self.bundle = bundle
        self.registration = registration
        self._identity = identity
        self._journal = journal
        self._engine = engine
        self._submissions = submissions
        self._outcomes = outcomes
        self._autoseal = autoseal

    # -- opening --------------------------------------------------------------------
    @classmethod
    def create(
        cls,
        run_dir: str | Path,
        campaign: str | Path | None = None,
        *,
        control: ControlFile | None = None,
        agent_id: str | None = None,
        autoseal: bool = True,
    ) -> PlayerSession:
        """Register a new run of `campaign` (the default one when None) in an empty `run_dir`."""
        paths = RunPaths(Path(run_dir))
        if paths.exists():
            raise UserError(f"{paths.root} already holds a run: resume it instead")
        if paths.root.exists() and any(paths.root.iterdir()):
            raise UserError(f"{paths.root} exists and is not an empty run directory")
        from campaigns import DEFAULT_CAMPAIGN

        bundle = load_bundle(campaign or DEFAULT_CAMPAIGN)
        identity = resolve_identity(bundle, control, agent_id)
        registration = make_registration(bundle, identity)
        paths.root.mkdir(parents=True, exist_ok=True)
        write_registration(paths, registration)
        journal = Journal.open(paths.journal)
        journal.append(0, HEADER_KIND, "header", header_payload(bundle, registration))
        engine = Engine(bundle, identity.seed)
        session = cls(paths, bundle, registration, identity, journal, engine, [], {}, autoseal)
        session.seal()
        return session

    @classmethod
    def resume(
        cls,
        run_dir: str | Path,
        campaign: str | Path | None = None,
        *,
        control: ControlFile | None = None,
        agent_id: str | None = None,
        autoseal: bool = True,
    ) -> PlayerSession:
        """Resume the run `run_dir` holds by replaying its journal (a UserError when none)."""
        paths = RunPaths(Path(run_dir))
        registration = read_registration(paths)
        bundle = load_bundle(campaign or registration.campaign_path)
        identity = resolve_identity(bundle, control, agent_id or registration.agent_id)
        check_registration(str(paths.root), registration, bundle, identity)
        try:
            journal = Journal.open(paths.journal)
        except JournalError as exc:
            raise IntegrityError(f"{paths.journal}: {exc}") from None
        if identity.seal_key is not None:
            _check_signed_seal(paths, journal, identity.seal_key)
        try:
            result = replay(bundle, identity.seed, journal.entries)
        except ReplayError as exc:
            raise IntegrityError(f"{paths.journal}: {exc}") from None
        return cls(
            paths,
            bundle,
            registration,
            identity,
            journal,
            result.engine,
            result.submissions,
            result.outcomes,
            autoseal,
        )

    # -- commands -------------------------------------------------------------------
    def _command_id(self, command_id: str | None) -> str:
        return command_id or f"cmd-{uuid.uuid4().hex}"

    def _refuse_when_finished(self) -> None:
        """A finished run accepts no command: say so in one line."""
        if self.finished:
            raise UserError(
                f"{self.paths.root} is finished (day {self.day} of {self.horizon}): "
                "it accepts no further command"
            )

    def _append(self, kind: str, command_id: str, payload: dict[str, Any]) -> Entry | None:
        """Append a command; return None when its id is already journaled (a retry)."""
        known = self._journal.get(command_id)
        if known is not None:
            return None
        return self._journal.append(self._engine.day, kind, command_id, payload)

    def preview(self, action_id: str) -> ScheduleOutcome:
        """Would this action be accepted now, and if not, why? Changes nothing."""
        try:
            return self._engine.check(action_id)
        except EngineError as exc:
            raise UserError(str(exc)) from None

    def schedule(self, action_id: str, command_id: str | None = None) -> ScheduleOutcome:
        """Schedule an action at today's decisions (journaled even when rejected)."""
        known = self._journal.get(command_id) if command_id else None
        if known is not None:
            recorded = self._outcomes.get(known.seq, {})
            return ScheduleOutcome(
                action_id,
                known.day,
                bool(recorded.get("accepted")),
                recorded.get("reason"),
                None,
                recorded.get("start_day"),
            )
        self._refuse_when_finished()
        self.preview(action_id)
        command = Schedule(action=action_id)
        entry = self._append(command.kind, self._command_id(command_id), command_payload(command))
        assert entry is not None
        self._outcomes[entry.seq] = apply_command(
            self._engine, command, entry.seq, self._submissions
        )
        self._after_command()
        recorded = self._outcomes[entry.seq]
        return ScheduleOutcome(
            action_id,
            entry.day,
            recorded["accepted"],
            recorded["reason"],
            None,
            recorded["start_day"],
        )

    def advance(self, days: int = 1, command_id: str | None = None) -> int:
        """Run `days` days with no further decisions; returns the new day."""
        if command_id and self._journal.get(command_id) is not None:
            return self._engine.day
        self._refuse_when_finished()
        if days < 1:
            raise UserError("advance needs at least one day")
        if self._engine.day + days > self.horizon:
            raise UserError(
                f"cannot advance {days} day(s) from day {self._engine.day}: the "
                f"campaign ends on day {self.horizon}"
            )
        command = Advance(days=days)
        entry = self._append(command.kind, self._command_id(command_id), command_payload(command))
        if entry is not None:
            self._outcomes[entry.seq] = apply_command(
                self._engine, command, entry.seq, self._submissions
            )
            self._after_command()
        return self._engine.day

    def submit(
        self,
        assessment: Mapping[str, Any] | CounterfactualAssessment,
        command_id: str | None = None,
    ) -> SubmitResult:
        """Submit an assessment: schema and contract errors change nothing."""
        checked = self.check_assessment(assessment)
        if checked.assessment is None:
            return SubmitResult(checked.errors)
        parsed = checked.assessment
        question = self.bundle.questions[parsed.question]
        known = self._journal.get(command_id) if command_id else None
        if known is not None:
            return SubmitResult((), known.seq, eligible(question, known.day), checked.notes)
        self._refuse_when_finished()
        command = SubmitAssessment(assessment=parsed)
        entry = self._append(command.kind, self._command_id(command_id), command_payload(command))
        assert entry is not None
        apply_command(self._engine, command, entry.seq, self._submissions)
        self._outcomes[entry.seq] = {"recorded": True}
        self._after_command()
        return SubmitResult((), entry.seq, eligible(question, entry.day), checked.notes)

    def finish(self, command_id: str | None = None) -> int:
        """End the run: the remaining days run with no decisions; returns the horizon.

        Afterwards the run accepts no command; only a finished run can be evaluated.
        """
        if command_id and self._journal.get(command_id) is not None:
            return self._engine.day
        self._refuse_when_finished()
        command = Finish()
        entry = self._append(command.kind, self._command_id(command_id), command_payload(command))
        assert entry is not None
        self._outcomes[entry.seq] = apply_command(
            self._engine, command, entry.seq, self._submissions
        )
        self._after_command()
        return self._engine.day

    def check_assessment(
        self, assessment: Mapping[str, Any] | CounterfactualAssessment
    ) -> ParsedAssessment:
        """Check a submission exactly as `submit` would, changing nothing."""
        return parse_assessment(self.bundle, assessment)

    def _after_command(self) -> None:
        if self._autoseal:
            self.seal()

    def seal(self) -> dict[str, Any]:
        """Write seal.json for the run as it stands."""
        seal = build_seal(
            self.bundle,
            self.registration,
            self._journal,
            self._engine.book,
            self._engine.day,
            self._identity.seal_key,
        )
        write_seal(self.paths, seal)
        return seal

    def write_store(self) -> None:
        """Rebuild the run's SQLite store (a derived cache) from its ledger and metrics."""
        from ledger.store import write_store

        rows = [
            (day, metric_id, value, self.bundle.metrics[metric_id].units)
            for metric_id, values in self.metric_series().items()
            for day, value in enumerate(values)
        ]
        write_store(self.paths.store, self._engine.book, rows)

    def run_to_horizon(self) -> None:
        """Advance with no further decisions until the campaign ends."""
        day = self._engine.day
        if day < self.horizon:
            self.advance(self.horizon - day, f"to-horizon-from-day-{day}")

    # -- public reads ---------------------------------------------------------------
    @property
    def day(self) -> int:
        """The last closed day (decisions now belong to it)."""
        return self._engine.day

    @property
    def horizon(self) -> int:
        """The campaign's last day."""
        return self.bundle.horizon

    @property
    def finished(self) -> bool:
        """True once the horizon has closed (reached by play or by `finish`)."""
        return self._engine.finished

    @property
    def journal_entries(self) -> tuple[Entry, ...]:
        """The journal, in order."""
        return self._journal.entries

    @property
    def journal_head(self) -> str:
        """Hash of the journal's last entry."""
        return self._journal.head

    @property
    def submissions(self) -> tuple[SubmissionRecord, ...]:
        """Own submissions, in order."""
        return tuple(self._submissions)

    def outcome_of(self, seq: int) -> dict[str, Any] | None:
        """What a journaled command did."""
        return self._outcomes.get(seq)

    def view(self) -> public_view.PublicView:
        """The player's public view of the run (the same data as `workbench snapshot`)."""
        return public_view.build(self.bundle, self._engine, self._submissions)

    def ledger(self) -> public_view.LedgerView:
        """Read-only ledger access (balances, trial balance, exports)."""
        return public_view.LedgerView(self._engine.book, self.bundle)

    def export_ledger(self, fmt: str) -> Path:
        """Write the ledger as `ledger.beancount` or `ledger.csv` into the run dir, atomically."""
        from workbench.runs.files import atomic_write

        if fmt not in EXPORT_FORMATS:
            raise UserError(f"unknown ledger format {fmt!r} (beancount or csv)")
        target = self.paths.root / f"ledger.{fmt}"
        try:
            atomic_write(target, self.ledger().export(fmt).encode())
        except OSError as exc:
            raise UserError(f"cannot write {target}: {exc.strerror or exc}") from None
        return target

    def metric_series(self) -> dict[str, list[Decimal]]:
        """Every metric at every closed day, in display units (for charts)."""
        return public_view.metric_series(self.bundle, self._engine.book)

    def history(self) -> list[DayStats]:
        """Operating statistics of every closed day (demand, sold, utilisation)."""
        return self._engine.state.history

    def briefing(self) -> Briefing:
        """The campaign's briefing: situation, objective, questions and their deadlines."""
        return briefing(self.bundle)

    def objective_progress(self) -> tuple[ObjectiveProgress, ...]:
        """Each business objective at the latest close (final once the run finished)."""
        return objective_progress(self.bundle, self._engine.book, self.day, self.finished)

    def summary(self) -> CampaignSummary:
        """The end-of-campaign summary: objective, submissions made, what happens next."""
        return campaign_summary(
            self.bundle,
            self._engine.book,
            self.day,
            self.finished,
            self._submissions,
            str(self.paths.root),
        )

    def traps_if_scheduled(self, action_id: str) -> tuple[Trap, ...]:
        """Questions that scheduling `action_id` now would make unresolvable."""
        return traps_if_scheduled(self.bundle, self.day, action_id)

    def sprung_traps(self) -> tuple[Trap, ...]:
        """Questions already made unresolvable by actions scheduled before their day."""
        return sprung_traps(self.bundle, self._engine.state.scheduled)

    def task_results(self) -> list[TaskResult]:
        """Each factual business objective, evaluated from the ledger so far."""
        return [
            evaluate_task(self._engine.book, self.bundle.metrics, task, self.horizon)
            for task in self.bundle.tasks
        ]
