"""Errors of the hosted runtime: one clear message, an HTTP status and a stable code each."""

from __future__ import annotations

from typing import ClassVar

from workbench.messages import bound_line, single_line


class HostError(Exception):
    """A request the host refuses: `message` is one line, `status` its HTTP status."""

    status: ClassVar[int] = 400
    code: ClassVar[str] = "bad_request"

    def __init__(self, message: str) -> None:
        """Keep `message` as one printable, bounded line, whatever an agent's values put in
        it (a newline or a control character in a name it sent, 32 long names)."""
        line = bound_line(single_line(message))
        super().__init__(line)
        self.message = line

    def __str__(self) -> str:
        return self.message


class BadRequest(HostError):
    """A malformed request: not JSON, not an object, a malformed id or query."""


class Unauthorized(HostError):
    """No bearer token, or one no registered agent holds."""

    status = 401
    code = "unauthorized"


class Forbidden(HostError):
    """A limit of the host is reached (commands per run)."""

    status = 403
    code = "limit_reached"


class NotFound(HostError):
    """No such route, or no such run among the caller's runs (another agent's run too)."""

    status = 404
    code = "not_found"


class Conflict(HostError):
    """A command id reused for another command (a finished run's is `RunFinished`)."""

    status = 409
    code = "conflict"


class EpisodeExists(Conflict):
    """A start command from an agent that already has its one episode."""

    code = "episode_exists"


class RunFinished(Conflict):
    """A command to a finished run (a reused command id is `conflict`)."""

    code = "run_finished"


class TooLarge(HostError):
    """A request body over the host's limit."""

    status = 413
    code = "too_large"


class Invalid(HostError):
    """A well-formed request the run refuses: a schema or contract error, an unknown action."""

    status = 422
    code = "invalid"


class Damaged(HostError):
    """A run that failed its integrity check at start-up, or whose journal could not be
    made durable: the operator must inspect it."""

    status = 503
    code = "run_damaged"


class Busy(HostError):
    """A run another process is writing (the operator's own command): try again later."""

    status = 503
    code = "run_busy"


class StorageFailed(HostError):
    """The disk refused a run's write (full, failing): the command was not applied."""

    status = 503
    code = "storage_failed"
