"""Fixtures for the dashboard tests: a fresh run and an app on it (demo_run is shared)."""

from __future__ import annotations

from pathlib import Path

import pytest

from workbench.play.session import PlayerSession
from workbench.tui.app import WorkbenchApp

SIZE = (120, 40)


@pytest.fixture
def run_dir(tmp_path: Path) -> Path:
    """A directory for a new run."""
    return tmp_path / "run"


@pytest.fixture
def app(run_dir: Path) -> WorkbenchApp:
    """The app on a fresh run of the default campaign."""
    return WorkbenchApp(PlayerSession.create(run_dir))
