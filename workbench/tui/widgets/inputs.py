"""Text fields that keep what the player typed when focus arrives, and the test for one."""

from __future__ import annotations

from typing import Any

from textual.widget import Widget
from textual.widgets import Input, Select, TextArea


def takes_text(widget: Widget | None) -> bool:
    """True for widgets that take typed text (Escape leaves them; screen keys do not fire)."""
    return isinstance(widget, (Input, TextArea, Select))


MAX_FIELD = 4096
"""The longest text a field takes unless it says less (a path's length on Linux)."""


class FormInput(Input):
    """An input that does not select its value on focus, so tabbing in never replaces it,
    and that takes at most `MAX_FIELD` characters unless given a `max_length` of its own."""

    DEFAULT_CSS = """
    FormInput {
        width: 1fr;
    }
    """

    def __init__(self, value: str | None = None, **kwargs: Any) -> None:
        kwargs.setdefault("select_on_focus", False)
        if not kwargs.get("max_length"):
            kwargs["max_length"] = MAX_FIELD
        super().__init__(value, **kwargs)
