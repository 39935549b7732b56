"""The player session: the one object the CLI and the dashboard play through.

It creates or resumes a run directory under the run's writer lock, journals every
command before applying it (write-ahead) or, for headless runs, holds the commands back
until they have all applied, and offers public views only. It has no fork, rewind or
counterfactual oracle: branches exist only in the offline evaluator and author checks,
and the evaluator takes only finished runs. A run is finished at its horizon or after
a journaled `finish`; a finished run accepts no further command.
"""

from __future__ import annotations

import contextlib
import fnmatch
import os
import sqlite3
import stat
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from ledger.durable import TornAppend, cut_marker, fsync_dir, make_dirs
from ledger.journal import HEADER_KIND, CommandIdConflict, Entry, Journal, JournalError
from ledger.seal import Seal
from sim.campaign_load import CampaignBundle
from sim.engine import Engine, EngineError
from sim.metrics import TaskResult, evaluate_task
from sim.scheduling import ScheduleOutcome
from workbench.errors import (
    IntegrityError,
    StorageError,
    UserError,
    WorkbenchError,
    framed,
    one_line,
    os_error_message,
    reraised,
)
from workbench.messages import clip, problems
from workbench.outputs import refuse_run_directory
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
    late_notes,
    parse_assessment,
)
from workbench.runs.bundle import load_bundle, run_campaign
from workbench.runs.commands import (
    Advance,
    CounterfactualAssessment,
    Finish,
    Schedule,
    SubmitAssessment,
    command_payload,
)
from workbench.runs.files import (
    HOST_RECORD_FILE,
    RunPaths,
    SealError,
    acknowledged_only,
    append_journal,
    atomic_write,
    build_seal,
    header_payload,
    header_problem,
    journal_bytes,
    missing_header,
    not_a_run,
    read_registration,
    read_seal,
    write_registration,
    write_seal,
)
from workbench.runs.lock import LOCK_FILE, RunLock, held_by, named_holder
from workbench.runs.registration import (
    ControlFile,
    Registration,
    RunIdentity,
    check_registration,
    make_registration,
    resolve_identity,
)
from workbench.runs.repair import (
    CREATION_PATTERN,
    Repairs,
    cut_torn_tail,
    remove_creation_leftovers,
    remove_leftovers,
)
from workbench.runs.replay import CommandOutcome, ReplayError, apply_command, replay


class RefusedCommands(StorageError):
    """Commands whose journal lines the disk refused (full, over a quota, failing): not
    applied; the journal is as it was, or (`torn`) ends in what the failed append could
    not cut off again, which the next writer cuts."""

    def __init__(self, journal: Path, what: str, reason: str, *, torn: bool) -> None:
        self.journal, self.what, self.reason, self.torn = journal, what, reason, torn
        super().__init__(self.line("the run is as it was"))

    def line(self, outcome: str) -> str:
        """`JOURNAL: cannot write WHAT (REASON); it was not applied and OUTCOME`."""
        verb = "it was" if self.what.startswith("the ") else "they were"
        if self.torn and outcome == "the run is as it was":
            return (
                f"{self.journal}: cannot write {self.what} ({self.reason}); {verb} not "
                "applied, and the run takes no command until it is opened again (which "
                "repairs the journal)"
            )
        return (
            f"{self.journal}: cannot write {self.what} ({self.reason}); {verb} not applied "
            f"and {outcome}"
        )


class JournalNotDurable(StorageError):
    """A seal's fsync of a journal written without one (`defer_fsync`) failed: the run is
    not sealed, and whatever the journal holds beyond what was made durable before may be
    lost, so none of it may be acknowledged (`error` is the fsync's)."""

    def __init__(self, journal: Path, error: OSError) -> None:
        self.error = error
        super().__init__(
            f"{journal}: cannot make it durable ({error.strerror or error}); the run is not "
            "sealed, and its commands not yet made durable are not acknowledged"
        )


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


def _stored_seal(paths: RunPaths) -> Seal | SealError | None:
    """The run's seal as `read_seal` reads it, or the SealError it raised (for the caller
    to report in its turn)."""
    try:
        return read_seal(paths)
    except SealError as exc:
        return exc


