"""CLI commands for headless play: run, finish, verify, show, ledger, actions, schema."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import click

from workbench.cli.options import (
    DIR,
    FILE,
    campaign_arg,
    control_file,
    json_opt,
    open_run,
    play_session,
    private_options,
    run_dir_arg,
    run_reader_options,
)
from workbench.display import amount
from workbench.errors import IntegrityError, UserError
from workbench.messages import printed


@click.command()
@campaign_arg
@click.option(
    "--script", type=FILE, help="JSONL commands: schedule, advance, submit_assessment, finish."
)
@click.option(
    "--out",
    "out",
    required=True,
    type=DIR,
    help="Run directory (created, or resumed when it holds a run).",
)
@private_options
def run(
    campaign: Path | None,
    script: Path | None,
    out: Path,
    control: Path | None,
    agent_id: str | None,
) -> None:
    """Play CAMPAIGN (the default one when omitted) headless to its horizon.

    The script is parsed whole and played in memory; the run is written only once every
    line has applied, so a failing run leaves RUN_DIR as it was (or absent).
    """
    from workbench.play.script import apply_commands, script_commands

    if script is not None:
        refuse_script_in_run(script, out)
    commands = script_commands(script) if script is not None else []
    with play_session(out, campaign, control, agent_id, autoseal=False) as session:
        notes = apply_commands(session, script, commands) if script is not None else []
        session.run_to_horizon()
        session.seal()
        session.write_store()
    for note in notes:
        click.echo(printed(note), err=True)
    view = session.view()
    click.echo(
        f"{session.bundle.id}: played to day {session.day} of {session.horizon} into {printed(out)}"
    )
    for row in view.metrics:
        click.echo(f"  {row.title}: {amount(row.value, row.units)}")
    for task in session.task_results():
        click.echo(f"  task {task.task_id}: {task.status}")


def refuse_script_in_run(script: Path, out: Path) -> None:
    """Refuse a script inside the run directory it would play into, before reading it.

    A run directory holds only the files the workbench writes there: a file in it is no
    script (a run's own journal read as one fails on its header line), and a named pipe
    in it, read as a user's script is (waiting for its writer, as `cat` does), would wait
    forever where the run's own reader refuses it at once. Compared with links followed,
    as the files would be opened; nothing is opened here.
    """
    inner, outer = Path(os.path.realpath(script)), Path(os.path.realpath(out))
    if inner == outer or outer in inner.parents:
        raise UserError(
            f"script {script} is inside the run directory {out} it plays into; a run "
            "directory holds only the run's own files, so keep the script elsewhere",
            subject="script",
        )


@click.command()
@run_dir_arg
@run_reader_options
def finish(
    run_dir: Path, control: Path | None, agent_id: str | None, campaign: Path | None
) -> None:
    """End RUN_DIR: the remaining days run with no decisions; then it accepts no command.

    A run finished already whose store (store.sqlite, a cache of its ledger and metrics)
    is missing, damaged or out of date, as a `finish` or `run` killed while writing it
    leaves it, gets its store written again; any other finished run is refused.
    """
    from workbench.play.session import PlayerSession

    with PlayerSession.resume(
        run_dir, campaign, control=control_file(control), agent_id=agent_id, autoseal=False
    ) as session:
        start = session.day
        problem = session.store_problem() if session.finished else None
        if problem is not None:
            session.write_store()
        else:
            session.finish()
            session.seal()
            session.write_store()
    if problem is not None:
        click.echo(
            f"{printed(run_dir)}: finished already on day {session.day}; its store "
            f"({problem}) is written again"
        )
        return
    click.echo(
        f"{printed(run_dir)}: finished on day {session.day} (from day {start}); "
        "it accepts no further command and can be validated"
    )


@click.command()
@run_dir_arg
@run_reader_options
def verify(
    run_dir: Path, control: Path | None, agent_id: str | None, campaign: Path | None
) -> None:
    """Re-execute RUN_DIR's journal from its campaign and seed; compare the seal."""
    from workbench.runs.verify import verify_run

    result = verify_run(run_dir, control_file(control), agent_id, campaign)
    seal = result.seal
    if not result.ok or seal is None:
        raise IntegrityError(f"{run_dir}: verification failed: {result.divergence}")
    click.echo(
        f"{printed(run_dir)}: intact (journal head {seal.journal_head[:16]}, day {seal.final_day})"
    )
    for task in result.tasks:
        status = task.status
        if status == "open":
            until = max(req.day for req in task.requirements)
            click.echo(f"  task {task.task_id}: open until day {until} ({task.title})")
        else:
            click.echo(f"  task {task.task_id}: {status} ({task.title})")
        for req in task.requirements:
            terms = f"    {req.metric} {req.bound} {req.threshold} on day {req.day}: "
            if req.reached:
                click.echo(f"{terms}{req.value} -> {'ok' if req.met else 'no'}")
            else:
                click.echo(f"{terms}not reached yet ({req.value} on day {req.value_day})")
    pending = result.pending_questions()
    if pending:
        click.echo(f"  counterfactual answers: pending offline grading ({', '.join(pending)})")
    else:
        click.echo("  counterfactual answers: none submitted")


@click.command()
@run_dir_arg
@json_opt
@run_reader_options
def show(
    run_dir: Path,
    as_json: bool,
    control: Path | None,
    agent_id: str | None,
    campaign: Path | None,
) -> None:
    """Metrics by day and the task outcome of RUN_DIR."""
    import pandas as pd

    session = open_run(run_dir, control, agent_id, campaign)
    series = session.metric_series()
    frame = pd.DataFrame({k: [str(v) for v in vals] for k, vals in series.items()})
    frame.index.name = "day"
    tasks = session.task_results()
    if as_json:
        rows = [
            {"task": t.task_id, "met": t.met, "status": t.status, "title": t.title} for t in tasks
        ]
        click.echo(
            json.dumps(
                {"day": session.day, "metrics": frame.to_dict(orient="list"), "tasks": rows},
                indent=2,
            )
        )
        return
    with pd.option_context("display.max_rows", 40, "display.width", 120):
        click.echo(frame.to_string(max_rows=40))
    for task in tasks:
        click.echo(f"task {task.task_id}: {task.status}")


@click.command("ledger")
@run_dir_arg
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["beancount", "csv"]),
    default="beancount",
    show_default=True,
)
@click.option(
    "--out",
    type=FILE,
    help="Write to FILE (a new file; never inside a run directory) instead of standard output.",
)
@click.option(
    "--force",
    is_flag=True,
    help="Replace an existing regular file at --out (never a link, device or directory).",
)
@run_reader_options
def ledger_cmd(
    run_dir: Path,
    fmt: str,
    out: Path | None,
    force: bool,
    control: Path | None,
    agent_id: str | None,
    campaign: Path | None,
) -> None:
    """Export RUN_DIR's ledger as beancount or CSV."""
    from workbench.outputs import write_new_file

    if force and out is None:
        raise UserError(
            "--force goes with --out FILE (it replaces that file), not with standard output"
        )
    session = open_run(run_dir, control, agent_id, campaign)
    text = session.ledger().export(fmt)
    if out is None:
        sys.stdout.write(text)
    else:
        write_new_file(out, text.encode(), force=force)
        click.echo(f"wrote {printed(out)}", err=True)


