"""Text fields that keep what the player typed when focus arrives, and the test for one;
whole-number fields that refuse a number out of their range, saying which is valid."""

from __future__ import annotations

import re
from typing import Any

from textual.widget import Widget
from textual.widgets import Input, Select, TextArea

from workbench.messages import clip


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


def valid_range(low: int | None, high: int | None) -> str:
    """`a whole number from 1 to 180` (or from, up to, or any whole number); `1` when only
    one is valid (one day left said `from 1 to 1`)."""
    if low is not None and low == high:
        return f"{low:,}"
    if low is not None and high is not None:
        return f"a whole number from {low:,} to {high:,}"
    if low is not None:
        return f"a whole number from {low:,} up"
    if high is not None:
        return f"a whole number up to {high:,}"
    return "a whole number"


_WHOLE = re.compile(r"-?[0-9]{1,18}")
"""A whole number as typed: ASCII digits only, as the host and scripts take it (`int`
also took `1_0` for ten and other scripts' digits)."""


def number_problem(field: str, text: str, low: int | None, high: int | None) -> str | None:
    """Why `text` is not a valid number for `field`, in one line naming the field and the
    valid range; None when it is one."""
    wanted = valid_range(low, high)
    if not text:
        return f"{field}: type {wanted}."
    if not _WHOLE.fullmatch(text):
        return f"{field}: {clip(text, 40)} is not a whole number; type {wanted}."
    value = int(text)
    if (low is not None and value < low) or (high is not None and value > high):
        return f"{field}: {value:,} is out of range; type {wanted}."
    return None


class NumberInput(FormInput):
    """A whole-number field named `field` (as its messages call it).

    `number(low, high)` reads it: a number out of the range is refused, never clamped to
    it. The refusal is one error line naming the field and the valid range, and the field
    goes back to the last number it gave, selected, so what is typed next replaces it. A
    field whose number is used `once` (days to advance) is emptied when it gives one.
    """

    def __init__(
        self, value: str | None = None, *, field: str, once: bool = False, **kwargs: Any
    ) -> None:
        kwargs.setdefault("type", "integer")
        super().__init__(value, **kwargs)
        self.field = field
        self.once = once
        self.accepted = value or ""
        """The text of the last number the field gave (its start value before any)."""

    def number(self, low: int | None = None, high: int | None = None) -> int | None:
        """The typed whole number when it is from `low` to `high` (None: unbounded); else
        None, after saying why."""
        text = self.value.strip()
        problem = number_problem(self.field, text, low, high)
        if problem is not None:
            self.refuse(problem)
            return None
        if self.once:
            self.value = ""
        else:
            self.accepted = text
        return int(text)

    def refuse(self, message: str) -> None:
        """Say why nothing happened; put back the last number given, selected."""
        self.value = self.accepted
        self.select_all()
        self.notify(message, severity="error")
