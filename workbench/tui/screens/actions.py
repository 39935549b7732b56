"""The action catalog: every term of every action, a preview, and scheduling with confirmation."""

from __future__ import annotations

from collections.abc import Mapping

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import DataTable, Static

from ledger.money import format_dollars
from workbench.play.models import ActionTerms
from workbench.tui.screens.base import WorkbenchScreen
from workbench.tui.screens.confirm import ConfirmSchedule, preview_text


def staffing_text(terms: ActionTerms) -> str:
    """Staffing needs as "roaster×1 5d"."""
    return ", ".join(f"{n.role}×{n.count} {n.days}d" for n in terms.staffing) or "-"


def effect_text(effect: Mapping[str, object]) -> str:
    """One effect as "kind key=value ..."."""
    rest = " ".join(f"{k}={v}" for k, v in effect.items() if k not in ("kind",) and v)
    return f"{effect['kind']} {rest}".strip()


def detail_text(terms: ActionTerms) -> str:
    """Every term of an action, as Rich markup."""
    pre = terms.prerequisites
    needs = [
        f"completed: {', '.join(pre.completed)}" if pre.completed else "",
        f"not scheduled: {', '.join(pre.not_scheduled)}" if pre.not_scheduled else "",
        f"free cash after ≥ {format_dollars(pre.min_cash_after)}",
        ", ".join(f"headcount {r} ≥ {n}" for r, n in pre.min_headcount.items()),
    ]
    effects = "\n".join(f"  • {effect_text(e)}" for e in terms.effects) or "  none"
    return (
        f"[b]{terms.title}[/b]  ({terms.id})\n{terms.description}\n\n"
        f"Upfront {format_dollars(terms.upfront_cost)} "
        f"(capitalised {format_dollars(terms.capitalized)}), "
        f"running {format_dollars(terms.running_cost_per_day)}/day "
        f"for {terms.running_days} day(s), "
        f"reserves {format_dollars(terms.reserved_cash)}\n"
        f"Staffing: {staffing_text(terms)}   Delay: {terms.delay_days} day(s)\n"
        f"Prerequisites: {'; '.join(n for n in needs if n)}\n"
        f"Effects:\n{effects}\n"
        f"Contract components: financing_net_assets {format_dollars(terms.financing_net_assets)}, "
        f"irreversible_work {format_dollars(terms.irreversible_work)}"
    )


class ActionsScreen(WorkbenchScreen):
    """Browse the catalog; `s` or enter asks to schedule the highlighted action."""

    AUTO_FOCUS = "#catalog"
    BINDINGS = [Binding("s", "schedule", "Schedule")]

    def compose(self) -> ComposeResult:
        """Catalog table above a detail pane."""
        yield from self.compose_frame()
        with Horizontal(id="actions-body"):
            yield DataTable(id="catalog", cursor_type="row", zebra_stripes=True)
            with VerticalScroll(id="action-side"):
                yield Static(id="action-preview")
                yield Static(id="action-detail")
        yield self.footer()

    def on_mount(self) -> None:
        """Fill the catalog (it never changes during a run)."""
        table = self.query_one("#catalog", DataTable)
        table.add_columns("Action", "Upfront", "Per day", "Staffing", "Delay", "Effects")
        for terms in self.session.view().actions:
            table.add_row(
                terms.id,
                format_dollars(terms.upfront_cost),
                format_dollars(terms.running_cost_per_day),
                staffing_text(terms),
                str(terms.delay_days),
                ", ".join(terms.effect_set),
                key=terms.id,
            )
        table.focus()
        self.refresh_view()

    @property
    def selected(self) -> str | None:
        """The highlighted action's id."""
        table = self.query_one("#catalog", DataTable)
        if table.row_count == 0:
            return None
        return str(table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value)

    def refresh_view(self) -> None:
        """Show the highlighted action's terms and today's preview."""
        action_id = self.selected
        if action_id is None:
            return
        terms = self.session.view().action(action_id)
        if terms is None:
            return
        accepted, text = preview_text(self.workbench, action_id)
        preview = self.query_one("#action-preview", Static)
        preview.update(f"Day {self.session.day}: {text}")
        preview.set_class(not accepted, "rejected")
        preview.set_class(accepted, "ok")
        self.query_one("#action-detail", Static).update(detail_text(terms))

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        """Follow the cursor."""
        self.refresh_view()

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        """Enter asks to schedule."""
        self.action_schedule()

    def action_schedule(self) -> None:
        """Ask for confirmation, showing the preview first."""
        if self.selected is not None:
            self.app.push_screen(ConfirmSchedule(self.selected))