def _check_signed_seal(
    paths: RunPaths, journal: Journal, key: bytes, stored: Seal | SealError | None
) -> None:
    """Resume a private run only under a seal its key signed over this very journal
    (`stored`, read before the journal).

    The seal may lag the journal by the commands of an interrupted session (they are
    re-sealed now), but an edit of any sealed entry changes every later hash, so the
    sealed head is no longer on the chain: the session refuses to re-seal (launder) it.
    Only a journal holding its header alone may have no seal: its creation was interrupted
    before the first seal, which comes before any command (`_create_journal`).
    """
    if isinstance(stored, SealError):
        raise IntegrityError(str(stored))
    if stored is None:
        if len(journal) == 1:
            return
        raise IntegrityError(f"{paths.seal} is missing: a private run is always sealed")
    if not stored.signature_ok(key):
        raise IntegrityError(
            f"{paths.seal} is not signed with the control file's key (re-sealed or edited)"
        )
    if stored.journal_head not in {entry.hash for entry in journal.entries}:
        raise IntegrityError(
            f"{paths.seal} does not seal this journal: an entry was changed after it was sealed"
        )


class PlayerSession:
    """Play one run: schedule actions, advance days, submit assessments, read public views.

    A writing session holds the run's writer lock (`workbench.runs.lock`) until `close()`
    or the end of its process. With `autoseal` every command is journaled (fsynced) before
    it is applied and the seal follows it; without, the session plays in memory and
    writes nothing until `seal()`, so a command that fails leaves the run as it was.
    `write_ahead` (the default: as `autoseal`) journals each command before it is applied
    even without `autoseal`: the host journals every command and seals when it chooses.
    A `read_only` session takes no lock and refuses every command.
    """

    def __init__(
        self,
        paths: RunPaths,
        bundle: CampaignBundle,
        registration: Registration,
        identity: RunIdentity,
        journal: Journal,
        engine: Engine,
        submissions: list[SubmissionRecord],
        outcomes: dict[int, CommandOutcome],
        autoseal: bool,
        *,
        write_ahead: bool | None = None,
        lock: RunLock | None = None,
        persisted: int | None = None,
        read_only: bool = False,
        command: str | None = None,
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
        self._write_ahead = autoseal if write_ahead is None else write_ahead
        self._lock = lock
        self._persisted = persisted
        self._read_only = read_only
        self._command = command
        self._fsync_each = True
        self._header_seal = (
            build_seal(bundle, registration, journal, engine.book, engine.day, identity.seal_key)
            if persisted in (None, 0)
            else None
        )
        """A new run's seal of its header alone (taken before any command), which
        `_create_journal` writes before the first command is on file."""
        self.repairs = Repairs()
        """What opening the run repaired (a killed writer's leftovers, a torn last line)."""
        self.seal_problem: str | None = None
        """Why the last command's seal could not be written (autoseal): the command stands,
        journaled and applied; the seal follows with the next one that can be written, or
        when the run is opened again."""
        self._torn: str | None = None
        """Why commands held back (no write-ahead) could not be written nor cut off again
        (`TornAppend`): the journal file ends in their lines, never acknowledged, until the
        run is opened again; writing behind them would seal what the next writer must cut
        (as a file journal refuses every append after one that tore)."""

    # -- opening --------------------------------------------------------------------
    @classmethod
    def create(
        cls,
        run_dir: str | Path,
        campaign: str | Path | CampaignBundle | None = None,
        *,
        control: ControlFile | None = None,
        agent_id: str | None = None,
        autoseal: bool = True,
        write_ahead: bool | None = None,
        command: str | None = None,
        hosted: bool = False,
    ) -> PlayerSession:
        """Register a new run of `campaign` (the default one when None) in an empty `run_dir`.

        With `autoseal` the run is written (and locked) at once; without, at the first
        `seal()`, so a session that fails before it leaves nothing behind. `command` names
        this writer in the lock (the process's command line by default).
        """
        paths = RunPaths(Path(run_dir))
        if paths.exists():
            raise UserError(f"{paths.root} already holds a run: resume it instead")
        if not hosted:
            refuse_served_run(paths)
            refuse_run_directory(
                paths.root, "run directory", "a run never holds another: make it beside that one"
            )
        _require_empty(paths.root)
        from campaigns import DEFAULT_CAMPAIGN

        bundle = _bundle(campaign, DEFAULT_CAMPAIGN)
        identity = resolve_identity(bundle, control, agent_id)
        registration = make_registration(bundle, identity)
        journal = Journal.in_memory()
        journal.append(0, HEADER_KIND, "header", header_payload(bundle, registration))
        engine = Engine(bundle, identity.seed)
        session = cls(
            paths,
            bundle,
            registration,
            identity,
            journal,
            engine,
            [],
            {},
            autoseal,
            write_ahead=write_ahead,
            persisted=None,
            command=command,
        )
        if autoseal:
            session.seal()
        return session

    @classmethod
    def resume(
        cls,
        run_dir: str | Path,
        campaign: str | Path | CampaignBundle | None = None,
        *,
        control: ControlFile | None = None,
        agent_id: str | None = None,
        autoseal: bool = True,
        read_only: bool = False,
        write_ahead: bool | None = None,
        command: str | None = None,
        hosted: bool = False,
    ) -> PlayerSession:
        """Resume the run `run_dir` holds by replaying its journal (a UserError when none).

        A writing session holds the run's lock from here on (refused at once when another
        process holds it); a `read_only` one takes no lock and accepts no command. A run
        in the runs directory of a host that is serving it is written by that host only
        (`hosted` is the host's own session): see `refuse_served_run`.
        """
        paths = RunPaths(Path(run_dir))
        if not paths.exists():
            raise not_a_run(paths)
        if not (read_only or hosted):
            refuse_served_run(paths)
        lock = None if read_only else RunLock.acquire(paths.root, command)
        try:
            leftovers = () if read_only else remove_leftovers(paths)
            if not read_only:
                _require_writable_outputs(paths)
            registration = read_registration(paths)
            bundle = (
                campaign
                if isinstance(campaign, CampaignBundle)
                else run_campaign(paths.root, registration, campaign)
            )
            identity = resolve_identity(bundle, control, agent_id or registration.agent_id)
            check_registration(str(paths.root), registration, bundle, identity)
            # A private run's seal is read before its journal: a reader racing its writer
            # then meets a seal of the journal it reads or of a prefix of it, never a seal
            # of entries appended after its read (which would look like an edit).
            signed = _stored_seal(paths) if identity.seal_key is not None else None
            try:
                data = journal_bytes(paths)
                whole = _as_read(paths, data) if read_only else cut_torn_tail(paths, data)
                journal = Journal.open(paths.journal, whole)
            except JournalError as exc:
                raise IntegrityError(
                    exc.reason if exc.line is None else f"{paths.journal}: {exc}"
                ) from None
            if journal.header is None:
                _unfinished_creation(paths, read_only)
            elif problem := header_problem(paths, journal, bundle, registration, identity.seal_key):
                raise IntegrityError(f"{paths.journal}: {problem}; the run cannot be resumed")
            elif not read_only and (lost := _sealed_entries_lost(paths, journal)):
                raise IntegrityError(lost)
            elif identity.seal_key is not None:
                _check_signed_seal(paths, journal, identity.seal_key, signed)
            try:
                result = replay(bundle, identity.seed, journal.entries)
            except ReplayError as exc:
                raise IntegrityError(f"{paths.journal}: {exc}") from None
            persisted = len(journal)
            if not (autoseal if write_ahead is None else write_ahead):
                journal = Journal(None, list(journal.entries))
            if journal.header is None:
                journal.append(0, HEADER_KIND, "header", header_payload(bundle, registration))
            session = cls(
                paths,
                bundle,
                registration,
                identity,
                journal,
                result.engine,
                result.submissions,
                result.outcomes,
                autoseal,
                write_ahead=write_ahead,
                lock=lock,
                persisted=persisted,
                read_only=read_only,
                command=command,
            )
            session.repairs = Repairs(leftovers, cut_tail=whole is not data)
            if not read_only:
                if autoseal and persisted == 0:
                    session.seal()
                elif persisted > 0 and _seal_lags(paths, journal):
                    session._reseal()
            return session
        except BaseException:
            if lock is not None:
                lock.release()
            raise

    # -- writing --------------------------------------------------------------------
    def _require_writable(self) -> None:
        if self._read_only:
            raise UserError(f"{self.paths.root} is open read-only: it takes no commands")

    def _persist(self) -> None:
        """Write what the journal holds beyond the run directory's copy (creating the run).

        A write-ahead session journals straight to the file from then on. Commands held
        back that the disk refuses are not applied on file: the failed append cut itself
        off again, and the error says so in the words of a refused command
        (`refused_write`).
        """
        if self._persisted is None:
            self._materialize()
            self._persisted = 0
        if self._journal.path is None and self._persisted == 0:
            self._create_journal()
        held_back = len(self._journal) - self._persisted
        if self._journal.path is None and held_back > 0:
            first = self._journal.entries[self._persisted].kind
            what = f"the {first}" if held_back == 1 else f"{held_back} commands"
            if self._torn is not None:
                raise self.refused_write(what, self._still_torn())
            try:
                append_journal(self.paths.journal, self._journal.to_bytes(self._persisted))
            except OSError as exc:
                if isinstance(exc, TornAppend):
                    self._torn = exc.strerror
                raise self.refused_write(what, exc) from None
            self._persisted = len(self._journal)
        if self._write_ahead and self._journal.path is None:
            self._journal = self._file_journal()

    def _still_torn(self) -> TornAppend:
        """Why no held-back command is written after some that tore the journal."""
        return TornAppend(None, f"an earlier append failed and left it torn ({self._torn})")

    def refused_write(self, what: str, exc: OSError) -> RefusedCommands:
        """The one line for commands (`what`: "the advance", "12 commands") whose journal
        lines the disk refused: not applied, and the run is as it was (the failed append
        cut itself off again), or else what repairs it."""
        return RefusedCommands(
            self.paths.journal,
            what,
            exc.strerror or str(exc),
            torn=isinstance(exc, TornAppend),
        )

    def _undo_creation(self, exc: WorkbenchError) -> StorageError:
        """Remove what this session wrote of a new run that could not be written whole and
        release its lock: the StorageError to raise for `exc`, which stopped the creation.

        A new run is created whole or not at all, so a disk that fills while `run` writes
        a new run leaves no run at day 0 sealed without the commands it was created with.
        Files are removed newest first, so a removal that fails (or a kill meanwhile)
        leaves what the next writer finishes as an interrupted creation (run.json alone,
        or with its journal's header and no seal), never a seal of a journal that is gone.
        The directory keeps its (empty) lock file, which a new run there reuses.
        """
        paths = self.paths
        left = []
        for path in (paths.seal, cut_marker(paths.journal), paths.journal, paths.registration):
            try:
                path.unlink(missing_ok=True)
            except OSError:
                left.append(path.name)
        with contextlib.suppress(OSError):
            fsync_dir(paths.root)
        self._persisted = None
        if not left:  # nothing of it is left, a torn journal neither
            self._torn = None
        if self._journal.path is not None:
            self._journal = Journal(None, list(self._journal.entries))
        if self._lock is not None:
            self._lock.release()
            self._lock = None
        if left:
            after = (
                f"; its creation stopped with {', '.join(left)} left in {paths.root}: run "
                "into it again to finish creating it"
            )
        elif isinstance(exc, RefusedCommands):
            return StorageError(
                exc.line(f"the run was not created: {paths.root} holds no run, as before")
            )
        else:
            after = f"; the run was not created: {paths.root} holds no run, as before"
        return StorageError(framed(exc, after=after))

    def _create_journal(self) -> None:
        """Write the journal file with its header alone and, when commands follow, seal
        that header before any of them is appended.

        So no command is ever on file before a seal: a run without one holds its header
        alone (a creation interrupted before its first seal, which the next writer seals),
        and a private run's commands are always under a seal its key signed (an unsealed
        journal with commands would be resealed, laundered, if it were taken).
        """
        atomic_write(self.paths.journal, self._journal.to_bytes(0, 1))
        if len(self._journal) > 1:
            assert self._header_seal is not None  # built for every run not yet on file
            write_seal(self.paths, self._header_seal)
        self._persisted = 1

    def _file_journal(self) -> Journal:
        """The journal's entries, appended to the run's journal file from now on."""
        journal = Journal(
            self.paths.journal, list(self._journal.entries), len(self._journal.to_bytes())
        )
        journal.fsync_each = self._fsync_each
        return journal

    def _materialize(self) -> None:
        """Create the run directory, lock it and write run.json (a new run's first write)."""
        root = self.paths.root
        try:
            make_dirs(root)
        except FileExistsError:
            raise UserError(f"{root} exists and is not a directory") from None
        except OSError as exc:
            raise UserError(f"{root}: cannot create the run directory ({exc.strerror})") from None
        lock = RunLock.acquire(root, self._command)
        try:
            if self.paths.exists():
                raise UserError(
                    f"{root} now holds a run created by another process meanwhile; "
                    "run into it again to resume that run"
                )
            try:
                remove_creation_leftovers(self.paths)
            except OSError as exc:
                raise StorageError(
                    f"{root}: cannot clear a killed creation ({exc.strerror})"
                ) from None
            _require_empty(root)
            try:
                write_registration(self.paths, self.registration)
            except WorkbenchError as exc:
                with contextlib.suppress(OSError):  # renamed, then its directory's fsync failed
                    self.paths.registration.unlink(missing_ok=True)
                raise StorageError(
                    f"{exc.message}; the run was not created: {root} holds no run, as before"
                ) from None
        except BaseException:
            lock.release()
            raise
        self._lock = lock

    def close(self) -> None:
        """Release the run's writer lock (idempotent); the session stays readable."""
        if self._lock is not None:
            self._lock.release()
            self._lock = None
        self._read_only = True

    def __enter__(self) -> PlayerSession:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

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

    def _known(self, kind: str, command_id: str | None, payload: dict[str, Any]) -> Entry | None:
        """The journaled entry this command retries, if any; a clashing id is refused."""
        if command_id is None:
            return None
        try:
            return self._journal.known(command_id, kind, payload)
        except CommandIdConflict as exc:
            raise UserError(
                f"command id {clip(command_id)} is already used by the {exc.known.kind} "
                f"at seq {exc.known.seq}; this {kind} is refused"
            ) from None

    def _append(self, kind: str, command_id: str, payload: dict[str, Any]) -> Entry:
        """Journal a new command (to the file, fsynced, first when write-ahead).

        A disk that refuses the line is a StorageError: the command is not applied, and the
        journal is as it was (or, if even cutting the partial line failed, refuses every
        command until the run is opened again, which cuts it)."""
        try:
            if self._torn is not None:
                raise self._still_torn()
            return self._journal.append(self._engine.day, kind, command_id, payload)
        except OSError as exc:
            raise self.refused_write(f"the {kind}", exc) from None

    def preview(self, action_id: str) -> ScheduleOutcome:
        """Would this action be accepted now, and if not, why? Changes nothing."""
        with reraised(UserError, EngineError):
            return self._engine.check(action_id)

    def schedule(self, action_id: str, command_id: str | None = None) -> ScheduleOutcome:
        """Schedule an action at today's decisions (journaled even when rejected)."""
        self._require_writable()
        try:
            command = Schedule(action=action_id)
        except ValidationError as exc:
            raise UserError("schedule: " + "; ".join(problems(exc))) from None
        payload = command_payload(command)
        entry = self._known(command.kind, command_id, payload)
        if entry is None:
            self._refuse_when_finished()
            self.preview(action_id)
            entry = self._append(command.kind, self._command_id(command_id), payload)
            self._outcomes[entry.seq] = apply_command(
                self._engine, command, entry.seq, self._submissions
            )
            self._after_command()
        recorded = self._outcomes.get(entry.seq)
        if isinstance(recorded, ScheduleOutcome):
            return recorded
        return ScheduleOutcome(action_id, entry.day, False)

    def advance(self, days: int = 1, command_id: str | None = None) -> int:
        """Run `days` days with no further decisions; returns the new day.

        A retry (a known id, the same days) returns the day that advance reached, as the
        first call did (and as the host replies), whatever was played since."""
        self._require_writable()
        if isinstance(days, bool) or not isinstance(days, int) or days < 1:
            raise UserError(f"advance needs a whole number of days, at least 1 (got {clip(days)})")
        payload = {"days": days}
        known = self._known("advance", command_id, payload)
        if known is not None:
            return known.day + days
        self._refuse_when_finished()
        if self._engine.day + days > self.horizon:
            raise UserError(
                f"cannot advance {days} day(s) from day {self._engine.day}: the "
                f"campaign ends on day {self.horizon}"
            )
        try:
            command = Advance(days=days)
        except ValidationError as exc:
            raise UserError("advance: " + "; ".join(problems(exc))) from None
        entry = self._append(command.kind, self._command_id(command_id), payload)
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
        self._require_writable()
        checked = self.check_assessment(assessment)
        if checked.assessment is None:
            return SubmitResult(checked.errors)
        parsed = checked.assessment
        question = self.bundle.questions[parsed.question]
        command = SubmitAssessment(assessment=parsed)
        payload = command_payload(command)
        known = self._known(command.kind, command_id, payload)
        if known is not None:
            return SubmitResult(
                (),
                known.seq,
                eligible(question, known.day),
                (*checked.notes, *late_notes(question, known.day)),
            )
        self._refuse_when_finished()
        entry = self._append(command.kind, self._command_id(command_id), payload)
        self._outcomes[entry.seq] = apply_command(
            self._engine, command, entry.seq, self._submissions
        )
        self._after_command()
        return SubmitResult(
            (),
            entry.seq,
            eligible(question, entry.day),
            (*checked.notes, *late_notes(question, entry.day)),
        )

    def finish(self, command_id: str | None = None) -> int:
        """End the run: the remaining days run with no decisions; returns the horizon.

        Afterwards the run accepts no command; only a finished run can be evaluated.
        """
        self._require_writable()
        command = Finish()
        payload = command_payload(command)
        if self._known(command.kind, command_id, payload) is not None:
            return self._engine.day
        self._refuse_when_finished()
        entry = self._append(command.kind, self._command_id(command_id), payload)
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

    def _reseal(self) -> None:
        """Seal the journal a killed or refused writer left ahead of its seal (every writer
        opening the run does, whether or not it seals each command): a seal the disk
        refuses again is `seal_problem`, not a refusal to open the run."""
        try:
            self.seal()
        except StorageError as exc:
            self.seal_problem = exc.message

    def _after_command(self) -> None:
        """Seal after a command (autoseal); a seal that cannot be written is `seal_problem`,
        not the command's failure: the command is journaled and applied already."""
        if self._autoseal:
            try:
                self.seal()
            except WorkbenchError as exc:
                self.seal_problem = exc.message

    def follow(self, root: Path) -> None:
        """Go on writing the run at `root`, where its directory was just renamed whole.

        The host creates a run in staging and renames it into place; the writer lock is
        an open file, so it moves with the directory, and the session need not be
        resumed from its journal again.
        """
        self.paths = RunPaths(root)
        if self._journal.path is not None:
            self._journal = self._file_journal()
        if self._lock is not None:
            self._lock.path = root / LOCK_FILE

    def defer_fsync(self) -> None:
        """Write each journaled command without fsync; `sync_journal` makes them durable.

        For the host, which fsyncs many runs' journals together and replies to a command
        only once its journal is durable. A seal always syncs the journal first, so no
        seal names an entry a crash could lose.
        """
        self._fsync_each = False
        self._journal.fsync_each = False

    @property
    def journal_size(self) -> int | None:
        """Bytes of the run's journal file as this session wrote and read them (None while
        the journal is held in memory)."""
        return self._journal.size if self._journal.path is not None else None

    def sync_journal(self) -> None:
        """Make every journaled command durable (a no-op cost when each was fsynced)."""
        if not self._fsync_each:
            self._journal.sync()

    def seal(self) -> Seal:
        """Write the journal (when held back) and then seal.json for the run as it stands.

        A new run's first seal writes it whole or not at all (`_undo_creation`)."""
        self._require_writable()
        if self._persisted is None:
            try:
                return self._seal(creating=True)
            except (WorkbenchError, OSError) as exc:
                if self._persisted is None:  # not created: nothing of it was written
                    raise
                failure = (
                    exc if isinstance(exc, WorkbenchError) else StorageError(os_error_message(exc))
                )
                raise self._undo_creation(failure) from None
        return self._seal()

    def _seal(self, *, creating: bool = False) -> Seal:
        """`seal`; `creating`: a seal that cannot be written undoes the creation (`seal`),
        so the error is the write's own."""
        self._persist()
        try:
            self.sync_journal()
        except OSError as exc:
            raise JournalNotDurable(self.paths.journal, exc) from None
        seal = build_seal(
            self.bundle,
            self.registration,
            self._journal,
            self._engine.book,
            self._engine.day,
            self._identity.seal_key,
        )
        try:
            write_seal(self.paths, seal)
        except WorkbenchError as exc:
            if creating:
                raise
            raise StorageError(
                f"{exc.message}; the commands are journaled (day {self.day}), so the run "
                "is interrupted until it is opened again, which seals it"
            ) from None
        self.seal_problem = None
        return seal

    def write_store(self) -> None:
        """Rebuild the run's SQLite store (a derived cache) from its ledger and metrics."""
        from ledger.store import MetricSeries, StoreError, write_store

        self._require_writable()
        self._persist()
        store = self.paths.store
        if os.path.lexists(store) and not stat.S_ISREG(os.lstat(store).st_mode):
            raise UserError(
                f"{store} is not a regular file; remove it and the store is rebuilt "
                "(it is derived from the journal)"
            )
        series = [
            MetricSeries(metric_id, self.bundle.metrics[metric_id].units, values)
            for metric_id, values in self.metric_series().items()
        ]
        try:
            write_store(store, self._engine.book, series)
        except (StoreError, sqlite3.Error, OSError) as exc:
            why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            raise StorageError(
                f"{store}: {one_line(why)}; the run itself is as written (the store is a "
                f"cache derived from it, which `workbench finish {self.paths.root}` writes "
                "again)"
            ) from None

    def store_problem(self) -> str | None:
        """Why the run's store is not a whole store of the run as it stands ("missing",
        "not a store: …", "of another ledger (out of date)"), or None when it is: a
        `finish` killed while writing it left none, and the next `finish` writes it."""
        from ledger.store import store_problem

        return store_problem(self.paths.store, self._engine.book)

    def run_to_horizon(self) -> None:
        """Advance with no further decisions until the campaign ends.

        Its id is derived from the day (so the same script journals the same bytes), but
        never one the journal already holds: a player's command may carry any id, and a
        known id would make this advance a no-op retry or a clash.
        """
        day = self._engine.day
        if day < self.horizon:
            base = command_id = f"to-horizon-from-day-{day}"
            tries = 1
            while self._journal.get(command_id) is not None:
                tries += 1
                command_id = f"{base}-{tries}"
            self.advance(self.horizon - day, command_id)

    # -- public reads ---------------------------------------------------------------
    @property
    def run_dir(self) -> Path:
        """The run's directory."""
        return self.paths.root

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

    def outcome_of(self, seq: int) -> CommandOutcome | None:
        """What the journaled command `seq` did (None for the header or an unknown seq)."""
        return self._outcomes.get(seq)

    def view(self) -> public_view.PublicView:
        """The player's public view of the run (the same data as `workbench snapshot`)."""
        return public_view.build(self.bundle, self._engine, self._submissions)

    def ledger(self) -> public_view.LedgerView:
        """Read-only ledger access (balances, trial balance, exports)."""
        return public_view.LedgerView(self._engine.book, self.bundle)

    def metric_series(self) -> dict[str, list[Decimal]]:
        """Every metric at every closed day, in display units (for charts)."""
        return public_view.metric_series(self.bundle, self._engine.book)

    def briefing(self) -> Briefing:
        """The campaign's briefing: situation, objective, questions and their deadlines."""
        return briefing(self.view())

    def objective_progress(self) -> tuple[ObjectiveProgress, ...]:
        """Each business objective at the latest close (final once the run finished)."""
        return objective_progress(self.bundle, self._engine.book, self.day, self.finished)

    def summary(self) -> CampaignSummary:
        """The end-of-campaign summary: objective, submissions made, what happens next."""
        return campaign_summary(self.view(), self.objective_progress(), str(self.paths.root))

    def traps_if_scheduled(self, action_id: str) -> tuple[Trap, ...]:
        """Questions that scheduling `action_id` now would make unresolvable."""
        return traps_if_scheduled(self.view(), action_id)

    def sprung_traps(self) -> tuple[Trap, ...]:
        """Questions already made unresolvable by actions scheduled before their day."""
        return sprung_traps(self.view())

    def task_results(self) -> list[TaskResult]:
        """Each factual business objective, evaluated from the ledger so far."""
        return [
            evaluate_task(self._engine.book, self.bundle.metrics, task, self.horizon)
            for task in self.bundle.tasks
        ]


def _bundle(campaign: str | Path | CampaignBundle | None, default: str | Path) -> CampaignBundle:
    """The campaign a session plays: one already loaded (a host loads it once), or loaded now."""
    if isinstance(campaign, CampaignBundle):
        return campaign
    return load_bundle(campaign or default)


def refuse_served_run(paths: RunPaths) -> None:
    """Refuse to write a run in the runs directory of a host serving it now: the host holds
    its runs' state (one episode per agent, command ids, seals) and is their one writer
    while it runs; a command there goes through the host, or after it stops."""
    runs_dir = paths.root.resolve().parent  # the real directory, whatever link led here
    if not (runs_dir / HOST_RECORD_FILE).exists():
        return
    host = held_by(runs_dir)
    if host is not None:
        raise UserError(
            f"{paths.root} is in {runs_dir}, which a host is serving ({host}): its runs "
            "take commands through the host while it runs; stop it first"
        )


def _require_writable_outputs(paths: RunPaths) -> None:
    """Refuse, before any command is journaled, a run whose seal or store is not a regular
    file: a command would be applied and then its seal or store refused."""
    for path, what in ((paths.seal, "its seal"), (paths.store, "its store")):
        if os.path.lexists(path) and not stat.S_ISREG(os.lstat(path).st_mode):
            raise UserError(
                f"{path} is not a regular file, so {what} cannot be written; nothing was "
                "changed (a store is rebuilt once the path is removed)"
            )


def _as_read(paths: RunPaths, data: bytes) -> bytes:
    """The journal `data` as a reader takes it: its acknowledged bytes and, while a live
    writer holds the run, without the last line that writer is appending (the run as it was
    a moment before), never calling that honest run torn. Without a writer a torn line is
    named, as every other damage is."""
    data = acknowledged_only(paths, data)
    if data and not data.endswith(b"\n") and named_holder(paths.root) is not None:
        return data[: data.rfind(b"\n") + 1]
    return data


def _sealed_entries_lost(paths: RunPaths, journal: Journal) -> str | None:
    """Why the run cannot be opened when its seal covers more entries than its journal
    holds (whole lines lost from its end), or None.

    Its torn last line is never cut when the seal covers it (`cut_torn_tail`); lines lost
    whole are the same loss one byte earlier. A writer went on from the shorter journal
    and its next seal replaced the one that named the loss, so acknowledged commands
    vanished and the run verified. A seal that cannot be read is left to verification,
    and so is this loss for a reader (which reads the seal after the journal here, so a
    writer's append and seal meanwhile would look like one).
    """
    try:
        stored = read_seal(paths)
    except SealError:
        return None
    if stored is None or stored.journal_entries <= len(journal):
        return None
    return (
        f"{paths.journal}: {paths.seal} covers {stored.journal_entries} entries and only "
        f"{len(journal)} are whole: a sealed entry was lost; the run cannot be resumed"
    )


def _seal_lags(paths: RunPaths, journal: Journal) -> bool:
    """True when seal.json seals an earlier entry of this very journal (a writer was killed
    between a command and its seal), or is missing beside a journal holding its header
    alone (a creation interrupted before its first seal): a resuming writer seals it. A
    seal that is missing beside commands, damaged or off the chain is left for
    verification to name."""
    try:
        stored = read_seal(paths)
    except SealError:
        return False
    if stored is None:
        return len(journal) == 1
    if stored.journal_head == journal.head:
        return False
    return stored.journal_head in {entry.hash for entry in journal.entries}


def _require_empty(root: Path) -> None:
    """Refuse a path that is not a new or empty directory (its own lock file and what a
    creation killed before run.json left aside: the creation removes that)."""
    try:
        info = os.lstat(root)
    except OSError:
        return
    if not stat.S_ISDIR(info.st_mode):
        raise UserError(f"{root} exists and is not a directory")
    try:
        others = [
            name
            for name in os.listdir(root)
            if name != LOCK_FILE and not fnmatch.fnmatchcase(name, CREATION_PATTERN)
        ]
    except OSError as exc:
        raise UserError(f"{root}: cannot list ({exc.strerror})") from None
    if others:
        raise UserError(f"{root} exists and is not an empty run directory")


def _unfinished_creation(paths: RunPaths, read_only: bool) -> None:
    """Accept a run whose creation stopped before its journal header, or explain why not.

    run.json is written first, so an interrupted creation leaves no journal and no seal
    (or its header alone, without a seal: see `_seal_lags`); a writer finishes creating
    it. A seal without a journal means the journal was lost.
    """
    if read_only or os.path.lexists(paths.seal):
        raise IntegrityError(missing_header(paths))
