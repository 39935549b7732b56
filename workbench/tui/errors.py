"""Turn the project's expected errors into notifications; anything else is a bug and raises."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from textual.app import App

from workbench.errors import WorkbenchError

T = TypeVar("T")


def guarded(app: App, call: Callable[[], T]) -> T | None:
    """Run `call`; on a WorkbenchError notify its one line and return None."""
    try:
        return call()
    except WorkbenchError as exc:
        app.notify(exc.message, severity="error", timeout=6)
        return None
