"""Save README screenshots (SVG) of the dashboard, the VC panel and the causal panel."""

from __future__ import annotations

import asyncio
import sys
import tempfile
from pathlib import Path

from textual.widgets import TextArea

from workbench.play.session import PlayerSession
from workbench.tui.app import WorkbenchApp

OUT = Path(__file__).resolve().parent / "screenshots"
SIZE = (120, 40)


async def shoot(run_dir: Path) -> list[Path]:
    """Play a few days, then save one SVG per screen into docs/screenshots/."""
    app = WorkbenchApp(PlayerSession.create(run_dir))
    saved = []
    async with app.run_test(size=SIZE) as pilot:
        app.schedule("hire_sales_rep")
        app.advance(20)
        app.schedule("spring_campaign")
        app.advance(5)
        app.clear_notifications()
        await pilot.pause()
        saved.append(Path(app.save_screenshot("dashboard.svg", str(OUT))))
        await pilot.press("7")
        await pilot.pause()
        await pilot.click("#vc-generate")
        gold = app.screen.query_one("#vc-gold").value
        app.screen.query_one("#vc-text", TextArea).text = (
            f"Post-money is pre-money plus the raise, so the share is {gold}%.\n"
            f"The answer is {gold}"
        )
        await pilot.press("ctrl+g")
        await pilot.pause()
        saved.append(Path(app.save_screenshot("vc_panel.svg", str(OUT))))
        await pilot.press("6")
        await pilot.pause()
        await pilot.press("ctrl+l")
        await app.workers.wait_for_complete()
        await pilot.pause()
        app.screen.action_diff_in_means()
        app.screen.action_use_estimate()
        app.clear_notifications()
        await pilot.pause()
        saved.append(Path(app.save_screenshot("causal_panel.svg", str(OUT))))
    return saved


def main() -> int:
    """Write the three SVGs and print their paths."""
    OUT.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        for path in asyncio.run(shoot(Path(tmp) / "run")):
            print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
