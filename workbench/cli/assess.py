"""CLI commands for assessments: snapshot, validate counterfactual, demo."""

from __future__ import annotations

import contextlib
import json
import shlex
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click
from click._termui_impl import ProgressBar

from workbench import exit_codes
from workbench.cli import echo_error
from workbench.cli.options import (
    DIR,
    control_file,
    executor_options,
    executor_spec,
    moved_campaign_opt,
    open_run,
    private_options,
    run_dir_arg,
    run_reader_options,
)
from workbench.display import score_counts, short_number, signed_amount
from workbench.errors import UserError
from workbench.messages import bound_line, printed, single_line

if TYPE_CHECKING:
    from workbench.evaluation.executors import ExecutorSpec
    from workbench.evaluation.leaderboard import RunRow
    from workbench.evaluation.report import CounterfactualReport


@click.command()
@run_dir_arg
@run_reader_options
def snapshot(
    run_dir: Path, control: Path | None, agent_id: str | None, campaign: Path | None
) -> None:
    """The player's public view of RUN_DIR as JSON (no seed, no answers, no branch controls)."""
    session = open_run(run_dir, control, agent_id, campaign)
    click.echo(json.dumps(session.view().to_data(), indent=2))


class _StderrBar:
    """A click progress bar on standard error, fed by (done, total, label) callbacks."""

    def __init__(self, label: str) -> None:
        self._label = label
        self._bar: ProgressBar[int] | None = None
        self._done = 0

    def __call__(self, done: int, total: int, item: str) -> None:
        if self._bar is None:
            self._bar = click.progressbar(
                length=total, label=self._label, file=sys.stderr, show_pos=True
            )
            self._bar.__enter__()
        self._bar.update(done - self._done)
        self._done = done

    def close(self) -> None:
        if self._bar is not None:
            self._bar.__exit__(None, None, None)


def _print_summary(report: CounterfactualReport) -> None:
    for q in report.questions:
        statuses = "/".join(
            b.status if b is not None else "-"
            for b in (q.branches.baseline, q.branches.intervention)
        )
        line = f"  {q.id}: {q.status} (branches {statuses})"
        if q.status == "scored" and q.effect is not None and q.loss is not None:
            effect = signed_amount(q.effect, q.contract.units)
            line += f" effect {effect} loss {short_number(q.loss)}"
        elif q.reason:
            line += f": {q.reason}"
        if q.conclusion is not None:
            line += f"; conclusion {q.conclusion.verdict}"
        click.echo(line)
    summary = report.summary
    if summary is not None:
        click.echo(f"  {score_counts(summary)}")
    for task in report.business_objective:
        click.echo(
            f"  business objective {task.task}: {'met' if task.met else 'not met'}"
            " (reported apart, never scored)"
        )


def _private_form(runs_dir: Path) -> str:
    """Why RUNS_DIR alone is refused: it is the private form, or a development run given
    where `--results` takes it, or it is not there at all."""
    from ledger.file_kinds import not_a_directory
    from workbench.runs.files import RunPaths

    why = not_a_directory(runs_dir)
    if why is not None:
        return f"{runs_dir} {why}"
    if RunPaths(runs_dir).exists():
        return (
            f"{runs_dir} is a run: a development run is validated with --results "
            f"{shlex.quote(str(runs_dir))}; RUNS_DIR is the private form, with --control "
            "and --agent"
        )
    return "RUNS_DIR is the private form: it needs --control and --agent (or --all-agents)"


@click.group()
def validate() -> None:
    """Offline evaluation of finished runs."""


