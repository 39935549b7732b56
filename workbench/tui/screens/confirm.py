"""Confirm scheduling an action, showing the preview, a rejection reason or warnings first."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Static


class ConfirmSchedule(ModalScreen[bool]):
    """Ask before scheduling; `y` schedules through the app, escape cancels."""

    DEFAULT_CSS = """
    ConfirmSchedule {
        align: center middle;
    }
    ConfirmSchedule > Vertical {
        width: 76;
        max-width: 100%;
        height: auto;
        border: thick $primary;
        background: $surface;
        padding: 1 2;
    }
    ConfirmSchedule #confirm-preview {
        margin: 1 0;
    }
    ConfirmSchedule Horizontal {
        height: auto;
    }
    ConfirmSchedule Button {
        margin-right: 2;
    }
    """
    BINDINGS = [Binding("escape,n", "cancel", "Cancel"), Binding("y", "confirm", "Schedule")]

    def __init__(self, action_id: str, preview: str) -> None:
        super().__init__()
        self.action_id = action_id
        self.preview = preview

    def compose(self) -> ComposeResult:
        """The question, the preview and two buttons."""
        with Vertical():
            yield Static(f"[b]Schedule {self.action_id} at today's decisions?[/b]")
            yield Static(self.preview, id="confirm-preview")
            with Horizontal():
                yield Button("Schedule (y)", id="confirm-yes", variant="primary")
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
