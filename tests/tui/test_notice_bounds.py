"""A notice quoting a huge typed value fits the screen and keeps its reason.

Notices were shown whole: a 4,096-character path typed on VC made an error toast of 75
rows on a 40-row screen, its start (and the screen's right half) hidden for 8 seconds.
They are bounded as the CLI's `Error:` lines are: each line cut to about 400 characters,
keeping its end, where the reason is.
"""

from __future__ import annotations

from tests.tui.conftest import SIZE, go, notified, wait_for
from workbench.tui.app import PlayerApp
from workbench.tui.screens.causal import CausalScreen
from workbench.tui.screens.vc import VCScreen
from workbench.tui.widgets.inputs import MAX_FIELD


def toasts_fit(app: PlayerApp) -> bool:
    """True when there is a toast and every toast lies inside the screen."""
    toasts = list(app.screen.query("Toast"))
    height = app.size.height
    return bool(toasts) and all(t.region.y >= 0 and t.region.bottom <= height for t in toasts)


async def test_a_huge_path_typed_on_vc_is_a_notice_that_fits(app: PlayerApp) -> None:
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await go(pilot, "7")
        screen = app.screen
        assert isinstance(screen, VCScreen)
        screen.file.value = "/tmp/" + "x" * (MAX_FIELD - 5)
        await pilot.press("ctrl+b")
        await notified(pilot, "cannot read (File name too long)")
        await wait_for(pilot, lambda: toasts_fit(app), "a toast inside the screen")


async def test_huge_causal_columns_are_a_notice_that_fits(app: PlayerApp) -> None:
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await go(pilot, "6")
        screen = app.screen
        assert isinstance(screen, CausalScreen)
        await pilot.press("ctrl+l")
        await wait_for(pilot, lambda: screen.panel is not None, "a loaded task")
        screen.columns.value = "é" * MAX_FIELD
        screen.action_adjusted()
        await notified(pilot, "not adjustable columns")
        await wait_for(pilot, lambda: toasts_fit(app), "a toast inside the screen")
