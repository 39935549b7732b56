"""A session that refuses a read or a command is a notice wherever the player meets it.

A hosted run reads from its host: with the host gone, a cursor move on the dashboard's
metrics, the ledger or the catalog, a keystroke in the Questions form, `b`, `e` or `f`
closed the app with a traceback. The palette's Schedule command on a finished run did so
on a local run too. Each case here presses keys and checks the app still runs and says why.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from tests.tui.conftest import SIZE, go, notified, wait_for
from workbench.errors import UserError
from workbench.play.session import PlayerSession
from workbench.tui.app import PlayerApp
from workbench.tui.screens.briefing import SummaryScreen
from workbench.tui.screens.confirm import ConfirmSchedule
from workbench.tui.screens.questions import QuestionsScreen

GONE = "cannot reach the host at http://127.0.0.1:9: gone"


class HostGone:
    """A session played like a hosted one over a local run; once `gone`, every read and
    command raises what `RemoteSession` raises when its host has stopped (its metrics and
    ledger are always fetched, its view too once a command has failed)."""

    run_dir = None
    """A hosted run has no local directory (the app then treats it as hosted)."""

    def __init__(self, run: PlayerSession) -> None:
        self._run = run
        self.gone = False

    def _live(self) -> PlayerSession:
        if self.gone:
            raise UserError(GONE)
        return self._run

    def __getattr__(self, name: str) -> Any:
        return getattr(self._live(), name)

    @property
    def day(self) -> int:
        return self._live().day

    @property
    def horizon(self) -> int:
        return self._live().horizon

    @property
    def finished(self) -> bool:
        return self._live().finished

    @property
    def journal_entries(self) -> Any:
        return self._live().journal_entries

    @property
    def journal_head(self) -> str:
        return self._live().journal_head

    def close(self) -> None:
        """Nothing to release."""


@pytest.fixture
def hosted(run_dir: Path) -> Iterator[tuple[PlayerApp, HostGone]]:
    """The player's app on a run whose host can be made to go away."""
    run = PlayerSession.create(run_dir)
    session = HostGone(run)
    yield PlayerApp(session, briefing_at_start=False), session  # type: ignore[arg-type]
    run.close()


async def _questions_form(pilot: Pilot) -> None:
    await go(pilot, "3")
    assert isinstance(pilot.app.screen, QuestionsScreen)
    pilot.app.screen.form.value.focus()
    await pilot.pause()


async def _screen(pilot: Pilot, key: str) -> None:
    await go(pilot, key)


CASES: dict[str, tuple[str, tuple[str, ...]]] = {
    "dashboard metric cursor": ("1", ("down", "down")),
    "dashboard typed days": ("1", ("a", "5", "enter")),
    "dashboard briefing": ("1", ("b",)),
    "dashboard summary": ("1", ("e",)),
    "dashboard finish": ("1", ("f",)),
    "actions cursor": ("2", ("down", "down")),
    "actions schedule": ("2", ("s",)),
    "questions cursor": ("3", ("down",)),
    "ledger day": ("5", ("tab", "shift+tab", "enter")),
    "ledger account": ("5", ("down", "enter")),
    "journal entry": ("4", ("enter",)),
    "palette schedule": ("1", ("ctrl+p", *"sim schedule hire", "enter")),
}


@pytest.mark.parametrize("case", list(CASES))
async def test_a_host_gone_is_a_notice_on_every_key(
    hosted: tuple[PlayerApp, HostGone], case: str
) -> None:
    app, session = hosted
    screen, keys = CASES[case]
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await _screen(pilot, screen)
        session.gone = True
        for key in keys:
            await pilot.press(key)
            await pilot.pause()
            assert app.is_running, f"{case}: {key} closed the app"
        await notified(pilot, "cannot reach the host")
        await pilot.press("ctrl+q")
    assert app.return_code in (None, 0)


async def test_typing_an_answer_with_the_host_gone_keeps_it_as_unsent(
    hosted: tuple[PlayerApp, HostGone],
) -> None:
    """The form's check needs the host; what was typed is still counted as unsent."""
    app, session = hosted
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await _questions_form(pilot)
        session.gone = True
        await pilot.press("5", "enter")
        await notified(pilot, "cannot reach the host")
        assert app.is_running
        assert list(app.unsent.values()) == ["5"]


async def test_the_palettes_schedule_on_a_finished_run_says_it_has_ended(app: PlayerApp) -> None:
    """Scheduling from the palette after the run ended raised in its preview and closed the
    app; it says what the Actions screen says."""
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await pilot.press("f", "y")
        await wait_for(pilot, lambda: isinstance(app.screen, SummaryScreen), "summary")
        await pilot.press("escape")
        await pilot.press("ctrl+p", *"sim schedule hire", "enter")
        await notified(pilot, "The campaign has ended: nothing more can be scheduled.")
        assert app.is_running
        assert not isinstance(app.screen, ConfirmSchedule)
