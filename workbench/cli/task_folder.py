"""Staging a causal-gym task folder for `causal generate --out`: whole, one writer at a time.

The folder's files are written through temporary siblings and renamed into place one by
one, so two commands staging into one folder at once could leave one task's `data.csv`
beside another's `README.md`. The folder is therefore locked (flock(2) on the folder
itself) while it is checked and written: a second command is refused, and the temporary
files a killed writer left there (whose lock went with it) are removed, not reported as
the user's own files.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from collections.abc import Iterator
from pathlib import Path

from ledger.durable import make_dirs
from workbench.errors import UserError
from workbench.messages import single_line
from workbench.outputs import remove_dead_temporaries, run_directory_holding, write_new_files

SHOWN_NAMES = 5
"""Names of other files a refusal lists before it counts the rest."""
NAME_WIDTH = 60
"""Characters of one listed name shown before it is cut."""


def _why(exc: OSError) -> str:
    return exc.strerror or str(exc)


def _name(name: str) -> str:
    """A file name from the folder as printable text of bounded length."""
    shown = single_line(name)
    return shown if len(shown) <= NAME_WIDTH else shown[: NAME_WIDTH - 1] + "…"


def _others(names: list[str]) -> str:
    """`names` for a one-line message: the first few, then how many more."""
    listed = ", ".join(_name(name) for name in names[:SHOWN_NAMES])
    rest = len(names) - SHOWN_NAMES
    return listed if rest <= 0 else f"{listed} and {rest:,} more"


@contextlib.contextmanager
def _locked(out: Path) -> Iterator[bool]:
    """Hold an exclusive lock on the folder `out`; yields whether the file system took it
    (without locks, nothing found there is taken for a killed writer's)."""
    try:
        fd = os.open(out, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError as exc:
        raise UserError(f"--out {out}: cannot open the folder ({_why(exc)})") from None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            locked = True
        except BlockingIOError:
            raise UserError(
                f"--out {out}: another command is staging a task there now; "
                "run this one when it has finished"
            ) from None
        except OSError:
            locked = False
        yield locked
    finally:
        os.close(fd)


def stage_folder(out: Path, files: dict[str, str], force: bool) -> None:
    """Stage exactly `files` in the folder `out`, created when new, never half-written.

    A folder holding anything else, or inside a run directory, is refused; a staged file
    already there is replaced only with `force`, and never when it is not a regular file.
    Every file is checked and written before the first is put in place, so a refusal
    leaves the folder as it was (a folder made for it is removed again).
    """
    if os.path.lexists(out) and not out.is_dir():
        raise UserError(f"--out {out} exists and is not a directory")
    run = run_directory_holding(out)
    if run is not None:
        raise UserError(f"--out {out}: {run} is a run directory; tasks are never staged there")
    created = not out.exists()
    try:
        make_dirs(out)
    except OSError as exc:
        raise UserError(f"--out {out}: cannot create the folder ({_why(exc)})") from None
    with _locked(out) as locked:
        try:
            if locked:
                remove_dead_temporaries(out, list(files))
            strangers = sorted(name for name in os.listdir(out) if name not in files)
            if strangers:
                raise UserError(f"--out {out} already holds other files: {_others(strangers)}")
            staged = [(out / name, text.encode()) for name, text in files.items()]
            write_new_files(staged, force=force, what="staged file")
        except BaseException:
            if created:
                with contextlib.suppress(OSError):
                    out.rmdir()
            raise
