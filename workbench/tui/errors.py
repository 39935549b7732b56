"""Turn the project's expected errors into notifications; anything else is a bug and raises.

Expected are the errors the CLI turns into one `Error:` line: a WorkbenchError, and an
OSError (a path the operating system refuses: too long, not permitted, on a failing
disk), which the CLI prints as `PATH: cannot access (reason)`. A screen's worker catches
`EXPECTED` and shows `expected_message`; an OSError escaping a worker ended the app with
a traceback.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from textual.app import App

from workbench.errors import WorkbenchError, os_error_message
from workbench.messages import bound_message

T = TypeVar("T")

EXPECTED = (WorkbenchError, OSError)
"""What a screen shows as a message rather than a crash."""


def expected_message(exc: WorkbenchError | OSError) -> str:
    """The message of an expected error: a WorkbenchError's lines, or an OSError's one line
    (bounded as the CLI bounds it: a path the system refused as too long is a long one)."""
    if isinstance(exc, WorkbenchError):
        return exc.message
    return bound_message([os_error_message(exc)])


def guarded(app: App, call: Callable[[], T]) -> T | None:
    """Run `call`; on an expected error notify its message and return None."""
    try:
        return call()
    except EXPECTED as exc:
        app.notify(expected_message(exc), severity="error", timeout=6)
        return None