@click.command()
@campaign_arg
@json_opt
def actions(campaign: Path | None, as_json: bool) -> None:
    """The action catalog of CAMPAIGN (default campaign when omitted) with every term."""
    from campaigns import DEFAULT_CAMPAIGN
    from ledger.money import format_dollars as money
    from workbench.display import prerequisites_text
    from workbench.play.public_view import action_terms
    from workbench.runs.bundle import load_bundle

    bundle = load_bundle(campaign or DEFAULT_CAMPAIGN)
    terms = [action_terms(a) for a in bundle.actions.values()]
    if as_json:
        click.echo(json.dumps([t.to_data() for t in terms], indent=2))
        return
    for t in terms:
        click.echo(f"{t.id}: {t.title}")
        click.echo(
            f"  upfront {money(t.upfront_cost)} (capitalised {money(t.capitalized)}), running "
            f"{money(t.running_cost_per_day)}/day x {t.running_days}, delay {t.delay_days} days"
        )
        staffing = ", ".join(f"{s.role} x{s.count} for {s.days}d" for s in t.staffing)
        needs = prerequisites_text(t.prerequisites)
        click.echo(f"  staffing: {staffing or 'none'}; prerequisites: {needs}")
        click.echo(
            f"  effects: {', '.join(t.effect_set)}; financing_net_assets "
            f"{money(t.financing_net_assets)}; irreversible_work {money(t.irreversible_work)}"
        )


@click.command()
@click.argument(
    "what",
    type=click.Choice(["campaign", "actions", "metrics", "questions", "command", "submission"]),
)
def schema(what: str) -> None:
    """Print a JSON Schema (campaign files, script commands, submissions)."""
    from pydantic import TypeAdapter

    from workbench.authoring.reference import file_schema
    from workbench.runs.commands import COMMAND_ADAPTER, CounterfactualAssessment

    if what == "command":
        document = COMMAND_ADAPTER.json_schema()
    elif what == "submission":
        document = TypeAdapter(CounterfactualAssessment).json_schema()
    else:
        document = file_schema(f"{what}.toml")
    click.echo(json.dumps(document, indent=2))
