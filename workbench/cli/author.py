"""`workbench author`: the Textual shell in author mode (check findings, validation, reports)."""

from __future__ import annotations

from pathlib import Path

import click

from workbench.cli.play import RUNS_DIR


@click.command()
@click.argument("campaign", required=False, type=click.Path(exists=True, path_type=Path))
@click.option(
    "--control",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Control file of a private campaign (its seed checks and validates its runs).",
)
@click.option(
    "--runs",
    "runs_root",
    default=RUNS_DIR,
    show_default=True,
    type=click.Path(file_okay=False, path_type=Path),
    help="Folder whose run directories can be validated and whose reports are browsed.",
)
def author(campaign: Path | None, control: Path | None, runs_root: Path) -> None:
    """Author tools: check a campaign, validate finished runs, browse reports."""
    from campaigns import DEFAULT_CAMPAIGN
    from workbench.runs.registration import load_control
    from workbench.tui.app import AuthorApp

    loaded = load_control(control) if control is not None else None
    AuthorApp(campaign or DEFAULT_CAMPAIGN, runs_root, loaded).run()
