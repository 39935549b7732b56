"""Confirmations: scheduling an action (its preview, rejection or warnings first) and
finishing the run for good. One modal shape, `y` confirms, escape or `n` cancels."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar, Literal

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from workbench.tui.markup import styled


class Confirm(ModalScreen[bool]):
    """A question, what saying yes does, and two buttons; `on_yes` runs after a yes."""

    DEFAULT_CSS = """
    Confirm {
        align: center middle;
    }
    Confirm > Vertical {
        width: 76;
        max-width: 100%;
        height: auto;
        border: thick $primary;
        background: $surface;
        padding: 1 2;
    }
    Confirm #confirm-preview {
        margin: 1 0;
    }
    Confirm Horizontal {
        height: auto;
    }
    Confirm Button {
        margin-right: 2;
    }
    """
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,n", "cancel", "Cancel")]
    """Cancel here; each confirmation adds `y` under its own verb (Textual merges them)."""
    VERB: ClassVar[str] = "Confirm"
    VARIANT: ClassVar[Literal["primary", "warning"]] = "primary"

    def __init__(
        self, question: str, detail: Content | str, on_yes: Callable[[], object], **kwargs: Any
    ) -> None:
        super().__init__(**kwargs)
        self.question = question
        self.detail = detail
        self.on_yes = on_yes

    def compose(self) -> ComposeResult:
        """The question, the detail and two buttons."""
        with Vertical():
            yield Static(styled("[b]$question[/b]", question=self.question))
            yield Static(
                Content(self.detail) if isinstance(self.detail, str) else self.detail,
                id="confirm-preview",
            )
            with Horizontal():
                yield Button(f"{self.VERB} (y)", id="confirm-yes", variant=self.VARIANT)
                yield Button("Cancel (esc)", id="confirm-no")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        """Yes confirms, no cancels."""
        if event.button.id == "confirm-yes":
            self.action_confirm()
        else:
            self.action_cancel()

    def action_confirm(self) -> None:
        """Close, then do what yes means (through the app, the only place the run changes)."""
        self.dismiss(True)
        self.on_yes()

    def action_cancel(self) -> None:
        """Close without doing anything."""
        self.dismiss(False)


class ConfirmSchedule(Confirm):
    """Ask before scheduling; `y` schedules through the app, escape cancels."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("y", "confirm", "Schedule")]
    VERB = "Schedule"

    def __init__(self, action_id: str, preview: Content) -> None:
        super().__init__(
            f"Schedule {action_id} at today's decisions?",
            preview,
            lambda: self.app.schedule(action_id),  # type: ignore[attr-defined]
        )
        self.action_id = action_id
        self.preview = preview


class ConfirmFinish(Confirm):
    """Ask before ending the run for good; `y` finishes it through the app."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("y", "confirm", "Finish")]
    VERB = "Finish"
    VARIANT = "warning"

    def __init__(self, day: int, horizon: int, unsent: list[str] | None = None) -> None:
        lost = (
            f" Your typed answers to {', '.join(unsent)} are not submitted: they would be lost."
            if unsent
            else ""
        )
        super().__init__(
            "Finish the run now?",
            f"{_days(day + 1, horizon)} with no further decisions and the run then "
            "accepts no command: no more scheduling, no more submissions. Only a finished "
            f"run can be validated.{lost}",
            lambda: self.app.finish_run(),  # type: ignore[attr-defined]
        )
        self.day = day
        self.horizon = horizon


class ConfirmAdvance(Confirm):
    """Ask before an advance closes questions whose typed answers were never submitted."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("y", "confirm", "Advance")]
    VERB = "Advance anyway"
    VARIANT = "warning"

    def __init__(self, days: int, to_day: int, unsent: list[str]) -> None:
        super().__init__(
            f"Advance to day {to_day} and lose your unsent answers?",
            f"You typed answers to {', '.join(unsent)} but did not submit them, and their "
            f"deadlines pass by day {to_day}: a submission then no longer counts. Escape, "
            "then submit them on Questions (ctrl+s), or advance anyway.",
            lambda: self.app.advance(days, confirmed=True),  # type: ignore[attr-defined]
        )
        self.unsent = unsent


class ConfirmQuit(Confirm):
    """Ask before quitting with typed answers that were never submitted."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("y", "confirm", "Quit")]
    VERB = "Quit anyway"
    VARIANT = "warning"

    def __init__(self, unsent: list[str]) -> None:
        super().__init__(
            "Quit and lose your unsent answers?",
            f"You typed answers to {', '.join(unsent)} but did not submit them. The run "
            "keeps everything submitted; typed answers are not kept.",
            lambda: self.app.exit(),
        )
        self.unsent = unsent


def _days(first: int, last: int) -> str:
    """`Days 12 to 180 run`, or `Day 180 runs` when one is left."""
    return f"Day {last} runs" if first == last else f"Days {first} to {last} run"
