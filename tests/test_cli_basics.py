"""The CLI entry point answers --help and --version without loading heavy modules."""

from click.testing import CliRunner

from workbench import __version__
from workbench.cli import main


def test_version() -> None:
    result = CliRunner().invoke(main, ["--version"])
    assert result.exit_code == 0
    assert __version__ in result.output


def test_help_lists_commands() -> None:
    result = CliRunner().invoke(main, ["--help"])
    assert result.exit_code == 0
    for name in ("play", "run", "verify", "validate", "check", "demo", "vc", "causal"):
        assert name in result.output


def test_one_line_help_of_a_grader_group_names_each_subcommand() -> None:
    """`workbench --help` lists each command with a line of its own; for `vc` and `causal`
    that line names every subcommand (it said generate, score and audit, and `causal
    schema` and `causal manifest` were found only by asking the group)."""
    import click

    result = CliRunner().invoke(main, ["--help"], terminal_width=200, max_content_width=200)
    assert result.exit_code == 0
    for group in ("vc", "causal"):
        command = main.get_command(click.Context(main), group)
        assert isinstance(command, click.Group)
        line = next(
            line for line in result.output.splitlines() if line.strip().startswith(group + " ")
        )
        for sub in command.list_commands(click.Context(command)):
            assert sub in line, (group, sub, line)


def test_one_line_help_of_schema_names_every_kind_it_prints() -> None:
    """`schema` prints the campaign files', a script command's and a submission's schema:
    its line in `workbench --help` said only campaign and submission."""
    result = CliRunner().invoke(main, ["--help"], terminal_width=200, max_content_width=200)
    line = next(line for line in result.output.splitlines() if line.strip().startswith("schema"))
    for kind in ("campaign", "command", "submission"):
        assert kind in line, (kind, line)


def test_a_ctrl_c_after_the_command_has_answered_no_longer_counts() -> None:
    """Once the command has answered, Python's shutdown ignores Ctrl+C: 2 of 20 Ctrl+Cs to
    a batch validation that had written everything ended the process by the signal (a
    shell's 130, "interrupted") instead of with the command's own exit code."""
    import subprocess
    import sys

    code = (
        "import signal, sys\n"
        "from workbench.cli import run\n"
        "sys.argv = ['workbench', '--version']\n"
        "try:\n    run()\nexcept SystemExit:\n    pass\n"
        "print(signal.getsignal(signal.SIGINT) is signal.SIG_IGN)\n"
    )
    shown = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    assert shown.stdout.strip().splitlines()[-1] == "True"
