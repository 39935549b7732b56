"""Fuzzing fixtures and the end-of-session summary of every case tried."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from _pytest.terminal import TerminalReporter

from campaigns import DEFAULT_CAMPAIGN
from tests.fuzz.harness import summary_lines


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
    from workbench.play.session import PlayerSession

    target = fuzz_root / "fresh"
    PlayerSession.create(target).close()
    return target


@pytest.fixture(scope="session")
def private_campaign(fuzz_root: Path) -> tuple[Path, dict[str, object]]:
    """A private copy of the default campaign and a valid control document for it."""
    from sim.campaign_load import load_campaign
    from workbench.runs.registration import new_control

    folder = fuzz_root / "private-campaign"
    shutil.copytree(DEFAULT_CAMPAIGN, folder)
    text = (folder / "campaign.toml").read_text()
    text = text.replace('visibility = "development"', 'visibility = "private"')
    (folder / "campaign.toml").write_text(text.replace("development_seed = 20261130\n", ""))
    bundle = load_campaign(folder)
    control, _ = new_control(bundle, ("agent-7", "agent-8"))
    document = control.model_dump(mode="json", by_alias=True)
    return folder, document
