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
