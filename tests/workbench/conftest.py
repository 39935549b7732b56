"""Fixtures for the workbench tests: a private copy of the default campaign and its control file."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from click.testing import CliRunner

from workbench.cli import main
from workbench.runs.registration import ControlFile, load_control, write_control


@dataclass(frozen=True)
class Private:
    """A private campaign, its control file (made by `control new`) and the agents' tokens."""

    campaign: Path
    control_path: Path
    tokens: dict[str, str]

    @property
    def control(self) -> ControlFile:
        """The parsed control file."""
        return load_control(self.control_path)


def make_private(campaign_copy: Path) -> Path:
    """Turn a copy of the default campaign into a private campaign (no public seed)."""
    toml = campaign_copy / "campaign.toml"
    text = toml.read_text().replace('visibility = "development"', 'visibility = "private"')
    toml.write_text(text.replace("development_seed = 20261130\n", ""))
    return campaign_copy


TEST_SEED = hashlib.sha256(b"cfwb-test-world-0").hexdigest()
"""The private test world: a fixed 256-bit seed on which every default-campaign question's
branches execute (about one random seed in four leaves a question unresolvable, which
made tests that expect a score flaky)."""
TEST_SALT = hashlib.sha256(b"cfwb-test-salt-0").hexdigest()


def control_new(campaign: Path, out: Path, *agents: str, pinned: bool = True) -> dict[str, str]:
    """Run `workbench control new`; return the printed tokens by agent.

    With `pinned` the file's random seed and salt are then replaced by TEST_SEED and
    TEST_SALT (the same owner-only file, the same tokens), so every test plays one world.
    """
    args = ["control", "new", str(campaign), "--out", str(out)]
    for agent in agents:
        args += ["--agent", agent]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    if pinned:
        control = load_control(out).model_copy(update={"seed": TEST_SEED, "salt": TEST_SALT})
        out.unlink()
        write_control(out, control)
    return dict(line.split(" ", 1) for line in result.stdout.splitlines())


@pytest.fixture
def private(campaign_copy: Path, tmp_path: Path) -> Private:
    """A private campaign with a control file for agents agent-7 and agent-8."""
    campaign = make_private(campaign_copy)
    control = tmp_path / "private" / "control.json"
    control.parent.mkdir()
    return Private(campaign, control, control_new(campaign, control, "agent-7", "agent-8"))


def cli_as_a_user(*args: str) -> subprocess.CompletedProcess[str]:
    """The CLI with file permissions enforced: as root, without the capabilities to
    override them (setpriv, util-linux), so the refusal is the kernel's own."""
    drop = ["setpriv", "--bounding-set=-dac_override,-dac_read_search"]
    prefix = drop if os.geteuid() == 0 else []
    return subprocess.run(
        [*prefix, sys.executable, "-m", "workbench", *args],
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )
