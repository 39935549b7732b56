"""Pilot tests for the VC and causal panels, and the absence of author screens."""

from __future__ import annotations

import json
from pathlib import Path

from textual.widgets import DataTable, Input, Static, TextArea

from tests.tui.conftest import SIZE
from tests.tui.text import screen_text
from workbench.tui.app import WorkbenchApp
from workbench.tui.screens.causal import CausalScreen
from workbench.tui.screens.vc import VCScreen, highlighted


async def test_vc_generate_and_grade_highlights_cue(app: WorkbenchApp) -> None:
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("7")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, VCScreen)
        await pilot.click("#vc-generate")
        await pilot.pause()
        gold = screen.query_one("#vc-gold", Input).value
        assert gold
        screen.query_one("#vc-text", TextArea).text = f"Post-money first. The answer is {gold}"
        await pilot.press("ctrl+g")
        await pilot.pause()
        grade = screen.last_grade
        assert grade is not None and grade.cue is not None and grade.strict_correct == 1.0
        assert "strict ✓" in str(screen.query_one("#vc-verdict", Static).render())
        assert grade.cue_span is not None
        styles = {str(span.style) for span in highlighted(grade).spans}
        assert "reverse yellow" in styles and "bold reverse green" in styles


async def test_vc_bad_gold_notifies(app: WorkbenchApp) -> None:
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("7")
        await pilot.pause()
        app.screen.query_one("#vc-gold", Input).value = "not a number"
        await pilot.press("ctrl+g")
        await pilot.pause()
        assert any("Cannot grade" in n.message for n in app._notifications)


async def test_vc_batch_grades_a_file(app: WorkbenchApp, tmp_path: Path) -> None:
    rows = [
        {"completion": "The answer is 20.00", "answer": 20.0, "info": {"difficulty": "easy"}},
        {"completion": "roughly 31", "answer": 30.5, "info": {"difficulty": "hard"}},
    ]
    path = tmp_path / "grade.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("7")
        await pilot.pause()
        app.screen.query_one("#vc-file", Input).value = str(path)
        await pilot.press("ctrl+b")
        await app.workers.wait_for_complete()
        await pilot.pause()
        table = app.screen.query_one("#vc-summary", DataTable)
        assert [table.get_row_at(i)[0] for i in range(table.row_count)] == ["easy", "hard", "all"]


async def test_the_player_app_has_no_validate_or_check(app: WorkbenchApp) -> None:
    """Issue 11, finding 1: no key, screen or palette entry evaluates a branch or checks."""
    from workbench.tui.app import SCREEN_CLASS_NAMES, SCREENS_BY_KEY
    from workbench.tui.commands import palette_commands

    assert {"validate", "check"}.isdisjoint(SCREEN_CLASS_NAMES)
    assert {"validate", "check"}.isdisjoint(mode for _, mode, _ in SCREENS_BY_KEY)
    labels = [command[0] for command in palette_commands(app)]
    assert labels and not [label for label in labels if "author" in label.lower()]
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("w", "w", "n", "n", "n", "n", "8", "ctrl+v", "ctrl+k")
        await pilot.pause()
        text = screen_text(app.screen)
        assert "effect" not in text.lower() and "Validate" not in text


async def test_causal_load_estimate_submit_reveals_truth(app: WorkbenchApp) -> None:
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("6")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, CausalScreen)
        await pilot.press("ctrl+l")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert screen.query_one("#causal-preview", DataTable).row_count == 8
        assert "revealed after scoring" not in screen_text(screen)
        screen.action_diff_in_means()
        screen.action_use_estimate()
        await pilot.pause()
        assert '"interval"' in screen.query_one("#causal-answer", TextArea).text
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert screen.result is not None and screen.result.accepted
        assert "truth (revealed after scoring)" in screen_text(screen)


async def test_causal_bad_answer_is_not_accepted(app: WorkbenchApp) -> None:
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("6")
        await pilot.pause()
        await pilot.press("ctrl+l")
        await app.workers.wait_for_complete()
        await pilot.pause()
        app.screen.query_one("#causal-answer", TextArea).text = '{"estimate": "x"}'
        await pilot.press("ctrl+s")
        await pilot.pause()
        text = screen_text(app.screen)
        assert "not accepted" in text and "revealed after scoring" not in text
