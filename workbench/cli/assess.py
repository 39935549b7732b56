"""CLI commands for assessments: snapshot, validate counterfactual, demo."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from workbench import exit_codes
from workbench.cli.options import (
    DIR,
    control_file,
    open_run,
    private_options,
    run_dir_arg,
)
from workbench.errors import UserError

if TYPE_CHECKING:
    from workbench.evaluation.report import CounterfactualReport


@click.command()
@run_dir_arg
@private_options
def snapshot(run_dir: Path, control: Path | None, agent_id: str | None) -> None:
    """The player's public view of RUN_DIR as JSON (no seed, no answers, no branch controls)."""
    session = open_run(run_dir, control, agent_id)
    click.echo(json.dumps(session.view().to_data(), indent=2))


class _StderrBar:
    """A click progress bar on standard error, fed by (done, total, label) callbacks."""

    def __init__(self, label: str) -> None:
        self._label = label
        self._bar = None
        self._done = 0

    def __call__(self, done: int, total: int, item: str) -> None:
        if self._bar is None:
            self._bar = click.progressbar(
                length=total, label=self._label, file=sys.stderr, show_pos=True
            )
            self._bar.__enter__()
        self._bar.update(done - self._done, item)
        self._done = done

    def close(self) -> None:
        if self._bar is not None:
            self._bar.__exit__(None, None, None)


def _print_summary(report: CounterfactualReport) -> None:
    from workbench.display import money, short_number

    for q in report.questions:
        statuses = "/".join(
            b.status if b is not None else "-"
            for b in (q.branches.baseline, q.branches.intervention)
        )
        line = f"  {q.id}: {q.status} (branches {statuses})"
        if q.status == "scored" and q.effect is not None and q.loss is not None:
            effect = money(q.effect) if q.contract.units == "USD" else q.effect
            line += f" effect {effect} loss {short_number(q.loss)}"
        elif q.reason:
            line += f": {q.reason}"
        if q.conclusion is not None:
            line += f"; conclusion {q.conclusion.verdict}"
        click.echo(line)
    summary = report.summary
    if summary is not None:
        click.echo(
            f"  scored {summary.scored}/{summary.questions}, mean score "
            f"{short_number(summary.mean_score) if summary.mean_score else '-'}; "
            f"conclusions met {summary.conclusions_met}/{summary.conclusions_required}"
        )
    for task in report.business_objective:
        click.echo(
            f"  business objective {task.task}: {'met' if task.met else 'not met'}"
            " (reported apart, never scored)"
        )


@click.group()
def validate() -> None:
    """Offline evaluation of finished runs."""


@validate.command("counterfactual")
@click.argument("runs_dir", required=False, type=DIR)
@click.option("--results", type=DIR, help="A development run directory.")
@private_options
@click.option("--out", required=True, type=DIR, help="New output directory.")
@click.option("--question", "questions", multiple=True, help="Restrict to these question ids.")
@click.option(
    "--workers",
    default=1,
    show_default=True,
    type=int,
    help="Question pairs evaluated in parallel processes.",
)
def validate_counterfactual(
    runs_dir: Path | None,
    results: Path | None,
    control: Path | None,
    agent_id: str | None,
    out: Path,
    questions: tuple[str, ...],
    workers: int,
) -> None:
    """Verify a run, replay both branches of each question, score the submissions."""
    from workbench.evaluation.evaluator import run_evaluation

    if (runs_dir is None) == (results is None):
        raise UserError("give either --results RUN_DIR or RUNS_DIR with --control and --agent")
    if runs_dir is not None and control is None:
        raise UserError("RUNS_DIR is the private form: it needs --control and --agent")
    if results is not None and control is not None:
        raise UserError(
            "--results is the development form; a private campaign is validated "
            "as RUNS_DIR --control FILE --agent ID"
        )
    bar = _StderrBar("validating")
    try:
        outcome = run_evaluation(
            results or runs_dir,
            out,
            control=control_file(control),
            agent=agent_id,
            questions=list(questions) or None,
            workers=workers,
            progress=bar,
        )
    finally:
        bar.close()
    if outcome.exit_code == exit_codes.INTEGRITY:
        click.echo(f"Error: {outcome.message}; nothing was scored", err=True)
        sys.exit(outcome.exit_code)
    click.echo(f"report: {outcome.report_path}")
    _print_summary(outcome.report)
    if not outcome.report.questions:
        click.echo("no counterfactual question to evaluate", err=True)
    sys.exit(outcome.exit_code)


@click.command()
@click.option(
    "--out",
    type=DIR,
    default=Path("runs/demo"),
    show_default=True,
    help="Run directory for the demo play (a fresh one is picked if it exists).",
)
def demo(out: Path) -> None:
    """Play the default campaign with a scripted player, validate it, print the summary."""
    from workbench.evaluation.evaluator import run_evaluation
    from workbench.play.demo import next_free, play_demo

    run_dir = play_demo(next_free(out))
    click.echo(f"played the default campaign into {run_dir}")
    checks = next_free(run_dir.with_name(run_dir.name + "-validation"))
    bar = _StderrBar("validating")
    try:
        outcome = run_evaluation(run_dir, checks, progress=bar)
    finally:
        bar.close()
    click.echo(f"validated into {checks} (report: {outcome.report_path})")
    _print_summary(outcome.report)
    sys.exit(outcome.exit_code)
