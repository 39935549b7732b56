"""The dashboard's parts: day status, objective, metrics table, operations and alerts."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual.message import Message
from textual.widgets import DataTable, Static

from workbench.display import amount, money, signed_amount
from workbench.tui.format import objective_lines
from workbench.tui.markup import joined, styled
from workbench.tui.widgets.tables import Table

if TYPE_CHECKING:
    from collections.abc import Sequence

    from workbench.play.models import AlertRow, MetricRow, PublicState, PublicView
    from workbench.play.objective import ObjectiveProgress


class DayStatus(Static):
    """`Day 25 / 180 · 2027-03-26 · cash $18,000.00 (free $12,000.00) · 155 days left`."""

    DEFAULT_CSS = """
    DayStatus {
        width: 1fr;
        height: 1;
        padding: 0 1;
        text-wrap: nowrap;
        text-overflow: ellipsis;
    }
    """

    def show(self, view: PublicView) -> None:
        """Paint from the public view."""
        state = view.state
        left = view.horizon - view.day
        free = f" (free {money(state.free_cash)})" if state.free_cash != state.cash else ""
        head = styled(
            "[b]Day $day[/b] / $horizon · $date · cash $cash · ",
            day=view.day,
            horizon=view.horizon,
            date=view.date,
            cash=money(state.cash) + free,
        )
        tail = (
            styled("[b]campaign ended[/b] (e: summary)") if view.finished else f"{left} days left"
        )
        self.update(head + tail)


class ObjectivePanel(Static):
    """The business objective: each goal's value now against its threshold, and the verdict."""

    DEFAULT_CSS = """
    ObjectivePanel {
        height: auto;
        padding: 0 1;
        text-wrap: nowrap;
        text-overflow: ellipsis;
    }
    """

    def show(self, progress: tuple[ObjectiveProgress, ...]) -> None:
        """Paint the objectives' progress."""
        self.update(joined(objective_lines(progress)) if progress else "No business objective.")


class MetricsTable(Table):
    """Every registered metric today with its change since yesterday; the cursor picks a chart."""

    COLUMNS = ("Metric", "Today", "Δ day")

    DEFAULT_CSS = """
    MetricsTable {
        height: auto;
        max-height: 10;
    }
    """

    class Picked(Message):
        """The highlighted metric changed (its chart should show)."""

        def __init__(self, metric_id: str) -> None:
            super().__init__()
            self.metric_id = metric_id

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(zebra_stripes=True, **kwargs)

    def show(self, rows: Sequence[MetricRow]) -> None:
        """Update cells in place (new metrics are added as rows)."""
        for row in rows:
            cells = (
                row.title.split(" (")[0],
                amount(row.value, row.units),
                signed_amount(row.change, row.units),
            )
            if row.id in self.rows:
                for column, value in zip(self.columns, cells, strict=True):
                    self.update_cell(row.id, column, value, update_width=True)
            else:
                self.add_row(*cells, key=row.id)

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        """Tell the screen which metric to chart."""
        if event.row_key.value is not None:
            self.post_message(self.Picked(str(event.row_key.value)))


class OperationsPanel(Static):
    """Yesterday's operations, staff, price, supplier and stock."""

    DEFAULT_CSS = """
    OperationsPanel {
        height: auto;
        padding: 0 1;
    }
    """

    def show(self, state: PublicState) -> None:
        """Paint from the public state."""
        last = state.yesterday
        staff = ", ".join(f"{role} {n}" for role, n in sorted(state.headcount.items()))
        if last is None:
            ops = "No day closed yet."
        else:
            ops = (
                f"Utilisation {last.utilisation:.0%} ({last.produced:,}/"
                f"{last.capacity:,} units)\nDemand {last.demand:,} · sold "
                f"{last.sold:,} · lost {last.lost_sales:,}"
            )
        stock = state.inventory_units
        text = (
            f"{ops}\nStaff: {staff}\nPrice {money(state.price)} · supplier {state.supplier}\n"
            f"Stock: raw {stock.raw:,} · in transit {stock.in_transit:,} · finished "
            f"{stock.finished:,}"
        )
        self.update(styled("[b]Operations[/b]\n$text", text=text))


class AlertsPanel(Static):
    """The latest alerts (rejections, low cash, missed payroll)."""

    DEFAULT_CSS = """
    AlertsPanel {
        height: auto;
        padding: 0 1;
    }
    AlertsPanel.-warn {
        color: $warning;
    }
    """

    def show(self, alerts: Sequence[AlertRow], missed: int, limit: int = 6) -> None:
        """Paint the newest `limit` alerts."""
        lines = [f"day {a.day:>3} {a.kind}: {a.message}" for a in alerts[-limit:]]
        head = styled("[b]Alerts[/b] · missed payrolls: $missed", missed=missed)
        self.update(joined([head, *(lines or ["none"])]))
        self.set_class(bool(lines) or missed > 0, "-warn")
