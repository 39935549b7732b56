"""Batch validation: every run of a directory, one report each, then a leaderboard.

`workbench validate counterfactual RUNS_DIR --all-agents --out OUT [--control FILE]`.
Each run directly under RUNS_DIR is one task (`evaluator.evaluate_run`: verify, then
every question pair in order, nothing written) on the chosen executor; this process
claims OUT (by creating `OUT/reports`, atomically), writes each run's report into
`OUT/reports/<run>/` (seals, SHA256SUMS, report.json, exactly as a single validation) in
run-name order, then `runs.csv`, then `leaderboard.csv` last. Every file is written
atomically, so a batch without leaderboard.csv did not finish; one that fails or is
interrupted removes what it wrote (OUT too, if it made it), so OUT can be used again.

Which runs count: with `--control`, the runs of the control file's campaign, and every
agent registered there is expected to have at least one; without it, every development
run. Runs that do not belong (another campaign, a private run without `--control`, a
development run with it) are named and left out. A run that is
covered but cannot be evaluated (unfinished, its campaign changed, its task lost, its
run.json unreadable or gone while its journal, seal or store is there) is skipped with a
line naming it and makes the exit code 1, like an unscored question; a run reached under
several names (symbolic links) counts once, the other names excluded; a run that fails
integrity (an altered run.json included) gets no report and makes it 3, and the others
are still written.
"""

from __future__ import annotations

import contextlib
import errno
import os
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Final

import pandas as pd

from sim.campaign_load import CampaignBundle
from workbench import exit_codes
from workbench.errors import IntegrityError, UserError, reraised
from workbench.evaluation.evaluator import (
    EVALUATION_LAYOUT,
    SEALS_DIR,
    RunEvaluation,
    RunJob,
    evaluate_run,
    utf8_name,
    write_evaluation,
)
from workbench.evaluation.executors import Done, ExecutorSpec, Progress, open_executor
from workbench.evaluation.leaderboard import (
    INCOMPLETE,
    RunRow,
    RunStatus,
    leaderboard,
    runs_csv,
    to_csv,
)
from workbench.inputs import require_directory
from workbench.messages import clip
from workbench.outputs import ClaimedOutput, OutputLayout, atomic_write_all, check_output_dir
from workbench.runs.bundle import load_bundle
from workbench.runs.files import (
    JOURNAL_FILE,
    SEAL_FILE,
    STORE_FILE,
    RunPaths,
    read_registration,
)
from workbench.runs.registration import ControlFile, Registration

LEADERBOARD: Final = "leaderboard.csv"
RUNS_TABLE: Final = "runs.csv"
REPORTS: Final = "reports"
"""OUT/reports/<run>/ holds each run's report; creating it claims OUT."""
BATCH_LAYOUT: Final = OutputLayout(REPORTS, (RUNS_TABLE, LEADERBOARD), inner=EVALUATION_LAYOUT)
"""A batch's output directory: the reports, then runs.csv, leaderboard.csv last."""
MAX_ENTRIES: Final = 100_000
"""The most entries RUNS_DIR may hold."""


@dataclass(frozen=True)
class BatchOutcome:
    """What a batch produced: exit code, one row per run, the per-agent table, the files."""

    exit_code: int
    rows: tuple[RunRow, ...]
    table: pd.DataFrame
    leaderboard_path: Path
    runs_path: Path


@dataclass(frozen=True)
class _Found:
    """Run directories to evaluate, and the rows decided without evaluating."""

    jobs: tuple[tuple[RunJob, str], ...]
    rows: tuple[RunRow, ...]


def _entries(runs_dir: Path) -> list[Path]:
    """The subdirectories of RUNS_DIR in name order (bounded), and the entries whose kind
    cannot be learned (their rows say why)."""
    found = []
    with reraised(UserError, OSError, where=str(runs_dir)), os.scandir(runs_dir) as it:
        for count, entry in enumerate(it, start=1):
            if count > MAX_ENTRIES:
                raise UserError(f"{runs_dir} holds more than {MAX_ENTRIES} entries")
            if _may_be_a_directory(entry):
                found.append(Path(entry.path))
    return sorted(found, key=lambda p: p.name)


