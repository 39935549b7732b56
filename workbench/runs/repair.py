"""What a killed or failed writer leaves in a run directory, repaired by the next writer.

Only the holder of a run's writer lock writes inside it, so whoever holds the lock next
may repair what the last holder left, and nothing else can be affected:

- a temporary file of an atomic write cut short (`.seal.json.….tmp`, `.store.sqlite.….tmp`,
  `.run.json.….tmp`) is removed: nothing ever names it;
- a journal whose last line has no newline ends in an append that was never acknowledged
  (an append is acknowledged only once its whole line is written and fsynced): that line,
  and only it, is cut off, once the rest verifies and no seal covers the cut entry;
- a journal with a recorded cut (`journal.jsonl.cut`: an append failed, even whole, and
  the disk refused cutting it off at once) is cut back to the size recorded, under the
  same conditions, and the record removed.

A reader (verify, show, validate) never repairs: it names what it finds.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass

from ledger.durable import clear_cut, cut_marker
from ledger.journal import JournalError, read_entries
from workbench.errors import IntegrityError, StorageError
from workbench.runs.files import RUN_FILE, RunPaths, SealError, read_seal, recorded_cut

LEFTOVER_PATTERN = ".*.tmp"
"""The names of the workbench's temporary files: a dot, the target's name, a random part.
In a run directory only its lock holder writes, so every such file is a leftover."""
CREATION_PATTERN = f".{RUN_FILE}.*.tmp"
"""The one temporary file a run's creation writes before run.json exists (a directory
that is not yet a run may hold a user's files: nothing else is touched there)."""


@dataclass(frozen=True)
class Repairs:
    """What repairing a run directory did: leftovers removed, a torn last line cut."""

    leftovers: tuple[str, ...] = ()
    cut_tail: bool = False


def remove_leftovers(paths: RunPaths) -> tuple[str, ...]:
    """Remove a killed writer's temporary files; call only with the run's lock held.

    A disk that refuses is a StorageError."""
    try:
        return _remove_leftovers(paths)
    except OSError as exc:
        raise StorageError(f"{paths.root}: cannot repair the run ({exc.strerror or exc})") from None


def remove_creation_leftovers(paths: RunPaths) -> tuple[str, ...]:
    """Remove what a creation killed before run.json existed left (lock held); OSError."""
    return _remove_leftovers(paths, CREATION_PATTERN)


def _remove_leftovers(paths: RunPaths, pattern: str = LEFTOVER_PATTERN) -> tuple[str, ...]:
    """Remove the temporary files of atomic writes a killed writer left (regular files)."""
    removed = []
    for temp in sorted(paths.root.glob(pattern)):
        if stat.S_ISREG(os.lstat(temp).st_mode):
            temp.unlink()
            removed.append(temp.name)
    return tuple(removed)


def cut_torn_tail(paths: RunPaths, data: bytes) -> bytes:
    """The journal `data` (the file's bytes, just read) without what was never
    acknowledged: the size a recorded cut names, then a last line that has no newline; cut
    off the file too (see the module doc); `data` itself when whole. Call only with the
    run's lock held.

    Raises IntegrityError, changing nothing, when the rest does not verify as a journal or
    the seal covers more entries than the rest holds (the cut line was acknowledged), and
    StorageError when the disk refuses the cut.
    """
    try:
        size = recorded_cut(paths, data)
    except JournalError as exc:
        raise IntegrityError(f"{exc.reason}; the run cannot be repaired") from None
    if size is not None:
        data = _cut(paths, data, size, "the bytes a failed append left")
        try:
            clear_cut(paths.journal)
        except OSError as exc:
            raise StorageError(
                f"{cut_marker(paths.journal)}: cannot remove it ({exc.strerror or exc})"
            ) from None
    if not data or data.endswith(b"\n"):
        return data
    return _cut(paths, data, data.rfind(b"\n") + 1, "its torn last line")


def _cut(paths: RunPaths, data: bytes, keep: int, what: str) -> bytes:
    """Cut `what` off the journal, keeping its first `keep` bytes, durably, once those
    verify as whole entries and no seal covers more; the bytes kept."""
    journal = paths.journal
    if keep == len(data):
        return data
    try:
        if keep and data[keep - 1 : keep] != b"\n":
            raise JournalError("the cut would split a line")
        kept = len(read_entries(data[:keep]))
        seal = read_seal(paths)
    except (JournalError, SealError) as exc:
        raise IntegrityError(
            f"{journal}: cannot cut {what}: the rest is not intact ({exc}); "
            "the run cannot be repaired"
        ) from None
    if seal is not None and seal.journal_entries > kept:
        raise IntegrityError(
            f"{journal}: cannot cut {what}: {paths.seal} covers {seal.journal_entries} "
            f"entries and only {kept} are whole: a sealed entry was lost"
        )
    try:
        with open(journal, "r+b") as handle:
            handle.truncate(keep)
            handle.flush()
            os.fsync(handle.fileno())
    except OSError as exc:
        raise StorageError(f"{journal}: cannot cut {what} ({exc.strerror or exc})") from None
    return data[:keep]
