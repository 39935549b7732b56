"""Collect the text a screen shows, for assertions on what the player can read."""

from __future__ import annotations

from textual.screen import Screen
from textual.widgets import DataTable, Input, OptionList, Static


def screen_text(screen: Screen) -> str:
    """Every table cell, column label, option, static text and input value of a screen."""
    parts: list[str] = []
    for widget in screen.query("*"):
        if isinstance(widget, DataTable):
            parts += [str(column.label) for column in widget.columns.values()]
            for row in range(widget.row_count):
                parts += [str(cell) for cell in widget.get_row_at(row)]
        elif isinstance(widget, OptionList):
            parts += [str(widget.get_option_at_index(i).prompt) for i in range(widget.option_count)]
        elif isinstance(widget, Static):
            parts.append(str(widget.render()))
        elif isinstance(widget, Input):
            parts.append(widget.value)
    return "\n".join(parts)
