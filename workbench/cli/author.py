"""Author commands: `check` (findings per question), `new` (scaffold), `author` (the app).

All are for campaign authors: they run branches of a campaign, so no player command or
screen reaches them.
"""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

import click

from workbench import exit_codes
from workbench.authoring.seeds import DEFAULT_SEEDS, MAX_SEEDS, STRICT_SEEDS
from workbench.cli.assess import _StderrBar
from workbench.cli.options import DIR, campaign_arg, control_file, control_opt, json_opt
from workbench.errors import UserError
from workbench.messages import printed, single_line


@click.command()
@campaign_arg
@control_opt
@click.option(
    "--seeds",
    default=DEFAULT_SEEDS,
    show_default=True,
    type=click.IntRange(0, MAX_SEEDS),
    help="Other seeds to run every question on (the effect's spread; --strict needs "
    f"{STRICT_SEEDS} or more).",
)
@click.option("--strict", is_flag=True, help="Fail on warnings too (the admission gate).")
@json_opt
def check(
    campaign: Path | None, control: Path | None, seeds: int, strict: bool, as_json: bool
) -> None:
    """Validate CAMPAIGN (folder or bundled name) and report what each question measures.

    Exit 0 when no finding is an error (with --strict: no warning either), 1 otherwise,
    2 when the campaign itself is malformed.
    """
    from campaigns import DEFAULT_CAMPAIGN
    from workbench.authoring.check import check_campaign

    bar = _StderrBar("checking")
    try:
        report = check_campaign(
            campaign or DEFAULT_CAMPAIGN, control_file(control), bar, seeds=seeds, strict=strict
        )
    finally:
        bar.close()
    passed = report.passes(strict)
    if as_json:
        document = report.model_dump(mode="json")
        document.update(ok=report.ok, strict=strict, passed=passed)
        click.echo(json.dumps(document, indent=2))
    else:
        for f in report.findings:
            click.echo(printed(f"{f.severity:7} {f.kind:10} {f.where} [{f.branch}]: {f.message}"))
    errors, warnings = report.count("error"), report.count("warning")
    gate = " (strict)" if strict else ""
    verdict = "passes" if passed else "fails"
    click.echo(
        f"{report.campaign}: {errors} error(s), {warnings} warning(s) over "
        f"{report.seeds} other seed(s): {verdict}{gate}",
        err=True,
    )
    if not passed:
        sys.exit(exit_codes.UNSCORED)


@click.command()
@click.argument("directory", type=DIR)
@click.option(
    "--from",
    "source",
    help="Start from this campaign (folder or bundled name) instead of the starter.",
)
def new(directory: Path, source: str | None) -> None:
    """Create a campaign folder in DIRECTORY that passes `check --strict` as created."""
    from workbench.authoring.scaffold import create_campaign

    if source == "":
        raise UserError(
            "--from is empty: name a campaign folder or a bundled campaign (default, gelato)"
        )
    created = create_campaign(directory, source)
    click.echo(f"created campaign {created.campaign_id} in {single_line(str(directory))}")
    if created.id_note is not None:
        click.echo(created.id_note)
    if created.from_private:
        click.echo(
            f'{source} is private: this is a development copy (visibility = "development", '
            "development_seed = 1), checked and played without a control file on that public "
            "seed, so check may find what the secret seed hid; make it private when done"
        )
    for name in created.files:
        click.echo(f"  {single_line(str(directory / name))}")
    shown = _argument(directory)
    click.echo(
        f"next: edit the files (comments say what to change), then "
        f"`workbench check {shown} --strict`, then `workbench play {shown}`"
    )


def _argument(path: Path) -> str:
    """`path` as a shell word a command line takes as a path: quoted where the shell needs
    it, `./` in front of a relative path that would read as an option (`-dash`)."""
    text = str(path)
    if text.startswith("-"):
        text = f"./{text}"
    return single_line(shlex.quote(text))


@click.command()
@campaign_arg
@control_opt
@click.option(
    "--runs",
    "runs_root",
    default="runs",
    show_default=True,
    type=DIR,
    help="Folder whose run directories can be validated and whose reports are browsed.",
)
def author(campaign: Path | None, control: Path | None, runs_root: Path) -> None:
    """The author's app: CAMPAIGN's check findings, validation of finished runs, reports."""
    from campaigns import DEFAULT_CAMPAIGN
    from workbench.cli.terminal import require_terminal
    from workbench.tui.app import AuthorApp

    require_terminal("author", "for the campaign's findings without one, `workbench check`")
    AuthorApp(campaign or DEFAULT_CAMPAIGN, runs_root, control_file(control)).run()
