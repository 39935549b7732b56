"""The hosted runtime's core: the control file, the run directories, one session per run.

Transport-free and thread-safe: the HTTP API and the MCP tools both call these methods
(from worker threads, or, for the HTTP API's commands to an open run, from the event
loop). Each run has its own lock, so commands to one run apply in order while different
runs proceed in parallel. Every command goes through the player's session, which
journals it before applying it, and a reply is only ever sent for a command already on
disk: a command made in a thread fsyncs its journal before it returns; one made with
`defer` (on the event loop) returns first, and the API replies only after the syncer
thread has fsynced that journal (`syncer.py`, group commit). A read shows only durable
commands (`_shown`: it fsyncs a journal the syncer has not yet). Seals follow: a sealer
thread signs each changed run once it has been unsealed for `Limits.seal_interval` (each
run on its own clock, not all in one burst), a finish is sealed before its reply, and
every open run is sealed when its session is dropped or the host stops (start-up
recovery reseals after a kill); a seal syncs the journal first, so it never names an
entry a crash could lose. Sealing per command would double the disk writes of every reply.

An agent reaches only its own runs: a run id is checked against the run's registered
agent, and an unknown id and another agent's run get the same 404. Run ids are chosen
here (`run-` and 32 hex digits derived from the agent and its start command id), never
taken as a path. Nothing here forks, rewinds or evaluates a branch, and each agent
plays one episode: every run of a private campaign plays the same world (the control
file's seed), so a second episode would be a rewind to day 0, a counterfactual oracle.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import logging
import os
import secrets
import shutil
import stat
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Final, TypeVar

import orjson
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ledger.canonical import dumps
from ledger.durable import fsync_dir, make_dirs, truncate_durably
from ledger.journal import Entry, JournalError, read_entries
from ledger.money import scale_of
from sim.campaign_load import CampaignBundle
from workbench.errors import (
    AccessError,
    IntegrityError,
    StorageError,
    UserError,
    WorkbenchError,
)
from workbench.host.agent_threads import AgentThreads
from workbench.host.errors import (
    Busy,
    Conflict,
    Damaged,
    EpisodeExists,
    Forbidden,
    Invalid,
    NotFound,
    RunFinished,
    StorageFailed,
)
from workbench.host.recovery import STAGING, Recovery, recover, run_dirs
from workbench.host.syncer import Syncer
from workbench.inputs import read_bounded
from workbench.messages import bound_line, single_line
from workbench.play.models import CampaignInfo, PublicView
from workbench.play.objective import objective_terms
from workbench.play.public_view import action_terms, question_contract
from workbench.play.session import JournalNotDurable, PlayerSession
from workbench.play.wire import (
    RESERVED_COMMAND_IDS,
    RUN_ID_RE,
    AdvanceRequest,
    Briefing,
    Catalog,
    CommandReply,
    Contracts,
    ErrorDetail,
    FinishRequest,
    JournalPage,
    JournalRequest,
    JournalRow,
    LedgerAccount,
    LedgerData,
    LedgerExport,
    LedgerFormat,
    MetricSeries,
    Preview,
    RunInfo,
    RunList,
    ScheduleReply,
    ScheduleRequest,
    StartReply,
    StartRequest,
    SubmitReply,
    SubmitRequest,
    UnavailableRun,
)
from workbench.runs.assessment import eligible, late_notes, missing_conclusion
from workbench.runs.bundle import load_bundle
from workbench.runs.commands import (
    Advance,
    Finish,
    PlayerCommand,
    Schedule,
    SubmitAssessment,
    command_payload,
)
from workbench.runs.files import (
    HOST_RECORD_FILE,
    RunPaths,
    atomic_write,
    journal_bytes,
    read_registration,
)
from workbench.runs.lock import LOCK_FILE, RunLock, RunLocked
from workbench.runs.registration import ControlFile

HOST_FILE: Final = HOST_RECORD_FILE
HOST_SCHEMA: Final = "cfwb.host/1"
HOST_COMMAND: Final = "workbench host"
"""How the host names itself in the locks it holds (a refused writer sees it)."""
MAX_TOKEN_CHARS: Final = 512
"""A presented bearer token longer than this is refused unread (real ones are 54 chars)."""
PRIVATE_DIR_MODE: Final = 0o700
"""The runs directory's mode: its owner's alone (it holds every agent's journal)."""
DAMAGE_CHARS: Final = 240
"""Characters of a damaged run's reason an agent is shown (its first problem, cut)."""

T = TypeVar("T")
log = logging.getLogger("workbench.host")
SEALER_TICKS = 8
"""The sealer looks every `seal_interval / SEALER_TICKS` for runs unsealed that long: each
run is sealed on its own clock, not all together in one burst every interval."""


@dataclass(frozen=True)
class Limits:
    """The host's limits: each bounds memory or disk one agent can take."""

    commands_per_run: int = 20_000
    open_sessions: int = 512
    """Sessions kept in memory; the least recently used idle one is dropped (and
    resumed from its journal on its next request)."""
    seal_interval: float = 0.25
    """Seconds a changed run stays unsealed before the sealer signs it; the sealer looks
    `SEALER_TICKS` times an interval, so a seal lags at most 9/8 of this."""


class HostRecord(BaseModel):
    """RUNS/host.json: which campaign and control file a runs directory belongs to.

    Holds the keyed seed commitment only (nothing that lets the seed be searched).
    """

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    schema_: str = Field(default=HOST_SCHEMA, alias="schema")
    campaign_id: str
    campaign_digest: str
    seed_commitment: str
    runs_id: str | None = Field(default=None, pattern=r"^[0-9a-f]{32}$")
    """This runs directory's own random id (since 2026-12-02; None in older records): the
    machine's record of which directory a control file serves names it, so a new
    directory made at the same path is told apart (`workbench/host/binding.py`)."""


class WouldBlock(Exception):
    """A deferred command found its run locked by another thread: run it in a thread."""


@dataclass
class _Run:
    """One run: its owner, its lock, and its session while open."""

    run_id: str
    agent: str
    root: Path
    lock: threading.Lock = field(default_factory=threading.Lock)
    session: PlayerSession | None = None
    ids: dict[str, Entry] = field(default_factory=dict)
    damaged: str | None = None
    dirty: bool = False
    """True while the run's journal holds commands its seal does not seal yet."""
    dirty_since: float = 0.0
    """When the run last became dirty (time.monotonic())."""
    seal_problem: str | None = None
    """Why its last seal failed (logged once while it stays the same)."""
    creation_pending: bool = False
    """True while its rename into place is not known durable (that fsync failed)."""


def run_id_for(agent: str, start_command_id: str) -> str:
    """The run an agent's start command creates: the same ids always name the same run."""
    material = b"cfwb-host-run\x00" + agent.encode() + b"\x00" + start_command_id.encode()
    return "run-" + hashlib.sha256(material).hexdigest()[:32]


def briefing_of(bundle: CampaignBundle) -> Briefing:
    """The campaign, its objectives and the rules of play, as an agent reads them first."""
    return Briefing(
        campaign=CampaignInfo(
            id=bundle.id,
            title=bundle.campaign.title,
            description=bundle.campaign.description.strip(),
            company=bundle.campaign.company.name,
        ),
        start_date=bundle.campaign.start_date.isoformat(),
        horizon=bundle.horizon,
        tasks=objective_terms(bundle),
        questions=tuple(bundle.questions),
        rules=(
            "Start your episode to get a run of your own: each agent plays one episode "
            "(every run plays the same world), and reaches only its own run.",
            "Each day you may schedule actions (the catalog lists every term), then advance.",
            "Every command carries a command id you choose: a retry with the same id and "
            "content returns the first reply and changes nothing; the same id with other "
            "content is refused.",
            "A submission predicts intervention - baseline for a question's metric at its "
            "outcome day; it counts only when made on a day before the question's deadline "
            "day, and the latest eligible one counts.",
            "Finish the run (or advance to the horizon) when done: a finished run accepts no "
            "command and is scored offline by the host's operator.",
            "There is no fork, rewind or counterfactual oracle: only the public view of your "
            "own run.",
        ),
    )


class HostRuntime:
    """One hosted private campaign: its control file, runs directory and live sessions."""

    def __init__(
        self,
        campaign: Path,
        control: ControlFile,
        runs_dir: Path,
        limits: Limits | None = None,
    ) -> None:
        self.campaign = campaign.resolve()
        self.bundle = load_bundle(self.campaign)
        self.control = control
        self.runs_dir = runs_dir.resolve()
        self.limits = limits or Limits()
        self._index_lock = threading.Lock()
        self._runs: dict[str, _Run] = {}
        self._by_agent: dict[str, list[str]] = {agent: [] for agent in control.agents}
        self._open: OrderedDict[str, None] = OrderedDict()
        self._start_locks: dict[str, threading.Lock] = {}
        self._stopping = threading.Event()
        self._sealer = threading.Thread(target=self._seal_loop, name="sealer", daemon=True)
        self.syncer = Syncer()
        self._lock: RunLock | None = None
        self._made = (False, False)
        """Whether `open` made the runs directory and its host record (`close_refused`)."""
        self.recovery = Recovery()
        self.threads = AgentThreads()
        """Worker threads per agent, for both transports (`workbench/host/agent_threads.py`)."""
        self.briefing = briefing_of(self.bundle)
        self.catalog = Catalog(actions=tuple(action_terms(a) for a in self.bundle.actions.values()))
        self.contracts = Contracts(
            questions=tuple(
                question_contract(self.bundle, q) for q in self.bundle.questions.values()
            )
        )

    # -- life cycle -----------------------------------------------------------------
    def check_runs_dir(self) -> None:
        """Refuse, creating nothing, a runs directory the host cannot take: another's files
        and no host record, or not a directory. `open` checks again under the lock."""
        from workbench.runs.registration import resolve_identity

        resolve_identity(self.bundle, self.control, self.control.agents[0])
        if not os.path.lexists(self.runs_dir):
            return
        if not self.runs_dir.is_dir():
            raise UserError(f"{self.runs_dir} is not a directory")
        if not (self.runs_dir / HOST_FILE).exists():
            self._require_only_host_files()

    def _require_only_host_files(self) -> None:
        """Refuse a runs directory holding anything but the host's lock and staging."""
        try:
            others = [p.name for p in self.runs_dir.iterdir() if p.name not in {LOCK_FILE, STAGING}]
        except OSError as exc:
            raise UserError(f"{self.runs_dir}: cannot list ({exc.strerror or exc})") from None
        if others:
            raise UserError(
                f"{self.runs_dir} is not empty and holds no {HOST_FILE}: "
                "give the host a new or empty runs directory"
            )

    def open(self) -> Recovery:
        """Lock the runs directory for this process, recover it and index its runs."""
        self.check_runs_dir()
        self._made = (
            not os.path.lexists(self.runs_dir),
            not os.path.lexists(self.runs_dir / HOST_FILE),
        )
        make_dirs(self.runs_dir.parent)
        make_dirs(self.runs_dir, mode=PRIVATE_DIR_MODE)
        self._lock_runs_dir()
        try:
            self._keep_runs_dir_private()
            self._check_host_record()
            make_dirs(self.runs_dir / STAGING)
            self.recovery = recover(self.runs_dir, self.bundle, self.control)
        except BaseException:
            self.close()
            raise
        for root in run_dirs(self.runs_dir):
            agent, problem = _owner(RunPaths(root))
            run = _Run(root.name, agent, root)
            run.damaged = self.recovery.damaged.get(root.name) or problem
            if problem is not None:
                self.recovery.damaged.setdefault(root.name, problem)
            self._runs[run.run_id] = run
            self._by_agent.setdefault(run.agent, []).append(run.run_id)
        self.syncer.start()
        self._sealer.start()
        return self.recovery

    def close_refused(self) -> None:
        """Close a host refused after it opened (its world served elsewhere): what `open`
        made in a runs directory that held no host record (the record, the lock file,
        staging, the directory itself when it made it) is removed, so it creates nothing."""
        self.close()
        made_dir, made_record = self._made
        if not made_record:
            return
        for name in (HOST_FILE, LOCK_FILE):
            with contextlib.suppress(OSError):
                (self.runs_dir / name).unlink()
        with contextlib.suppress(OSError):
            (self.runs_dir / STAGING).rmdir()
        if made_dir:
            with contextlib.suppress(OSError):
                self.runs_dir.rmdir()

    def seal_changed(self, older_than: float | None = None) -> int:
        """Seal every run with unsealed commands (those unsealed for `older_than` seconds
        or more, when given); returns how many were sealed."""
        now = time.monotonic()
        with self._index_lock:
            changed = [
                run
                for run in self._runs.values()
                if run.dirty and (older_than is None or now - run.dirty_since >= older_than)
            ]
        sealed = 0
        for run in changed:
            with run.lock:
                if run.dirty and run.session is not None and self._sealed(run):
                    sealed += 1
        return sealed

    def _seal_loop(self) -> None:
        """The sealer thread: seal each run unsealed for `seal_interval`, until the host stops."""
        while not self._stopping.wait(self.limits.seal_interval / SEALER_TICKS):
            try:
                self.seal_changed(older_than=self.limits.seal_interval)
            except Exception:
                log.exception("sealing failed; the next round tries again")

    def close(self) -> None:
        """Seal and drop every session, then release the runs directory."""
        self._stopping.set()
        if self._sealer.is_alive():
            self._sealer.join()
        self.syncer.stop()
        with self._index_lock:
            runs = list(self._runs.values())
            self._open.clear()
        for run in runs:
            with run.lock:
                self._drop(run)
        if self._lock is not None:
            self._lock.release()
            self._lock = None

    def _keep_runs_dir_private(self) -> None:
        """Make the runs directory its owner's alone (no access for group or others).

        It holds every agent's journal (their actions and submissions, in the one world
        they all play): an agent on this machine under a user of its own (beside a stdio
        host, say) read another agent's episode there when the umask left it readable.
        Everything the host writes is inside it, so one mode closes all of it; an existing
        directory that grants more is tightened (refused when it cannot be).
        """
        mode = stat.S_IMODE(os.stat(self.runs_dir).st_mode)
        if mode & ~PRIVATE_DIR_MODE:
            try:
                os.chmod(self.runs_dir, mode & PRIVATE_DIR_MODE)
            except OSError as exc:
                raise UserError(
                    f"{self.runs_dir} is readable by other users (mode {mode:o}) and cannot "
                    f"be made its owner's alone ({exc.strerror or exc}): every agent's journal "
                    "is kept there; give the host a directory it owns"
                ) from None
            log.info(
                "%s: made its owner's alone (mode %o, was %o): it holds every agent's run",
                self.runs_dir,
                mode & PRIVATE_DIR_MODE,
                mode,
            )

    def _lock_runs_dir(self) -> None:
        """One host per runs directory: a second is refused at once, naming the first."""
        self._lock = RunLock.acquire(self.runs_dir, HOST_COMMAND)

    def _check_host_record(self) -> None:
        """Bind the runs directory to this campaign and control file (refuse another's)."""
        expected = HostRecord(
            campaign_id=self.bundle.id,
            campaign_digest=self.bundle.digest,
            seed_commitment=self.control.commitment(),
        )
        path = self.runs_dir / HOST_FILE
        if not path.exists():
            self._require_only_host_files()
            created = expected.model_copy(update={"runs_id": secrets.token_hex(16)})
            atomic_write(path, dumps(created.model_dump(by_alias=True)) + b"\n")
            return
        try:
            found = HostRecord.model_validate(orjson.loads(read_bounded(path, "host record")))
        except (orjson.JSONDecodeError, ValidationError):
            raise UserError(f"{path} is not a host record ({HOST_SCHEMA})") from None
        if found.campaign_id != expected.campaign_id or found.campaign_digest != (
            expected.campaign_digest
        ):
            raise UserError(
                f"{self.runs_dir} holds runs of campaign {found.campaign_id} "
                f"({found.campaign_digest[:12]}), not {self.bundle.id} ({self.bundle.digest[:12]})"
            )
        if found.seed_commitment != expected.seed_commitment:
            raise UserError(
                f"{self.runs_dir} was hosted with another control file "
                "(its seed commitment differs)"
            )
        if found.runs_id is None:  # a record from before runs had ids: give it one
            upgraded = found.model_copy(update={"runs_id": secrets.token_hex(16)})
            atomic_write(path, dumps(upgraded.model_dump(by_alias=True)) + b"\n")

    @property
    def sessions_open(self) -> int:
        """Sessions held in memory now (at most `limits.open_sessions` when idle)."""
        with self._index_lock:
            return len(self._open)

    # -- authentication -------------------------------------------------------------
    def agent_of(self, token: str) -> str | None:
        """The registered agent holding this bearer token, or None."""
        if not token or len(token) > MAX_TOKEN_CHARS:
            return None
        return self.control.token_agent(token)

    # -- runs -----------------------------------------------------------------------
    def runs(self, agent: str) -> RunList:
        """The agent's runs, oldest first; one the host cannot serve now (damaged, being
        written by another process, its disk refusing a write) is listed with the error
        its own routes answer, so it never hides the others."""
        with self._index_lock:
            ids = list(self._by_agent.get(agent, ()))
        return RunList(agent=agent, runs=tuple(self._listed(agent, i) for i in ids))

    def _listed(self, agent: str, run_id: str) -> RunInfo | UnavailableRun:
        """One of the agent's runs as the listing shows it."""
        try:
            return self._read(agent, run_id, self._info)
        except (Damaged, Busy, StorageFailed) as exc:
            return UnavailableRun(
                run_id=run_id, error=ErrorDetail(code=exc.code, message=exc.message)
            )

    def run_info(self, agent: str, run_id: str) -> RunInfo:
        """One of the agent's runs."""
        return self._read(agent, run_id, self._info)

    def start(self, agent: str, request: StartRequest) -> StartReply:
        """Start an episode: create a run for the agent, or return the one this id made."""
        _check_command_id(request.command_id)
        run_id = run_id_for(agent, request.command_id)
        with self._starting(agent):
            with self._index_lock:
                created = run_id not in self._runs
                existing = self._by_agent.get(agent, ())
            if not created:
                run = self._own(agent, run_id)
                if run.creation_pending:
                    self._creation_durable(run)
            elif existing:
                raise EpisodeExists(
                    f"agent {agent} already has its episode, run {existing[0]}: each "
                    "agent plays one (every run plays the same world, so a second "
                    "would replay it with other decisions)"
                )
            else:
                self._create(agent, run_id)
                log.info("%s: agent %s started its episode", run_id, agent)
        return StartReply(run=self._read(agent, run_id, self._info), created=created)

    @contextmanager
    def _starting(self, agent: str) -> Iterator[None]:
        """Serialize one agent's starts (other agents and commands go on meanwhile)."""
        with self._index_lock:
            lock = self._start_locks.setdefault(agent, threading.Lock())
        with lock:
            yield

    def _create(self, agent: str, run_id: str) -> None:
        """Create and seal a run in staging, rename it into place once whole, keep it open.

        Its session follows the rename rather than resuming the run from its journal.
        """
        staging = self.runs_dir / STAGING / run_id
        final = self.runs_dir / run_id
        try:
            if staging.exists():
                shutil.rmtree(staging)
            session = PlayerSession.create(
                staging,
                self.bundle,
                control=self.control,
                agent_id=agent,
                autoseal=False,
                write_ahead=True,
                command=HOST_COMMAND,
                hosted=True,
            )
            try:
                session.seal()
                os.rename(staging, final)
            except BaseException:
                session.close()
                raise
        except (WorkbenchError, OSError) as exc:
            shutil.rmtree(staging, ignore_errors=True)
            reason = exc.message if isinstance(exc, WorkbenchError) else exc.strerror or str(exc)
            raise StorageFailed(
                f"the run could not be created ({self._relative(reason)}); nothing was "
                "started: try again later, same command id"
            ) from None
        # Renamed into place, the run is the agent's episode whatever follows: indexed now,
        # so a failure making the rename durable can never let the agent start another.
        session.follow(final)
        session.defer_fsync()
        run = _Run(run_id, agent, final, session=session)
        self._journal_opened(run)
        with self._index_lock:
            self._runs[run_id] = run
            self._by_agent.setdefault(agent, []).append(run_id)
        self._creation_durable(run)

    def _creation_durable(self, run: _Run) -> None:
        """Make a new run's rename into place durable; until that succeeds, the same start
        sent again tries again (and is refused again) rather than replying created."""
        try:
            fsync_dir(self.runs_dir)
            fsync_dir(self.runs_dir / STAGING)
        except OSError as exc:
            run.creation_pending = True
            log.warning("%s: its creation could not be made durable: %s", run.run_id, exc)
            raise StorageFailed(
                f"run {run.run_id} was created, but the disk could not make it durable "
                f"({exc.strerror or exc}); send the same start again"
            ) from None
        run.creation_pending = False

    # -- reads ----------------------------------------------------------------------
    def snapshot(self, agent: str, run_id: str) -> PublicView:
        """The public view of the agent's run."""
        return self._read(agent, run_id, lambda run, s: s.view())

    def preview(self, agent: str, run_id: str, action: str) -> Preview:
        """Would this action be accepted now? Changes nothing."""

        def read(run: _Run, session: PlayerSession) -> Preview:
            if action not in self.bundle.actions:
                raise Invalid(_unknown_action(action, self.bundle))
            outcome = session.preview(action)
            return Preview(
                action=action,
                day=outcome.day,
                accepted=outcome.accepted,
                reason=outcome.reason,
                term=outcome.term,
                start_day=outcome.start_day,
            )

        return self._read(agent, run_id, read)

    def journal(self, agent: str, run_id: str, request: JournalRequest) -> JournalPage:
        """The agent's own journal page: public fields, no header."""
        since, limit = request.since, request.limit

        def read(run: _Run, session: PlayerSession) -> JournalPage:
            entries = session.journal_entries
            return JournalPage(
                run_id=run.run_id,
                head=session.journal_head,
                total=len(entries),
                entries=tuple(
                    JournalRow(
                        seq=e.seq,
                        day=e.day,
                        kind=e.kind,
                        id=e.id,
                        payload=dict(e.payload),
                        hash=e.hash,
                    )
                    for e in entries[since : since + limit]
                ),
            )

        return self._read(agent, run_id, read)

    def metrics(self, agent: str, run_id: str) -> MetricSeries:
        """Every metric at every closed day of the agent's run."""

        def read(run: _Run, session: PlayerSession) -> MetricSeries:
            series = session.metric_series()
            return MetricSeries(
                run_id=run.run_id,
                series={k: tuple(str(v) for v in values) for k, values in series.items()},
            )

        return self._read(agent, run_id, read)

    def ledger(self, agent: str, run_id: str) -> LedgerData:
        """The agent's own ledger: every account's balance at every closed day."""

        def read(run: _Run, session: PlayerSession) -> LedgerData:
            view = session.ledger()
            accounts = []
            first_day = view.last_day
            for name, unit, _ in view.trial_balance():
                history = view.account_history(name)
                if history:
                    first_day = min(first_day, history[0][0])
                scale = scale_of(unit)
                accounts.append(
                    LedgerAccount(
                        name=name,
                        unit=unit,
                        balances=tuple(_minor(value, scale) for _, value in history),
                    )
                )
            return LedgerData(
                run_id=run.run_id,
                first_day=first_day,
                last_day=view.last_day,
                accounts=tuple(accounts),
            )

        return self._read(agent, run_id, read)

    def export_ledger(self, agent: str, run_id: str, fmt: LedgerFormat) -> LedgerExport:
        """The agent's own ledger as beancount or CSV text."""

        def read(run: _Run, session: PlayerSession) -> LedgerExport:
            return LedgerExport(run_id=run.run_id, format=fmt, text=session.ledger().export(fmt))

        return self._read(agent, run_id, read)

    # -- commands -------------------------------------------------------------------
    def schedule(
        self, agent: str, run_id: str, request: ScheduleRequest, *, defer: bool = False
    ) -> ScheduleReply:
        """Schedule an action (journaled even when rejected)."""
        command = Schedule(action=request.action)

        def apply(run: _Run, session: PlayerSession) -> Entry:
            if request.action not in self.bundle.actions:
                raise Invalid(_unknown_action(request.action, self.bundle))
            session.schedule(request.action, request.command_id)
            return self._journaled(run, session, request.command_id)

        def reply(run: _Run, session: PlayerSession, entry: Entry, retry: bool) -> ScheduleReply:
            # A known id with the same content: the session returns the recorded outcome.
            outcome = session.schedule(request.action, request.command_id)
            return ScheduleReply(
                **self._base(entry, retry),
                action=request.action,
                accepted=outcome.accepted,
                reason=outcome.reason,
                start_day=outcome.start_day,
            )

        return self._command(agent, run_id, request.command_id, command, apply, reply, defer)

    def advance(
        self, agent: str, run_id: str, request: AdvanceRequest, *, defer: bool = False
    ) -> CommandReply:
        """Run whole days with no further decisions."""
        command = Advance(days=request.days)

        def apply(run: _Run, session: PlayerSession) -> Entry:
            session.advance(request.days, request.command_id)
            return self._journaled(run, session, request.command_id)

        def reply(run: _Run, session: PlayerSession, entry: Entry, retry: bool) -> CommandReply:
            return CommandReply(**self._base(entry, retry))

        return self._command(agent, run_id, request.command_id, command, apply, reply, defer)

    def submit(
        self, agent: str, run_id: str, request: SubmitRequest, *, defer: bool = False
    ) -> SubmitReply:
        """Submit an assessment: schema and contract errors journal nothing (422)."""
        command = SubmitAssessment(assessment=request.assessment)

        def apply(run: _Run, session: PlayerSession) -> Entry:
            result = session.submit(request.assessment, request.command_id)
            if result.errors:
                raise Invalid("; ".join(result.errors))
            return self._journaled(run, session, request.command_id)

        def reply(run: _Run, session: PlayerSession, entry: Entry, retry: bool) -> SubmitReply:
            question = self.bundle.questions[request.assessment.question]
            note = missing_conclusion(self.bundle, request.assessment)
            return SubmitReply(
                **self._base(entry, retry),
                question=question.id,
                eligible=eligible(question, entry.day),
                notes=(*([] if note is None else [note]), *late_notes(question, entry.day)),
            )

        return self._command(agent, run_id, request.command_id, command, apply, reply, defer)

    def finish(self, agent: str, run_id: str, request: FinishRequest) -> CommandReply:
        """End the run: the remaining days run with no decisions."""
        command = Finish()

        def apply(run: _Run, session: PlayerSession) -> Entry:
            session.finish(request.command_id)
            return self._journaled(run, session, request.command_id)

        def reply(run: _Run, session: PlayerSession, entry: Entry, retry: bool) -> CommandReply:
            return CommandReply(**self._base(entry, retry))

        return self._command(agent, run_id, request.command_id, command, apply, reply)

    def _command(
        self,
        agent: str,
        run_id: str,
        command_id: str,
        command: PlayerCommand,
        apply: Callable[[_Run, PlayerSession], Entry],
        reply: Callable[[_Run, PlayerSession, Entry, bool], T],
        defer: bool = False,
    ) -> T:
        """Apply a command once: a known id with the same content replays the first reply.

        The reply is returned once the command's journal entry is durable; with `defer`
        the caller makes it so first (`Syncer.sync` of `journal_path`) and replies after.
        """
        _check_command_id(command_id)

        def durable(result: T, run: _Run, session: PlayerSession) -> T:
            """`result`, once the command is durable (here, or by the caller with `defer`)."""
            if not defer:
                self._make_durable(run, session, "the command was not acknowledged")
            return result

        def run_command(run: _Run, session: PlayerSession) -> T:
            known = run.ids.get(command_id)
            if known is not None:
                if known.kind != command.kind or dumps(known.payload) != dumps(
                    command_payload(command)
                ):
                    raise Conflict(
                        f"command id {command_id} was already used by the {known.kind} "
                        f"at seq {known.seq} with other content: choose a new id"
                    )
                return durable(reply(run, session, known, True), run, session)
            if session.finished:
                raise RunFinished(
                    f"{run.run_id} is finished (day {session.day} of {session.horizon}): "
                    "it accepts no further command"
                )
            if len(run.ids) >= self.limits.commands_per_run:
                raise Forbidden(
                    f"{run.run_id} holds {self.limits.commands_per_run} commands, "
                    "the host's limit per run"
                )
            entry = apply(run, session)
            if not run.dirty:
                run.dirty, run.dirty_since = True, time.monotonic()
            if session.finished:
                self._seal_durably(run, session, "the command was not acknowledged")
                run.dirty = False
                log.info(
                    "%s: agent %s finished its episode (day %d)", run.run_id, agent, session.day
                )
            return durable(reply(run, session, entry, False), run, session)

        return self._with_session(agent, run_id, run_command, wait=not defer)

    def _seal_durably(self, run: _Run, session: PlayerSession, consequence: str) -> None:
        """Seal the run (run lock held), its journal made durable first (`_make_durable`).

        So the syncer knows the seal's fsync (a failed fsync later never cuts the journal
        back below what seal.json names), and a failed fsync of the journal, here or in the
        seal, damages the run as the syncer's does and raises Damaged: after a failed
        fsync the kernel may call the same pages clean, so a later fsync's success proves
        nothing and the commands still waiting for one must not be acknowledged. A seal
        the disk refuses otherwise raises its WorkbenchError.
        """
        self._make_durable(run, session, consequence)
        try:
            session.seal()
        except JournalNotDurable as exc:
            self._journal_failed_held(run, exc.error)
            raise Damaged(
                f"{run.run_id}: its journal could not be made durable, so {consequence}; "
                "ask the operator to inspect the run"
            ) from None

    def _make_durable(self, run: _Run, session: PlayerSession, consequence: str) -> None:
        """Fsync the run's journal here (run lock held) and tell the syncer its size.

        A failed fsync, or a journal the syncer froze below that size meanwhile (another
        fsync of it failed), damages the run as the syncer's failure does (its
        unacknowledged commands cut off) and raises Damaged, naming the `consequence`.
        """
        try:
            session.sync_journal()
            size = session.journal_size
            if size is not None and not self.syncer.made_durable(
                self.journal_path(run.run_id), size
            ):
                raise OSError(errno.EIO, "it was cut back after a failed fsync")
        except OSError as exc:
            self._journal_failed_held(run, exc)
            raise Damaged(
                f"{run.run_id}: its journal could not be made durable, so {consequence}; "
                "ask the operator to inspect the run"
            ) from None

    def _shown(self, run: _Run, session: PlayerSession, result: T) -> T:
        """`result`, a read of the run, once every command it shows is durable.

        A command applied on the event loop is shown to reads before the syncer has
        fsynced it; were that fsync to fail, the command would be cut off and never
        acknowledged, yet a read would have shown its outcome (the days it advanced).
        So a read whose journal is ahead of what is known durable fsyncs it first.
        """
        size = session.journal_size
        durable = self.syncer.durable_size(self.journal_path(run.run_id))
        if size is not None and (durable is None or durable < size):
            self._make_durable(run, session, "the run cannot be read")
        return result

    def _read(self, agent: str, run_id: str, work: Callable[[_Run, PlayerSession], T]) -> T:
        """`work`, a read of the agent's run, under its lock; only durable commands shown."""
        return self._with_session(
            agent, run_id, lambda run, session: self._shown(run, session, work(run, session))
        )

    def _journaled(self, run: _Run, session: PlayerSession, command_id: str) -> Entry:
        """The entry a command just journaled, indexed by its id."""
        entry = session.journal_entries[-1]
        if entry.id != command_id:
            raise IntegrityError(f"{run.run_id}: the journal's last entry is not {command_id}")
        run.ids[command_id] = entry
        return entry

    def _base(self, entry: Entry, retry: bool) -> dict[str, object]:
        """The fields every command reply has; `day` is the run's day right after it.

        Both follow from the journal entry alone (an advance of N days from day D reaches
        D + N, a finish the horizon), so a retry's reply is the first one.
        """
        day = entry.day
        if entry.kind == "advance":
            days = entry.payload["days"]
            assert isinstance(days, int)
            day += days
        elif entry.kind == "finish":
            day = self.bundle.horizon
        return {
            "command_id": entry.id,
            "kind": entry.kind,
            "seq": entry.seq,
            "decision_day": entry.day,
            "day": day,
            "finished": day >= self.bundle.horizon,
            "retry": retry,
        }

    # -- sessions -------------------------------------------------------------------
    def _own(self, agent: str, run_id: str) -> _Run:
        """The agent's run `run_id`; the same NotFound for unknown ids and others' runs."""
        if not RUN_ID_RE.fullmatch(run_id):
            raise NotFound(f"no run {run_id[:80]!r}: run ids look like run-<32 hex digits>")
        with self._index_lock:
            run = self._runs.get(run_id)
        if run is None or run.agent != agent:
            raise NotFound(f"no run {run_id} among your runs")
        if run.damaged is not None:
            raise self._damaged(run)
        return run

    def _damaged(self, run: _Run) -> Damaged:
        """The error every request to a damaged run gets, its listing entry too: why, short
        (its first problem on one line, bounded, without the runs directory's own path)."""
        first, _, rest = (run.damaged or "").partition("\n")
        more = " (and more)" if rest.strip() else ""
        why = bound_line(single_line(self._relative(first)), DAMAGE_CHARS) + more
        return Damaged(f"{run.run_id} is damaged ({why}); ask the operator to inspect it")

    def _with_session(
        self,
        agent: str,
        run_id: str,
        work: Callable[[_Run, PlayerSession], T],
        wait: bool = True,
    ) -> T:
        """Run `work` on the run's session under the run's lock.

        Without `wait` (a caller on the event loop) a lock held elsewhere raises
        WouldBlock at once rather than stalling every other agent's replies.
        """
        run = self._own(agent, run_id)
        if not run.lock.acquire(blocking=wait):
            raise WouldBlock(run_id)
        try:
            session = self._session(run)
            try:
                return work(run, session)
            except UserError as exc:
                raise Invalid(self._relative(exc.message)) from None
            except StorageError as exc:
                log.warning("%s: %s", run.run_id, exc.message)
                session.close()
                run.session = None
                raise StorageFailed(
                    f"{self._relative(exc.message)}; try again later (the operator is told)"
                ) from None
        finally:
            run.lock.release()

    def _relative(self, message: str) -> str:
        """A session's message with the runs directory's own path left out."""
        return message.replace(f"{self.runs_dir}{os.sep}", "")

    def _session(self, run: _Run) -> PlayerSession:
        """The run's session, resumed from its journal when not open (run lock held)."""
        if run.session is None:
            try:
                run.session = PlayerSession.resume(
                    run.root,
                    self.bundle,
                    control=self.control,
                    autoseal=False,
                    write_ahead=True,
                    command=HOST_COMMAND,
                    hosted=True,
                )
            except RunLocked as exc:
                # Who holds it (pid, an operator's command line with its paths) is the
                # operator's to read in the log, never an agent's.
                log.warning("%s: %s", run.run_id, exc.message)
                raise Busy(
                    f"{run.run_id} is being written by another process (an operator's "
                    "command); try again later"
                ) from None
            except (StorageError, AccessError) as exc:
                # The system refused a file for now (a full disk, no descriptor left):
                # nothing in the run is wrong, so it is not marked damaged, which would
                # refuse it until a restart (another agent's connections can use up the
                # descriptors).
                log.warning("%s: %s", run.run_id, exc.message)
                raise StorageFailed(
                    f"{self._relative(exc.message)}; try again later (the operator is told)"
                ) from None
            except (UserError, IntegrityError) as exc:
                run.damaged = exc.message
                raise self._damaged(run) from None
            run.session.defer_fsync()
            self._journal_opened(run)
            run.ids = {e.id: e for e in run.session.journal_entries[1:]}
        self._touch(run)
        return run.session

    def open_now(self, run_id: str) -> bool:
        """True when the run's session is open, so a command needs no resume first."""
        with self._index_lock:
            run = self._runs.get(run_id)
        return run is not None and run.session is not None and run.damaged is None

    def journal_size(self, run_id: str) -> int:
        """Bytes of an open run's journal as its session wrote them (for `Syncer.sync`)."""
        with self._index_lock:
            run = self._runs.get(run_id)
        session = None if run is None else run.session
        size = None if session is None else session.journal_size
        return os.stat(self.journal_path(run_id)).st_size if size is None else size

    def journal_path(self, run_id: str) -> Path:
        """Where a run's journal is (for `Syncer.sync` after a deferred command)."""
        return RunPaths(self.runs_dir / run_id).journal

    def _journal_opened(self, run: _Run) -> None:
        """Tell the syncer what of the run's journal is durable as its session opens: all of
        it (a session opens on a journal written and synced before)."""
        assert run.session is not None
        size = run.session.journal_size
        journal = self.journal_path(run.run_id)
        self.syncer.opened(journal, os.stat(journal).st_size if size is None else size)

    def journal_failed(self, run_id: str, error: OSError) -> None:
        """A deferred journal could not be made durable: the run takes no more commands.

        Nothing it holds beyond its last durable byte was acknowledged, so that is cut off
        (a refused command must never be applied later, when the run is resumed); its
        session is closed unsealed and the run refused until the operator restarts the
        host. Only the first failure acts: the run is refused from then on.
        """
        with self._index_lock:
            run = self._runs.get(run_id)
        if run is None:
            log.error("%s: the journal could not be made durable: %s", run_id, error)
            return
        with run.lock:
            self._journal_failed_held(run, error)

    def _journal_failed_held(self, run: _Run, error: OSError) -> None:
        """`journal_failed` for a caller that holds the run's lock."""
        log.error("%s: the journal could not be made durable: %s", run.run_id, error)
        if run.damaged is not None:
            return
        reason = f"its journal could not be made durable ({error.strerror or error})"
        journal = self.journal_path(run.run_id)
        durable = self.syncer.cut(journal)
        try:
            if durable is None:
                raise OSError(errno.EIO, "how much of it is durable is unknown")
            truncate_durably(journal, durable)
        except OSError as exc:
            reason += f", and its unacknowledged commands could not be cut ({exc.strerror})"
            log.error("%s: %s", run.run_id, reason)
        run.damaged = reason
        if run.session is not None:
            run.session.close()
            run.session = None

    def _touch(self, run: _Run) -> None:
        """Mark the run recently used; drop the least recently used idle sessions."""
        with self._index_lock:
            self._open[run.run_id] = None
            self._open.move_to_end(run.run_id)
            while len(self._open) > self.limits.open_sessions:
                victim_id = next(iter(self._open))
                if victim_id == run.run_id:
                    break
                victim = self._runs[victim_id]
                if not victim.lock.acquire(blocking=False):
                    self._open.move_to_end(victim_id)
                    break
                try:
                    self._drop(victim)
                finally:
                    victim.lock.release()
                del self._open[victim_id]

    def _sealed(self, run: _Run) -> bool:
        """Seal the run's open session (run lock held); a seal the disk refuses is logged
        once (while the reason stays the same) and tried again later, the run staying dirty;
        one whose journal cannot be made durable damages the run (`_seal_durably`)."""
        session = run.session
        assert session is not None
        try:
            self._seal_durably(run, session, "it cannot be sealed")
        except Damaged:
            return False
        except WorkbenchError as exc:
            if run.seal_problem != exc.message:
                log.warning("%s: cannot seal (%s); tried again later", run.run_id, exc.message)
            run.seal_problem = exc.message
            return False
        run.dirty = False
        run.seal_problem = None
        return True

    def _drop(self, run: _Run) -> None:
        """Seal (when changed) and close the run's session, releasing its writer lock; it
        resumes on its next request. A seal the disk refuses is left to start-up recovery."""
        if run.session is not None and run.dirty:
            self._sealed(run)
        if run.session is not None:
            run.session.close()
        run.session = None
        run.ids = {}

    def _info(self, run: _Run, session: PlayerSession) -> RunInfo:
        return RunInfo(
            run_id=run.run_id,
            campaign_id=self.bundle.id,
            day=session.day,
            horizon=session.horizon,
            finished=session.finished,
            commands=len(run.ids),
        )


def _owner(paths: RunPaths) -> tuple[str, str | None]:
    """Whose run this is, and why it is damaged when its run.json cannot be read.

    A damaged run.json must not stop the host serving the other runs, nor free its agent
    to start a second episode: the owner is then read from the journal's header line,
    which names the agent too, whatever the rest of the journal holds (a torn or pending
    cut tail included); an empty owner when neither can be read (no agent reaches it).
    """
    try:
        return read_registration(paths).agent_id, None
    except WorkbenchError as exc:
        problem = exc.message
    try:
        data = journal_bytes(paths)
        entries = read_entries(data[: data.find(b"\n") + 1])
    except (JournalError, WorkbenchError):
        return "", problem
    header = entries[0] if entries else None
    agent = header.payload.get("agent_id") if header is not None else None
    return (agent if isinstance(agent, str) else ""), problem


def _check_command_id(command_id: str) -> None:
    if command_id in RESERVED_COMMAND_IDS:
        raise Invalid(f"command id {command_id!r} is reserved: choose another")


def _unknown_action(action: str, bundle: CampaignBundle) -> str:
    return f"unknown action {action[:80]!r} (the catalog lists {len(bundle.actions)} actions)"


def _minor(value: Decimal, scale: int) -> int:
    """A balance in major units back to exact minor units."""
    return int((value * scale).to_integral_exact())
