"""Standard error as every command writes it: what it cannot take is dropped, never raised.

Standard error carries diagnostics (progress, `wrote OUT`, `Error:` lines), not what a
command makes. When it could not be written (`2>/dev/full`, a pipe whose reader has
gone), the failing write raised inside the command: a validation whose progress line met
a full device stopped half way and exited 1 (which here means "unscored"); a refusal
whose `Error:` line could not be printed exited 1 instead of 2. As GNU tools do, a
diagnostic that cannot be written is dropped: the command runs to its end and its exit
code is its own, so a script that reads the code learns what happened.
"""

from __future__ import annotations

import contextlib
import io
import os
import sys

from workbench.cli.descriptors import descriptor_of, hold_on_devnull


class _Diagnostics(io.RawIOBase):
    """Standard error's descriptor: each write goes to it whole, or is dropped when the
    device refuses it (there is nowhere left to say so)."""

    def __init__(self, fd: int) -> None:
        super().__init__()
        self._fd = fd

    def writable(self) -> bool:
        return True

    def fileno(self) -> int:
        return self._fd

    def isatty(self) -> bool:
        """A terminal behind it (progress bars draw only there)."""
        try:
            return os.isatty(self._fd)
        except OSError:
            return False

    def write(self, data: bytes | bytearray | memoryview) -> int:  # type: ignore[override]
        """Write `data` (a partial write writes the rest); a refused write is dropped."""
        view = memoryview(data).cast("B")
        done = 0
        with contextlib.suppress(OSError):
            while done < len(view):
                written = os.write(self._fd, view[done:])
                if written <= 0:  # a device that takes nothing: drop the rest
                    break
                done += written
        return len(view)


STDERR = 2
"""Standard error's file descriptor."""


def guard() -> None:
    """Write standard error through `_Diagnostics` from now on (the program's start): by
    line, as Python writes it, in its encoding and with its escapes for what it cannot
    encode. Closed at start (`2>&-`: Python's None), descriptor 2 is held on /dev/null
    (`_closed_at_start`) and diagnostics go there."""
    stream = sys.stderr
    if stream is None:
        _closed_at_start()
        return
    fd = descriptor_of(stream)
    if fd is None:
        return
    sys.stderr = _writer(fd, stream.encoding, stream.errors)


def _writer(fd: int, encoding: str, errors: str | None) -> io.TextIOWrapper:
    """A line-buffered text stream over `_Diagnostics` on `fd`."""
    raw: io.RawIOBase = _Diagnostics(fd)
    return io.TextIOWrapper(
        io.BufferedWriter(raw), encoding=encoding, errors=errors, line_buffering=True
    )


def _closed_at_start() -> None:
    """Hold descriptor 2 on /dev/null (`hold_on_devnull`) and write diagnostics there: left
    free, the next file the command opened took number 2 (a report's temporary file, say),
    and a C library, a worker or Python's last words wrote into it; and a library that
    wrote to Python's None raised. Workers inherit it."""
    if not hold_on_devnull(STDERR, os.O_WRONLY, inheritable=True):
        return
    sys.stderr = _writer(STDERR, "utf-8", "backslashreplace")
