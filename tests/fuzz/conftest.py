"""Fuzzing fixtures and the end-of-session summary of every case tried."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from _pytest.terminal import TerminalReporter
from click.testing import CliRunner

from campaigns import DEFAULT_CAMPAIGN
from tests.fuzz.harness import summary_lines
from workbench.cli import main


def pytest_terminal_summary(terminalreporter: TerminalReporter) -> None:
    """Print the fuzz figures (cases tried, exit codes, tracebacks) after the tests."""
    for line in summary_lines():
        terminalreporter.write_line(line)


@pytest.fixture(scope="session")
def fuzz_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder for the fuzz targets' shared material."""
    return tmp_path_factory.mktemp("fuzz")


@pytest.fixture(scope="session")
def finished_run(demo_run: Path, fuzz_root: Path) -> Path:
    """A finished development run with submissions (copy it before changing it)."""
    target = fuzz_root / "finished"
    shutil.copytree(demo_run, target)
    return target


@pytest.fixture(scope="session")
def fresh_run(fuzz_root: Path) -> Path:
    """A development run created and not yet played (copy it before changing it)."""
    target = fuzz_root / "fresh"
    result = CliRunner().invoke(main, ["run", "--script", "/dev/null", "--out", str(target)])
    assert result.exit_code == 0, result.output
    return target


@pytest.fixture(scope="session")
def private_campaign(fuzz_root: Path) -> tuple[Path, dict[str, object]]:
    """A private copy of the default campaign and a valid control document for it."""
    from sim.campaign_load import load_campaign

    folder = fuzz_root / "private-campaign"
    shutil.copytree(DEFAULT_CAMPAIGN, folder)
    text = (folder / "campaign.toml").read_text()
    text = text.replace('visibility = "development"', 'visibility = "private"')
    (folder / "campaign.toml").write_text(text.replace("development_seed = 20261130\n", ""))
    bundle = load_campaign(folder)
    control = {
        "campaign_id": bundle.id,
        "campaign_digest": bundle.digest,
        "seed": 4242,
        "salt": "a-private-salt",
        "agents": ["agent-7", "agent-8"],
    }
    return folder, control
