"""Save the README screenshots (SVG): briefing, dashboard, actions, questions, summary, panels.

Run with `make screenshots` (or `python docs/make_screenshots.py`); it plays a fresh run
of the default campaign in a temporary folder and writes docs/screenshots/*.svg.
"""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile
from pathlib import Path

from textual.pilot import Pilot

from workbench.play.session import PlayerSession
from workbench.tui.app import AuthorApp, PlayerApp

OUT = Path(__file__).resolve().parent / "screenshots"
SIZE = (120, 40)


async def save(pilot: Pilot, name: str) -> Path:
    """Wait for the screen to settle, then save it."""
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()
    pilot.app.clear_notifications()
    await pilot.pause()
    return Path(pilot.app.save_screenshot(name, str(OUT)))


async def player(run_dir: Path) -> list[Path]:
    """The briefing, the dashboard after some play, actions, questions, the end summary."""
    app = PlayerApp(PlayerSession.create(run_dir))
    saved = []
    async with app.run_test(size=SIZE) as pilot:
        saved.append(await save(pilot, "briefing.svg"))
        await pilot.press("enter", "ctrl+o", "3")
        questions = app.screen
        questions.table.move_cursor(row=questions.table.get_row_index("q_bank_loan"))  # type: ignore[attr-defined]
        await pilot.pause()
        questions.form.value.value = "-1300"  # type: ignore[attr-defined]
        questions.form.conclusion.value = "-300.005"  # type: ignore[attr-defined]
        saved.append(await save(pilot, "questions.svg"))
        # The typed answer is only for the picture: left in the form, the advances below
        # would stop to ask before losing it (and the summary would show day 12).
        questions.form.value.value = ""  # type: ignore[attr-defined]
        questions.form.conclusion.value = ""  # type: ignore[attr-defined]
        await pilot.pause()
        assert not app.unsent, app.unsent
        await pilot.press("ctrl+o", "1")
        app.schedule("hire_sales_rep")
        app.advance(20)
        app.schedule("spring_campaign")
        app.advance(12)
        assert app.session.day == 32, app.session.day
        saved.append(await save(pilot, "dashboard.svg"))
        await pilot.press("ctrl+o", "2")
        app.screen.catalog.move_cursor(row=5)  # type: ignore[attr-defined]
        saved.append(await save(pilot, "actions.svg"))
        app.submit({"question": "q_pick_a_lever", "value": "2500", "choice": "raise_price"})
        await pilot.press("ctrl+o", "1")
        app.advance(app.session.horizon - app.session.day, confirmed=True)
        assert app.session.finished, app.session.day
        saved.append(await save(pilot, "summary.svg"))
        await pilot.press("escape", "ctrl+o", "7")
        await pilot.click("#vc-generate")
        vc = app.screen
        gold = vc.gold.value  # type: ignore[attr-defined]
        vc.text.text = (  # type: ignore[attr-defined]
            f"Post-money is pre-money plus the raise, so the share is {gold}%.\n"
            f"The answer is {gold}"
        )
        await pilot.press("ctrl+g")
        saved.append(await save(pilot, "vc_panel.svg"))
        await pilot.press("ctrl+o", "6", "ctrl+l")
        await app.workers.wait_for_complete()
        await pilot.pause()
        app.screen.action_diff_in_means()  # type: ignore[attr-defined]
        app.screen.action_use_estimate()  # type: ignore[attr-defined]
        saved.append(await save(pilot, "causal_panel.svg"))
    return saved


async def author(runs: Path) -> list[Path]:
    """Author mode: the campaign's check findings."""
    app = AuthorApp(Path("default"), runs)  # by name: the picture shows no checkout's path
    async with app.run_test(size=SIZE) as pilot:
        while app.screen.ok is None:  # type: ignore[attr-defined]
            await pilot.pause(0.05)
        return [await save(pilot, "author_check.svg")]


def main() -> int:
    """Write every SVG and print its path."""
    OUT.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        os.chdir(tmp)
        paths = asyncio.run(player(Path("runs/play-1"))) + asyncio.run(author(Path("runs")))
    for path in paths:
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