@validate.command("counterfactual")
@click.argument("runs_dir", required=False, type=DIR)
@click.option("--results", type=DIR, help="A development run directory.")
@private_options
@click.option(
    "--all-agents",
    is_flag=True,
    help="Validate every run under RUNS_DIR (the control file's agents with --control; "
    "development runs without): one report each, runs.csv and leaderboard.csv.",
)
@click.option("--out", required=True, type=DIR, help="New output directory.")
@click.option("--question", "questions", multiple=True, help="Restrict to these question ids.")
@moved_campaign_opt
@executor_options
def validate_counterfactual(
    runs_dir: Path | None,
    results: Path | None,
    control: Path | None,
    agent_id: str | None,
    all_agents: bool,
    out: Path,
    questions: tuple[str, ...],
    campaign: Path | None,
    executor: str,
    scheduler: str | None,
    workers: int | None,
) -> None:
    """Verify a run, replay both branches of each question, score the submissions.

    With --all-agents, every run under RUNS_DIR is validated (runs in parallel on the
    executor), each into OUT/reports/<run>/, then OUT/runs.csv and OUT/leaderboard.csv.
    """
    from workbench.evaluation.evaluator import run_evaluation

    spec = executor_spec(executor, scheduler, workers)
    if all_agents:
        if runs_dir is None or results is not None:
            raise UserError("--all-agents takes RUNS_DIR, the directory that holds the runs")
        if agent_id is not None:
            raise UserError("give either --agent ID or --all-agents, not both")
        _validate_all(runs_dir, control, out, questions, spec, campaign)
        return
    target = results if runs_dir is None else runs_dir
    if target is None or (runs_dir is not None and results is not None):
        raise UserError("give either --results RUN_DIR or RUNS_DIR with --control and --agent")
    if runs_dir is not None and control is None:
        raise UserError(_private_form(runs_dir))
    if results is not None and control is not None:
        raise UserError(
            "--results is the development form; a private campaign is validated "
            "as RUNS_DIR --control FILE --agent ID"
        )
    bar = _StderrBar("validating")
    try:
        outcome = run_evaluation(
            target,
            out,
            control=control_file(control),
            agent=agent_id,
            questions=list(questions) or None,
            executor=spec,
            progress=bar,
            campaign=campaign,
        )
    finally:
        bar.close()
    if outcome.exit_code == exit_codes.INTEGRITY:
        echo_error(f"{outcome.message}; nothing was scored")
        sys.exit(outcome.exit_code)
    click.echo(f"report: {printed(outcome.report_path)}")
    _print_summary(outcome.report)
    if not outcome.report.questions:
        click.echo("no counterfactual question to evaluate", err=True)
    sys.exit(outcome.exit_code)


def _print_row(row: RunRow) -> None:
    """One line per run as it is written (stdout), or why it has no report (stderr)."""
    if row.status == "evaluated" and row.report is not None and row.report.summary is not None:
        click.echo(
            bound_line(f"  {single_line(row.run)} ({row.agent}): ")
            + score_counts(row.report.summary)
        )
        return
    what = {
        "integrity": "integrity failure, nothing scored",
        "refused": "skipped",
        "failed": "failed",
        "missing": "missing",
        "excluded": "not in this batch",
    }.get(row.status, row.status)
    subject = row.run or f"agent {row.agent}"
    click.echo(bound_line(single_line(f"{subject}: {what}: {row.reason}")), err=True)


def _validate_all(
    runs_dir: Path,
    control: Path | None,
    out: Path,
    questions: tuple[str, ...],
    spec: ExecutorSpec,
    campaign: Path | None = None,
) -> None:
    """Batch validation of every run under RUNS_DIR; prints the per-agent table."""
    from workbench.evaluation.batch import validate_runs

    bar = _StderrBar("validating runs")
    try:
        outcome = validate_runs(
            runs_dir,
            out,
            control=control_file(control),
            questions=list(questions) or None,
            executor=spec,
            progress=lambda done, total: bar(done, total, ""),
            on_row=_print_row,
            campaign=campaign,
        )
    finally:
        bar.close()
    click.echo(
        f"leaderboard: {printed(outcome.leaderboard_path)} (runs: {printed(outcome.runs_path)})"
    )
    if outcome.table.empty:
        click.echo("no run to validate", err=True)
    else:
        click.echo(outcome.table.to_string(index=False))
    sys.exit(outcome.exit_code)


