"""The player's app plays any campaign, not only the default one: nothing on a screen
assumes a metric id, a product or a unit that a campaign chooses for itself.

The starter campaign of `workbench new` has no `cumulative_revenue` metric (the dashboard
once crashed on mount without it); a renamed copy has neither `cash` nor `net_assets`.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.tui.conftest import SIZE, SMALL, go, wait_for
from tests.tui.text import screen_text
from workbench.authoring.scaffold import create_campaign
from workbench.play.session import PlayerSession
from workbench.tui.app import PLAYER_SCREENS, PlayerApp
from workbench.tui.screens.dashboard import DashboardScreen

RENAMES = {'"cash"': '"till"', '"net_assets"': '"worth"'}


def starter(tmp_path: Path, renamed: bool) -> Path:
    """The `workbench new` starter, with its money metrics renamed when asked."""
    folder = tmp_path / "shop"
    create_campaign(folder)
    if renamed:
        for path in folder.glob("*.toml"):
            text = path.read_text()
            for old, new in RENAMES.items():
                text = text.replace(old, new)
            path.write_text(text)
    return folder


@pytest.mark.parametrize(
    ("campaign", "size"),
    [("starter", SIZE), ("renamed", SMALL), ("gelato", SIZE)],
)
async def test_every_screen_opens_on_a_campaign_of_its_own(
    tmp_path: Path, campaign: str, size: tuple[int, int]
) -> None:
    source = campaign if campaign == "gelato" else starter(tmp_path, campaign == "renamed")
    session = PlayerSession.create(tmp_path / "run", source)
    app = PlayerApp(session, briefing_at_start=False)
    async with app.run_test(size=size) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, DashboardScreen), "dashboard")
        await pilot.press("w")
        await wait_for(pilot, lambda: session.day == 7, "a week")
        text = screen_text(app.screen)
        assert "bags" not in text and "Beans" not in text
        for spec in PLAYER_SCREENS:
            await go(pilot, spec.key)
            assert app.current_mode == spec.mode
    session.close()
