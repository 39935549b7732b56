"""The curious player's walk: every screen, every table row, every action and question."""

from __future__ import annotations

from textual.widgets import DataTable

from tests.tui.conftest import SIZE, go, wait_for
from tests.tui.text import screen_text
from workbench.tui.app import PLAYER_SCREENS, PlayerApp
from workbench.tui.screens.actions import ActionsScreen
from workbench.tui.screens.briefing import BriefingScreen
from workbench.tui.screens.confirm import ConfirmSchedule
from workbench.tui.screens.journal import JournalScreen
from workbench.tui.screens.ledger import LedgerScreen
from workbench.tui.screens.questions import QuestionsScreen
from workbench.tui.widgets.journal import EntryScreen


async def walk_rows(pilot, table: DataTable, check=None) -> int:  # type: ignore[no-untyped-def]
    """Move the cursor over every row (and press enter on each when `check` is given)."""
    table.focus()
    for row in range(table.row_count):
        table.move_cursor(row=row)
        await pilot.pause()
        if check is not None:
            await check(row)
    return table.row_count


async def visit_everything(app: PlayerApp) -> None:
    """Walk every screen, table row, action and question of `app` (opened on its briefing)."""
    bundle = app.session.bundle
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, BriefingScreen), "briefing")
        briefing = screen_text(app.screen)
        for text in (bundle.campaign.company.name, bundle.campaign.title, bundle.tasks[0].title):
            assert text in briefing, text
        await pilot.press("escape")
        await pilot.pause()
        app.schedule("hire_sales_rep")
        app.advance(3)
        for spec in PLAYER_SCREENS:
            await go(pilot, spec.key)
            for table in app.screen.query(DataTable):
                await walk_rows(pilot, table)

        await go(pilot, "2")
        actions = app.screen
        assert isinstance(actions, ActionsScreen)
        seen = []
        for row in range(actions.catalog.row_count):
            actions.catalog.move_cursor(row=row)
            await pilot.pause()
            action_id = actions.catalog.selected
            assert action_id is not None and action_id in screen_text(actions)
            assert bundle.actions[action_id].title in screen_text(actions)
            seen.append(action_id)
            await pilot.press("s")
            await wait_for(pilot, lambda: isinstance(app.screen, ConfirmSchedule), "confirm")
            assert action_id in screen_text(app.screen)
            await pilot.press("escape")
            await wait_for(pilot, lambda: app.screen is actions, "back to actions")
        assert sorted(seen) == sorted(bundle.actions)

        await go(pilot, "3")
        questions = app.screen
        assert isinstance(questions, QuestionsScreen)
        visited = []
        for row in range(questions.table.row_count):
            questions.table.move_cursor(row=row)
            await pilot.pause()
            q = questions.current()
            assert q is not None
            visited.append(q.id)
            assert q.title in screen_text(questions)
            questions.form.value.value = "1"
            await pilot.pause()
            check = str(questions.form.check.render())
            assert check, q.id
        assert sorted(visited) == sorted(bundle.questions)
        await walk_rows(pilot, questions.history)

        await go(pilot, "4")
        journal = app.screen
        assert isinstance(journal, JournalScreen)

        async def expand(row: int) -> None:
            await pilot.press("enter")
            await wait_for(pilot, lambda: isinstance(app.screen, EntryScreen), "entry")
            await pilot.press("escape")
            await wait_for(pilot, lambda: app.screen is journal, "back to journal")

        assert await walk_rows(pilot, journal.table, expand) == len(app.session.journal_entries)

        await go(pilot, "5")
        ledger = app.screen
        assert isinstance(ledger, LedgerScreen)

        async def drill(row: int) -> None:
            await pilot.press("enter")
            await pilot.pause()
            assert ledger.history.account == ledger.balances.row_text(row)[0]
            assert ledger.history.row_count == app.session.day + 1

        assert await walk_rows(pilot, ledger.balances, drill) > 0
