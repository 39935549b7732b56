"""One error hierarchy for the workbench: a clear message and an exit code each.

Core modules raise these; only the CLI turns them into click exceptions, and the
TUI shows them as notifications. Anything else escaping is a bug, not a user mistake.
"""

from __future__ import annotations

from workbench import exit_codes


class WorkbenchError(Exception):
    """Base of every error a user can cause or meet: `message` is one clear line."""

    exit_code: int = exit_codes.USAGE

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        return self.message


class UserError(WorkbenchError):
    """Bad input or usage (a wrong flag, a malformed file): exits with `exit_codes.USAGE`."""

    exit_code = exit_codes.USAGE


class IntegrityError(WorkbenchError):
    """A run failed verification: exits with `exit_codes.INTEGRITY`."""

    exit_code = exit_codes.INTEGRITY
