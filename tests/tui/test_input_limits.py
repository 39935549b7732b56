"""Every text field on every screen takes a bounded amount of text.

Fields a screen sizes itself (a day, a seed, a value) keep their own limit; every other
takes at most `MAX_FIELD` characters, and the answer and completion boxes (text areas)
are bounded where they are graded (tests/graders).
"""

from __future__ import annotations

from pathlib import Path

from textual.app import App
from textual.widgets import Input

from campaigns import DEFAULT_CAMPAIGN
from tests.tui.conftest import SIZE, go
from workbench.play.session import PlayerSession
from workbench.tui.app import AUTHOR_SCREENS, PLAYER_SCREENS, AuthorApp, PlayerApp, ScreenSpec
from workbench.tui.widgets.inputs import MAX_FIELD


async def _field_limits(app: App, screens: tuple[ScreenSpec, ...]) -> dict[str, int]:
    """Each screen's text fields and their max_length, after visiting every screen."""
    limits: dict[str, int] = {}
    async with app.run_test(size=SIZE) as pilot:
        for spec in screens:
            await go(pilot, spec.key)
            for field in app.screen.query(Input):
                limits[f"{spec.label}/{field.id or field.placeholder}"] = field.max_length
    return limits


async def test_every_players_field_is_bounded(tmp_path: Path) -> None:
    app = PlayerApp(PlayerSession.create(tmp_path / "run"), briefing_at_start=False)
    limits = await _field_limits(app, PLAYER_SCREENS)
    assert len(limits) >= 8, limits
    assert all(0 < limit <= MAX_FIELD for limit in limits.values()), limits


async def test_every_authors_field_is_bounded(demo_run: Path) -> None:
    app = AuthorApp(DEFAULT_CAMPAIGN, demo_run.parent)
    limits = await _field_limits(app, AUTHOR_SCREENS)
    assert len(limits) >= 2, limits
    assert all(0 < limit <= MAX_FIELD for limit in limits.values()), limits
