"""The briefing at the start and on `b`, the summary at the end and on `e`, the opening worker."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from pathlib import Path

import pytest

from ledger.collector import FULL_COLLECTION_EVERY
from tests.tui.conftest import SIZE, notified, wait_for
from tests.tui.text import screen_text
from workbench.errors import UserError
from workbench.play.session import PlayerSession
from workbench.tui.app import OpeningScreen, PlayerApp
from workbench.tui.screens.briefing import BriefingScreen, SummaryScreen
from workbench.tui.screens.dashboard import DashboardScreen


async def test_a_new_run_opens_on_the_briefing(run_dir: Path) -> None:
    app = PlayerApp(PlayerSession.create(run_dir))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: "Objective" in screen_text(app.screen), "briefing")
        assert isinstance(app.screen, BriefingScreen)
        text = screen_text(app.screen)
        assert "Harbor Roasters" in text and "Net assets ≥ $105,000.00 on day 180" in text
        assert "q_bank_loan" in text and "ctrl+o" in text
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, DashboardScreen), "dashboard")
        await pilot.press("b")
        await wait_for(pilot, lambda: isinstance(app.screen, BriefingScreen), "again on b")


async def test_a_resumed_run_opens_on_the_dashboard(run_dir: Path) -> None:
    with PlayerSession.create(run_dir) as first:
        first.advance(3)
    app = PlayerApp(PlayerSession.resume(run_dir))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, DashboardScreen), "dashboard")
        assert "Day 3" in screen_text(app.screen)


async def test_the_end_shows_the_summary(app: PlayerApp) -> None:
    async with app.run_test(size=SIZE) as pilot:
        app.session.submit({"question": "q_bank_loan", "value": "-500", "conclusion": "-300.00"})
        await pilot.press("f", "y")
        await wait_for(pilot, lambda: "campaign is over" in screen_text(app.screen), "summary")
        assert isinstance(app.screen, SummaryScreen)
        text = screen_text(app.screen)
        assert "The campaign is over (day 180 of 180)" in text
        assert "not met" in text or "met" in text
        assert "1 made; 1 of 6 question(s) have one that counts" in text
        assert "validates it offline" in text and "workbench author" in text
        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(app.screen, DashboardScreen), "dashboard")
        assert "campaign ended" in screen_text(app.screen)
        await pilot.press("e")
        await wait_for(pilot, lambda: isinstance(app.screen, SummaryScreen), "again on e")


async def test_the_run_opens_in_a_worker_after_the_first_screen(run_dir: Path) -> None:
    opened: list[PlayerSession] = []

    def opener() -> PlayerSession:
        opened.append(PlayerSession.create(run_dir))
        return opened[-1]

    app = PlayerApp(opener=opener, opening=str(run_dir), briefing_at_start=False)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.ready, "session open")
        await wait_for(pilot, lambda: isinstance(app.screen, DashboardScreen), "dashboard")
        assert opened and app.session is opened[0]


async def test_a_run_that_cannot_open_exits_with_its_code(tmp_path: Path) -> None:
    def opener() -> PlayerSession:
        raise UserError(f"{tmp_path} exists and is not an empty run directory")

    app = PlayerApp(opener=opener, opening=str(tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, OpeningScreen) or app.open_error is not None
        await wait_for(pilot, lambda: app.open_error is not None, "open error")
    assert app.return_code == UserError.exit_code
    assert "not an empty run directory" in app.open_error.message  # type: ignore[union-attr]


async def test_finish_asks_then_ends_the_run(app: PlayerApp) -> None:
    from workbench.tui.screens.confirm import ConfirmFinish

    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await pilot.press("f")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmFinish), "confirm")
        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(app.screen, DashboardScreen), "cancelled")
        assert not app.session.finished
        await pilot.press("f", "y")
        await wait_for(pilot, lambda: "campaign is over" in screen_text(app.screen), "summary")
        assert app.session.finished and app.session.day == app.session.horizon
        await pilot.press("escape", "n")
        await notified(pilot, "accepts no further command")


@pytest.fixture
def collector_thresholds() -> Iterator[None]:
    """Python's collector thresholds, restored after the test (settling changes them)."""
    before = gc.get_threshold()
    gc.set_threshold(before[0], before[1], 10)
    yield
    gc.set_threshold(*before)


@pytest.mark.usefixtures("collector_thresholds")
async def test_a_settled_app_hides_what_is_alive_once_the_run_shows(tmp_path: Path) -> None:
    """`workbench play`'s app: the dashboard's objects leave the collector's full walks, and
    full collections come after 100 middle ones, not 10; an app by default changes nothing."""
    plain = PlayerApp(PlayerSession.create(tmp_path / "plain"), briefing_at_start=False)
    async with plain.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(plain.screen, DashboardScreen), "dashboard")
        await pilot.pause()
        assert gc.get_threshold()[2] == 10
    frozen = gc.get_freeze_count()
    app = PlayerApp(
        PlayerSession.create(tmp_path / "settled"), briefing_at_start=False, settle_collector=True
    )
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: gc.get_threshold()[2] == FULL_COLLECTION_EVERY, "settled")
        assert gc.get_freeze_count() > frozen + len(app.screen.query("*"))


async def test_a_run_the_system_refuses_to_open_exits_with_the_clis_line(tmp_path: Path) -> None:
    """An OSError opening the run (a path the system refuses) escaped the opening worker
    and ended the app with a traceback: it is the CLI's one line, exit 2, as a UserError."""
    refused = tmp_path / "run"

    def opener() -> PlayerSession:
        raise PermissionError(13, "Permission denied", str(refused))

    app = PlayerApp(opener=opener, opening=str(refused))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.open_error is not None, "open error")
    assert app.return_code == UserError.exit_code
    assert app.open_error is not None
    assert app.open_error.message == f"{refused}: cannot access (Permission denied)"


async def test_a_screen_the_system_refuses_to_repaint_says_so_and_plays_on(
    app: PlayerApp, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An OSError while a player screen repaints (its run's files refused by the system)
    ended the app with a traceback; it is a notice, and the screen paints again later."""
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, DashboardScreen), "dashboard")
        screen = app.screen
        assert isinstance(screen, DashboardScreen)

        def refused() -> None:
            raise OSError(5, "Input/output error", "journal.jsonl")

        monkeypatch.setattr(screen, "refresh_view", refused)
        screen.repaint()
        await notified(pilot, "journal.jsonl: cannot access (Input/output error)")
        assert screen.painted_from is None
        monkeypatch.undo()
        screen.repaint()
        assert screen.painted_from is not None
