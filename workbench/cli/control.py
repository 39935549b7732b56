"""CLI commands for private campaigns: `workbench control new`."""

from __future__ import annotations

from pathlib import Path

import click

from workbench.cli.options import DIR, FILE
from workbench.messages import printed


@click.group()
def control() -> None:
    """Private campaigns: control files (seed, secret salt, agents and their tokens)."""


@control.command("new")
@click.argument("campaign", type=DIR)
@click.option(
    "--agent",
    "agents",
    multiple=True,
    help="Registered agent id (repeat for each agent).",
)
@click.option(
    "--agents-file",
    type=FILE,
    help="File of agent ids, one per line (blank lines and # comments skipped; 1 MiB).",
)
@click.option(
    "--out",
    required=True,
    type=FILE,
    help="New control file (written 0600; never overwritten).",
)
def control_new(
    campaign: Path, agents: tuple[str, ...], agents_file: Path | None, out: Path
) -> None:
    """Write a control file for the private CAMPAIGN and print each agent's bearer token once.

    Agents come from --agent options and --agents-file (in that order; up to 10,000).

    The file holds a 256-bit random seed and a 256-bit secret salt: keep it with the host,
    never with a run. Tokens are printed to standard output as `AGENT TOKEN` lines and are
    not stored (the file keeps only their SHA-256): hand each to its agent now.
    """
    from workbench.errors import UserError
    from workbench.runs.agent_list import read_agent_list
    from workbench.runs.bundle import load_bundle
    from workbench.runs.registration import new_control, write_control

    if not agents and agents_file is None:
        raise UserError("name the agents: --agent ID (repeat) or --agents-file FILE")
    listed = read_agent_list(agents_file) if agents_file is not None else ()
    bundle = load_bundle(campaign)
    document, tokens = new_control(bundle, tuple(dict.fromkeys((*agents, *listed))))
    write_control(out, document)
    click.echo(
        f"wrote {printed(out)} (mode 0600) for campaign {bundle.id} with {len(tokens)} agent(s); "
        "each agent's bearer token follows, shown only this once",
        err=True,
    )
    for agent, token in tokens.items():
        click.echo(f"{agent} {token}")
