"""CLI commands for private campaigns: `workbench control new`."""

from __future__ import annotations

from pathlib import Path

import click


@click.group()
def control() -> None:
    """Private campaigns: control files (seed, secret salt, agents and their tokens)."""


@control.command("new")
@click.argument("campaign", type=click.Path(file_okay=False, path_type=Path))
@click.option(
    "--agent",
    "agents",
    multiple=True,
    required=True,
    help="Registered agent id (repeat for each agent).",
)
@click.option(
    "--out",
    required=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="New control file (written 0600; never overwritten).",
)
def control_new(campaign: Path, agents: tuple[str, ...], out: Path) -> None:
    """Write a control file for the private CAMPAIGN and print each agent's bearer token once.

    The file holds a 256-bit random seed and a 256-bit secret salt: keep it with the host,
    never with a run. Tokens are printed to standard output as `AGENT TOKEN` lines and are
    not stored (the file keeps only their SHA-256): hand each to its agent now.
    """
    from workbench.runs.bundle import load_bundle
    from workbench.runs.registration import new_control, write_control

    bundle = load_bundle(campaign)
    document, tokens = new_control(bundle, tuple(dict.fromkeys(agents)))
    write_control(out, document)
    click.echo(
        f"wrote {out} (mode 0600) for campaign {bundle.id} with {len(tokens)} agent(s); "
        "each agent's bearer token follows, shown only this once",
        err=True,
    )
    for agent, token in tokens.items():
        click.echo(f"{agent} {token}")
