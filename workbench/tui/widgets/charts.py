"""Charts over the campaign's days (textual-plotext): metrics with axes, a commitment timeline."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal

from textual.app import RenderResult
from textual_plotext import PlotextPlot

from workbench.display import unit_label


def compact(value: float, units: str) -> str:
    """An axis label: `$20k`, `-$1.5k`, `1,200` (short enough for a narrow axis)."""
    sign = "-" if value < 0 else ""
    size = abs(value)
    if size >= 1_000_000:
        text = f"{size / 1_000_000:.1f}".rstrip("0").rstrip(".") + "M"
    elif size >= 1000:
        text = f"{size / 1000:.1f}".rstrip("0").rstrip(".") + "k"
    else:
        text = f"{size:.1f}".rstrip("0").rstrip(".")
    return f"{sign}${text}" if units == "USD" else f"{sign}{text}"


def ticks(low: float, high: float, count: int = 4) -> list[float]:
    """Round ticks (1, 2 or 5 × 10^k apart) from at or below `low` to at or above `high`.

    The axis spans the first to the last tick, so every value stays inside it (plotext
    drops points outside its limits).
    """
    span = high - low
    if span <= 0:
        return [low]
    raw = span / max(count - 1, 1)
    magnitude = 10 ** math.floor(math.log10(raw))
    step = next(m * magnitude for m in (1, 2, 5, 10) if m * magnitude >= raw)
    first = math.floor(low / step) * step
    marks = [first - step if first > low else first]
    while marks[-1] < high:
        marks.append(marks[-1] + step)
    return marks


@dataclass(frozen=True)
class Series:
    """One line of a chart: its name and a value for each day from day 0."""

    name: str
    values: Sequence[Decimal]


def legend_room(low: float, top: float, highest: float, rows: int, legend: int) -> float:
    """The axis top that keeps every value up to `highest` below a legend of `legend` rows.

    plotext draws the legend over the first rows of the canvas, at its left, and lines
    under it: the $105k objective line ran through the "Cash on hand" legend row. With
    the top raised so the highest value sits at most (rows - legend - 1) / rows of the
    way up, nothing drawn reaches those rows, in plotext's mapping and in braille's.
    """
    free = rows - legend - 1
    if legend < 1 or free < 1 or highest <= low:
        return top
    return max(top, low + (highest - low) * rows / free)


class TitledPlot(PlotextPlot):
    """A plot drawn for the size it has whenever it renders (a resize included): `show`
    keeps what to draw, `draw` draws it, and the title is cut to the width (plotext drops
    a title that is too long)."""

    title = ""

    def draw(self) -> None:
        """Draw the figure for the current size (subclasses draw what `show` kept)."""

    def render(self) -> RenderResult:
        """Draw for this size, fit the title, then build."""
        self.plt.clear_figure()
        self.draw()
        self.plt.title(self.title[: max(self.size.width - 12, 8)])
        return super().render()


CHROME_ROWS = 5
"""A chart's rows around its canvas: title, the two axis lines, day numbers, "day"."""

PLOT_ROWS = 4
"""The fewest canvas rows a legend leaves below itself; on a shorter canvas the legend
is left out (the title names the lines): raising the axis over it squeezed the lines
into a row or two, where tick labels fell on the wrong values."""


@dataclass(frozen=True)
class MetricFigure:
    """What a metric chart shows: units, its lines, the days axis and a target line."""

    units: str
    series: tuple[Series, ...]
    horizon: int
    target: Decimal | None


class MetricChart(TitledPlot):
    """A metric (or two in the same units) by day, with a day axis, a unit axis and a target."""

    DEFAULT_CSS = """
    MetricChart {
        height: 1fr;
        min-height: 8;
    }
    """

    figure: MetricFigure | None = None

    def show(
        self,
        title: str,
        units: str,
        series: Sequence[Series],
        horizon: int,
        target: Decimal | None = None,
    ) -> None:
        """Show the series over days 0..horizon, with the target as a horizontal line."""
        self.title = f"{title} ({unit_label(units)})"
        self.figure = MetricFigure(units, tuple(series), horizon, target)
        self.refresh()

    def draw(self) -> None:
        """The lines, the target, and a unit axis whose top leaves the legend's rows free;
        no legend on a canvas too short to hold it above a line (the title names them)."""
        figure = self.figure
        if figure is None:
            return
        plt = self.plt
        plt.xlabel("day")
        values = [float(v) for s in figure.series for v in s.values]
        if figure.target is not None:
            values.append(float(figure.target))
        lines = [line for line in figure.series if line.values]
        rows = self.size.height - CHROME_ROWS
        legend = len(lines) if rows - len(lines) >= PLOT_ROWS else 0
        for line in lines:
            days = list(range(len(line.values)))
            label = line.name if legend else None
            plt.plot(days, [float(v) for v in line.values], label=label, marker="braille")
        if figure.target is not None:
            plt.hline(float(figure.target), "green")
        plt.xlim(0, figure.horizon)
        if values:
            low, high = min(values + [0.0]), max(values)
            high = high if high > low else low + 100
            marks = ticks(low, high)
            plt.ylim(marks[0], legend_room(marks[0], marks[-1], high, rows, legend))
            plt.yticks(marks, [compact(m, figure.units) for m in marks])


LABEL = 14
"""The widest action name on the timeline's axis."""


@dataclass(frozen=True)
class Span:
    """An action on the timeline: scheduled, then its effects landing (or completed)."""

    action: str
    scheduled: int
    lands: tuple[int, ...]
    done: bool


class CommitmentTimeline(TitledPlot):
    """Commitments as bars from the day scheduled to the days their effects land; today marked."""

    DEFAULT_CSS = """
    CommitmentTimeline {
        height: 1fr;
        min-height: 6;
    }
    """

    spans: tuple[Span, ...] = ()
    today = 0
    horizon = 0

    def show(self, spans: Sequence[Span], today: int, horizon: int) -> None:
        """Show one row per action and a vertical line at today."""
        self.title = "Commitments (◆ effects land, | today)" if spans else "No commitments yet"
        self.spans, self.today, self.horizon = tuple(spans), today, horizon
        self.refresh()

    def draw(self) -> None:
        """The bars, today's line, and action names as wide as this width allows (a fifth)."""
        plt = self.plt
        plt.xlabel("day")
        spans = self.spans
        for row, span in enumerate(spans, start=1):
            end = max(span.lands) if span.lands else span.scheduled
            colour = "gray" if span.done else "cyan"
            plt.plot([span.scheduled, max(end, span.scheduled + 1)], [row, row], color=colour)
            if span.lands:
                plt.scatter(list(span.lands), [row] * len(span.lands), marker="◆", color="orange")
        plt.vline(self.today, "red")
        plt.xlim(0, self.horizon)
        plt.ylim(0.5, max(len(spans), 1) + 0.5)
        width = max(6, min(LABEL, self.size.width // 5))
        plt.yticks(list(range(1, len(spans) + 1)), [s.action[:width] for s in spans])