@click.command("verify-report")
@click.argument("out", type=DIR)
@click.option(
    "--results",
    type=DIR,
    help="The run the report evaluated (a batch's: RUNS_DIR): evaluate it again.",
)
@run_reader_options
def verify_report(
    out: Path,
    results: Path | None,
    control: Path | None,
    agent_id: str | None,
    campaign: Path | None,
) -> None:
    """Check OUT's report.json, SHA256SUMS and seals against each other (and RESULTS).

    A batch's OUT: every report, and runs.csv and leaderboard.csv derived from them again.
    """
    from workbench.evaluation.batch_check import is_batch_output

    if campaign is not None and results is None:
        raise UserError(
            "a campaign folder is used only when runs are evaluated again: give --results too",
            subject="campaign",
        )
    if is_batch_output(out):
        _verify_batch(out, results, control, agent_id, campaign)
        return
    from workbench.evaluation.report_check import check_report

    result = check_report(
        out, results, control=control_file(control), agent=agent_id, campaign=campaign
    )
    if not result.ok:
        _print_problems(result.problems)
        click.echo(
            f"{printed(out)}: {len(result.problems)} problem(s); the report is not trustworthy",
            err=True,
        )
        sys.exit(exit_codes.INTEGRITY)
    against = f", and matches evaluating {printed(results)} again" if results is not None else ""
    signed = ", signatures checked" if result.authenticated else ""
    click.echo(
        f"{printed(out)}: consistent ({result.questions} question(s), {result.seals} seal(s)"
        f"{signed}{against})"
    )
    if result.private and not result.authenticated:
        click.echo(
            f"{printed(out)}: a private report; its signatures were not checked: give --control "
            "FILE to authenticate it",
            err=True,
        )


def _print_problems(problems: list[str]) -> None:
    for problem in problems:
        echo_error(problem)


def _verify_batch(
    out: Path,
    runs: Path | None,
    control: Path | None,
    agent_id: str | None,
    campaign: Path | None,
) -> None:
    """`verify-report` of a batch's output: exit 3 on any problem, else 2 when a report
    could not be checked, else 0."""
    from workbench.evaluation.batch_check import check_batch

    if agent_id is not None:
        raise UserError(
            "a batch holds every agent's reports: it takes no agent id", subject="agent"
        )
    found = check_batch(out, runs, control=control_file(control), campaign=campaign)
    _print_problems(found.problems)
    _print_problems(found.report_problems())
    for refusal in found.refused:
        echo_error(refusal)
    failing = sum(not report.ok for _, report in found.reports)
    signed = sum(report.authenticated for _, report in found.reports)
    against = f", each matching evaluating its run under {printed(runs)} again" if runs else ""
    tables = {
        "not compared": "not derived again (not every report could be read)",
        "match": "match them",
        "differ": "differ from them",
    }[found.tables]
    summary = (
        f"{printed(out)}: {len(found.reports)} report(s) checked, {failing} with problems, "
        f"{len(found.refused)} not checked; runs.csv and leaderboard.csv {tables}"
        + (f"; {signed} signed report(s) authenticated" if signed else "")
        + against
    )
    if not found.consistent:
        click.echo(f"{summary}: the batch is not trustworthy", err=True)
        sys.exit(exit_codes.INTEGRITY)
    if found.refused:
        click.echo(summary, err=True)
        sys.exit(exit_codes.USAGE)
    click.echo(f"{summary}: consistent")
    if any(report.private and not report.authenticated for _, report in found.reports):
        click.echo(
            f"{printed(out)}: private reports; their signatures were not checked: give --control "
            "FILE to authenticate them",
            err=True,
        )


@click.command()
@click.option(
    "--out",
    type=DIR,
    default=Path("runs/demo"),
    show_default=True,
    help="Run directory for the demo play (new; beside an existing directory the first "
    "free OUT-2, OUT-3, ... is used; anything else there is refused).",
)
def demo(out: Path) -> None:
    """Play the default campaign with a scripted player, validate it, print the summary."""
    from workbench.evaluation.evaluator import run_evaluation
    from workbench.play.demo import demo_run_dir, next_free, play_demo

    claimed = demo_run_dir(out)
    try:
        run_dir = play_demo(claimed)
    except BaseException:
        with contextlib.suppress(OSError):
            claimed.rmdir()  # only while still empty: the play wrote nothing
        raise
    click.echo(f"played the default campaign into {printed(run_dir)}")
    checks = next_free(run_dir.with_name(run_dir.name + "-validation"))
    bar = _StderrBar("validating")
    try:
        outcome = run_evaluation(run_dir, checks, progress=bar)
    finally:
        bar.close()
    click.echo(f"validated into {printed(checks)} (report: {printed(outcome.report_path)})")
    _print_summary(outcome.report)
    sys.exit(outcome.exit_code)
