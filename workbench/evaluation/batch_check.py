"""Checking a batch's output as `verify-report` checks one evaluation's.

Every report under `reports/` is checked as a single evaluation's is (and against its run
under RUNS_DIR when given), then runs.csv and leaderboard.csv are derived again from
runs.csv's rows and the reports they name, and must be byte for byte the files there: an
edited score, interval or rank, or a report added, removed or renamed, is a problem. With
the control file, private reports are authenticated, and so the leaderboard derived from
them.
"""

from __future__ import annotations

import csv
import io
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from pydantic import TypeAdapter, ValidationError

from workbench.errors import AccessError, UserError, WorkbenchError
from workbench.evaluation.batch import LEADERBOARD, REPORTS, RUNS_TABLE, listed_runs
from workbench.evaluation.evaluator import REPORT_FILE
from workbench.evaluation.leaderboard import (
    RUNS_COLUMNS,
    RunRow,
    RunStatus,
    leaderboard,
    runs_csv,
    to_csv,
)
from workbench.evaluation.report import CounterfactualReport
from workbench.evaluation.report_check import ReportCheck, check_report
from workbench.inputs import read_bounded
from workbench.messages import clip
from workbench.runs.registration import ControlFile

STATUS: TypeAdapter[RunStatus] = TypeAdapter(RunStatus)
"""A runs.csv row's status, read as the batch wrote it."""
EVALUATION_STATUSES: frozenset[RunStatus] = frozenset(
    {"evaluated", "integrity", "refused", "failed"}
)
"""The statuses a run the batch evaluated may end with (its evaluation decides which)."""


@dataclass
class BatchCheck:
    """What checking a batch's output found: each report's check, each report that could
    not be checked (a usage error), and the problems of the batch's own tables."""

    out: Path
    reports: list[tuple[str, ReportCheck]] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    tables: Literal["not compared", "match", "differ"] = "not compared"
    """runs.csv and leaderboard.csv against the ones derived again (compared only when
    every report was checked and read whole)."""

    def report_problems(self) -> list[str]:
        """Every report's problems, each naming its report's folder."""
        lines = []
        for name, report in self.reports:
            folder = str(self.out / REPORTS / name)
            lines += [p if p.startswith(folder) else f"{folder}: {p}" for p in report.problems]
        return lines

    @property
    def consistent(self) -> bool:
        """True when no report and no table has a problem (refusals aside)."""
        return not self.problems and all(check.ok for _, check in self.reports)


def is_batch_output(out: Path) -> bool:
    """True for what `validate counterfactual RUNS_DIR --all-agents` wrote: its reports
    directory and tables, no report of its own."""
    return (out / REPORTS).is_dir() and not (out / REPORT_FILE).exists()


def check_batch(
    out: Path,
    runs: Path | None = None,
    *,
    control: ControlFile | None = None,
    campaign: Path | None = None,
) -> BatchCheck:
    """Check the batch output `out` (see the module docstring); RUNS_DIR `runs` holds the
    runs evaluated again, each under the name its report has."""
    check = BatchCheck(out)
    rows = _listed_rows(out, check)
    if rows is None:
        return check
    _repeated_rows(out, rows, check)
    _strays(out, check)
    named = {row.run for row in rows if row.status == "evaluated"}
    folders = _report_folders(out)
    for stray in sorted(folders - named):  # a folder no row names: added, or renamed
        check.problems.append(f"{out / REPORTS / stray}: a report {RUNS_TABLE} does not list")
    derived: list[RunRow] = []
    reports = []
    for row in rows:
        if row.status != "evaluated":
            derived.append(row)
            continue
        report = _checked_report(out, row, runs, control, campaign, check)
        reports.append(report)
        derived.append(RunRow(row.run, row.agent, row.status, report, row.reason))
    if runs is not None and not check.refused:
        _rows_of_runs(out, rows, runs, control, check)
    if check.refused or any(not c.ok for _, c in check.reports) or None in reports:
        return check
    check.tables = "match"
    for name, data in (
        (RUNS_TABLE, runs_csv(derived)),
        (LEADERBOARD, to_csv(leaderboard(derived))),
    ):
        if _read(out / name, check) != data:
            check.tables = "differ"
            check.problems.append(
                f"{out / name}: differs from the one its reports give (changed after writing)"
            )
    return check


def _listed_rows(out: Path, check: BatchCheck) -> list[RunRow] | None:
    """runs.csv's rows (their reports not yet read), or None with the problem recorded."""
    data = _read(out / RUNS_TABLE, check)
    if data is None:
        return None
    rows = []
    try:
        reader = csv.DictReader(io.StringIO(data.decode()))
        if reader.fieldnames != list(RUNS_COLUMNS):  # its rows are read by these names
            check.problems.append(f"{out / RUNS_TABLE}:1: not the header of a batch's table")
            return None
        for number, line in enumerate(reader, start=2):
            try:
                status = STATUS.validate_python(line.get("status"))
            except ValidationError:
                status = None
            if status is None or not _run_name(line.get("run") or "", status):
                check.problems.append(f"{out / RUNS_TABLE}:{number}: not a row of a batch")
                return None
            rows.append(
                RunRow(line["run"], line.get("agent") or "", status, None, line.get("reason") or "")
            )
    except (UnicodeDecodeError, csv.Error) as exc:
        check.problems.append(f"{out / RUNS_TABLE}: not a batch's table ({clip(str(exc))})")
        return None
    return rows


