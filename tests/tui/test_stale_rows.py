"""A message that names a table row is read against the table as it is now.

A row's message (highlighted, chosen, picked) is posted with the row's key and handled
later: a check, a rescan or a listing of another folder may have emptied or refilled the
table since. Each screen shows what its table highlights now, and nothing for a key no
row has: the check screen indexed its findings with a stale row number (IndexError
closed the app, or the detail showed another finding than the highlighted one), the
report browser opened the report of a row the cursor had left, the runs screen validated
a run no longer listed, and the ledger's `next` without a default closed the app.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from campaigns import DEFAULT_CAMPAIGN
from tests.tui.conftest import SIZE, go, notified, wait_for
from tests.tui.text import screen_text
from workbench.evaluation.evaluator import run_evaluation
from workbench.tui.app import AuthorApp, PlayerApp
from workbench.tui.screens.author.check import CheckScreen
from workbench.tui.screens.author.reports import ReportsScreen
from workbench.tui.screens.author.runs import RunsScreen
from workbench.tui.screens.ledger import LedgerScreen
from workbench.tui.widgets.author import KeyedTable
from workbench.tui.widgets.ledger import TrialBalance


async def test_a_finding_row_gone_after_a_check_is_nothing_to_show(tmp_path: Path) -> None:
    """A highlight posted for a finding of a check a failed one has emptied: IndexError in
    the handler closed the app. An empty table takes the cursor keys too."""
    app = AuthorApp(DEFAULT_CAMPAIGN, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        assert isinstance(screen, CheckScreen)
        await wait_for(pilot, lambda: screen.ok is not None, "check finished")
        assert len(screen.findings) > 3
        screen.campaign.value = str(tmp_path / "nope")
        screen.action_check()
        await wait_for(pilot, lambda: "Check failed" in screen_text(screen), "failure")
        assert screen.findings == () and screen.table.row_count == 0
        screen.table.post_message(KeyedTable.Highlighted(screen.table, "3"))
        screen.table.focus()
        await pilot.press("end", "pagedown", "home", "enter", "down", "up")
        await pilot.pause()
        assert app.is_running
        assert str(screen.detail.render()) == ""


async def test_the_finding_shown_is_the_highlighted_one(tmp_path: Path) -> None:
    """A highlight for a row the cursor has left since (a refill put it back on the
    first) showed that row's finding under the cursor on another."""
    app = AuthorApp(DEFAULT_CAMPAIGN, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        assert isinstance(screen, CheckScreen)
        await wait_for(pilot, lambda: screen.ok is not None, "check finished")
        first, second = screen.findings[0], screen.findings[1]
        assert first.message != second.message
        assert screen.table.cursor_row == 0
        screen.table.post_message(KeyedTable.Highlighted(screen.table, "1"))
        await pilot.pause()
        await pilot.pause()
        shown = str(screen.detail.render())
        assert first.message in shown and second.message not in shown
        screen.table.post_message(KeyedTable.Highlighted(screen.table, "99999"))
        await pilot.pause()
        assert first.message in str(screen.detail.render()) and app.is_running


async def test_the_report_shown_is_the_highlighted_one(demo_run: Path, tmp_path: Path) -> None:
    """A highlight for a report row the cursor is not on (the first row's, posted as the
    table was refilled, arriving after the cursor went to the newest validation), or for a
    report no longer listed, replaced the summary with that report's or a read error."""
    root = tmp_path / "runs"
    root.mkdir()
    run_evaluation(demo_run, root / "a-validation")
    shutil.copytree(root / "a-validation", root / "b-validation")
    app = AuthorApp(DEFAULT_CAMPAIGN, root)
    async with app.run_test(size=SIZE) as pilot:
        await go(pilot, "3")
        screen = app.screen
        assert isinstance(screen, ReportsScreen)
        await wait_for(pilot, lambda: screen.reports.row_count == 2, "reports listed")
        await wait_for(pilot, lambda: "a-validation" in screen_text(screen), "first report")
        assert screen.reports.cursor_row == 0
        other = str(root / "b-validation")
        for key in (other, str(tmp_path / "gone-validation")):
            screen.reports.post_message(KeyedTable.Highlighted(screen.reports, key))
            await pilot.pause()
            await pilot.pause()
            text = screen_text(screen)
            assert "a-validation" in text and "b-validation ·" not in text, key
            assert "Cannot read the report" not in text, key


async def test_a_run_no_longer_listed_is_not_validated(demo_run: Path, tmp_path: Path) -> None:
    """A choice posted for a run of a folder listed before: it was validated (a report
    written beside it) though the table, listing another folder now, no longer shows it."""
    elsewhere = tmp_path / "elsewhere"
    shutil.copytree(demo_run, elsewhere / "finished")
    before = sorted(p.name for p in elsewhere.iterdir())
    root = tmp_path / "runs"
    root.mkdir()
    app = AuthorApp(DEFAULT_CAMPAIGN, root)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await go(pilot, "2")
        screen = app.screen
        assert isinstance(screen, RunsScreen)
        await wait_for(pilot, lambda: "No run directories" in screen_text(screen), "listing")
        gone = str(elsewhere / "finished")
        screen.table.post_message(KeyedTable.Chosen(screen.table, gone))
        await notified(pilot, "no longer listed")
        await app.workers.wait_for_complete()
        assert not screen.progress.running
        assert "Validating" not in screen_text(screen)
    assert sorted(p.name for p in elsewhere.iterdir()) == before


async def test_an_account_the_ledger_lacks_is_not_followed(app: PlayerApp) -> None:
    """A pick naming an account the trial balance does not have: `next` without a default
    raised StopIteration in the handler and closed the app."""
    async with app.run_test(size=SIZE) as pilot:
        await go(pilot, "5")
        screen = app.screen
        assert isinstance(screen, LedgerScreen)
        screen.balances.post_message(TrialBalance.Picked("no-such-account"))
        await pilot.pause()
        await pilot.pause()
        assert app.is_running and screen.history.account is None
