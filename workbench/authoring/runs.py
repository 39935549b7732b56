"""The author's view of run directories: which runs exist, which are finished, their reports.

Validation is offered only for finished runs: validating a live run would simulate
past its journal and show the player's answers before they count.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import orjson
from pydantic import ValidationError

from workbench.errors import UserError, WorkbenchError
from workbench.evaluation.evaluator import REPORT_FILE, EvaluationOutcome, run_evaluation
from workbench.evaluation.report import REPORT_SCHEMA, CounterfactualReport
from workbench.inputs import read_bounded
from workbench.play.session import PlayerSession
from workbench.runs.files import HOST_RECORD_FILE, RUN_FILE, RunPaths, read_registration
from workbench.runs.registration import ControlFile

REPORT_LIMIT = 64 * 1024 * 1024
"""The largest report.json the report browser reads."""

Progress = Callable[[int, int, str], None]


@dataclass(frozen=True)
class RunStatus:
    """A run directory as the author sees it: whose, which campaign, how far, finished or not."""

    path: Path
    campaign_id: str
    agent_id: str
    visibility: str
    day: int | None
    horizon: int | None
    finished: bool
    problem: str | None = None

    @property
    def state(self) -> str:
        """`finished`, `day 12 of 180`, or what stops the run from opening."""
        if self.problem is not None:
            return f"cannot open: {self.problem}"
        if self.finished:
            return "finished"
        return f"day {self.day} of {self.horizon}"


@dataclass(frozen=True)
class ReportEntry:
    """A validation output directory and its report's headline."""

    path: Path
    run: str
    scored: int
    questions: int
    mean_score: str | None


def run_status(run_dir: Path, control: ControlFile | None = None) -> RunStatus:
    """Open a run read-only (its journal replayed) and say how far it got."""
    registration = read_registration(RunPaths(run_dir))
    try:
        session = PlayerSession.resume(
            run_dir, control=control, agent_id=registration.agent_id, read_only=True
        )
    except WorkbenchError as exc:
        return RunStatus(
            run_dir,
            registration.campaign_id,
            registration.agent_id,
            registration.visibility,
            None,
            None,
            False,
            exc.message,
        )
    return RunStatus(
        run_dir,
        registration.campaign_id,
        registration.agent_id,
        registration.visibility,
        session.day,
        session.horizon,
        session.finished,
    )


def find_runs(root: Path) -> list[Path]:
    """Run directories directly under `root` (or `root` itself when it is one), sorted."""
    if (root / RUN_FILE).exists():
        return [root]
    if not root.is_dir():
        return []
    return sorted(p for p in root.iterdir() if (p / RUN_FILE).is_file())


def read_report(out_dir: Path) -> CounterfactualReport:
    """A validation directory's report.json, or a UserError naming what is wrong with it."""
    path = out_dir / REPORT_FILE
    try:
        return CounterfactualReport.model_validate(
            orjson.loads(read_bounded(path, "report", REPORT_LIMIT))
        )
    except orjson.JSONDecodeError as exc:
        raise UserError(f"{path}: not valid JSON: {exc}") from None
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "report"
        raise UserError(f"{path}: not a {REPORT_SCHEMA} report: {where}: {first['msg']}") from None


def reports_dir(runs_root: Path) -> Path:
    """Where the author's validations of the runs under `runs_root` go: beside the runs,
    except in a host's runs directory (it holds host.json), which holds the host's files
    only: there, `<runs>-reports` beside it (evaluation output never joins what a host
    keeps)."""
    if (runs_root / HOST_RECORD_FILE).exists():
        return runs_root.parent / f"{runs_root.name}-reports"
    return runs_root


def find_reports(root: Path) -> list[ReportEntry]:
    """Validation output directories with a readable report, sorted, in the reports
    folder of the runs under `root` (`reports_dir`)."""
    root = reports_dir(root)
    if not root.is_dir():
        return []
    entries = []
    for child in sorted(p for p in root.iterdir() if (p / REPORT_FILE).is_file()):
        try:
            report = read_report(child)
        except WorkbenchError:
            continue
        summary = report.summary
        entries.append(
            ReportEntry(
                child,
                report.factual.run,
                summary.scored if summary else 0,
                summary.questions if summary else len(report.questions),
                summary.mean_score if summary else None,
            )
        )
    return entries


def validation_dir(run_dir: Path) -> Path:
    """A new output directory in the runs' reports folder (`reports_dir`): `<run>-validation`,
    or `-2`, `-3`, … when taken."""
    folder = reports_dir(run_dir.parent)
    path = folder / f"{run_dir.name}-validation"
    n = 2
    while path.exists():
        path = folder / f"{run_dir.name}-validation-{n}"
        n += 1
    return path


def validate_finished(
    run_dir: Path, control: ControlFile | None = None, progress: Progress | None = None
) -> tuple[Path, EvaluationOutcome]:
    """Validate a finished run into a new directory (`validation_dir`); refuse one in play."""
    status = run_status(run_dir, control)
    if status.problem is not None:
        raise UserError(f"{run_dir}: {status.problem}")
    if not status.finished:
        raise UserError(
            f"{run_dir} is on day {status.day} of {status.horizon}: it is not finished, so it "
            "cannot be validated; the player finishes it by playing to the last day"
        )
    out = validation_dir(run_dir)
    agent = status.agent_id if control is not None else None
    return out, run_evaluation(run_dir, out, control=control, agent=agent, progress=progress)
