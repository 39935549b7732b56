"""The dashboard: day, objective progress, metrics, charts over days, commitments, alerts."""

from __future__ import annotations

from decimal import Decimal
from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Input

from workbench.play.objective import progress_in
from workbench.tui.errors import shown_as_notice
from workbench.tui.screens.base import PlayerScreen
from workbench.tui.widgets.charts import CommitmentTimeline, MetricChart, Series, Span
from workbench.tui.widgets.dashboard import (
    AlertsPanel,
    DayStatus,
    MetricsTable,
    ObjectivePanel,
    OperationsPanel,
)
from workbench.tui.widgets.inputs import NumberInput

if TYPE_CHECKING:
    from workbench.play.models import PublicView

MONEY_CHART = ("net_assets", "cash")
"""The first chart's preferred metrics: net assets (with the objective's target) and cash."""


def money_chart_metrics(view: PublicView) -> tuple[str, ...]:
    """The campaign's metrics for the first chart: net assets and cash when it has them,
    else its first two money metrics (a campaign chooses its own metric ids)."""
    ids = [row.id for row in view.metrics]
    preferred = tuple(m for m in MONEY_CHART if m in ids)
    if preferred:
        return preferred
    return tuple(row.id for row in view.metrics if row.units == "USD")[:2]


def default_metric(view: PublicView, beside: tuple[str, ...]) -> str | None:
    """The metric the second chart shows until one is picked: the first not charted beside."""
    rest = [row.id for row in view.metrics if row.id not in beside]
    return rest[0] if rest else None


class DashboardScreen(PlayerScreen):
    """Where the run stands today, and keys to advance it."""

    DEFAULT_CSS = """
    DashboardScreen #dash-status {
        height: 1;
    }
    DashboardScreen #days {
        width: 12;
        height: 1;
        border: none;
        padding: 0 1;
    }
    DashboardScreen #dash-main {
        height: 1fr;
    }
    DashboardScreen #dash-left {
        width: auto;
        min-width: 40;
        max-width: 50;
        height: auto;
    }
    DashboardScreen #dash-charts {
        width: 1fr;
        height: 1fr;
        min-height: 18;
    }
    DashboardScreen.-short #metric-chart {
        display: none;
    }
    """
    HOME = "MetricsTable"
    BINDINGS = [
        Binding("n", "advance(1)", "Next day"),
        Binding("w", "advance(7)", "+7 days"),
        Binding("a", "focus_days", "Advance N"),
        Binding("b", "briefing", "Briefing"),
        Binding("e", "summary", "Summary"),
        Binding("f", "finish", "Finish run"),
    ]

    def compose_body(self) -> ComposeResult:
        """Status line, objective, then metrics and panels beside the charts."""
        self.status = DayStatus()
        self.days = NumberInput(
            placeholder="N days", id="days", field="Days to advance", once=True, max_length=4
        )
        self.objective = ObjectivePanel()
        self.metrics = MetricsTable()
        self.operations = OperationsPanel()
        self.alerts = AlertsPanel()
        self.money_chart = MetricChart(id="money-chart")
        self.metric_chart = MetricChart(id="metric-chart")
        self.timeline = CommitmentTimeline()
        with Horizontal(id="dash-status"):
            yield self.status
            yield self.days
        yield self.objective
        with VerticalScroll(id="dash-main"), Horizontal():
            with Vertical(id="dash-left"):
                yield self.metrics
                yield self.operations
                yield self.alerts
            with Vertical(id="dash-charts"):
                yield self.money_chart
                yield self.metric_chart
                yield self.timeline

    def refresh_view(self) -> None:
        """Repaint everything from the session's public view."""
        view = self.session.view()
        series = self.session.metric_series()
        progress = progress_in(view, series)
        self.status.show(view)
        self.objective.show(progress)
        self.metrics.show(view.metrics)
        self.operations.show(view.state)
        self.alerts.show(view.alerts, view.state.missed_payrolls)
        money = money_chart_metrics(view)
        target = next(
            (
                g.goal.threshold
                for p in progress
                for g in p.goals
                if money and g.goal.metric == money[0] and g.goal.bound == "at_least"
            ),
            None,
        )
        titles = _titles(view)
        self.money_chart.show(
            ", ".join(titles[m] for m in money) + (" vs objective" if target else ""),
            "USD",
            [Series(titles[m], series[m]) for m in money if m in series],
            view.horizon,
            target,
        )
        self._metric_chart(view, series)
        self.timeline.show(_spans(view), view.day, view.horizon)

    def _metric_chart(self, view: PublicView, series: dict[str, list[Decimal]]) -> None:
        money = money_chart_metrics(view)
        picked = self.metrics.selected
        if picked is None or picked in money:
            picked = default_metric(view, money)
        row = next((r for r in view.metrics if r.id == picked), None)
        if row is None or row.id not in series:
            self.metric_chart.show("No other metric", "", [], view.horizon)
            return
        title = _titles(view)[row.id]
        self.metric_chart.show(title, row.units, [Series(title, series[row.id])], view.horizon)

    @shown_as_notice
    def on_metrics_table_picked(self, message: MetricsTable.Picked) -> None:
        """Chart the highlighted metric."""
        self._metric_chart(self.session.view(), self.session.metric_series())

    def action_advance(self, days: int) -> None:
        """Advance the run."""
        self.workbench.advance(days)

    def action_focus_days(self) -> None:
        """Focus the N-days input."""
        self.days.focus()

    def action_briefing(self) -> None:
        """Show the campaign briefing again."""
        self.workbench.show_briefing()

    def action_summary(self) -> None:
        """Show the end-of-campaign summary (a preview while the run is in play)."""
        self.workbench.show_summary()

    def action_finish(self) -> None:
        """End the run now (after a confirmation)."""
        self.workbench.ask_finish()

    @shown_as_notice
    def on_input_submitted(self, event: Input.Submitted) -> None:
        """Advance by the typed number of days (1 to the days left), then leave the input."""
        left = self.session.horizon - self.session.day
        if left < 1:
            self.days.refuse("Days to advance: none, the campaign has ended.")
            return
        days = self.days.number(1, left)
        if days is None:
            return
        self.workbench.advance(days)
        self.metrics.focus()


def _titles(view: PublicView) -> dict[str, str]:
    return {row.id: row.title.split(" (")[0] for row in view.metrics}


def _spans(view: PublicView) -> list[Span]:
    """Completed actions (at their completion day), then commitments still in flight."""
    flying = {c.action for c in view.commitments}
    done = [
        Span(action, day, (day,), done=True)
        for action, day in view.completed.items()
        if action not in flying
    ]
    return done + [
        Span(c.action, c.scheduled_day, c.effects_land_on, done=False) for c in view.commitments
    ]
