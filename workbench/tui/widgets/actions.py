"""The action catalog table, its detail pane, and the preview shown before scheduling."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual.binding import Binding
from textual.content import Content
from textual.message import Message
from textual.widgets import DataTable, Static

from workbench.display import money, prerequisites_text
from workbench.tui.markup import joined, styled
from workbench.tui.widgets.tables import Table

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from sim.scheduling import ScheduleOutcome
    from workbench.play.models import ActionTerms
    from workbench.play.traps import Trap


def staffing_text(terms: ActionTerms) -> str:
    """Staffing needs as "roaster×1 5d"."""
    return ", ".join(f"{n.role}×{n.count} {n.days}d" for n in terms.staffing) or "-"


MONEY_FIELDS = ("principal", "new_price", "per_day")


def effect_text(effect: Mapping[str, Any]) -> str:
    """One effect as "kind key=value ..." (money fields as money)."""
    parts = []
    for key, value in effect.items():
        if key == "kind" or not value:
            continue
        parts.append(f"{key}={money(str(value)) if key in MONEY_FIELDS else value}")
    return f"{effect['kind']} {' '.join(parts)}".strip()


def detail_text(terms: ActionTerms) -> Content:
    """Every term of an action."""
    effects = "\n".join(f"  • {effect_text(e)}" for e in terms.effects) or "  none"
    terms_text = (
        f"{terms.description}\n\n"
        f"Upfront {money(terms.upfront_cost)} (capitalised {money(terms.capitalized)}), "
        f"running {money(terms.running_cost_per_day)}/day for {terms.running_days} "
        f"day(s), reserves {money(terms.reserved_cash)}\n"
        f"Staffing: {staffing_text(terms)} · delay {terms.delay_days} day(s)\n"
        f"Prerequisites: {prerequisites_text(terms.prerequisites)}\n"
        f"Effects:\n{effects}\n"
        f"Contract components: financing_net_assets {money(terms.financing_net_assets)}, "
        f"irreversible_work {money(terms.irreversible_work)}"
    )
    return styled("[b]$title[/b]  ($id)\n$terms", title=terms.title, id=terms.id, terms=terms_text)


def preview_text(outcome: ScheduleOutcome, traps: tuple[Trap, ...]) -> Content:
    """What scheduling now would do, and which questions it would make unresolvable."""
    if outcome.accepted:
        waits = f", after waiting {outcome.waits} day(s) for staff" if outcome.waits else ""
        lines: list[Content | str] = [
            styled(
                "[green]Would be accepted: starts on day $day$waits.[/green]",
                day=outcome.start_day,
                waits=waits,
            )
        ]
        lines += [styled("[b yellow]Warning:[/b yellow] $text.", text=t.text) for t in traps]
    else:
        lines = [
            styled("[b red]Would be rejected:[/b red] $reason", reason=outcome.reason or ""),
            "Scheduling anyway journals the rejection.",
        ]
    return joined(lines)


class ActionCatalog(Table):
    """Every action with its costs, staffing, delay and effects; `s` or enter schedules."""

    HELP_NAME = "the catalog"
    COLUMNS = (" Action", " Upfront", " $/day", " Staffing", " Delay", " Effects")
    """One space before each column: all six fit in 80 columns (cell padding is 0)."""
    DEFAULT_CSS = """
    ActionCatalog {
        height: auto;
        max-height: 100%;
        scrollbar-size-vertical: 1;
    }
    """
    BINDINGS = [Binding("s", "schedule", "Schedule")]

    class ScheduleAsked(Message):
        """The player asked to schedule the highlighted action."""

        def __init__(self, action_id: str) -> None:
            super().__init__()
            self.action_id = action_id

    class Highlighted(Message):
        """The highlighted action changed."""

        def __init__(self, action_id: str) -> None:
            super().__init__()
            self.action_id = action_id

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(zebra_stripes=True, cell_padding=0, **kwargs)

    def fill(self, actions: Sequence[ActionTerms]) -> None:
        """The catalog (it never changes during a run); one space between columns."""
        for terms in actions:
            cells = (
                terms.id,
                money(terms.upfront_cost),
                money(terms.running_cost_per_day),
                staffing_text(terms),
                f"{terms.delay_days}d",
                ", ".join(terms.effect_set),
            )
            self.add_row(*(f" {c}" for c in cells), key=terms.id)

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        """Tell the screen which action to describe."""
        if event.row_key.value is not None:
            self.post_message(self.Highlighted(str(event.row_key.value)))

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        """Enter asks to schedule."""
        event.stop()
        self.action_schedule()

    def action_schedule(self) -> None:
        """Ask to schedule the highlighted action (the screen confirms first)."""
        if self.selected is not None:
            self.post_message(self.ScheduleAsked(self.selected))


class ActionDetail(Static):
    """Today's preview (with question warnings) above every term of the action."""

    DEFAULT_CSS = """
    ActionDetail {
        height: auto;
        padding: 0 1;
    }
    """

    def show(self, day: int, preview: Content, terms: ActionTerms) -> None:
        """Paint the preview at `day` and the terms."""
        head = styled("[b]Day $day[/b]: ", day=day)
        self.update(joined([head + preview, detail_text(terms)], separator="\n\n"))
