"""Confirm scheduling an action, showing the preview (and a rejection reason) first."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from workbench.errors import WorkbenchError

if TYPE_CHECKING:
    from workbench.tui.app import WorkbenchApp


def preview_text(app: WorkbenchApp, action_id: str) -> tuple[bool, str]:
    """(accepted, text) of what scheduling the action now would do."""
    try:
        outcome = app.session.preview(action_id)
    except WorkbenchError as exc:
        return False, f"Cannot preview: {exc.message}"
    if outcome.accepted:
        waits = f", after waiting {outcome.waits} day(s) for staff" if outcome.waits else ""
        return True, f"Would be accepted: starts on day {outcome.start_day}{waits}."
    return False, (
        f"Would be REJECTED: {outcome.reason}\nScheduling anyway journals the rejection."
    )


class ConfirmSchedule(ModalScreen[bool]):
    """Ask before scheduling; dismisses with True when the player confirms."""

    BINDINGS = [Binding("escape", "cancel", "Cancel"), Binding("y", "confirm", "Schedule")]

    def __init__(self, action_id: str) -> None:
        super().__init__()
        self.action_id = action_id

    def compose(self) -> ComposeResult:
        """The question, the preview and two buttons."""
        accepted, text = preview_text(self.app, self.action_id)  # type: ignore[arg-type]
        with Vertical(id="confirm-box"):
            yield Static(f"Schedule [b]{self.action_id}[/b] at today's decisions?", classes="title")
            yield Static(text, id="confirm-preview", classes="ok" if accepted else "rejected")
            with Horizontal(id="confirm-buttons"):
                yield Button(
                    "Schedule (y)", id="confirm-yes", variant="primary" if accepted else "warning"
                )
                yield Button("Cancel (esc)", id="confirm-no")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        """Yes schedules, no cancels."""
        if event.button.id == "confirm-yes":
            self.action_confirm()
        else:
            self.action_cancel()

    def action_confirm(self) -> None:
        """Schedule through the app, then close."""
        self.dismiss(True)
        self.app.schedule(self.action_id)  # type: ignore[attr-defined]

    def action_cancel(self) -> None:
        """Close without scheduling."""
        self.dismiss(False)
