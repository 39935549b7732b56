"""Pilot tests: advance, schedule, rejections, submissions, journal, ledger, screen switching."""

from __future__ import annotations

from textual.widgets import DataTable, Input, Static

from tests.tui.conftest import SIZE
from tests.tui.text import screen_text
from workbench.tui.app import SCREENS_BY_KEY, WorkbenchApp
from workbench.tui.screens.actions import ActionsScreen
from workbench.tui.screens.confirm import ConfirmSchedule
from workbench.tui.screens.dashboard import DashboardScreen
from workbench.tui.screens.help import HelpScreen


async def test_dashboard_shows_day_and_metrics(app: WorkbenchApp) -> None:
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, DashboardScreen)
        text = screen_text(app.screen)
        assert "Day 0" in text and "/ 180" in text
        assert "Cash on hand" in text and "14000.00" in text


async def test_advance_by_keys_and_by_input(app: WorkbenchApp) -> None:
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("n")
        await pilot.pause()
        assert app.session.day == 1
        await pilot.press("w")
        await pilot.pause()
        assert app.session.day == 8
        assert "Day 8" in screen_text(app.screen)
        await pilot.press("a", "1", "2", "enter")
        await pilot.pause()
        assert app.session.day == 20
        assert "Day 20" in screen_text(app.screen)


async def test_advance_past_horizon_notifies(app: WorkbenchApp) -> None:
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("a", "9", "9", "9", "enter")
        await pilot.pause()
        assert app.session.day == 0
        assert any("campaign ends" in n.message for n in app._notifications)


async def test_schedule_shows_commitment_and_journal_entry(app: WorkbenchApp) -> None:
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("2")
        await pilot.pause()
        assert isinstance(app.screen, ActionsScreen)
        await pilot.press("s")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmSchedule)
        assert "Would be accepted" in screen_text(app.screen)
        await pilot.press("y")
        await pilot.pause()
        assert "hire_roaster" in [c.action for c in app.session.view().commitments]
        await pilot.press("1")
        await pilot.pause()
        commitments = app.screen.query_one("#commitments", DataTable)
        assert commitments.get_row_at(0)[0] == "hire_roaster"
        await pilot.press("4")
        await pilot.pause()
        text = screen_text(app.screen)
        assert "schedule" in text and "hire_roaster" in text
        assert "Chain OK" in text


async def test_rejection_reason_shows_before_scheduling(app: WorkbenchApp) -> None:
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("2")
        await pilot.pause()
        table = app.screen.query_one("#catalog", DataTable)
        table.move_cursor(row=table.get_row_index("second_roaster_machine"))
        await pilot.pause()
        assert "insufficient cash" in str(app.screen.query_one("#action-preview", Static).render())
        await pilot.press("s")
        await pilot.pause()
        assert "REJECTED" in screen_text(app.screen)
        assert "insufficient cash" in screen_text(app.screen)
        await pilot.press("escape")
        await pilot.pause()
        assert len(app.session.journal_entries) == 1


async def test_submit_assessment_appears_in_history(app: WorkbenchApp) -> None:
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("3")
        await pilot.pause()
        value = app.screen.query_one("#value", Input)
        value.value = "abc"
        await pilot.pause()
        assert "value: type a number" in str(app.screen.query_one("#form-errors").render())
        value.value = "1500"
        await pilot.pause()
        await pilot.press("ctrl+s")
        await pilot.pause()
        history = app.screen.query_one("#history", DataTable)
        assert history.row_count == 1
        row = history.get_row_at(0)
        assert row[2] == "q_spring_campaign" and row[3] == "1500" and row[6] == "yes"


async def test_submit_with_missing_conclusion_shows_errors(app: WorkbenchApp) -> None:
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("3")
        await pilot.pause()
        table = app.screen.query_one("#questions", DataTable)
        table.move_cursor(row=table.get_row_index("q_bank_loan"))
        await pilot.pause()
        assert app.screen.query_one("#conclusion", Input).display
        app.screen.query_one("#value", Input).value = "0"
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert "conclusion" in str(app.screen.query_one("#form-errors").render())
        assert app.screen.query_one("#history", DataTable).row_count == 0


async def test_every_question_form_builds_the_typed_conclusion(app: WorkbenchApp) -> None:
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("3")
        await pilot.pause()
        table = app.screen.query_one("#questions", DataTable)
        for question in app.session.view().questions:
            table.move_cursor(row=table.get_row_index(question.id))
            await pilot.pause()
            conclusion = app.screen.query_one("#conclusion", Input)
            assert conclusion.display == (question.conclusion is not None)
            conclusion.value = "overhead, capacity"
            data = app.screen.assessment()
            assert data is not None and data["question"] == question.id
            if question.conclusion is None:
                assert "conclusion" not in data
            elif question.conclusion.kind == "supported_effects":
                assert data["conclusion"] == ["overhead", "capacity"]
            else:
                assert data["conclusion"] == "overhead, capacity"
        table.move_cursor(row=table.get_row_index("q_expansion_effects"))
        await pilot.pause()
        app.screen.query_one("#value", Input).value = "-250"
        await pilot.press("ctrl+s")
        await pilot.pause()
        row = app.screen.query_one("#history", DataTable).get_row_at(0)
        assert row[2] == "q_expansion_effects" and row[4] == "overhead, capacity"


async def test_ledger_balances_and_exports(app: WorkbenchApp) -> None:
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("n", "5")
        await pilot.pause()
        assert "balanced" in str(app.screen.query_one("#totals").render())
        await pilot.press("enter")
        await pilot.pause()
        assert app.screen.query_one("#account-history", DataTable).row_count >= 1
        await pilot.press("b", "c")
        await pilot.pause()
        assert (app.run_dir / "ledger.beancount").read_text()
        assert (app.run_dir / "ledger.csv").read_text()


async def test_every_screen_by_key_and_help(app: WorkbenchApp) -> None:
    async with app.run_test(size=SIZE) as pilot:
        for key, mode, _ in SCREENS_BY_KEY:
            await pilot.press(key)
            await pilot.pause()
            assert app.current_mode == mode
        await pilot.press("f1")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        assert "ctrl+t" in screen_text(app.screen)
        await pilot.press("escape")
        await pilot.press("ctrl+t")
        await pilot.pause()
        assert app.theme == "textual-light"


async def test_palette_command_advances(app: WorkbenchApp) -> None:
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("ctrl+p")
        await pilot.pause()
        await pilot.press(*"sim: Advance 7")
        await pilot.pause(0.3)
        await pilot.press("enter")
        await pilot.pause()
        assert app.session.day == 7


async def test_small_terminal_shows_day(app: WorkbenchApp) -> None:
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("n")
        await pilot.pause()
        assert "Day 1" in screen_text(app.screen)
