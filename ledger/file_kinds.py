"""What a file that is not a regular file is, in words, for one-line refusals."""

from __future__ import annotations

import stat


def kind_of(mode: int) -> str:
    """`st_mode`'s file type in words: "a directory", "a named pipe", "a device", ..."""
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISFIFO(mode):
        return "a named pipe"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "an unknown kind of file"
