"""A field with one valid number says to type it, not `a whole number from 1 to 1`."""

from __future__ import annotations

from pathlib import Path

from tests.tui.conftest import SIZE, go, notified
from workbench.play.session import PlayerSession
from workbench.tui.app import PlayerApp
from workbench.tui.screens.ledger import LedgerScreen


async def test_one_day_left_asks_for_1_and_a_fresh_ledger_for_day_0(run_dir: Path) -> None:
    session = PlayerSession.create(run_dir)
    app = PlayerApp(session, briefing_at_start=False)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await go(pilot, "5")
        screen = app.screen
        assert isinstance(screen, LedgerScreen)
        screen.day_input.focus()
        await pilot.press("1", "enter")
        await notified(pilot, "Trial balance day: 1 is out of range; type 0.")
        await go(pilot, "1")
        app.advance(179)
        await pilot.press("a", "2", "enter")
        await notified(pilot, "Days to advance: 2 is out of range; type 1.")
        assert session.day == 179
