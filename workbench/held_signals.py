"""Ctrl+C and SIGTERM held back while a step that must not be cut in two runs.

A signal's handler raises where Python happens to be: between a directory's mkdir and the
line that records it was made, the directory was left behind by a command that said it
removed what it wrote (`validate` stopped by SIGTERM as soon as its output appeared: its
empty OUT stayed). `workbench.cli.run` installs handlers that call `stop`; inside `held()`
the signal is noted and raised when the step is over, so cleanup code always knows what
was done. Outside the CLI (tests, a library caller) Python's own handlers raise at once.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager


class _Held:
    """How many `held()` steps are running, and the first stop that came meanwhile."""

    depth = 0
    pending: type[BaseException] | None = None


def stop(kind: type[BaseException]) -> None:
    """What a signal handler calls: raise `kind` now, or, inside `held()`, when it ends."""
    if _Held.depth:
        _Held.pending = _Held.pending or kind
        return
    raise kind


@contextmanager
def held() -> Iterator[None]:
    """Run the block whole: a Ctrl+C or SIGTERM that comes meanwhile is raised at its end.

    Only in the main thread, where Python runs signal handlers: a step in a worker thread
    (the author app's validation) cannot be cut by one, and holding there would raise the
    main thread's signal in the worker."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    _Held.depth += 1
    try:
        yield
    finally:
        _Held.depth -= 1
        if not _Held.depth and _Held.pending is not None:
            kind, _Held.pending = _Held.pending, None
            raise kind
