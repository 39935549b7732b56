"""The standard streams' descriptors as the program finds them at start."""

from __future__ import annotations

import os
from typing import TextIO


def descriptor_of(stream: TextIO) -> int | None:
    """The descriptor behind a standard stream, flushed; None when it has none (a test's
    capture, a library's replacement): the stream is then left as it is."""
    try:
        fd = stream.fileno()
        stream.flush()
    except (AttributeError, OSError, ValueError):
        return None
    return fd


def hold_on_devnull(fd: int, flags: int, *, inheritable: bool) -> bool:
    """Open /dev/null with `flags` as descriptor `fd`, closed at start (`>&-`, `2>&-`), as
    GNU tools hold it: left free, the next file the command opened took its number, and
    whatever wrote to the stream by number wrote into that file. False if it cannot."""
    try:
        held = os.open(os.devnull, flags | os.O_CLOEXEC)
    except OSError:
        return False
    if held != fd:
        os.dup2(held, fd, inheritable=inheritable)
        os.close(held)
    elif inheritable:
        os.set_inheritable(fd, True)
    return True
