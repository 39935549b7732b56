"""The player's screens never show a simulated branch outcome (the evaluator's numbers)."""

from __future__ import annotations

import shutil
from decimal import Decimal
from pathlib import Path

from tests.tui.conftest import SIZE, go, wait_for
from tests.tui.text import screen_text
from workbench.display import money
from workbench.evaluation.evaluator import run_evaluation
from workbench.play.session import PlayerSession
from workbench.tui.app import PLAYER_SCREENS, PlayerApp
from workbench.tui.screens.questions import QuestionsScreen


def branch_numbers(run_dir: Path, tmp_path: Path) -> set[str]:
    """Every branch outcome and effect of a finished copy of the run, in every text form."""
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
                numbers |= {value, str(Decimal(value).normalize()), money(value)}
    return numbers


async def test_player_screens_show_no_branch_outcome(app: PlayerApp, tmp_path: Path) -> None:
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("w", "w")
        await go(pilot, "3")
        screen = app.screen
        assert isinstance(screen, QuestionsScreen)
        screen.form.value.value = "1234.5"
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: screen.history.row_count == 1, "submission")
        numbers = branch_numbers(app.export_dir, tmp_path)
        assert numbers
        for spec in PLAYER_SCREENS:
            await go(pilot, spec.key)
            text = screen_text(app.screen)
            shown = [n for n in numbers if n in text]
            assert not shown, f"screen {spec.label} shows branch outcomes {shown}"
