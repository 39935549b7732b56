"""The `workbench` command line: a click group whose subcommands load lazily.

Lazy loading keeps start-up fast and keeps Textual out of every command but
`play`, `serve` and `author`.
"""

from __future__ import annotations

import importlib
import signal
import sys
from typing import Any, NamedTuple

import click

from workbench import __version__, exit_codes
from workbench.cli import stderr, stdout
from workbench.cli.stdout import StandardOutputError
from workbench.errors import (
    Terminated,
    UserError,
    WorkbenchError,
    not_interrupted,
    os_error_message,
)
from workbench.held_signals import stop
from workbench.messages import bound_message

FLAGS: dict[str, str] = {
    "out": "--out",
    "control": "--control",
    "agent": "--agent",
    "workers": "--workers",
    "executor": "--executor",
    "scheduler": "--scheduler",
    "seeds": "--seeds",
    "force": "--force",
    "script": "--script",
    "campaign": "--campaign",
    "connect": "--connect",
}
"""The flag of each error subject: the CLI's words for the input a core error names."""


def cli_message(error: WorkbenchError) -> str:
    """The error's lines, each on one line, printable and bounded, with the flag of its
    subject if it names one.

    Bounding is the last guard against echoing a huge or hostile value a message quoted in
    full; each line is kept on one line whatever a value in it holds (a path with a newline
    or a carriage return in it shows them escaped), so a line is always one problem.
    """
    flag = FLAGS.get(error.subject or "")
    message = bound_message(error.lines)
    return f"{message} ({flag})" if flag else message


def echo_error(error: WorkbenchError | str) -> None:
    """`Error: ...` on standard error: every error line a command prints is printed here,
    through `cli_message` (a string is one problem's line)."""
    if isinstance(error, str):
        error = UserError(error)
    click.echo(f"Error: {cli_message(error)}", err=True)


class CommandEntry(NamedTuple):
    """Where a subcommand lives and its one-line help in `workbench --help`."""

    module: str
    attr: str
    help: str


_COMMANDS: dict[str, CommandEntry] = {
    "play": CommandEntry(
        "workbench.cli.play", "play", "Open the Textual dashboard on a campaign run."
    ),
    "serve": CommandEntry(
        "workbench.cli.play", "serve", "Serve the dashboard in a browser (demonstrations)."
    ),
    "author": CommandEntry(
        "workbench.cli.author",
        "author",
        "Author tools: check findings, validate finished runs, reports.",
    ),
    "run": CommandEntry(
        "workbench.cli.sim", "run", "Play a campaign headless from a script, to the horizon."
    ),
    "finish": CommandEntry(
        "workbench.cli.sim", "finish", "End a run: the remaining days run with no decisions."
    ),
    "control": CommandEntry(
        "workbench.cli.control",
        "control",
        "Private campaigns: make a control file (seed, salt, agent tokens).",
    ),
    "host": CommandEntry(
        "workbench.cli.host",
        "host",
        "Serve a private campaign to registered agents over HTTP and MCP.",
    ),
    "verify": CommandEntry(
        "workbench.cli.sim", "verify", "Re-execute a run's journal and compare its seal."
    ),
    "show": CommandEntry(
        "workbench.cli.sim", "show", "Metrics by day and the task outcome of a run."
    ),
    "ledger": CommandEntry(
        "workbench.cli.sim", "ledger_cmd", "Export a run's ledger as beancount or CSV."
    ),
    "actions": CommandEntry(
        "workbench.cli.sim", "actions", "The action catalog of a campaign, with every term."
    ),
    "schema": CommandEntry(
        "workbench.cli.sim",
        "schema",
        "A JSON Schema: campaign files, script command, submission.",
    ),
    "snapshot": CommandEntry(
        "workbench.cli.assess", "snapshot", "The player's public view of a run, as JSON."
    ),
    "validate": CommandEntry(
        "workbench.cli.assess", "validate", "Offline evaluation of finished runs."
    ),
    "verify-report": CommandEntry(
        "workbench.cli.assess",
        "verify_report",
        "Check an evaluation's report, checksums and seals (and its run).",
    ),
    "check": CommandEntry(
        "workbench.cli.author",
        "check",
        "Author checks: what each question measures (--strict: the gate).",
    ),
    "new": CommandEntry(
        "workbench.cli.author", "new", "Create a campaign folder that passes check --strict."
    ),
    "demo": CommandEntry(
        "workbench.cli.assess", "demo", "Play, validate and summarise the default campaign."
    ),
    "vc": CommandEntry("workbench.cli.vc", "vc", "VC deal math: generate items and grade answers."),
    "causal": CommandEntry(
        "workbench.cli.causal",
        "causal",
        "causal-gym tasks: generate, score, audit; schema, manifest.",
    ),
}
"""Every subcommand: the one table of names, modules and help text."""


