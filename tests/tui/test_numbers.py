"""Whole-number fields refuse a number out of their range: one line names the field and
the valid range, and nothing happens (no number is clamped into range)."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Input

from tests.tui.conftest import SIZE, go, notices, notified, wait_for
from workbench.play.session import PlayerSession
from workbench.tui.app import PLAYER_SCREENS, PlayerApp
from workbench.tui.screens.dashboard import DashboardScreen
from workbench.tui.screens.ledger import LedgerScreen
from workbench.tui.widgets.inputs import NumberInput, number_problem


def test_a_problem_names_the_field_and_the_range() -> None:
    assert number_problem("Days to advance", "12", 1, 180) is None
    assert number_problem("Days to advance", "999", 1, 180) == (
        "Days to advance: 999 is out of range; type a whole number from 1 to 180."
    )
    assert number_problem("Index", "-", 0, 49_999) == (
        "Index: '-' is not a whole number; type a whole number from 0 to 49,999."
    )
    assert number_problem("Seed", "", None, None) == "Seed: type a whole number."
    assert number_problem("Seed", "-7", None, None) is None


@pytest.mark.parametrize("typed", ["1_0", "\u0665", "+3", "3.0", "1e2", "9" * 19])
def test_only_ascii_digits_make_a_number(typed: str) -> None:
    """As the host and scripts read numbers: `int` took `1_0` for ten days and the
    Arabic-Indic five for five."""
    problem = number_problem("Days to advance", typed, 1, 180)
    assert problem is not None and "is not a whole number" in problem


async def test_a_ledger_day_past_the_last_is_refused_not_clamped(run_dir: Path) -> None:
    """Day 999 showed the last closed day's balance as if it were day 999."""
    session = PlayerSession.create(run_dir)
    session.advance(3)
    app = PlayerApp(session, briefing_at_start=False)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await go(pilot, "5")
        screen = app.screen
        assert isinstance(screen, LedgerScreen)
        screen.day_input.focus()
        await pilot.press("1", "enter")
        await wait_for(pilot, lambda: "Day 1:" in str(screen.balance_line.render()), "day 1")
        screen.day_input.focus()
        screen.day_input.value = "999"
        await pilot.press("enter")
        await notified(
            pilot, "Trial balance day: 999 is out of range; type a whole number from 0 to 3."
        )
        assert "Day 1:" in str(screen.balance_line.render())
        assert screen.day_input.value == "1" and screen.day_input.selected_text == "1"
        await pilot.press("2", "enter")
        await wait_for(pilot, lambda: "Day 2:" in str(screen.balance_line.render()), "day 2")
        screen.day_input.focus()
        screen.day_input.value = ""
        await pilot.press("enter")
        await wait_for(pilot, lambda: "Day 3:" in str(screen.balance_line.render()), "latest")


async def test_days_to_advance_past_the_end_are_refused(app: PlayerApp) -> None:
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await pilot.press("a", "9", "9", "9", "enter")
        await notified(
            pilot, "Days to advance: 999 is out of range; type a whole number from 1 to 180."
        )
        screen = app.screen
        assert isinstance(screen, DashboardScreen)
        assert app.session.day == 0 and screen.days.value == ""
        assert len(notices(app)) == 1
        await pilot.press("2", "enter")
        await wait_for(pilot, lambda: app.session.day == 2, "day 2")
        assert screen.days.value == ""


async def test_the_panels_numbers_name_their_range(app: PlayerApp) -> None:
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await go(pilot, "7")
        vc = app.screen
        vc.index.value = "99999"  # type: ignore[attr-defined]
        await pilot.click("#vc-generate")
        await notified(
            pilot, "Index: 99,999 is out of range; type a whole number from 0 to 49,999."
        )
        assert vc.index.value == "0"  # type: ignore[attr-defined]
        await go(pilot, "6")
        causal = app.screen
        causal.task_id.value = "-1"  # type: ignore[attr-defined]
        await pilot.press("ctrl+l")
        await notified(pilot, "Task id: -1 is out of range; type a whole number from 0 to")
        assert not app.workers


async def test_every_whole_number_field_checks_its_range(app: PlayerApp) -> None:
    """A field typed as an integer is a `NumberInput`: no screen reads one on its own."""
    async with app.run_test(size=SIZE) as pilot:
        fields = []
        for spec in PLAYER_SCREENS:
            await go(pilot, spec.key)
            fields += [f for f in app.screen.query(Input) if f.type == "integer"]
        assert len(fields) == 5, fields
        assert all(isinstance(f, NumberInput) for f in fields), fields
