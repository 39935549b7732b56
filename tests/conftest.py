"""Shared fixtures: the default campaign and a finished demo run with its validation."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from campaigns import DEFAULT_CAMPAIGN
from sim.campaign_load import CampaignBundle, load_campaign


@pytest.fixture(scope="session")
def bundle() -> CampaignBundle:
    """The bundled default campaign."""
    return load_campaign(DEFAULT_CAMPAIGN)


@pytest.fixture(scope="session")
def demo_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A demo run played once per session (copy it before changing it)."""
    from workbench.play.demo import play_demo

    return play_demo(tmp_path_factory.mktemp("demo") / "run")


@pytest.fixture()
def campaign_copy(tmp_path: Path) -> Path:
    """A writable copy of the default campaign."""
    target = tmp_path / "campaign"
    shutil.copytree(DEFAULT_CAMPAIGN, target)
    return target
