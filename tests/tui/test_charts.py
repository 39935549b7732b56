"""The dashboard's charts: the legend rows stay clear of every line, and what depends on
the chart's size (the commitment names) is drawn again for each size."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.tui.conftest import SIZE, SMALL, wait_for
from workbench.play.session import PlayerSession
from workbench.tui.app import PlayerApp
from workbench.tui.widgets.charts import CommitmentTimeline, MetricChart, legend_room


def chart_lines(chart: MetricChart | CommitmentTimeline) -> list[str]:
    """The chart as the player sees it, line by line."""
    return str(chart.render()).splitlines()


@pytest.mark.parametrize("size", [SIZE, SMALL, (100, 32)])
@pytest.mark.parametrize("days", [0, 21])
async def test_no_line_crosses_the_legend(run_dir: Path, size: tuple[int, int], days: int) -> None:
    """The $105k objective line ran through the "Cash on hand" legend row."""
    session = PlayerSession.create(run_dir)
    if days:
        session.advance(days)
    app = PlayerApp(session, briefing_at_start=False)
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        chart = app.screen.query_one("#money-chart", MetricChart)
        lines = chart_lines(chart)
        legend = [line for line in lines if "⢕⢕" in line]
        for line in legend:
            assert "─" not in line, "\n".join(lines)
        objective = [line for line in lines if "├──" in line and line.rstrip().endswith("┤")]
        assert len(objective) == 1, "\n".join(lines)
        if size == SIZE:  # a chart tall enough for its legend above a line
            assert [row.split("⢕⢕ ")[1].split()[0] for row in legend] == ["Net", "Cash"]


def test_the_legend_room_leaves_the_top_rows_free() -> None:
    """With the axis top it gives, the highest value maps below the legend's rows in
    plotext's own mapping (row = floor(0.5 + (rows - 1) × fraction), 0 at the bottom)."""
    from hypothesis import given
    from hypothesis import strategies as st

    @given(
        st.floats(-1e6, 1e6),
        st.floats(1, 1e6),
        st.floats(0, 1),
        st.integers(4, 40),
        st.integers(1, 3),
    )
    def clear(low: float, span: float, share: float, rows: int, legend: int) -> None:
        top = low + span
        highest = low + span * share
        raised = legend_room(low, top, highest, rows, legend)
        assert raised >= top
        if rows - legend - 1 >= 1 and highest > low:
            row = int(0.5 + (rows - 1) * (highest - low) / (raised - low) + 1e-9)
            assert row <= rows - 1 - legend
            braille = int(0.5 + (4 * rows - 1) * (highest - low) / (raised - low) + 1e-9)
            assert braille // 4 <= rows - 1 - legend

    clear()


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
