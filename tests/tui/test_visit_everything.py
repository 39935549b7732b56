"""Visit every question, every action and every row of every table: nothing may crash.

The Questions screen once raised KeyError on one question kind; this walks the whole
app the way a curious player would, after some play (`tests/tui/walk.py`; the same walk
on a campaign full of markup is in test_markup.py). (What each screen shows at 80x24 is
pinned by the snapshot tests and `test_small_terminal_keeps_every_column`.)
"""

from __future__ import annotations

from pathlib import Path

from tests.tui.walk import visit_everything
from workbench.play.session import PlayerSession
from workbench.tui.app import PlayerApp


async def test_visit_everything(tmp_path: Path) -> None:
    await visit_everything(
        PlayerApp(PlayerSession.create(tmp_path / "run"), briefing_at_start=True)
    )
