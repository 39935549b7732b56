"""Pilot tests of the VC and causal-gym panels, with workers awaited through their messages."""

from __future__ import annotations

import json
from pathlib import Path

from textual.widgets import Button

from tests.tui.conftest import SIZE, go, notified, wait_for
from tests.tui.text import screen_text
from workbench.tui.app import PlayerApp
from workbench.tui.screens.causal import CausalScreen
from workbench.tui.screens.vc import VCScreen, highlighted
from workbench.tui.widgets.progress import JobProgress


async def test_vc_generate_and_grade_highlights_cue(app: PlayerApp) -> None:
    async with app.run_test(size=SIZE) as pilot:
        await go(pilot, "7")
        screen = app.screen
        assert isinstance(screen, VCScreen)
        await pilot.click("#vc-generate")
        await wait_for(pilot, lambda: bool(screen.gold.value), "generated item")
        screen.text.text = f"Post-money first. The answer is {screen.gold.value}"
        await pilot.press("ctrl+g")
        await wait_for(pilot, lambda: screen.last_grade is not None, "grade")
        grade = screen.last_grade
        assert grade is not None and grade.cue is not None and grade.strict_correct == 1.0
        assert "strict ✓" in str(screen.verdict.render())
        styles = {str(span.style) for span in highlighted(grade).spans}
        assert "reverse yellow" in styles and "bold reverse green" in styles


async def test_vc_bad_gold_notifies(app: PlayerApp) -> None:
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await go(pilot, "7")
        app.screen.gold.value = "not a number"  # type: ignore[attr-defined]
        await pilot.press("ctrl+g")
        await notified(pilot, "Cannot grade")


async def test_vc_batch_grades_a_file_and_the_bar_rests(app: PlayerApp, tmp_path: Path) -> None:
    rows = [
        {"completion": "The answer is 20.00", "answer": 20.0, "info": {"difficulty": "easy"}},
        {"completion": "roughly 31", "answer": 30.5, "info": {"difficulty": "hard"}},
    ]
    path = tmp_path / "grade.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    async with app.run_test(size=SIZE) as pilot:
        await go(pilot, "7")
        screen = app.screen
        assert isinstance(screen, VCScreen)
        bar = screen.query_one(JobProgress)
        assert not bar.display and not bar.running
        screen.file.value = str(path)
        await pilot.press("ctrl+b")
        await wait_for(pilot, lambda: screen.summary.row_count == 3, "summary rows")
        names = [screen.summary.row_text(i)[0] for i in range(screen.summary.row_count)]
        assert names == ["easy", "hard", "all"]
        assert not bar.running and not bar.display


async def test_causal_load_estimate_submit_reveals_truth(app: PlayerApp) -> None:
    async with app.run_test(size=SIZE) as pilot:
        await go(pilot, "6")
        screen = app.screen
        assert isinstance(screen, CausalScreen)
        await pilot.press("ctrl+l")
        await wait_for(pilot, lambda: screen.preview.row_count == 8, "task loaded")
        assert "revealed after scoring" not in screen_text(screen)
        screen.action_diff_in_means()
        screen.action_use_estimate()
        await pilot.pause()
        assert '"interval"' in screen.answer.text
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: screen.result is not None, "scored")
        assert screen.result.accepted
        assert "truth (revealed after scoring)" in screen_text(screen)


async def test_causal_enter_in_adjust_for_runs_ols_and_buttons_are_full_height(
    app: PlayerApp,
) -> None:
    async with app.run_test(size=SIZE) as pilot:
        await go(pilot, "6")
        screen = app.screen
        assert isinstance(screen, CausalScreen)
        for button in screen.query(Button):
            assert button.outer_size.height == 3, button.id
        await pilot.press("ctrl+l")
        await wait_for(pilot, lambda: screen.panel is not None, "task loaded")
        info = str(screen.info.render())
        column = info.split("pre-treatment: ")[1].split("\n")[0].split(",")[0].strip()
        screen.columns.focus()
        await pilot.press(*column, "enter")
        await wait_for(pilot, lambda: "OLS adjusted for" in str(screen.estimate.render()), "OLS")


async def test_causal_bad_answer_is_not_accepted(app: PlayerApp) -> None:
    async with app.run_test(size=SIZE) as pilot:
        await go(pilot, "6")
        screen = app.screen
        assert isinstance(screen, CausalScreen)
        await pilot.press("ctrl+l")
        await wait_for(pilot, lambda: screen.panel is not None, "task loaded")
        screen.answer.text = '{"estimate": "x"}'
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: "not accepted" in screen_text(screen), "refusal")
        assert "revealed after scoring" not in screen_text(screen)


def test_vc_verdicts_say_when_a_text_skips_the_prompts_form() -> None:
    from graders.vc_deal import VCPanel
    from workbench.tui.screens.vc import verdict_text

    loose = verdict_text(
        VCPanel().grade_text("The investor ends up with roughly 9 percent.", "9.09")
    )
    assert "format ✓" in loose and 'Does not end with "The answer is X"' in loose
    exact = verdict_text(VCPanel().grade_text("So: The answer is 9.09%.", "9.09"))
    assert 'Ends with "The answer is X"' in exact
