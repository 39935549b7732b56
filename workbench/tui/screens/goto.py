"""Go to a screen: `ctrl+o`, then the screen's digit (typing never switches screens)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

if TYPE_CHECKING:
    from workbench.tui.app import ScreenSpec


class GoToScreen(ModalScreen[None]):
    """A short list of screens: a digit, or the cursor and enter, shows one; escape stays.

    The app builds it once and shows the same screen each time: composing a new one made
    `ctrl+o` cost twice the screen switch it leads to.
    """

    DEFAULT_CSS = """
    GoToScreen {
        align: center middle;
    }
    GoToScreen > Vertical {
        width: 36;
        height: auto;
        border: thick $primary;
        background: $surface;
        padding: 0 1;
    }
    GoToScreen OptionList {
        height: auto;
        border: none;
    }
    """
    BINDINGS = [Binding("escape,ctrl+o", "dismiss", "Stay")]

    def __init__(self, table: tuple[ScreenSpec, ...]) -> None:
        super().__init__()
        self.table = table

    def compose(self) -> ComposeResult:
        """The title and one option per screen."""
        with Vertical():
            yield Static("[b]Go to[/b]  (digit or enter; escape stays)")
            yield OptionList(
                *(Option(f"{spec.key}  {spec.label}", id=spec.mode) for spec in self.table)
            )

    def on_screen_resume(self) -> None:
        """Each time it shows, put the cursor on the screen it was opened from."""
        options = self.query_one(OptionList)
        modes = [spec.mode for spec in self.table]
        current = self.app.current_mode
        options.highlighted = modes.index(current) if current in modes else 0
        options.focus()

    def on_key(self, event: events.Key) -> None:
        """A digit shows its screen at once."""
        for spec in self.table:
            if event.key == spec.key:
                event.stop()
                self._go(spec.mode)
                return

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        """Enter on an option shows its screen."""
        if event.option.id is not None:
            self._go(event.option.id)

    def _go(self, mode: str) -> None:
        """Show `mode`; the app closes this list as it switches."""
        self.app.switch_mode(mode)
