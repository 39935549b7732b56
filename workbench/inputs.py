"""Reading user-supplied files with a size limit, so no input can exhaust memory.

Every file a user hands the workbench (control files, scripts, submissions, grader inputs,
seals, registrations) is read through `read_bounded`, which refuses anything larger than its
documented limit, a directory, a pipe or device where only the workbench's own regular
files belong, and unreadable paths, with one line; it never waits for a pipe's writer.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Final

from ledger.bounded_read import read_at_most
from ledger.file_kinds import kind_of, not_a_directory
from workbench.errors import AccessError, UserError

KIB: Final = 1024
MIB: Final = 1024 * KIB

LIMITS: Final[dict[str, int]] = {
    "control file": 4 * MIB,
    "agent list": 1 * MIB,
    "script": 16 * MIB,
    "reference script": 16 * MIB,
    "submission": 1 * MIB,
    "grader input": 256 * MIB,
    "registration": 64 * KIB,
    "seal": 1 * MIB,
    "seals": 64 * MIB,
    "journal": 256 * MIB,
    "report": 64 * MIB,
    "checksums": 16 * MIB,
    "batch table": 64 * MIB,
    "host record": 64 * KIB,
}
"""Documented size limit of each kind of input (README, "Input limits")."""


WRITTEN_BY_THE_WORKBENCH: Final = frozenset(
    {
        "registration",
        "seal",
        "seals",
        "journal",
        "report",
        "checksums",
        "batch table",
        "host record",
    }
)
"""Kinds only the workbench writes, always as regular files: a named pipe or a device in
their place is refused, never waited on (a planted pipe would hang a batch validation)."""

REGULAR_FILES_ONLY: Final = WRITTEN_BY_THE_WORKBENCH | {"campaign file", "reference script"}
"""Kinds that must be regular files: the workbench's own, and the files of a campaign
folder (its reference.jsonl is the author's file, never a stream): a pipe or a device
there is refused at once, never read or waited on."""


def read_bounded(path: str | Path, what: str, limit: int | None = None) -> bytes:
    """The bytes of `path`, a `what` (a key of LIMITS unless `limit` is given), or a UserError.

    Reads at most limit + 1 bytes, so a device such as /dev/zero or a FIFO never exhausts
    memory, and none of a regular file already larger than the limit. A pipe or a device
    is read (a script from process substitution or a named pipe) unless `what` is
    REGULAR_FILES_ONLY: then it is refused and its open never waits for a writer.
    A named pipe a user hands in is opened as `cat` opens it, waiting for its writer (a
    pipe opened without waiting reads as empty until a writer comes, and an empty
    script would play a run to its end with no decisions).
    """
    path = Path(path)
    cap = LIMITS[what] if limit is None else limit
    wait = what not in REGULAR_FILES_ONLY and _is_pipe(path)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC | (0 if wait else os.O_NONBLOCK))
        with open(fd, "rb") as handle:
            info = os.fstat(fd)
            mode = info.st_mode
            if stat.S_ISDIR(mode):
                raise UserError(f"{path}: {what} is a directory, not a file")
            if not stat.S_ISREG(mode):
                if what in REGULAR_FILES_ONLY:
                    raise UserError(f"{path}: {what} is {kind_of(mode)}, not a regular file")
                os.set_blocking(fd, True)
            elif info.st_size > cap:
                raise _too_large(path, what, cap)
            data = read_at_most(handle, cap)
    except UserError:
        raise
    except FileNotFoundError:
        raise UserError(f"{path}: {what} does not exist") from None
    except IsADirectoryError:
        raise UserError(f"{path}: {what} is a directory, not a file") from None
    except OSError as exc:
        raise AccessError(f"{path}: cannot read {what} ({exc.strerror or exc})") from None
    if len(data) > cap:
        raise _too_large(path, what, cap)
    return data


def _is_pipe(path: Path) -> bool:
    """True when `path` names a pipe (following links, as /dev/fd/N is one)."""
    try:
        return stat.S_ISFIFO(os.stat(path).st_mode)
    except OSError:
        return False


def refuse_over_limit(
    path: str | Path, what: str, size: int, limit: int | None = None, fits: str = ""
) -> None:
    """Refuse to write `size` bytes as `path`, a `what` (a key of LIMITS unless `limit` is
    given), when its readers would refuse it: the workbench never writes a file that it
    cannot read back. One line, with `fits` (what would fit) when given; nothing written."""
    cap = LIMITS[what] if limit is None else limit
    if size > cap:
        hint = f" ({fits})" if fits else ""
        raise UserError(
            f"{path}: {what} would be {size:,} bytes, larger than its limit of "
            f"{_size(cap)}{hint}; nothing was written"
        )


def _too_large(path: Path, what: str, cap: int) -> UserError:
    return UserError(f"{path}: {what} is larger than its limit of {_size(cap)}")


def _size(n: int) -> str:
    """A byte count in the largest whole unit (KiB, MiB)."""
    if n % MIB == 0:
        return f"{n // MIB} MiB"
    if n % KIB == 0:
        return f"{n // KIB} KiB"
    return f"{n} bytes"


def require_directory(path: Path, what: str = "") -> None:
    """Refuse, in one line naming it, a `path` to read that is not a directory."""
    why = not_a_directory(path)
    if why is not None:
        raise UserError(f"{what + ' ' if what else ''}{path} {why}")
