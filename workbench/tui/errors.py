"""Turn the project's expected errors into notifications; anything else is a bug and raises.

Expected are the errors the CLI turns into one `Error:` line: a WorkbenchError, and an
OSError (a path the operating system refuses: too long, not permitted, on a failing
disk), which the CLI prints as `PATH: cannot access (reason)`. A screen's worker catches
`EXPECTED` and shows `expected_message`; an OSError escaping a worker ended the app with
a traceback.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Concatenate, ParamSpec, TypeVar

from textual.app import App
from textual.message_pump import MessagePump

from workbench.errors import WorkbenchError, os_error_message
from workbench.messages import bound_message

T = TypeVar("T")
P = ParamSpec("P")
Pump = TypeVar("Pump", bound=MessagePump)

EXPECTED = (WorkbenchError, OSError)
"""What a screen shows as a message rather than a crash."""


def expected_message(exc: WorkbenchError | OSError) -> str:
    """The message of an expected error: a WorkbenchError's lines, or an OSError's one line
    (bounded as the CLI bounds it: a path the system refused as too long is a long one)."""
    if isinstance(exc, WorkbenchError):
        return exc.message
    return bound_message([os_error_message(exc)])


def guarded(app: App, call: Callable[[], T], timeout: float = 6) -> T | None:
    """Run `call`; on an expected error notify its message (an error notice shown for
    `timeout` seconds) and return None. The one rule for how an expected error becomes a
    notice: `shown_as_notice` runs its handler through it."""
    try:
        return call()
    except EXPECTED as exc:
        app.notify(expected_message(exc), severity="error", timeout=timeout)
        return None


def shown_as_notice(
    handler: Callable[Concatenate[Pump, P], T],
) -> Callable[Concatenate[Pump, P], T | None]:
    """A key, message or palette handler whose expected error is a notice, not a crash
    (`guarded`, shown 8 s).

    Every handler that reads the session can meet one: a hosted run's reads go to the
    host, and a host gone mid-play made a cursor move or a keypress close the app.
    """

    @functools.wraps(handler)
    def run(self: Pump, *args: P.args, **kwargs: P.kwargs) -> T | None:
        return guarded(self.app, lambda: handler(self, *args, **kwargs), timeout=8)

    return run
