"""Confirm scheduling an action, showing the preview, a rejection reason or warnings first."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Static

CONFIRM_CSS = """
    {name} {{
        align: center middle;
    }}
    {name} > Vertical {{
        width: 76;
        max-width: 100%;
        height: auto;
        border: thick $primary;
        background: $surface;
        padding: 1 2;
    }}
    {name} #confirm-preview {{
        margin: 1 0;
    }}
    {name} Horizontal {{
        height: auto;
    }}
    {name} Button {{
        margin-right: 2;
    }}
    """


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


class ConfirmFinish(ModalScreen[bool]):
    """Ask before ending the run for good; `y` finishes it through the app."""

    DEFAULT_CSS = CONFIRM_CSS.format(name="ConfirmFinish")
    BINDINGS = [Binding("escape,n", "cancel", "Cancel"), Binding("y", "confirm", "Finish")]

    def __init__(self, day: int, horizon: int) -> None:
        super().__init__()
        self.day = day
        self.horizon = horizon

    def compose(self) -> ComposeResult:
        """What finishing does, and two buttons."""
        with Vertical():
            yield Static("[b]Finish the run now?[/b]")
            yield Static(
                f"Days {self.day + 1} to {self.horizon} run with no further decisions and the "
                "run then accepts no command: no more scheduling, no more submissions. "
                "Only a finished run can be validated.",
                id="confirm-preview",
            )
            with Horizontal():
                yield Button("Finish (y)", id="confirm-yes", variant="warning")
                yield Button("Cancel (esc)", id="confirm-no")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        """Yes finishes, no cancels."""
        if event.button.id == "confirm-yes":
            self.action_confirm()
        else:
            self.action_cancel()

    def action_confirm(self) -> None:
        """Finish through the app, then close."""
        self.dismiss(True)
        self.app.finish_run()  # type: ignore[attr-defined]

    def action_cancel(self) -> None:
        """Close without finishing."""
        self.dismiss(False)
