"""What a file is, in words, for one-line refusals: its kind, or why it is not a directory."""

from __future__ import annotations

import os
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


def any_kind(mode: int) -> str:
    """`st_mode`'s file type in words, a regular file included ("a file")."""
    return "a file" if stat.S_ISREG(mode) else kind_of(mode)


def not_a_directory(path: str | os.PathLike[str]) -> str | None:
    """Why `path`, given as a directory to read, is not one, as the end of a sentence that
    names it ("does not exist", "is a named pipe, not a directory"), or None when it is one.

    "is not a directory" alone sent a user who had mistyped the name looking for a file."""
    try:
        info = os.stat(path)
    except FileNotFoundError:
        return "is a link to nothing" if os.path.islink(path) else "does not exist"
    except NotADirectoryError:
        return "does not exist (a folder on its way is a file)"
    except OSError as exc:
        return f"cannot be read ({exc.strerror or exc})"
    if stat.S_ISDIR(info.st_mode):
        return None
    return f"is {any_kind(info.st_mode)}, not a directory"