def _may_be_a_directory(entry: os.DirEntry[str]) -> bool:
    """True for a directory, or an entry whose target cannot be looked at (no permission).

    A symbolic link that leads nowhere, to a loop (`loop -> loop`) or through a file is no
    directory and so no run: one such link refused the whole batch, naming an errno."""
    try:
        return entry.is_dir()
    except OSError as exc:
        return exc.errno not in (errno.ELOOP, errno.ENOTDIR, errno.ENOENT, errno.ENAMETOOLONG)


def _shown(name: str) -> str:
    """A directory's name as runs.csv records it: its bytes that are not UTF-8 escaped
    (`\\xff`), since the table is UTF-8 text."""
    return os.fsencode(name).decode(errors="backslashreplace")


def _originals(entries: list[Path]) -> dict[Path, str]:
    """For each entry that names the same directory as another (a symbolic link to a run
    beside it, or two links to one run), the name that directory counts under.

    A run counts once, under its own name when RUNS_DIR holds it, else its first link's:
    counted under every name it pooled one run's questions two or more times."""
    first: dict[tuple[int, int], str] = {}
    for entry in sorted(entries, key=lambda p: (p.is_symlink(), p.name)):
        try:
            info = entry.stat()
        except OSError:  # gone or not ours to look at: its own row says so
            continue
        first.setdefault((info.st_dev, info.st_ino), entry.name)
    repeats = {}
    for entry in entries:
        with contextlib.suppress(OSError):
            info = entry.stat()
            original = first[(info.st_dev, info.st_ino)]
            if original != entry.name:
                repeats[entry] = original
    return repeats


def _holds_a_run(paths: RunPaths) -> bool:
    """True when the directory holds a run (its run.json, readable or not, or its files)."""
    try:
        return paths.exists() or _lost_registration(paths) is not None
    except OSError:  # a directory this process may not look into: its original says so
        return True


def _lost_registration(paths: RunPaths) -> str | None:
    """Why a directory without a readable run.json is still a run to name (it holds a run's
    files, or a run.json link to nothing), or None for a directory of something else."""
    if os.path.lexists(paths.registration):
        return f"{paths.registration} is a link to nothing"
    for name in (JOURNAL_FILE, SEAL_FILE, STORE_FILE):
        if os.path.lexists(paths.root / name):
            return f"{paths.registration} is missing, though its {name} is there"
    return None


