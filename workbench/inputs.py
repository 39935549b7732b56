"""Reading user-supplied files with a size limit, so no input can exhaust memory.

Every file a user hands the workbench (control files, scripts, submissions, grader inputs,
seals, registrations) is read through `read_bounded`, which refuses anything larger than its
documented limit, anything that is not a regular file, and unreadable paths, with one line.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Final

from ledger.bounded_read import read_at_most
from workbench.errors import UserError

KIB: Final = 1024
MIB: Final = 1024 * KIB

LIMITS: Final[dict[str, int]] = {
    "control file": 64 * KIB,
    "script": 16 * MIB,
    "submission": 1 * MIB,
    "grader input": 256 * MIB,
    "registration": 64 * KIB,
    "seal": 1 * MIB,
    "seals": 64 * MIB,
    "journal": 256 * MIB,
    "report": 64 * MIB,
    "checksums": 16 * MIB,
}
"""Documented size limit of each kind of input (README, "Input limits")."""


def read_bounded(path: str | Path, what: str, limit: int | None = None) -> bytes:
    """The bytes of `path`, a `what` (a key of LIMITS unless `limit` is given), or a UserError.

    Reads at most limit + 1 bytes, so a device such as /dev/zero or a FIFO never exhausts memory.
    """
    path = Path(path)
    cap = LIMITS[what] if limit is None else limit
    try:
        with open(path, "rb") as handle:
            info = os.fstat(handle.fileno())
            if stat.S_ISDIR(info.st_mode):
                raise UserError(f"{path}: {what} is a directory, not a file")
            data = read_at_most(handle, cap)
    except UserError:
        raise
    except FileNotFoundError:
        raise UserError(f"{path}: {what} does not exist") from None
    except IsADirectoryError:
        raise UserError(f"{path}: {what} is a directory, not a file") from None
    except OSError as exc:
        raise UserError(f"{path}: cannot read {what} ({exc.strerror or exc})") from None
    if len(data) > cap:
        raise UserError(f"{path}: {what} is larger than its limit of {_size(cap)}")
    return data


def _size(n: int) -> str:
    """A byte count in the largest whole unit (KiB, MiB)."""
    if n % MIB == 0:
        return f"{n // MIB} MiB"
    if n % KIB == 0:
        return f"{n // KIB} KiB"
    return f"{n} bytes"
