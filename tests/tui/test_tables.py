"""Every table answers the same keys: up, down, PageUp, PageDown, Home and End move by rows."""

from __future__ import annotations

from pathlib import Path

from textual.app import App
from textual.pilot import Pilot
from textual.widgets import DataTable

from campaigns import DEFAULT_CAMPAIGN
from tests.tui.conftest import SIZE, go, wait_for
from workbench.play.session import PlayerSession
from workbench.tui.app import AUTHOR_SCREENS, PLAYER_SCREENS, AuthorApp, PlayerApp, ScreenSpec
from workbench.tui.screens.journal import JournalScreen
from workbench.tui.screens.ledger import LedgerScreen
from workbench.tui.widgets.tables import Table


def played(run_dir: Path) -> PlayerSession:
    """A run on day 40 with a journal longer than a screen and two submissions."""
    session = PlayerSession.create(run_dir)
    session.schedule("hire_sales_rep")
    session.submit({"question": "q_spring_campaign", "value": "1500"})
    session.submit({"question": "q_spring_campaign", "value": "1600"})
    for _ in range(40):
        session.advance(1)
    return session


async def rows_by_keys(pilot: Pilot, table: DataTable) -> None:
    """Home, End, PageUp and PageDown move the cursor to the rows a player expects."""
    last = table.row_count - 1
    table.focus()
    await pilot.press("home")
    assert table.cursor_row == 0, (table, "home")
    await pilot.press("end")
    assert table.cursor_row == last, (table, "end")
    await pilot.press("pageup")
    assert table.cursor_row < last, (table, "pageup")
    await pilot.press("home", "pagedown")
    assert table.cursor_row > 0, (table, "pagedown")


async def test_home_and_end_move_the_journal_cursor(run_dir: Path) -> None:
    """In a row-cursor table Home and End only scrolled sideways: the cursor stayed."""
    app = PlayerApp(played(run_dir), briefing_at_start=False)
    async with app.run_test(size=SIZE) as pilot:
        await go(pilot, "4")
        screen = app.screen
        assert isinstance(screen, JournalScreen)
        table = screen.table
        assert app.focused is table and table.cursor_row == table.row_count - 1
        await pilot.press("home")
        assert table.cursor_row == 0
        assert table.scroll_y == 0
        await pilot.press("end")
        assert table.cursor_row == table.row_count - 1
        assert table.scroll_y == table.max_scroll_y > 0
        await pilot.press("pageup")
        assert 0 < table.cursor_row < table.row_count - 1


async def show(pilot: Pilot, key: str) -> None:
    """Go to a screen and wait until its workers have filled it."""
    await go(pilot, key)
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


async def every_table(
    app: App, pilot: Pilot, screens: tuple[ScreenSpec, ...]
) -> list[tuple[str, DataTable]]:
    """Each screen's tables, after showing it (rows filled by workers included)."""
    found = []
    for spec in screens:
        await show(pilot, spec.key)
        found += [(spec.mode, table) for table in app.screen.query(DataTable)]
    return found


async def test_every_players_table_moves_by_rows(run_dir: Path) -> None:
    """Every table of every player screen is a `Table`, so each answers the row keys."""
    app = PlayerApp(played(run_dir), briefing_at_start=False)
    async with app.run_test(size=SIZE) as pilot:
        await go(pilot, "5")
        await pilot.press("enter")
        tables = await every_table(app, pilot, PLAYER_SCREENS)
        assert all(isinstance(table, Table) for _, table in tables), tables
        tried = set()
        for mode, table in tables:
            if table.row_count < 2:
                continue
            await go(pilot, next(s.key for s in PLAYER_SCREENS if s.mode == mode))
            await rows_by_keys(pilot, table)
            tried.add(type(table).__name__)
        expected = {"MetricsTable", "ActionCatalog", "QuestionTable", "SubmissionHistory"}
        assert expected | {"JournalTable", "TrialBalance", "AccountHistory"} <= tried


async def test_every_authors_table_moves_by_rows(demo_run: Path) -> None:
    app = AuthorApp(DEFAULT_CAMPAIGN, demo_run.parent)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.screen.query_one("FindingsTable").row_count > 1, "check")
        tables = await every_table(app, pilot, AUTHOR_SCREENS)
        assert all(isinstance(table, Table) for _, table in tables), tables
        await show(pilot, "1")
        await rows_by_keys(pilot, app.screen.query_one("FindingsTable", DataTable))


async def test_row_keys_in_an_empty_table_do_nothing(tmp_path: Path) -> None:
    """End or PageDown in an empty table put its cursor on row -1, reported highlighted
    with no key: the runs table's handler raised and the app closed."""
    app = AuthorApp(DEFAULT_CAMPAIGN, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await show(pilot, "2")
        table = app.screen.query_one("RunsTable", DataTable)
        assert table.row_count == 0
        table.focus()
        await pilot.press("end", "pagedown", "ctrl+end", "pageup", "home", "down", "up")
        await pilot.pause()
        assert app.is_running and app.screen.query_one("RunsTable") is table
        assert table.cursor_row == 0


async def test_tab_passes_the_empty_account_history_by(app: PlayerApp) -> None:
    """Tab from the trial balance went into the account history, empty until an account
    is followed; once it has rows tab reaches it."""
    async with app.run_test(size=SIZE) as pilot:
        await go(pilot, "5")
        screen = app.screen
        assert isinstance(screen, LedgerScreen)
        assert app.focused is screen.balances and screen.history.row_count == 0
        await pilot.press("tab")
        assert app.focused is not screen.history
        await pilot.press("shift+tab", "shift+tab")
        assert app.focused is not screen.history
        screen.balances.focus()
        await pilot.press("enter")
        await wait_for(pilot, lambda: screen.history.row_count > 0, "account followed")
        await pilot.press("tab")
        assert app.focused is screen.history


async def test_tab_never_lands_on_an_empty_table(app: PlayerApp) -> None:
    """On every player screen, tabbing round the whole chain both ways skips tables
    without rows (the submissions before any, the causal preview before a load)."""
    async with app.run_test(size=SIZE) as pilot:
        for spec in PLAYER_SCREENS:
            await go(pilot, spec.key)
            chain = len(app.screen.focus_chain)
            for key in ("tab", "shift+tab"):
                for _ in range(chain + 1):
                    await pilot.press(key)
                    focused = app.focused
                    empty = isinstance(focused, DataTable) and focused.row_count == 0
                    assert not empty, (spec.mode, key, focused)