def _discover(
    runs_dir: Path,
    control: ControlFile | None,
    questions: tuple[str, ...] | None,
    campaign: CampaignBundle | None = None,
) -> _Found:
    """Which runs under RUNS_DIR are evaluated, which are named and left out, who is missing.

    `campaign`, when given, is where the runs that played it (its id and digest) find it.
    A control file whose world none of its campaign's runs played is refused whole (a
    control file of another round): each run was `refused` and the batch exited 1."""
    jobs: list[tuple[RunJob, str]] = []
    rows: list[RunRow] = []
    seen_agents: set[str] = set()
    worlds: list[bool] = []
    """Per run of the control file's campaign: whether it played the control file's world."""
    played: Counter[tuple[str, str]] = Counter()
    """Runs to evaluate per campaign (id, digest) they played."""
    entries = _entries(runs_dir)
    repeats = _originals(entries)
    for run_dir in entries:
        paths = RunPaths(run_dir)
        name = _shown(run_dir.name)
        if run_dir in repeats:  # named only when it is a run: other folders pass silently
            if _holds_a_run(paths):
                why = f"the same directory as {clip(_shown(repeats[run_dir]))}: a run counts once"
                rows.append(RunRow(name, "", "excluded", reason=why))
            continue
        try:
            if not paths.exists():
                lost = _lost_registration(paths)
                if lost is not None:
                    rows.append(RunRow(name, "", "refused", reason=lost))
                continue
            registration = read_registration(paths)
        except IntegrityError as exc:
            rows.append(RunRow(name, "", "integrity", reason=exc.message))
            continue
        except UserError as exc:  # unreadable: too large, a pipe or device, no permission
            rows.append(RunRow(name, "", "refused", reason=exc.message))
            continue
        except OSError as exc:  # a directory this process may not look into
            why = f"{paths.registration}: cannot read ({exc.strerror or exc})"
            rows.append(RunRow(name, "", "refused", reason=why))
            continue
        agent = registration.agent_id
        if control is None:
            if registration.visibility == "private":
                why = "a private campaign run: validate it with its control file (--control)"
                rows.append(RunRow(name, agent, "excluded", reason=why))
                continue
        elif registration.visibility != "private":
            why = "a development run: validate it without --control"
            rows.append(RunRow(name, agent, "excluded", reason=why))
            continue
        elif registration.campaign_id != control.campaign_id:
            why = f"campaign {registration.campaign_id}, not the control file's"
            rows.append(RunRow(name, agent, "excluded", reason=why))
            continue
        elif agent not in control.agents:
            why = f"agent {agent!r} is not registered in the control file"
            rows.append(RunRow(name, agent, "excluded", reason=why))
            continue
        if not utf8_name(run_dir):  # its row names its bytes escaped
            why = "its name is not UTF-8: a report names its run in UTF-8; rename it"
            rows.append(RunRow(name, agent, "refused", reason=why))
            continue
        if control is not None:
            worlds.append(registration.seed_commitment == control.commitment())
        played[registration.campaign_id, registration.campaign_digest] += 1
        seen_agents.add(agent)
        moved = campaign.path if campaign and _played(campaign, registration) else None
        jobs.append((RunJob(run_dir, control, questions, moved), agent))
    if control is not None and worlds and not any(worlds):
        raise UserError(
            f"the control file is for another world of campaign {clip(control.campaign_id)}: "
            f"none of its {len(worlds)} run(s) under {runs_dir} was played on its seed (the "
            "control file of another `control new`?)",
            subject="control",
        )
    if control is None and len(played) > 1:
        raise _several_campaigns(runs_dir, played)
    if control is not None:
        for agent in control.agents:
            if agent not in seen_agents:
                rows.append(RunRow("", agent, "missing", reason=f"no run under {runs_dir}"))
    return _Found(tuple(jobs), tuple(rows))


def listed_runs(
    runs_dir: Path, control: ControlFile | None
) -> set[tuple[str, str, RunStatus | None]]:
    """(run, agent, status) of each row a batch of RUNS_DIR writes as it stands now; status
    None for a run it evaluates (whose status the evaluation decides): what `verify-report
    --results` holds runs.csv to, so a row removed or relabelled is found."""
    found = _discover(runs_dir.absolute(), control, None)
    rows: set[tuple[str, str, RunStatus | None]] = {
        (row.run, row.agent, row.status) for row in found.rows
    }
    return rows | {(job.run_dir.name, agent, None) for job, agent in found.jobs}


def _several_campaigns(runs_dir: Path, played: Counter[tuple[str, str]]) -> UserError:
    """The refusal of development runs of several campaigns (or versions of one) in one
    batch: a leaderboard ranks agents on one set of questions, and an agent's scores on
    different ones were pooled into one mean as if they were the same task."""
    shown = ", ".join(
        f"{clip(campaign)} ({digest[:12]}): {count} run(s)"
        for (campaign, digest), count in sorted(played.items())[:5]
    )
    more = f" and {len(played) - 5} more" if len(played) > 5 else ""
    return UserError(
        f"{runs_dir} holds development runs of {len(played)} campaigns (id and digest): "
        f"{shown}{more}; a leaderboard ranks agents on one campaign, so validate each "
        "campaign's runs from a folder of their own"
    )


