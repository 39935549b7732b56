"""The dashboard on a hosted run: every player screen opens on a RemoteSession."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Static

from tests.tui.conftest import SIZE
from workbench.play.remote import RemoteSession
from workbench.tui.app import WorkbenchApp

from .conftest import ALPHA, Live


async def test_the_dashboard_plays_a_hosted_run(
    live: Live, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    session = RemoteSession.connect(live.url, ALPHA, live.hosted.tokens[ALPHA], None)
    app = WorkbenchApp(session)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert app.run_dir == tmp_path and app.sub_title == session.view().campaign.title
        await pilot.press("n")
        await pilot.pause()
        assert session.day == 1
        for key in ("2", "3", "4", "5"):
            await pilot.press(key)
            await pilot.pause()
        await pilot.press("4")
        await pilot.pause()
        assert "verified by the host" in str(app.screen.query_one("#integrity", Static).render())
        assert app.export_ledger("csv") == tmp_path / "ledger.csv"
    assert (tmp_path / "ledger.csv").read_text() == session.ledger().export("csv")
