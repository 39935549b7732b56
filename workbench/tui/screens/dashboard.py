"""The dashboard: day, metrics with change, charts, commitments, utilisation and alerts."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import DataTable, Input, Label, Sparkline, Static

from ledger.money import format_dollars
from workbench.play.models import AlertRow, CommitmentRow, MetricRow, PublicState
from workbench.tui.format import signed, unit_label
from workbench.tui.screens.base import WorkbenchScreen

CHARTED = ("cash", "net_assets", "cumulative_revenue", "units_sold")


class DashboardScreen(WorkbenchScreen):
    """Where the run stands today, and keys to advance it."""

    AUTO_FOCUS = "#metrics"
    BINDINGS = [
        Binding("n", "advance(1)", "Next day"),
        Binding("w", "advance(7)", "+7 days"),
        Binding("a", "focus_days", "Advance N"),
    ]

    def compose(self) -> ComposeResult:
        """Status line, metrics, charts, commitments, operations and alerts."""
        yield from self.compose_frame()
        with VerticalScroll(id="dash"):
            with Horizontal(id="dash-status"):
                yield Static(id="day-line")
                yield Input(placeholder="N days", id="days-input", type="integer")
            with Horizontal(id="dash-top"):
                yield DataTable(id="metrics", cursor_type="row", zebra_stripes=True)
                with Vertical(id="charts"):
                    for metric in CHARTED:
                        yield Label(metric, id=f"chart-label-{metric}", classes="chart-label")
                        yield Sparkline([], id=f"chart-{metric}", classes="chart")
            with Horizontal(id="dash-bottom"):
                yield DataTable(id="commitments", cursor_type="row")
                yield Static(id="operations")
            yield Static(id="alerts")
        yield self.footer()

    def on_mount(self) -> None:
        """Set up the tables' columns."""
        self.query_one("#metrics", DataTable).add_columns("Metric", "Value", "Unit", "Δ day")
        self.query_one("#commitments", DataTable).add_columns(
            "In flight", "Sched", "Start", "Lands", "Reserved"
        )
        self.refresh_view()

    def refresh_view(self) -> None:
        """Repaint everything from the session's public view."""
        view = self.session.view()
        state = view.state
        ended = "  [b]campaign ended[/b]" if view.finished else ""
        self.query_one("#day-line", Static).update(
            f"[b]Day {view.day}[/b] / {view.horizon}  {view.date}  "
            f"cash {format_dollars(state.cash)} (free {format_dollars(state.free_cash)}){ended}"
        )
        self._metrics(view.metrics)
        self._charts(view.metrics)
        self._commitments(view.commitments)
        self._operations(state)
        self._alerts(view.alerts, state.missed_payrolls)

    def _metrics(self, rows: tuple[MetricRow, ...]) -> None:
        table = self.query_one("#metrics", DataTable)
        for row in rows:
            cells = (
                row.title.split(" (")[0],
                row.value,
                unit_label(row.units),
                signed(row.change),
            )
            if row.id in table.rows:
                for column, value in zip(table.columns, cells, strict=True):
                    table.update_cell(row.id, column, value, update_width=True)
            else:
                table.add_row(*cells, key=row.id)

    def _charts(self, rows: tuple[MetricRow, ...]) -> None:
        series = self.session.metric_series()
        titles = {row.id: row for row in rows}
        for metric in CHARTED:
            values = [float(v) for v in series.get(metric, [])]
            self.query_one(f"#chart-{metric}", Sparkline).data = values
            row = titles.get(metric)
            label = row.title.split(" (")[0] if row else metric
            self.query_one(f"#chart-label-{metric}", Label).update(
                f"{label} over {len(values)} day(s)"
            )

    def _commitments(self, rows: tuple[CommitmentRow, ...]) -> None:
        table = self.query_one("#commitments", DataTable)
        wanted = [
            (
                row.action,
                str(row.scheduled_day),
                str(row.start_day),
                ", ".join(str(d) for d in row.effects_land_on) or str(row.landing_day),
                format_dollars(row.cash_reserved),
            )
            for row in rows
        ]
        shown = [tuple(str(c) for c in table.get_row_at(i)) for i in range(table.row_count)]
        if wanted == shown:
            return
        table.clear()
        for cells in wanted:
            table.add_row(*cells, key=cells[0])

    def _operations(self, state: PublicState) -> None:
        last = state.yesterday
        staff = ", ".join(f"{role} {n}" for role, n in sorted(state.headcount.items()))
        if last is None:
            ops = "No day closed yet."
        else:
            ops = (
                f"Utilisation {last.utilisation:.0%} "
                f"({last.produced}/{last.capacity} bags)\n"
                f"Demand {last.demand}  sold {last.sold}  lost {last.lost_sales}"
            )
        inventory = state.inventory_units
        self.query_one("#operations", Static).update(
            f"[b]Operations[/b]\n{ops}\nStaff: {staff}\nPrice {format_dollars(state.price)}  "
            f"supplier {state.supplier}\nBeans raw {inventory.raw}  "
            f"in transit {inventory.in_transit}  bags {inventory.finished}"
        )

    def _alerts(self, alerts: tuple[AlertRow, ...], missed: int) -> None:
        lines = [f"day {a.day:>3}  {a.kind}: {a.message}" for a in alerts[-6:]]
        head = f"[b]Alerts[/b]  missed payrolls: {missed}"
        body = "\n".join(lines) if lines else "none"
        widget = self.query_one("#alerts", Static)
        widget.update(f"{head}\n{body}")
        widget.set_class(bool(lines) or missed > 0, "warn")

    def action_advance(self, days: int) -> None:
        """Advance the run."""
        self.workbench.advance(days)

    def action_focus_days(self) -> None:
        """Focus the N-days input."""
        self.query_one("#days-input", Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        """Advance by the typed number of days."""
        text = event.value.strip()
        if not text.isdigit() or int(text) < 1:
            self.notify("Type a whole number of days (1 or more).", severity="error")
            return
        event.input.value = ""
        self.workbench.advance(int(text))
        self.query_one("#metrics", DataTable).focus()
