"""One error hierarchy for the workbench: a clear message and an exit code each.

Core modules raise these; only the CLI turns them into click exceptions, and the
TUI shows them as notifications. Anything else escaping is a bug, not a user mistake.
A lower layer's error (ledger, sim, graders) becomes one of these at the workbench
boundary that calls it, through `reraised`.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from workbench import exit_codes


class WorkbenchError(Exception):
    """Base of every error a user can cause or meet: one clear line per problem.

    `message` is that line, or a list of them (a malformed file: one `FILE: field:
    problem` line each); `lines` holds them apart, so a line break a value brought into
    a line (a path holding a newline) is never taken for the start of another: the CLI
    shows it escaped. `subject` names the input at fault in front-end neutral words
    ("out", "control", "agent", "workers"); the CLI adds its flag, the TUI its field.
    Core messages never name a CLI flag themselves.
    """

    exit_code: int = exit_codes.USAGE

    def __init__(self, message: str | Sequence[str], *, subject: str | None = None) -> None:
        self.lines: tuple[str, ...] = (message,) if isinstance(message, str) else tuple(message)
        super().__init__(self.message)
        self.subject = subject

    @property
    def message(self) -> str:
        """The lines, one after another (what the TUI and the host show)."""
        return "\n".join(self.lines)

    def __str__(self) -> str:
        return self.message


class UserError(WorkbenchError):
    """Bad input or usage (a wrong flag, a malformed file): exits with `exit_codes.USAGE`."""

    exit_code = exit_codes.USAGE


class AccessError(UserError):
    """A file the system refuses to let this process read (permissions, a failing disk):
    a usage error wherever it is met, never taken for damage to what the file holds (an
    unreadable journal is no broken chain)."""


class StorageError(WorkbenchError):
    """The disk refused a run's write (full, read-only, failing): the command it carried
    was not applied and the files are as they were, or are repaired when the run is next
    opened. Exits with `exit_codes.USAGE` (a file the command may not write)."""

    exit_code = exit_codes.USAGE


class IntegrityError(WorkbenchError):
    """A run failed verification: exits with `exit_codes.INTEGRITY`."""

    exit_code = exit_codes.INTEGRITY


class Terminated(BaseException):
    """SIGTERM arrived (`workbench.cli.run` raises it from the signal): like Ctrl+C's
    KeyboardInterrupt, not an Exception, so only cleanup code (`except BaseException`,
    `finally`) meets it on its way out, and what was being written is removed as for Ctrl+C."""


def interruption(exc: BaseException) -> BaseException | None:
    """The Ctrl+C (KeyboardInterrupt) or SIGTERM (`Terminated`) behind `exc`, if any.

    A signal raises where Python happens to be, and a library that calls back into Python
    may wrap what its callback raised into an ordinary exception (pydantic turns a
    KeyboardInterrupt in a serializer into a PydanticSerializationError, "caused by" it). An
    `except Exception` that keeps going (a failed question, a lost task) would then swallow
    the user's Ctrl+C; every such handler asks this first and re-raises what it returns.
    """
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        if isinstance(current, KeyboardInterrupt | Terminated):
            return current
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return None


def not_interrupted(exc: BaseException) -> None:
    """Re-raise the Ctrl+C or SIGTERM behind `exc` (see `interruption`); else return."""
    stop = interruption(exc)
    if stop is not None:
        raise stop


def framed(error: WorkbenchError, before: str = "", after: str = "") -> list[str]:
    """`error`'s lines with `before` put in front of the first and `after` behind the last:
    a message that adds where or why to another's, its lines kept apart."""
    lines = list(error.lines) or [""]
    lines[0] = before + lines[0]
    lines[-1] += after
    return lines


def one_line(text: str) -> str:
    """`text` on one line: a multi-line message's lines joined, list markers dropped."""
    parts = [line.strip().removeprefix("- ") for line in text.splitlines() if line.strip()]
    if not parts:
        return text.strip()
    joined = parts[0]
    for part in parts[1:]:
        joined += (" " if joined.endswith(":") else "; ") + part
    return joined


@contextmanager
def reraised(
    kind: type[WorkbenchError], *errors: type[Exception], where: str = ""
) -> Iterator[None]:
    """Re-raise the lower-layer `errors` raised inside as `kind`: one line, after `where`."""
    try:
        yield
    except errors as exc:
        text = one_line(str(exc))
        raise kind(f"{where}: {text}" if where else text) from exc


def os_error_message(exc: OSError) -> str:
    """`PATH: cannot access (reason)` for an OSError, naming both paths of a rename: the
    one line the CLI prints for a refusal by the operating system, and the TUI shows."""
    reason = exc.strerror or str(exc)
    paths = [str(p) for p in (exc.filename, exc.filename2) if p is not None]
    return f"{' -> '.join(paths)}: cannot access ({reason})" if paths else reason
