"""The ledger: a trial balance that visibly sums to zero, account drill-down, exports."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import DataTable, Input, Static

from workbench.tui.screens.base import WorkbenchScreen


class LedgerScreen(WorkbenchScreen):
    """Trial balance at a day; enter on an account shows its balance by day."""

    AUTO_FOCUS = "#balances"
    BINDINGS = [
        Binding("b", "export('beancount')", "Export beancount"),
        Binding("c", "export('csv')", "Export CSV"),
    ]

    def compose(self) -> ComposeResult:
        """Day input and totals, balance table beside the drill-down."""
        yield from self.compose_frame()
        with Vertical(id="ledger-body"):
            with Horizontal(id="ledger-status"):
                yield Input(placeholder="day", id="ledger-day", type="integer")
                yield Static(id="totals")
            with Horizontal(id="ledger-tables"):
                yield DataTable(id="balances", cursor_type="row", zebra_stripes=True)
                with Vertical(id="drill"):
                    yield Static("Select an account (enter) to see it by day", id="drill-title")
                    yield DataTable(id="account-history", cursor_type="row")
        yield self.footer()

    def on_mount(self) -> None:
        """Columns."""
        self.query_one("#balances", DataTable).add_columns("Account", "Balance", "Unit")
        self.query_one("#account-history", DataTable).add_columns("Day", "Balance")
        self.refresh_view()

    def _day(self) -> int:
        text = self.query_one("#ledger-day", Input).value.strip()
        last = self.session.ledger().last_day
        return min(int(text), last) if text.isdigit() else last

    def refresh_view(self) -> None:
        """The trial balance and per-unit totals at the chosen day."""
        ledger = self.session.ledger()
        day = self._day()
        table = self.query_one("#balances", DataTable)
        table.clear()
        for account, unit, balance in ledger.trial_balance(day):
            table.add_row(account, balance, unit, key=account)
        totals = ledger.totals(day)
        parts = "  ".join(f"{unit} total {amount}" for unit, amount in sorted(totals.items()))
        balanced = all(amount == 0 for amount in totals.values())
        widget = self.query_one("#totals", Static)
        widget.update(
            f"Day {day}: {parts}  {'[b]balanced[/b]' if balanced else '[b]NOT BALANCED[/b]'}"
        )
        widget.set_classes("ok" if balanced else "rejected")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        """Show the trial balance at the typed day."""
        self.refresh_view()

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        """Drill into an account."""
        if event.data_table.id != "balances":
            return
        account = str(event.row_key.value)
        history = self.query_one("#account-history", DataTable)
        history.clear()
        for day, balance in self.session.ledger().account_history(account):
            history.add_row(str(day), str(balance))
        self.query_one("#drill-title", Static).update(f"[b]{account}[/b] by day")

    def action_export(self, fmt: str) -> None:
        """Write an export into the run directory."""
        self.workbench.export_ledger(fmt)
