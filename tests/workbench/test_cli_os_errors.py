"""What no command names itself (file system refusals, Ctrl+C): one line, its own exit code."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

import workbench.cli as cli
from workbench.cli import CommandEntry, main, os_error_message


@click.command()
@click.argument("path", type=click.Path(path_type=Path))
def list_dir(path: Path) -> None:
    """A command that lists a directory without handling OSError itself."""
    click.echo(", ".join(os.listdir(path)))


@click.command()
@click.argument("source", type=click.Path(path_type=Path))
@click.argument("target", type=click.Path(path_type=Path))
def move(source: Path, target: Path) -> None:
    """A command that renames a file without handling OSError itself."""
    os.rename(source, target)


@pytest.fixture()
def bare_commands(monkeypatch: pytest.MonkeyPatch) -> None:
    """Two commands of this module in the CLI's table (what any subcommand could do)."""
    here = __name__
    monkeypatch.setitem(cli._COMMANDS, "list-dir", CommandEntry(here, "list_dir", "test"))
    monkeypatch.setitem(cli._COMMANDS, "move", CommandEntry(here, "move", "test"))


@pytest.mark.usefixtures("bare_commands")
def test_an_unhandled_file_system_refusal_is_one_line_naming_the_path(tmp_path: Path) -> None:
    missing = tmp_path / "missing"
    result = CliRunner().invoke(main, ["list-dir", str(missing)])
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert result.output == f"Error: {missing}: cannot access (No such file or directory)\n"
    result = CliRunner().invoke(main, ["move", str(missing), str(tmp_path / "there")])
    assert result.exit_code == 2
    assert result.output == (
        f"Error: {missing} -> {tmp_path / 'there'}: cannot access (No such file or directory)\n"
    )


@pytest.mark.usefixtures("bare_commands")
def test_a_command_that_succeeds_is_untouched(tmp_path: Path) -> None:
    (tmp_path / "a").touch()
    result = CliRunner().invoke(main, ["list-dir", str(tmp_path)])
    assert (result.exit_code, result.output) == (0, "a\n")


def test_an_error_without_a_path_gives_its_reason() -> None:
    assert os_error_message(OSError(errno.ENOSPC, "No space left on device")) == (
        "No space left on device"
    )
    assert os_error_message(OSError("odd")) == "odd"


@click.command()
def interrupted() -> None:
    """A command stopped by Ctrl+C."""
    raise KeyboardInterrupt


def test_ctrl_c_is_one_line_and_its_own_exit_code(monkeypatch: pytest.MonkeyPatch) -> None:
    """130, not click's `Aborted!` with 1 (which means unscored to whoever reads codes)."""
    monkeypatch.setitem(cli._COMMANDS, "stop", CommandEntry(__name__, "interrupted", "test"))
    result = CliRunner().invoke(main, ["stop"])
    assert (result.exit_code, result.output) == (130, "Error: interrupted\n")
