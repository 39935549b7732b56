"""The ledger: a trial balance that visibly balances, an account by day, atomic exports."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.widgets import Input, Static

from workbench.play.public_view import unbalanced
from workbench.tui.errors import shown_as_notice
from workbench.tui.markup import styled
from workbench.tui.screens.base import PlayerScreen
from workbench.tui.widgets.inputs import NumberInput
from workbench.tui.widgets.ledger import AccountHistory, TrialBalance


class LedgerScreen(PlayerScreen):
    """Trial balance at a day (type it, enter; empty: the latest); enter on an account
    follows it by day."""

    DEFAULT_CSS = """
    LedgerScreen #ledger-status {
        height: auto;
    }
    LedgerScreen #ledger-day {
        width: 16;
    }
    LedgerScreen #balance-line {
        width: 1fr;
        padding: 1 1;
    }
    LedgerScreen #balance-line.-ok {
        color: $success;
    }
    LedgerScreen #balance-line.-off {
        color: $error;
        text-style: bold;
    }
    LedgerScreen TrialBalance {
        width: auto;
        max-width: 60%;
    }
    LedgerScreen #drill {
        width: 1fr;
        padding: 0 1;
    }
    LedgerScreen.-narrow #ledger-body {
        layout: vertical;
    }
    LedgerScreen.-narrow TrialBalance {
        width: 1fr;
        max-width: 100%;
        max-height: 60%;
    }
    LedgerScreen.-narrow #drill {
        padding: 0;
        border-top: solid $primary;
    }
    """
    HOME = "TrialBalance"
    BINDINGS = [
        Binding("b", "export('beancount')", "Export beancount"),
        Binding("c", "export('csv')", "Export CSV"),
    ]

    shown_day: int | None = None
    """The day the trial balance shows (None: the latest closed day)."""

    def compose_body(self) -> ComposeResult:
        """Day input and balance line, balance table beside (or, when narrow, above: a
        balance cut at the table's edge read as another amount) the account's history."""
        self.day_input = NumberInput(
            placeholder="day", id="ledger-day", field="Trial balance day", max_length=5
        )
        self.balance_line = Static(id="balance-line")
        self.balances = TrialBalance()
        self.drill_title = Static("Enter on an account follows it by day", id="drill-title")
        self.history = AccountHistory()
        with Horizontal(id="ledger-status"):
            yield self.day_input
            yield self.balance_line
        with Horizontal(id="ledger-body"):
            yield self.balances
            with Vertical(id="drill"):
                yield self.drill_title
                yield self.history

    def refresh_view(self) -> None:
        """The trial balance at the chosen day, the balance verdict, the followed account."""
        ledger = self.session.ledger()
        day = ledger.last_day if self.shown_day is None else self.shown_day
        rows = ledger.trial_balance(day)
        self.balances.show(rows)
        off = unbalanced(ledger.totals(day))
        units = len({unit for _, unit, _ in rows})
        if off:
            parts = ", ".join(f"{unit} off by {text}" for unit, text in off.items())
            self.balance_line.update(Content(f"Day {day}: NOT BALANCED: {parts}"))
        else:
            self.balance_line.update(
                f"Day {day}: balanced · {len(rows)} accounts in {units} units sum to zero"
            )
        self.balance_line.set_classes("-off" if off else "-ok")
        if self.history.account is not None:
            self._follow(self.history.account)

    def _follow(self, account: str) -> None:
        """Show `account` by day, if the ledger has it (a message may name a row as it was:
        `next` without a default raised StopIteration and closed the app)."""
        ledger = self.session.ledger()
        unit = next((u for a, u, _ in ledger.trial_balance() if a == account), None)
        if unit is None:
            return
        self.history.show(account, unit, ledger.account_history(account))
        self.drill_title.update(styled("[b]$account[/b] by day", account=account))

    @shown_as_notice
    def on_input_submitted(self, event: Input.Submitted) -> None:
        """Show the trial balance at the typed day (0 to the last closed one; empty: the
        last); a day out of that range is refused and the balance stays as it was."""
        if self.day_input.value.strip():
            day = self.day_input.number(0, self.session.ledger().last_day)
            if day is None:
                return
            self.shown_day = day
        else:
            self.shown_day = None
        self.refresh_view()
        self.balances.focus()

    @shown_as_notice
    def on_trial_balance_picked(self, message: TrialBalance.Picked) -> None:
        """Follow an account by day."""
        self._follow(message.account)

    def action_export(self, fmt: str) -> None:
        """Write an export into the run directory."""
        self.workbench.export_ledger(fmt)
