"""The `workbench` command line: a click group whose subcommands load lazily.

Lazy loading keeps start-up fast and keeps Textual out of every command but
`play`, `serve` and `author`.
"""

from __future__ import annotations

import importlib

import click

from workbench import __version__
from workbench.errors import WorkbenchError


class _CliError(click.ClickException):
    """A WorkbenchError shown the click way: `Error: message` and the error's exit code."""

    def __init__(self, error: WorkbenchError) -> None:
        super().__init__(error.message)
        self.exit_code = error.exit_code


_COMMANDS: dict[str, tuple[str, str]] = {
    "play": ("workbench.cli.play", "play"),
    "serve": ("workbench.cli.play", "serve"),
    "author": ("workbench.cli.author", "author"),
    "run": ("workbench.cli.sim", "run"),
    "verify": ("workbench.cli.sim", "verify"),
    "show": ("workbench.cli.sim", "show"),
    "ledger": ("workbench.cli.sim", "ledger_cmd"),
    "actions": ("workbench.cli.sim", "actions"),
    "schema": ("workbench.cli.sim", "schema"),
    "snapshot": ("workbench.cli.assess", "snapshot"),
    "validate": ("workbench.cli.assess", "validate"),
    "check": ("workbench.cli.assess", "check"),
    "demo": ("workbench.cli.assess", "demo"),
    "vc": ("workbench.cli.vc", "vc"),
    "causal": ("workbench.cli.causal", "causal"),
}

_HELP: dict[str, str] = {
    "play": "Open the Textual dashboard on a campaign run.",
    "serve": "Serve the dashboard in a browser (demonstrations).",
    "author": "Author tools: check findings, validate finished runs, reports.",
    "run": "Play a campaign headless from a script, to the horizon.",
    "verify": "Re-execute a run's journal and compare its seal.",
    "show": "Metrics by day and the task outcome of a run.",
    "ledger": "Export a run's ledger as beancount or CSV.",
    "actions": "The action catalog of a campaign, with every term.",
    "schema": "Print a JSON Schema (campaign, submission).",
    "snapshot": "The player's public view of a run, as JSON.",
    "validate": "Offline evaluation of finished runs.",
    "check": "Author checks: run every question's branches.",
    "demo": "Play, validate and summarise the default campaign.",
    "vc": "VC deal math: generate items and grade answers.",
    "causal": "causal-gym: generate, score and audit tasks.",
}


class LazyGroup(click.Group):
    """A click group that imports each subcommand's module only when it runs."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(_COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        target = _COMMANDS.get(cmd_name)
        if target is None:
            return None
        module_name, attr = target
        return getattr(importlib.import_module(module_name), attr)

    def invoke(self, ctx: click.Context) -> object:
        """Run the subcommand; a WorkbenchError becomes a one-line message and its exit code."""
        try:
            return super().invoke(ctx)
        except WorkbenchError as exc:
            raise _CliError(exc) from None

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = [(name, _HELP.get(name, "")) for name in self.list_commands(ctx)]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="workbench")
def main() -> None:
    """Counterfactual Workbench: play, check and grade counterfactual business tasks."""
