"""`workbench control new`: a control file its readers can read.

The workbench never writes a file larger than the limit its readers apply: it is refused
with one line, exit 2, before anything is written.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from tests.workbench.conftest import make_private
from workbench.cli import main
from workbench.runs.registration import load_control


def _cli(*args: str | Path) -> Result:
    """Run the real CLI in-process on `args`."""
    return CliRunner().invoke(main, [str(a) for a in args])


def _error_lines(result: Result) -> list[str]:
    """The error lines of a refused command (exit 2, no traceback, no token printed)."""
    assert result.exit_code == 2, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert "Traceback" not in result.output and "cfwb-agent-" not in result.output
    return result.output.splitlines()


def _control_new(campaign: Path, out: Path, agents: list[str]) -> Result:
    """`workbench control new CAMPAIGN --agent A... --out OUT`."""
    return _cli(
        "control", "new", campaign, *[a for x in agents for a in ("--agent", x)], "--out", out
    )


@pytest.fixture()
def campaign(campaign_copy: Path) -> Path:
    """A private copy of the default campaign."""
    return make_private(campaign_copy)


def test_a_control_file_over_its_read_limit_is_never_written(
    campaign: Path, tmp_path: Path
) -> None:
    """Before: 800 agents gave exit 0 and a 70 KB file every later command refused."""
    out = tmp_path / "control.json"
    agents = [f"a{i}" for i in range(1, 801)]
    lines = _error_lines(_control_new(campaign, out, agents))
    assert len(lines) == 1
    found = re.fullmatch(
        rf"Error: {re.escape(str(out))}: control file would be [\d,]+ bytes, larger than its "
        r"limit of 64 KiB \(at most (\d+) of these 800 agents fit\); nothing was written",
        lines[0],
    )
    assert found is not None, lines
    assert list(tmp_path.iterdir()) == [campaign]
    fitting = int(found.group(1))
    assert 0 < fitting < 800
    _error_lines(_control_new(campaign, out, agents[: fitting + 1]))
    assert not out.exists()
    made = _control_new(campaign, out, agents[:fitting])
    assert made.exit_code == 0, made.output
    assert len(load_control(out).agents) == fitting  # what every later command reads
