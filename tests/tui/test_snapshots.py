"""Snapshot tests of every player screen, the briefing and the summary, at 80×24 and 120×40.

Each starts from the same played state (a hire on day 0, a campaign on day 20, day 25),
so the charts, the commitments and the journal have something to show. Regenerate after
an intended change with `pytest tests/tui/test_snapshots.py --snapshot-update`.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.pilot import Pilot

from tests.tui.conftest import SIZE, SMALL
from workbench.play.session import PlayerSession
from workbench.tui.app import PLAYER_SCREENS, PlayerApp

SIZES = {"120x40": SIZE, "80x24": SMALL}


@pytest.fixture
def app(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> PlayerApp:
    """The app on a new run at the relative path `run` (paths show the same in every run)."""
    monkeypatch.chdir(tmp_path)
    return PlayerApp(PlayerSession.create(Path("run")), briefing_at_start=False)


async def played(pilot: Pilot) -> None:
    """Bring the app to day 25 with two actions scheduled (fixed command ids: same hashes)."""
    app = pilot.app
    assert isinstance(app, PlayerApp)
    session = app.session
    session.schedule("hire_sales_rep", command_id="snap-1")
    session.advance(20, command_id="snap-2")
    session.schedule("spring_campaign", command_id="snap-3")
    session.advance(5, command_id="snap-4")
    app.session_changed()
    await pilot.pause()


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("spec", PLAYER_SCREENS, ids=lambda spec: spec.mode)
def test_player_screen(snap_compare, app: PlayerApp, spec, size: str) -> None:
    assert snap_compare(
        app, terminal_size=SIZES[size], run_before=played, press=["ctrl+o", spec.key]
    )


@pytest.mark.parametrize("size", SIZES)
def test_briefing(snap_compare, tmp_path: Path, size: str) -> None:
    app = PlayerApp(PlayerSession.create(tmp_path / "run"))
    assert snap_compare(app, terminal_size=SIZES[size])


@pytest.mark.parametrize("size", SIZES)
def test_end_of_campaign_summary(snap_compare, app: PlayerApp, size: str) -> None:
    async def finish(pilot: Pilot) -> None:
        await played(pilot)
        app.session.advance(app.session.horizon - app.session.day, command_id="snap-5")
        app.session_changed()
        app.show_summary()
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZES[size], run_before=finish)
