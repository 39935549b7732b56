"""The dashboard's charts: what depends on the chart's size (the commitment names) is
drawn again for each size."""

from __future__ import annotations

from pathlib import Path

from tests.tui.conftest import wait_for
from workbench.play.session import PlayerSession
from workbench.tui.app import PlayerApp
from workbench.tui.widgets.charts import CommitmentTimeline, MetricChart


def chart_lines(chart: MetricChart | CommitmentTimeline) -> list[str]:
    """The chart as the player sees it, line by line."""
    return str(chart.render()).splitlines()


async def test_commitment_names_follow_a_resize(run_dir: Path) -> None:
    """Names cut to fit a narrow terminal stayed cut after it widened (and long ones
    overflowed after it narrowed) until the next day closed."""
    session = PlayerSession.create(run_dir)
    session.schedule("hire_sales_rep")
    session.advance(2)
    app = PlayerApp(session, briefing_at_start=False)
    async with app.run_test(size=(70, 40)) as pilot:
        await pilot.pause()
        timeline = app.screen.query_one(CommitmentTimeline)
        name = "hire_sales_rep"

        def shown() -> str:
            return next((line for line in chart_lines(timeline) if "┤" in line), "")

        assert name[:6] in shown() and name not in shown()
        await pilot.resize_terminal(160, 45)
        await wait_for(pilot, lambda: name in shown(), "the whole name after widening")
        await pilot.resize_terminal(70, 40)
        await wait_for(pilot, lambda: name not in shown(), "a cut name after narrowing")
        assert app.session.day == 2
