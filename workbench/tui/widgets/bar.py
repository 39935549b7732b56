"""The screen bar: every screen of the mode with its go-to key, the current one marked."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.content import Content
from textual.widgets import Static

from workbench.tui.markup import joined, styled

if TYPE_CHECKING:
    from workbench.tui.app import ScreenSpec


class ScreenBar(Static):
    """One line naming the screens (`ctrl+o` then the digit, or a click) and the current one."""

    DEFAULT_CSS = """
    ScreenBar {
        height: 1;
        width: 1fr;
        background: $panel;
        color: $text-muted;
        padding: 0 1;
    }
    """

    def __init__(self, table: tuple[ScreenSpec, ...], current: str, **kwargs: object) -> None:
        super().__init__(self.markup_for(table, current), **kwargs)  # type: ignore[arg-type]

    @staticmethod
    def markup_for(table: tuple[ScreenSpec, ...], current: str) -> Content:
        """The bar's text: clickable screen names, the current one in bold reverse."""
        parts = [Content("≡ ")]
        for spec in table:
            label = f"{spec.key} {spec.label}"
            if spec.mode == current:
                parts.append(styled("[b reverse] $label [/]", label=label))
            else:
                parts.append(styled(f"[@click=app.view('{spec.mode}')] $label [/]", label=label))
        parts.append(styled("  [dim]ctrl+o go to · f1 help[/]"))
        return joined(parts, separator="")
