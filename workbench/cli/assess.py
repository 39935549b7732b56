"""CLI commands for assessments: snapshot, validate counterfactual, check, demo."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from workbench import exit_codes
from workbench.cli.options import (
    DIR,
    campaign_arg,
    control_file,
    control_opt,
    json_opt,
    open_run,
    private_options,
    run_dir_arg,
)
from workbench.errors import UserError


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


def _print_summary(report: dict) -> None:
    from workbench.display import money, short_number

    for q in report.get("questions", []):
        branches = q.get("branches") or {}
        statuses = "/".join(
            (branches.get(k) or {}).get("status") or "-" for k in ("baseline", "intervention")
        )
        money_metric = (q.get("contract") or {}).get("units") == "USD"
        line = f"  {q['id']}: {q['status']} (branches {statuses})"
        if q["status"] == "scored":
            line += f" effect {money(q['effect']) if money_metric else q['effect']}"
            line += f" loss {short_number(q['loss'])}"
        elif q.get("reason"):
            line += f": {q['reason']}"
        if q.get("conclusion") and q["conclusion"].get("correct") is not None:
            line += f"; conclusion {'correct' if q['conclusion']['correct'] else 'wrong'}"
        click.echo(line)
    summary = report.get("summary", {})
    if summary:
        click.echo(
            f"  scored {summary['scored']}/{summary['questions']}, "
            f"mean score {short_number(summary['mean_score']) if summary['mean_score'] else '-'}"
        )
    for task in report.get("business_objective", []):
        click.echo(
            f"  business objective {task['task']}: {'met' if task['met'] else 'not met'}"
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
    if not outcome.report["questions"]:
        click.echo("no counterfactual question to evaluate", err=True)
    sys.exit(outcome.exit_code)


@click.command()
@campaign_arg
@control_opt
@json_opt
def check(campaign: Path | None, control: Path | None, as_json: bool) -> None:
    """Validate CAMPAIGN and run every question's branches from its reference play."""
    from campaigns import DEFAULT_CAMPAIGN
    from workbench.authoring.check import check_campaign

    bar = _StderrBar("checking")
    try:
        report = check_campaign(campaign or DEFAULT_CAMPAIGN, control_file(control), bar)
    finally:
        bar.close()
    if as_json:
        click.echo(
            json.dumps(
                {"campaign": report.campaign, "ok": report.ok, "findings": report.findings},
                indent=2,
            )
        )
    else:
        for f in report.findings:
            click.echo(f"{f['level']:7} {f['where']} [{f['branch']}]: {f['message']}")
    if not report.ok:
        errors = sum(1 for f in report.findings if f["level"] == "error")
        click.echo(f"{report.campaign}: {errors} problem(s)", err=True)
        sys.exit(exit_codes.UNSCORED)
    click.echo(f"{report.campaign}: every question's branches execute", err=True)


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
