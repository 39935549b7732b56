"""Fixtures for the dashboard tests: a fresh run, the player's app on it, waiting helpers."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pytest
from textual.app import App
from textual.pilot import Pilot

from ledger.canonical import dumps
from workbench.evaluation.evaluator import run_evaluation
from workbench.play.session import PlayerSession
from workbench.tui.app import AuthorApp, PlayerApp
from workbench.tui.screens.author.reports import ReportsScreen

SIZE = (120, 40)
SMALL = (80, 24)


@pytest.fixture
def run_dir(tmp_path: Path) -> Path:
    """A directory for a new run."""
    return tmp_path / "run"


@pytest.fixture
def app(run_dir: Path) -> PlayerApp:
    """The player's app on a fresh run of the default campaign (briefing not shown)."""
    return PlayerApp(PlayerSession.create(run_dir), briefing_at_start=False)


async def wait_for(
    pilot: Pilot, condition: Callable[[], bool], what: str, tries: int = 200
) -> None:
    """Let the app process messages until `condition` holds (workers finish, screens mount)."""
    for _ in range(tries):
        if condition():
            return
        await pilot.pause()
        await pilot.app.workers.wait_for_complete()
    raise AssertionError(f"timed out waiting for {what}")


async def go(pilot: Pilot, key: str) -> None:
    """Switch screens the way a player does: ctrl+o, then the screen's digit."""
    await pilot.press("ctrl+o", key)
    await pilot.pause()


def notices(app: App) -> list[str]:
    """The notifications shown on the current screen (its toasts), as text."""
    return [str(toast.render()) for toast in app.screen.query("Toast")]


async def notified(pilot: Pilot, text: str) -> None:
    """Wait until a notification containing `text` shows."""
    await wait_for(pilot, lambda: any(text in n for n in notices(pilot.app)), f"notice {text!r}")


def edited_validation(run: Path, root: Path, edit: Callable[[dict[str, Any]], None]) -> None:
    """Validate `run` into `root/run-validation`, then change its report.json with `edit`
    (written back in canonical encoding, as a hand edit that keeps it readable would be)."""
    out = root / "run-validation"
    run_evaluation(run, out)
    report = orjson.loads((out / "report.json").read_bytes())
    edit(report)
    (out / "report.json").write_bytes(dumps(report) + b"\n")


async def shown_report(pilot: Pilot, app: AuthorApp) -> ReportsScreen:
    """The author app's reports screen, once it shows the first report's questions."""
    await go(pilot, "3")
    reports = app.screen
    assert isinstance(reports, ReportsScreen)
    await wait_for(pilot, lambda: reports.questions.row_count > 0, "report shown")
    return reports
