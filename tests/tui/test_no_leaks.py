"""The player screens never show a simulated branch outcome (the evaluator's numbers)."""

from __future__ import annotations

import shutil
from decimal import Decimal
from pathlib import Path

from tests.tui.conftest import SIZE
from tests.tui.text import screen_text
from workbench.evaluation.evaluator import run_evaluation
from workbench.play.session import PlayerSession
from workbench.tui.app import WorkbenchApp

PLAYER_KEYS = ("1", "2", "3", "4", "5")


def branch_numbers(run_dir: Path, tmp_path: Path) -> set[str]:
    """Every branch outcome and effect of a finished copy of the run, as text forms."""
    copy = tmp_path / "finished"
    shutil.copytree(run_dir, copy)
    PlayerSession.resume(copy).run_to_horizon()
    outcome = run_evaluation(copy, tmp_path / "report")
    numbers: set[str] = set()
    for entry in outcome.report.to_json()["questions"]:
        values = [entry.get("effect")]
        values += [(b or {}).get("outcome") for b in (entry.get("branches") or {}).values()]
        for value in values:
            if value is not None and Decimal(value) != 0:
                numbers |= {value, str(Decimal(value).normalize())}
    return numbers


async def test_player_screens_show_no_branch_outcome(app: WorkbenchApp, tmp_path: Path) -> None:
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("w", "w")
        await pilot.press("3")
        await pilot.pause()
        app.screen.query_one("#value").value = "1234.5"
        await pilot.press("ctrl+s")
        await pilot.pause()
        numbers = branch_numbers(app.run_dir, tmp_path)
        assert numbers
        for key in PLAYER_KEYS:
            await pilot.press(key)
            await pilot.pause()
            text = screen_text(app.screen)
            shown = [n for n in numbers if n in text]
            assert not shown, f"screen {key} shows branch outcomes {shown}"
