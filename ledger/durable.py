"""Durable appends with as few system calls as the guarantee needs.

Python's buffered `open(path, "ab")` adds an fstat, an isatty ioctl and two lseeks to the
open, write, fsync and close an append needs. In a threaded server every system call
gives up the GIL, and under load each one can wait a whole switch interval to get it
back, so a journaled command pays for every call it makes.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path


def write_all(fd: int, data: bytes) -> None:
    """Write every byte of `data` to `fd` (a regular file may take it in several writes)."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def append_written(path: Path, data: bytes) -> None:
    """Append `data` to `path` (created with the umask's mode if missing), without fsync.

    For a writer that makes the file durable later (`fsync_file`) and acknowledges
    nothing before it has. Raises OSError.
    """
    _append(path, data, sync=False)


def start_writeback(fd: int) -> None:
    """Ask the kernel to start writing `fd`'s dirty pages now, without waiting (a hint).

    Before fsyncing several new files, starting every file's writeback first lets one
    journal commit carry them all: on ext4 the first fsync then writes the others' data
    too, and theirs only wait for it (three small files: 0.45 ms here against 0.7 ms).
    Writing out the evaluation's seals file this way as soon as it is complete also
    overlaps the disk with building the report. On Linux, POSIX_FADV_DONTNEED starts
    writeback of dirty pages (and drops clean ones, which output files do not need);
    elsewhere, or on a descriptor that is not a file, it does nothing. Durability is
    still the fsync's job.
    """
    advise = getattr(os, "posix_fadvise", None)
    if advise is not None:
        with contextlib.suppress(OSError):
            advise(fd, 0, 0, os.POSIX_FADV_DONTNEED)


def fsync_file(path: Path) -> None:
    """Make everything written to `path` so far durable, whichever descriptor wrote it."""
    _fsync(path, os.O_RDONLY | os.O_CLOEXEC)


def fsync_dir(path: Path) -> None:
    """Make a rename or unlink in the directory `path` durable."""
    _fsync(path, os.O_RDONLY | os.O_CLOEXEC | os.O_DIRECTORY)


def _fsync(path: Path, flags: int) -> None:
    fd = os.open(path, flags)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def append_durably(path: Path, data: bytes) -> None:
    """Append `data` to `path` (created with the umask's mode if missing) and fsync it.

    Raises OSError with the file as it was before (see `_append`).
    """
    _append(path, data, sync=True)


class TornAppend(OSError):
    """An append failed and what it had written could not be cut off again: the file ends
    in a partial record until its owner cuts it (it was never acknowledged)."""


def _append(path: Path, data: bytes, *, sync: bool) -> None:
    """Append `data`, all or nothing: when a write or the fsync fails (a full disk, an I/O
    error), what this append wrote is cut off again before the OSError is raised, so the
    next append never lands behind a fragment. If even that fails, `TornAppend`."""
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o666)
    written = 0
    try:
        view = memoryview(data)
        try:
            while view:
                count = os.write(fd, view)
                written += count
                view = view[count:]
            if sync:
                os.fsync(fd)
        except OSError as exc:
            _cut_back(fd, written, exc)
            raise
    finally:
        os.close(fd)


def _cut_back(fd: int, written: int, cause: OSError) -> None:
    """Cut the last `written` bytes off `fd`'s file (a failed append's), durably."""
    if not written:
        return
    try:
        os.ftruncate(fd, os.fstat(fd).st_size - written)
        os.fsync(fd)
    except OSError as exc:
        raise TornAppend(
            cause.errno, f"{cause.strerror}; and cutting the partial write failed: {exc.strerror}"
        ) from cause


def truncate_durably(path: Path, size: int) -> None:
    """Cut `path` to its first `size` bytes and fsync it (OSError when the disk refuses)."""
    fd = os.open(path, os.O_WRONLY | os.O_CLOEXEC)
    try:
        os.ftruncate(fd, size)
        os.fsync(fd)
    finally:
        os.close(fd)
