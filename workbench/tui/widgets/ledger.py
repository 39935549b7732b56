"""The trial balance table and one account's balance by day."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from textual.message import Message
from textual.widgets import DataTable

from workbench.display import count, money
from workbench.tui.widgets.tables import Table


class TrialBalance(Table):
    """Every account's balance at a day's close; enter picks an account to follow by day."""

    COLUMNS = ("Account", "Balance", "Unit")

    DEFAULT_CSS = """
    TrialBalance {
        height: 1fr;
    }
    """

    class Picked(Message):
        """An account was chosen (enter)."""

        def __init__(self, account: str) -> None:
            super().__init__()
            self.account = account

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(zebra_stripes=True, **kwargs)

    def show(self, rows: list[tuple[str, str, str]]) -> None:
        """Rows by account, updated in place (the cursor stays where it was)."""
        for account, unit, balance in rows:
            if account in self.rows:
                self.update_cell(account, self.ordered_columns[1].key, balance, update_width=True)
            else:
                self.add_row(account, balance, unit, key=account)

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        """Enter follows the account by day."""
        event.stop()
        if event.row_key.value is not None:
            self.post_message(self.Picked(str(event.row_key.value)))


class AccountHistory(Table):
    """One account's balance at every closed day (repainted when the run advances)."""

    COLUMNS = ("Day", "Balance")

    DEFAULT_CSS = """
    AccountHistory {
        height: 1fr;
    }
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.account: str | None = None

    def show(self, account: str, unit: str, history: list[tuple[int, Decimal]]) -> None:
        """Rows for every day (new days appended; a new account starts over)."""
        if account != self.account:
            self.clear()
            self.account = account
        for day, balance in history[self.row_count :]:
            self.add_row(str(day), money(balance) if unit == "USD" else count(balance))
