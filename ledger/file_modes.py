"""The permission bits of the files the workbench writes: those a new file would get.

Writers that go through a temporary file (mkstemp creates it 0o600) would otherwise
leave reports, seals and stores readable by their owner alone, unlike the files written
beside them. The umask is read once, at import: reading it means setting it, which is
not safe once threads (the host's) may be creating files.
"""

from __future__ import annotations

import os
from pathlib import Path


def _read_umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


_UMASK = _read_umask()


def new_file_mode() -> int:
    """The mode `open(path, "w")` gives a new file here: 0o666 less the umask."""
    return 0o666 & ~_UMASK


def new_directory_mode() -> int:
    """The mode `mkdir(path)` gives a new directory here: 0o777 less the umask."""
    return 0o777 & ~_UMASK


def existing_mode(target: Path) -> int | None:
    """The permission bits of `target`, or None when there is no such file (yet)."""
    try:
        return os.stat(target).st_mode & 0o777
    except OSError:
        return None


def replacing_mode(target: Path) -> int:
    """The mode for a file about to replace `target`: its own, or a new file's."""
    mode = existing_mode(target)
    return new_file_mode() if mode is None else mode


def umask_clears(mode: int) -> bool:
    """True when a file created with `mode` would not get all of it (the umask clears bits)."""
    return bool(mode & _UMASK)
