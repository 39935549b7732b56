"""Standard output as every command writes it: whole, or failing by name.

`workbench … | head -1` closes the pipe after one line. Python ignores SIGPIPE, so the
next write fails with EPIPE; click caught that and exited 1 (which here means
"unscored"), and with PYTHONUNBUFFERED set (as many container images do) the write
that met the closed pipe returned short and the rest of the output was dropped without
a word: exit 0. A full or failing disk under a redirection (`> /dev/full`) printed only
`Error: No space left on device`, naming nothing.

`guard` puts a buffered writer of its own on standard output (a buffered writer
writes every byte or raises), whose failures are a `StandardOutputError`;
`failed` turns one into the documented ending: a closed pipe ends quietly with
`exit_codes.OUTPUT_CLOSED` (141, what a shell reports for a tool SIGPIPE stopped),
anything else is `Error: standard output: cannot write (REASON)`, exit 2.
"""

from __future__ import annotations

import contextlib
import errno
import io
import os
import sys
from typing import Any

from workbench import exit_codes
from workbench.cli.descriptors import descriptor_of, hold_on_devnull

STDOUT = 1
"""Standard output's file descriptor."""


class StandardOutputError(OSError):
    """Writing standard output failed: a closed pipe, a full disk, a failing device."""


class StandardOutputClosed(StandardOutputError, BrokenPipeError):
    """Standard output's reader has gone (EPIPE): still a BrokenPipeError to a library
    that writes standard output itself (the MCP SDK's stdio transport)."""


def _failure(exc: OSError) -> StandardOutputError:
    kind = StandardOutputClosed if exc.errno == errno.EPIPE else StandardOutputError
    return kind(exc.errno, exc.strerror)


class _StandardOutputBytes(io.BufferedWriter):
    """Standard output's bytes: every write whole, every failure a StandardOutputError."""

    def write(self, data: Any) -> int:
        try:
            return super().write(data)
        except OSError as exc:
            raise _failure(exc) from exc

    def flush(self) -> None:
        try:
            super().flush()
        except OSError as exc:
            raise _failure(exc) from exc


def guard() -> None:
    """Write standard output through `_StandardOutputBytes` from now on (the program's
    start): buffered as before (by line on a terminal, or when Python was asked for no
    buffering), but never short, and each failure named."""
    stream = sys.stdout
    if stream is None:
        _closed_at_start()
        return
    fd = descriptor_of(stream)
    if fd is None:
        return
    unbuffered = not isinstance(getattr(stream, "buffer", None), io.BufferedIOBase)
    sys.stdout = io.TextIOWrapper(
        _StandardOutputBytes(io.FileIO(fd, "w", closefd=False)),
        encoding=stream.encoding,
        errors=stream.errors,
        line_buffering=bool(stream.line_buffering) or unbuffered,
        write_through=unbuffered,
    )


def _closed_at_start() -> None:
    """Standard output closed before the program started (`>&-`; Python's None): a write
    to it fails by name, exit 2, as on a failing device. Python left it None, so output
    vanished and the end's flush raised a traceback (exit 1, though a command that wrote
    only its --out file had succeeded). Descriptor 1 is held open on /dev/null for reading,
    as GNU tools hold it, so a file the command opens never takes its number (a worker's
    output would land in it) and a write there fails with EBADF."""
    if not hold_on_devnull(STDOUT, os.O_RDONLY, inheritable=False):
        return
    sys.stdout = io.TextIOWrapper(
        _StandardOutputBytes(io.FileIO(STDOUT, "w", closefd=False)),
        encoding="utf-8",
        errors="backslashreplace",
        line_buffering=True,
    )


def failed(exc: StandardOutputError) -> int:
    """End the command for a failed write of standard output; returns its exit code.

    A closed pipe says nothing (its reader has all it wanted); anything else is one line
    naming standard output. Either way what is still buffered is dropped: standard output
    is pointed at /dev/null, so Python's last flush at exit finds nothing to fail on
    (no `Exception ignored … BrokenPipeError`, no exit 120).
    """
    _drop_the_rest()
    if exc.errno == errno.EPIPE:
        return exit_codes.OUTPUT_CLOSED
    from workbench.cli import echo_error

    echo_error(f"standard output: cannot write ({exc.strerror or exc})")
    return exit_codes.USAGE


def flushed() -> int | None:
    """Flush standard output before the program ends: None when it holds everything,
    else the exit code of its failure (`failed`)."""
    try:
        sys.stdout.flush()
    except StandardOutputError as exc:
        return failed(exc)
    except ValueError:  # closed by a library that wrapped it and let go (nothing to flush)
        pass
    return None


def _drop_the_rest() -> None:
    with contextlib.suppress(AttributeError, OSError, ValueError):
        fd = sys.stdout.fileno()
        sink = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(sink, fd)
        finally:
            os.close(sink)