class LazyGroup(click.Group):
    """A click group that imports each subcommand's module only when it runs."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(_COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        target = _COMMANDS.get(cmd_name)
        if target is None:
            return None
        command: click.Command = getattr(importlib.import_module(target.module), target.attr)
        return command

    def make_context(
        self,
        info_name: str | None,
        args: list[str],
        parent: click.Context | None = None,
        **extra: Any,
    ) -> click.Context:
        """The top level's options, `--help` and `--version` included: a failure writing
        their output ends the program as one in a command does (`invoke`)."""
        try:
            return super().make_context(info_name, args, parent, **extra)
        except StandardOutputError as exc:
            raise click.exceptions.Exit(stdout.failed(exc)) from None

    def invoke(self, ctx: click.Context) -> object:
        """Run the subcommand; a WorkbenchError becomes `Error: message` and its exit code.

        A file system refusal no command turned into a message of its own (a directory it
        may not enter, a full disk) is one line naming the path, exit 2, never a traceback.
        Standard output closed early (`| head`) ends the command quietly, exit 141; any
        other failure to write it is `Error: standard output: cannot write (REASON)`, exit 2
        (`workbench.cli.stdout`). Ctrl+C is `Error: interrupted`, exit 130 (click's
        `Aborted!` exited 1, which means unscored); SIGTERM `Error: terminated`, exit 143,
        after the same cleanup.
        """
        try:
            try:
                return super().invoke(ctx)
            except Exception as exc:  # a Ctrl+C a library wrapped is still a Ctrl+C
                not_interrupted(exc)
                raise
        except WorkbenchError as exc:
            echo_error(exc)
            ctx.exit(exc.exit_code)
        except KeyboardInterrupt:
            echo_error("interrupted")
            ctx.exit(exit_codes.INTERRUPTED)
        except Terminated:
            echo_error("terminated")
            ctx.exit(exit_codes.TERMINATED)
        except StandardOutputError as exc:
            ctx.exit(stdout.failed(exc))
        except OSError as exc:
            echo_error(os_error_message(exc))
            ctx.exit(exit_codes.USAGE)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = [(name, _COMMANDS[name].help) for name in self.list_commands(ctx)]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="workbench")
def main() -> None:
    """Counterfactual Workbench: play, check and grade counterfactual business tasks."""


def run() -> None:
    """The `workbench` program: the CLI, and once it has answered, a Ctrl+C no longer counts.

    SIGTERM raises `Terminated` where the program is, so a validation stopped by `timeout`
    or a CI runner removes what it was writing, as for Ctrl+C (by default the signal
    ended the process at once, leaving a partial output directory); a command with its own
    handling (the host, `serve`) installs its own. A Ctrl+C or SIGTERM that came after the
    command's last output, while Python shut down, killed the process by the signal
    (a shell's 130, "interrupted") though nothing was interrupted; from then on both are
    ignored, so the exit code is the command's own.

    Standard output is written whole or the command ends by its failure (`stdout`), and
    what is left in its buffer is written before the exit code is final: a pipe closed
    or a disk full by then is the command's failure too, not Python's noise at exit.
    A diagnostic standard error cannot take is dropped (`stderr`): the exit code stays the
    command's own.
    """
    signal.signal(signal.SIGINT, _interrupted)
    signal.signal(signal.SIGTERM, _terminated)
    stderr.guard()
    stdout.guard()
    try:
        try:
            main()
        finally:
            code = stdout.flushed()
            if code is not None:
                sys.exit(code)
    finally:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)


def _terminated(signum: int, frame: object) -> None:
    """SIGTERM's handler: stop the command where it is, or where the step it is in ends
    (`held_signals`; see `run`)."""
    stop(Terminated)


def _interrupted(signum: int, frame: object) -> None:
    """Ctrl+C's handler: KeyboardInterrupt, as Python's own, held back like SIGTERM."""
    stop(KeyboardInterrupt)
