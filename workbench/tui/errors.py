"""Turn the project's expected errors into notifications instead of crashes."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from textual.app import App

from workbench.errors import WorkbenchError

T = TypeVar("T")

EXPECTED: tuple[type[Exception], ...] = (WorkbenchError, ValueError, OSError, KeyError)


def message_of(exc: Exception) -> str:
    """The user-facing text of an error."""
    if isinstance(exc, WorkbenchError):
        return exc.message
    return str(exc) or type(exc).__name__


def guarded(app: App, call: Callable[[], T]) -> T | None:
    """Run `call`; on an expected error notify it and return None."""
    try:
        return call()
    except EXPECTED as exc:
        app.notify(message_of(exc), severity="error", timeout=6)
        return None
