"""The Textual dashboard plays a hosted run through a remote session (`play --connect`).

The app is the same one a local run opens; only its session is remote. Keys advance and
schedule, every screen opens, and the commands land in the run the host keeps.
"""

from __future__ import annotations

from textual.widgets import Static

from ledger.journal import Journal
from tests.tui.text import screen_text
from workbench.play.remote import RemoteSession
from workbench.tui.app import SCREENS_BY_KEY, WorkbenchApp
from workbench.tui.screens.confirm import ConfirmSchedule

from .conftest import ALPHA, Live

SIZE = (120, 40)


async def test_the_dashboard_plays_a_hosted_run(live: Live) -> None:
    session = RemoteSession.connect(live.url, ALPHA, live.hosted.tokens[ALPHA])
    app = WorkbenchApp(session)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert app.sub_title == live.runtime.bundle.campaign.title
        assert "Day 0" in screen_text(app.screen)
        await pilot.press("n")
        await pilot.pause()
        assert session.day == 1 and "Day 1" in screen_text(app.screen)
        await pilot.press("2", "s")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmSchedule)
        assert "Would be accepted" in screen_text(app.screen)
        await pilot.press("y")
        await pilot.pause()
        assert "hire_roaster" in [c.action for c in session.view().commitments]
        for key, mode, _ in SCREENS_BY_KEY:
            await pilot.press(key)
            await pilot.pause()
            assert app.current_mode == mode
        await pilot.press("4")
        await pilot.pause()
        integrity = str(app.screen.query_one("#integrity", Static).render())
        assert integrity.startswith("Hosted run: 2 commands, head")
    session.close()
    journal = Journal.open(live.hosted.runs / session.run_id / "journal.jsonl")
    assert [e.kind for e in journal.entries[1:]] == ["advance", "schedule"]
