"""The help screen: every key of every screen."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static


def key_table() -> str:
    """Every binding, grouped by screen, as Rich markup."""
    from workbench.tui.app import SCREENS_BY_KEY, WorkbenchApp, screen_class

    lines = ["[b]Everywhere[/b]", "  ctrl+p   command palette", "  ctrl+q   quit"]
    lines += [f"  {b.key:<8} {b.description}" for b in _bindings(WorkbenchApp.BINDINGS)]
    for _, mode, label in SCREENS_BY_KEY:
        own = _bindings(getattr(screen_class(mode), "BINDINGS", []))
        if own:
            lines.append(f"[b]{label}[/b]")
            lines += [f"  {b.key:<8} {b.description}" for b in own]
    lines.append("[b]Help[/b]\n  escape   close")
    return "\n".join(lines)


def _bindings(raw: list) -> list[Binding]:
    return [b for b in raw if isinstance(b, Binding)]


class HelpScreen(ModalScreen[None]):
    """A modal listing every key; escape closes it."""

    BINDINGS = [Binding("escape,q,f1", "dismiss", "Close")]

    def compose(self) -> ComposeResult:
        """The key list in a scrolling box."""
        with VerticalScroll(id="help-box"):
            yield Static("[b]Keys[/b]  (escape closes)", classes="title")
            yield Static(key_table(), id="help-keys")
