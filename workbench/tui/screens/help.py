"""Help: how the keys work (typing never switches screens) and every key of every screen."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Static

from workbench.tui.markup import joined, styled

if TYPE_CHECKING:
    from workbench.tui.app import ScreenSpec

SCHEME = """[b]How the keys work[/b]
  Typing goes to the focused field: letters and digits never switch screens.
  ctrl+o then a digit switches screens (or click a name in the top bar, or ctrl+p).
  escape leaves a text field; tab / shift+tab move between fields and tables.
  In a table, up / down, pageup / pagedown and home / end move between rows.
  Keys shown in the footer act on the screen when no text field has focus.
  Tabbing into a field keeps its text; the cursor goes to its end."""


def _keys(bindings: list[Any]) -> list[str]:
    lines = []
    for b in bindings:
        if isinstance(b, Binding) and b.show:
            lines.append(f"  {b.key_display or b.key:<10} {b.description}")
    return lines


def key_table(table: tuple[ScreenSpec, ...], app_bindings: list[Any]) -> Content:
    """The scheme, the keys that work everywhere, then each screen's own keys."""
    lines: list[Content | str] = [styled(SCHEME), "", styled("[b]Everywhere[/b]")]
    lines += _keys(app_bindings)
    lines += ["  ctrl+p     command palette", "  ctrl+q     quit"]
    for spec in table:
        screen = spec.load()
        own = _keys(list(getattr(screen, "BINDINGS", [])))
        lines.append(styled("[b]$key $label[/b]", key=spec.key, label=spec.label))
        lines += own or ["  (no keys of its own)"]
        for part in getattr(screen, "PARTS", ()):
            part_keys = _keys(list(getattr(part, "BINDINGS", [])))
            if part_keys:
                lines.append(f"  in {getattr(part, 'HELP_NAME', part.__name__)}:")
                lines += [f"  {line}" for line in part_keys]
    return joined(lines)


class HelpScreen(ModalScreen[None]):
    """A modal listing the key scheme and every key; escape, q or f1 closes it."""

    DEFAULT_CSS = """
    HelpScreen {
        align: center middle;
    }
    HelpScreen > VerticalScroll {
        width: 84;
        max-width: 100%;
        height: 90%;
        border: thick $primary;
        background: $surface;
        padding: 0 1;
    }
    """
    BINDINGS = [Binding("escape,q,f1", "dismiss", "Close")]

    def __init__(self, table: tuple[ScreenSpec, ...], app_bindings: list[Any]) -> None:
        super().__init__()
        self.table = table
        self.app_bindings = app_bindings

    def compose(self) -> ComposeResult:
        """The key list in a scrolling box."""
        with VerticalScroll():
            yield Static("[b]Keys[/b]  (escape closes)")
            yield Static(key_table(self.table, self.app_bindings), id="help-keys")