def _strays(out: Path, check: BatchCheck) -> None:
    """A problem for each entry of `out` a batch never writes (a report's own folder says
    the same of its entries): a file added beside the tables passed unnoticed."""
    try:
        names = sorted(os.listdir(out))
    except OSError as exc:
        raise AccessError(f"{out}: cannot read ({exc.strerror or exc})") from None
    for name in names:
        if name not in (REPORTS, RUNS_TABLE, LEADERBOARD):
            check.problems.append(f"{out / name}: not part of a batch's output")


def _repeated_rows(out: Path, rows: list[RunRow], check: BatchCheck) -> None:
    """A problem for each row naming a run (or a missing agent) an earlier row names: a
    batch lists each once, and a repeated row counted one report's scores twice."""
    seen: set[tuple[str, str]] = set()
    for number, row in enumerate(rows, start=2):
        key = (row.run, "") if row.run else ("", row.agent)
        if key in seen:
            what = f"run {clip(row.run)}" if row.run else f"agent {clip(row.agent)}"
            check.problems.append(f"{out / RUNS_TABLE}:{number}: lists {what} again")
        seen.add(key)


def _rows_of_runs(
    out: Path, rows: list[RunRow], runs: Path, control: ControlFile | None, check: BatchCheck
) -> None:
    """A problem for each row RUNS_DIR does not give now, and each it gives that runs.csv
    lacks: a run's row (and report) removed, or its status relabelled, is found."""
    expected = listed_runs(runs, control)
    evaluated = {(run, agent) for run, agent, status in expected if status is None}
    listed = {
        (row.run, row.agent, None)
        if (row.run, row.agent) in evaluated and row.status in EVALUATION_STATUSES
        else (row.run, row.agent, row.status)
        for row in rows
    }
    for run, agent, status in sorted(expected - listed, key=str):
        what = clip(run) if run else f"agent {clip(agent)}"
        check.problems.append(
            f"{out / RUNS_TABLE}: has no row for {what} ({status or 'a run to evaluate'}), "
            f"which {runs} holds"
        )
    for run, agent, status in sorted(listed - expected, key=str):
        what = clip(run) if run else f"agent {clip(agent)}"
        check.problems.append(
            f"{out / RUNS_TABLE}: lists {what} ({status}, agent {clip(agent)}), which {runs} "
            "does not give"
        )


def _run_name(run: str, status: RunStatus) -> bool:
    """True for a row's run as a batch writes it: one folder name (never a path that
    leads out of `reports/` or RUNS_DIR), empty only for an agent `missing` its run."""
    if not run:
        return status == "missing"
    return "/" not in run and "\x00" not in run and run not in (".", "..")


def _report_folders(out: Path) -> set[str]:
    """Names of the entries of `out/reports`."""
    try:
        return {entry.name for entry in (out / REPORTS).iterdir()}
    except OSError as exc:
        raise AccessError(f"{out / REPORTS}: cannot read ({exc.strerror or exc})") from None


def _checked_report(
    out: Path,
    row: RunRow,
    runs: Path | None,
    control: ControlFile | None,
    campaign: Path | None,
    check: BatchCheck,
) -> CounterfactualReport | None:
    """Check one run's report as `verify-report` would, and that it reports the agent its
    row names; the report when it reads whole and has no problem."""
    folder = out / REPORTS / row.run
    if not (folder / REPORT_FILE).is_file():
        check.problems.append(f"{folder / REPORT_FILE}: missing, but {RUNS_TABLE} lists it")
        return None
    report = _parsed(folder / REPORT_FILE)
    agent = report.registration.agent_id if report is not None else None
    results = runs / row.run if runs is not None else None
    try:
        single = check_report(folder, results, control=control, agent=agent, campaign=campaign)
    except WorkbenchError as exc:
        check.refused.append(f"{folder}: {exc.message}")
        return None
    check.reports.append((row.run, single))
    if report is not None and agent != row.agent:
        check.problems.append(
            f"{out / RUNS_TABLE}: names agent {clip(row.agent)} for {clip(row.run)}, but its "
            f"report is of agent {clip(agent)}"
        )
    return report if single.ok else None


def _parsed(path: Path) -> CounterfactualReport | None:
    """The report at `path` when it reads as one (`check_report` says what is wrong if not)."""
    try:
        return CounterfactualReport.model_validate_json(read_bounded(path, "report"))
    except AccessError:
        raise
    except (WorkbenchError, ValidationError):
        return None


def _read(path: Path, check: BatchCheck) -> bytes | None:
    """A bounded read of one of the batch's tables; a missing one is a problem."""
    if not path.exists():
        check.problems.append(f"{path}: missing")
        return None
    try:
        return read_bounded(path, "batch table")
    except AccessError:
        raise
    except UserError as exc:
        check.problems.append(exc.message)
        return None
