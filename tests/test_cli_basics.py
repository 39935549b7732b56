"""The CLI entry point answers --help and --version without loading heavy modules."""

from pathlib import Path

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


def _path_parameters() -> list[tuple[str, str, object]]:
    """(command, parameter, parameter object) for every path-typed parameter of the CLI."""
    import click

    found = []

    def walk(command: click.Command, name: str) -> None:
        if isinstance(command, click.Group):
            for sub in command.list_commands(click.Context(command)):
                child = command.get_command(click.Context(command), sub)
                assert child is not None
                walk(child, f"{name} {sub}".strip())
            return
        for param in command.params:
            if isinstance(param.type, click.Path):
                found.append((name, param.name or "", param))

    walk(main, "")
    return found


def test_an_empty_path_is_refused_by_every_path_parameter() -> None:
    """`Path("")` is the current folder: `workbench check ""` checked the folder the shell
    stood in, `new DIR --from ""` made the starter as if --from were absent, and `run
    --out ""` wrote there. Every path parameter now refuses an empty value."""
    import click
    import pytest

    from workbench.cli.options import PathText
    from workbench.errors import UserError

    parameters = _path_parameters()
    assert len(parameters) > 20
    for command, name, param in parameters:
        assert isinstance(param, click.Parameter)
        assert isinstance(param.type, PathText), (command, name)
        context = click.Context(main)
        with pytest.raises(UserError, match="an empty path names nothing"):
            param.type.convert("", param, context)


def test_empty_campaign_and_source_are_refused_on_the_command_line(tmp_path: Path) -> None:
    for args, words in (
        (["check", ""], "an empty path names nothing (the CAMPAIGN argument)"),
        (["actions", ""], "an empty path names nothing (the CAMPAIGN argument)"),
        (["check", "--control", ""], "an empty path names nothing (--control)"),
        (["new", ""], "an empty path names nothing (the DIRECTORY argument)"),
        (["new", f"{tmp_path}/x", "--from", ""], "--from is empty: name a campaign folder"),
    ):
        result = CliRunner().invoke(main, args)
        assert result.exit_code == 2, (args, result.output)
        assert "Traceback" not in result.output
        assert f"Error: {words}" in result.output, (args, result.output)
    assert not (tmp_path / "x").exists()