def _played(campaign: CampaignBundle, registration: Registration) -> bool:
    """True when the run registered by `registration` played `campaign` as it is (its id
    and digest): a batch's `--campaign` serves those runs only."""
    return (campaign.id, campaign.digest) == (
        registration.campaign_id,
        registration.campaign_digest,
    )


def _row(
    evaluation: RunEvaluation, agent: str, out: Path, control: ControlFile | None
) -> tuple[RunRow, int | None]:
    """Write one run's report (when it was evaluated); its row and its exit code."""
    name = evaluation.run
    if evaluation.kind == "integrity":
        return RunRow(name, agent, "integrity", reason=evaluation.message), None
    if evaluation.kind != "evaluated" or evaluation.head is None:
        return RunRow(name, agent, "refused", reason=evaluation.message), None
    folder = out / REPORTS / name
    (folder / SEALS_DIR).mkdir(parents=True)
    outcome = write_evaluation(
        folder, evaluation.head, evaluation.results, len(evaluation.results), control
    )
    return RunRow(name, agent, "evaluated", report=outcome.report), outcome.exit_code


def validate_runs(
    runs_dir: str | Path,
    out_dir: str | Path,
    *,
    control: ControlFile | None = None,
    questions: list[str] | None = None,
    executor: ExecutorSpec | None = None,
    progress: Progress | None = None,
    on_row: Callable[[RunRow], None] | None = None,
    campaign: str | Path | None = None,
) -> BatchOutcome:
    """Validate every run under RUNS_DIR into OUT; see the module docstring for the rules.

    `campaign` is where the runs that played it (its id and digest) find it, when not
    where their run.json says (a campaign folder that moved); other runs are not affected."""
    runs = Path(runs_dir)
    out = Path(out_dir)
    require_directory(runs)
    if RunPaths(runs).exists():
        raise UserError(f"{runs} is a run directory: a batch takes the directory of the runs")
    check_output_dir(out, BATCH_LAYOUT, never_inside=runs)
    moved = load_bundle(campaign) if campaign is not None else None
    # Tasks may run in processes with another working directory (a Dask worker's own):
    # a relative RUNS_DIR named nothing there, and every run was "not a run directory".
    found = _discover(runs.absolute(), control, tuple(questions) if questions else None, moved)
    rows: list[RunRow] = list(found.rows)
    codes: list[int] = []
    for row in found.rows:
        if on_row is not None:
            on_row(row)
    jobs = [job for job, _ in found.jobs]
    claiming = ClaimedOutput(out, BATCH_LAYOUT, never_inside=runs, private=control is not None)
    with open_executor(executor or ExecutorSpec()) as running, claiming:
        outcomes = running.map(evaluate_run, jobs, chunk=1, progress=progress)
        for (job, agent), outcome in zip(found.jobs, outcomes, strict=True):
            if isinstance(outcome, Done):
                row, code = _row(outcome.value, agent, out, control)
            else:
                name = job.run_dir.name
                row, code = RunRow(name, agent, "failed", reason=outcome.reason), None
            rows.append(row)
            if code is not None:
                codes.append(code)
            if on_row is not None:
                on_row(row)
        rows.sort(key=lambda r: (r.run, r.agent))
        table = leaderboard(rows)
        runs_path, board_path = out / RUNS_TABLE, out / LEADERBOARD
        atomic_write_all(
            [(runs_path, runs_csv(rows)), (board_path, to_csv(table))],
            directories=[out, out.parent],
        )
    return BatchOutcome(_exit_code(rows, codes), tuple(rows), table, board_path, runs_path)


def _exit_code(rows: list[RunRow], codes: list[int]) -> int:
    """3 on any integrity failure; else 1 if anything requested went unscored; else 0."""
    if any(r.status == "integrity" for r in rows):
        return exit_codes.INTEGRITY
    if (
        any(r.status in INCOMPLETE for r in rows)
        or not codes
        or any(code != exit_codes.OK for code in codes)
    ):
        return exit_codes.UNSCORED
    return exit_codes.OK
