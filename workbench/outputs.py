"""Writing outputs safely: whole or not at all, never over something that is not ours.

`atomic_write` replaces a file through a uniquely named temporary sibling (fsync, rename), so
two writers never share a temporary file and a reader never sees half a file.
`write_new_file` is for files a user names (`ledger --out`, `vc generate --out`, ...): it
refuses an existing file unless forced, refuses anything that is not a regular file even
when forced (devices, symbolic links, directories), and never writes into a run directory;
`check_new_file` makes the same checks before a command's work, `write_new_files` writes
several such files, checking every one before writing any. `claim_output_dir`
claims an evaluation's output directory under a lock, so two validations can never share
one, and the partial output of one killed outright is cleared by the next.
Every failure is a one-line UserError.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import random
import re
import shutil
import stat
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType

from ledger.durable import (
    fsync_dir,
    fsync_file,
    make_dirs,
    remove_made,
    start_writeback,
    write_all,
)
from ledger.file_kinds import kind_of
from ledger.file_modes import existing_mode, umask_clears
from workbench.errors import UserError
from workbench.held_signals import held

_TEMP_ATTEMPTS = 100
"""Fresh random names tried before a temporary file is given up (48 random bits each)."""

_names = random.Random()
"""Temporary names need only be unlikely to collide (O_EXCL refuses one that does), so they
come from a seeded generator, not a system call each, as in `tempfile`. A forked child
reseeds, so parent and child never draw the same names into one directory."""
os.register_at_fork(after_in_child=_names.seed)

RUN_MARKER = "run.json"
NOT_IN_A_RUN = "exports are never written into a run"
"""Why a user-named output is refused in a run directory (unless the caller says better)."""
"""The file that makes a directory a run directory (workbench.runs.files.RUN_FILE)."""


def _why(exc: OSError) -> str:
    return exc.strerror or str(exc)


def _parent(path: Path, what: str) -> Path:
    """The existing directory `path` would be written into, or a UserError."""
    parent = path.parent
    if not parent.exists():
        raise UserError(f"{what} {path}: directory {parent} does not exist")
    if not parent.is_dir():
        raise UserError(f"{what} {path}: {parent} is not a directory")
    return parent


def _create_temp(directory: Path, name: str, mode: int) -> tuple[int, Path]:
    """A new, uniquely named file `.NAME.RANDOM.tmp` in `directory`, opened for writing and
    locked (flock) for as long as the descriptor is open: its writer keeps it open until the
    file is renamed into place or removed, so a temporary nobody holds locked is a killed
    writer's (`remove_dead_temporaries`). One such a cleaner took between our create and our
    lock is given up for a fresh name."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    for _ in range(_TEMP_ATTEMPTS):
        temp = directory / f".{name}.{_names.getrandbits(48):012x}.tmp"
        try:
            fd = os.open(temp, flags, mode)
        except FileExistsError:
            continue
        if _held(fd, temp):
            return fd, temp
        os.close(fd)
    raise FileExistsError(errno.EEXIST, "no unused temporary name", str(directory))


def _held(fd: int, temp: Path) -> bool:
    """Lock the new temporary file `fd` (without waiting); True when we hold it and `temp`
    still names it (a file system without locks holds nothing and loses nothing)."""
    locked = _lock(fd)
    if locked is not True:
        return locked is None
    try:
        return os.lstat(temp).st_ino == os.fstat(fd).st_ino
    except FileNotFoundError:
        return False


def _temporary_names(names: Sequence[str]) -> re.Pattern[str]:
    """The names the temporary siblings of files called `names` are given (`_create_temp`)."""
    alternatives = "|".join(re.escape(name) for name in names)
    return re.compile(rf"\.(?:{alternatives})\.[0-9a-f]{{12}}\.tmp")


def remove_dead_temporaries(directory: Path, names: Sequence[str]) -> None:
    """Remove the temporary siblings of files called `names` in `directory` that no live
    writer holds: a killed writer's leftovers (50 MB for `vc generate`), which nothing would
    ever remove. A temporary is taken only under its lock, so a live writer's is never
    touched; a file system without locks, or an entry that is not a regular file, is left."""
    pattern = _temporary_names(names)
    with contextlib.suppress(OSError), os.scandir(directory) as entries:
        found = [e.path for e in entries if pattern.fullmatch(e.name)]
    for path in found:
        with contextlib.suppress(OSError):
            _remove_if_dead(path)


def _remove_if_dead(path: str) -> None:
    """Unlink the regular file `path` if we can lock it (nobody holds it) and it is still the
    file we locked (not on a file system without locks); OSError when it cannot be opened."""
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or _lock(fd) is not True:
            return
        if os.lstat(path).st_ino == info.st_ino:
            os.unlink(path)
    finally:
        os.close(fd)


def _write_temp(
    directory: Path, name: str, data: bytes, what: str, target: Path, new_mode: int = 0o666
) -> tuple[int, Path]:
    """`data` in a new uniquely named temporary file in `directory`: its open descriptor and path.

    The file is created with the target's mode when it replaces one (`new_mode`, less the
    umask, otherwise), so most writes need no chmod; a missing or non-directory parent is
    diagnosed only when the create fails. Not yet fsynced: the caller does that.
    """
    existing = existing_mode(target)
    try:
        fd, temp = _create_temp(directory, name, new_mode if existing is None else existing)
    except OSError as exc:
        if isinstance(exc, FileNotFoundError | NotADirectoryError):
            _parent(target, what)
        raise UserError(f"{what} {target}: cannot write ({_why(exc)})") from None
    try:
        if existing is not None and umask_clears(existing):
            os.fchmod(fd, existing)
        write_all(fd, data)
    except OSError as exc:
        os.close(fd)
        temp.unlink(missing_ok=True)
        raise UserError(f"{what} {target}: cannot write ({_why(exc)})") from None
    return fd, temp


def _written_durably(
    directory: Path, name: str, data: bytes, what: str, target: Path, new_mode: int = 0o666
) -> tuple[int, Path]:
    """`data` in a new, fsynced temporary file in `directory`: its descriptor, still open
    (and so locked) until the caller has put it in place, and its path (`_write_temp`)."""
    fd, temp = _write_temp(directory, name, data, what, target, new_mode)
    try:
        with _cannot_write(target, what):
            os.fsync(fd)
    except UserError:
        temp.unlink(missing_ok=True)
        os.close(fd)
        raise
    return fd, temp


def atomic_write(path: Path, data: bytes, what: str = "file") -> None:
    """Write `path` whole or not at all, durably: a unique temporary sibling, fsync, rename,
    and an fsync of the directory, so the new name survives a power loss."""
    atomic_write_all([(Path(path), data)], what=what)


def atomic_write_all(
    files: Sequence[tuple[Path, bytes]],
    *,
    written: Sequence[Path] = (),
    directories: Sequence[Path] = (),
    what: str = "file",
) -> None:
    """Write several files, each whole or not at all, durably, with one wait for the disk.

    Every temporary sibling is written and its writeback started first (`start_writeback`);
    then they, `written` (files already written and closed, their writeback started by
    their writer) and `directories` (whose new entries must last: the directory holding a
    `written` file, the parent of a directory made for the output) are fsynced; only then
    is each file renamed into place, in the order given, and then the directories they went
    into are fsynced (a rename the disk has not recorded is lost with a power loss, and a
    command that said "written" would have lied). The first fsync's journal commit carries every
    file and entry, so the others cost little: three files took 0.45 ms here against 1.5
    ms written and fsynced one after another. Whoever finds a later file finds the earlier
    ones whole. Each temporary stays open (and locked) until it is renamed or removed.
    """
    staged: list[tuple[Path, Path]] = []
    descriptors: list[int] = []
    try:
        for path, data in files:
            fd, temp = _write_temp(path.parent, path.name, data, what, path)
            descriptors.append(fd)
            staged.append((temp, path))
            start_writeback(fd)
        for path in written:
            with _cannot_write(path, what):
                fsync_file(path)
        for fd, (_, path) in zip(descriptors, staged, strict=True):
            with _cannot_write(path, what):
                os.fsync(fd)
        for directory in dict.fromkeys(directories):
            with _cannot_write(directory, what):
                fsync_dir(directory)
        while staged:
            temp, path = staged[0]
            with _cannot_write(path, what):
                os.replace(temp, path)
            staged.pop(0)
        _renames_durable([path for path, _ in files], what)
    finally:
        for temp, _ in staged:
            temp.unlink(missing_ok=True)
        for fd in descriptors:
            with contextlib.suppress(OSError):
                os.close(fd)


def _renames_durable(paths: Sequence[Path], what: str) -> None:
    """Fsync each directory the files `paths` were just renamed or linked into, once."""
    for directory in dict.fromkeys(path.parent for path in paths):
        with _cannot_write(directory, what):
            fsync_dir(directory)


@contextlib.contextmanager
def _cannot_write(path: Path, what: str) -> Iterator[None]:
    """An OSError inside becomes the one-line UserError `WHAT PATH: cannot write (why)`."""
    try:
        yield
    except OSError as exc:
        raise UserError(f"{what} {path}: cannot write ({_why(exc)})") from None


def run_directory_holding(path: Path) -> Path | None:
    """The run directory `path` would be written into: its folder, or any folder above it
    (symbolic links followed), that holds a run.json; None when there is none."""
    return folder_holding(path, RUN_MARKER)


def folder_holding(path: Path, marker: str) -> Path | None:
    """The folder `path` would be written into, or any folder above it (symbolic links
    followed), that holds a file named `marker`; None when there is none."""
    parent = path.parent
    if (parent / marker).exists():
        return parent
    for folder in parent.resolve().parents:
        if (folder / marker).exists():
            return folder
    return None


def refuse_run_directory(path: Path, what: str, why: str) -> None:
    """A one-line UserError when `path` lies in a run directory (`run_directory_holding`):
    whatever the workbench writes for a user never lands in, or travels with, a run."""
    run = run_directory_holding(path)
    if run is not None:
        raise UserError(f"{what} {path}: {run} is a run directory; {why}")


def _check_new(path: Path, force: bool, what: str, why_not_in_a_run: str) -> Path:
    """The directory a user-named output `path` goes into, once `path` may be written there.

    Refused: a missing parent, a run directory as the parent, anything at `path` that is
    not a regular file (even with `force`), and an existing regular file without `force`.
    """
    parent = _parent(path, what)
    refuse_run_directory(path, what, why_not_in_a_run)
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return parent
    except OSError as exc:
        raise UserError(f"{what} {path}: cannot inspect ({_why(exc)})") from None
    if not stat.S_ISREG(info.st_mode):
        raise UserError(f"{what} {path}: is {kind_of(info.st_mode)}; refusing to replace it")
    if not force:
        raise UserError(
            f"{what} {path}: exists; refusing to overwrite it unless forced", subject="force"
        )
    return parent


def check_new_file(
    path: Path,
    *,
    force: bool = False,
    what: str = "output file",
    why_not_in_a_run: str = NOT_IN_A_RUN,
) -> None:
    """Refuse at once what `write_new_file` would refuse, before a command does its work
    (the write checks again: this only spares the work when the output is refused)."""
    _check_new(Path(path), force, what, why_not_in_a_run)


def write_new_file(
    path: Path,
    data: bytes,
    *,
    force: bool = False,
    what: str = "output file",
    new_mode: int = 0o666,
    why_not_in_a_run: str = NOT_IN_A_RUN,
) -> None:
    """Write a user-named output file atomically; never clobber, never write into a run.

    An existing regular file is replaced only with `force`; anything else that exists at
    `path` (a device, a symbolic link, a directory) is refused even then. A new file gets
    `new_mode` less the umask; a replaced one keeps its mode.
    """
    write_new_files(
        [(Path(path), data)],
        force=force,
        what=what,
        new_mode=new_mode,
        why_not_in_a_run=why_not_in_a_run,
    )


def write_new_files(
    files: Sequence[tuple[Path, bytes]],
    *,
    force: bool = False,
    what: str = "output file",
    new_mode: int = 0o666,
    why_not_in_a_run: str = NOT_IN_A_RUN,
) -> None:
    """Write user-named output files, each as `write_new_file` writes one.

    Every path is checked, and every file written and fsynced to its temporary sibling,
    before the first is put in place (in the order given): a refusal or a failed write
    leaves every path as it was. The temporary siblings a killed writer of the same names
    left are removed first (`remove_dead_temporaries`).
    """
    staged: list[tuple[Path, Path]] = []
    descriptors: list[int] = []
    try:
        parents = [_check_new(Path(path), force, what, why_not_in_a_run) for path, _ in files]
        for parent, (path, data) in zip(parents, files, strict=True):
            target = Path(path)
            remove_dead_temporaries(parent, [target.name])
            fd, temp = _written_durably(parent, target.name, data, what, target, new_mode)
            descriptors.append(fd)
            staged.append((temp, target))
        for temp, target in staged:
            _put_in_place(temp, target, force, what)
        _renames_durable([Path(path) for path, _ in files], what)
    finally:
        for temp, _ in staged:
            temp.unlink(missing_ok=True)
        for fd in descriptors:
            os.close(fd)


def _put_in_place(temp: Path, path: Path, force: bool, what: str) -> None:
    """Give the written temporary file `temp` the name `path`: a rename over the old file
    with `force`, otherwise a link that fails if `path` appeared meanwhile."""
    try:
        if force:
            os.replace(temp, path)
        else:
            os.link(temp, path)
    except FileExistsError:
        raise UserError(
            f"{what} {path}: appeared while writing; refusing to overwrite it"
        ) from None
    except OSError as exc:
        raise UserError(f"{what} {path}: cannot write ({_why(exc)})") from None


@dataclass(frozen=True)
class OutputLayout:
    """What an evaluation writes into its output directory: the directory it claims first,
    then the files renamed into place in order; the last one means the output is whole.

    The claim directory holds `claim_files`, or, with `inner`, one directory per part,
    each an output of that layout (a batch's reports).
    """

    claim: str
    files: tuple[str, ...]
    claim_files: tuple[str, ...] = ()
    inner: OutputLayout | None = None

    @property
    def finished(self) -> str:
        """The file whose presence means the output is whole (written last)."""
        return self.files[-1]

    def owns(self, name: str) -> bool:
        """True for a name this layout writes: the claim, a file, or a file's temporary."""
        return (
            name == self.claim
            or name in self.files
            or any(name.startswith(f".{f}.") and name.endswith(".tmp") for f in self.files)
        )

    def holds_only_ours(self, out: Path) -> bool:
        """True when every entry of `out`, and of its claim directory, is one this layout
        writes, as the kind of file it writes (never a link): only then is it removed."""
        with os.scandir(out) as entries:
            for entry in entries:
                if not self.owns(entry.name) or entry.is_symlink():
                    return False
                if entry.name != self.claim:
                    if not entry.is_file(follow_symlinks=False):
                        return False
                elif not entry.is_dir(follow_symlinks=False) or not self._claim_is_ours(
                    Path(entry.path)
                ):
                    return False
        return True

    def _claim_is_ours(self, claim: Path) -> bool:
        with os.scandir(claim) as entries:
            for entry in entries:
                if entry.is_symlink():
                    return False
                if self.inner is not None:
                    part = entry.is_dir(follow_symlinks=False)
                    if not part or not self.inner.holds_only_ours(Path(entry.path)):
                        return False
                elif entry.name not in self.claim_files or not entry.is_file(follow_symlinks=False):
                    return False
        return True


@dataclass
class OutputClaim:
    """An output directory this process claimed and holds locked until `release`.

    The lock is flock(2) on the directory itself: the kernel drops it however its holder
    ends, so the partial output of an evaluation killed outright (kill -9) is known to be
    abandoned, and the next claim of the same directory removes it and starts again.
    """

    root: Path
    layout: OutputLayout
    created_root: bool
    fd: int | None = None
    made_parents: list[Path] = field(default_factory=list)
    """The missing parents of `root` the claim made (outermost first)."""
    given_mode: int | None = None
    """An existing root's mode before a private claim took others' access away."""

    @property
    def claim(self) -> Path:
        """The claim directory, made once the lock is held."""
        return self.root / self.layout.claim

    def release(self) -> None:
        """Drop the lock (idempotent); what was written stays."""
        if self.fd is not None:
            fd, self.fd = self.fd, None
            os.close(fd)

    def discard(self) -> None:
        """Undo a claim whose writing failed or was interrupted: remove all this layout
        wrote (ours alone while the lock is held), then the root and the parents this
        process created for it, so the same output directory can be used again and nothing
        is left behind; a given root gets back the mode a private claim changed."""
        _remove_owned(self.root, self.layout)
        if self.created_root:
            with contextlib.suppress(OSError):
                self.root.rmdir()
            remove_made(self.made_parents)
        elif self.given_mode is not None and self.fd is not None:
            with contextlib.suppress(OSError):
                os.fchmod(self.fd, self.given_mode)
        self.release()


class ClaimedOutput:
    """`with ClaimedOutput(out, layout) as claim:` claims `out` (`claim_output_dir`),
    discards it if the block fails or is interrupted, and releases it either way.

    The claim is made with Ctrl+C and SIGTERM held (`held_signals`): one that came between
    the output directory's mkdir and the claim that records it would have left the empty
    directory behind, and `validate` stopped by SIGTERM as soon as OUT appeared did. Held,
    it is raised once the claim exists, which is then discarded whole.
    """

    def __init__(
        self,
        out: Path,
        layout: OutputLayout,
        *,
        never_inside: Path | None = None,
        private: bool = False,
    ) -> None:
        self.out = out
        self.layout = layout
        self.never_inside = never_inside
        self.private = private
        self.claim: OutputClaim | None = None

    def __enter__(self) -> OutputClaim:
        try:
            with held():
                self.claim = claim_output_dir(
                    self.out, self.layout, never_inside=self.never_inside, private=self.private
                )
            return self.claim
        except BaseException:
            if self.claim is not None:
                self._discard(self.claim)
            raise

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        claim = self.claim
        assert claim is not None
        if kind is not None:
            self._discard(claim)
        claim.release()

    @staticmethod
    def _discard(claim: OutputClaim) -> None:
        """Discard whole: a second Ctrl+C during the cleanup waits for its end."""
        with held():
            claim.discard()


def _remove_owned(out: Path, layout: OutputLayout) -> None:
    """Remove every entry of `out` that `layout` writes (the claim directory and files)."""
    with contextlib.suppress(OSError):
        for name in os.listdir(out):
            if layout.owns(name):
                path = out / name
                if name == layout.claim and path.is_dir() and not path.is_symlink():
                    shutil.rmtree(path, ignore_errors=True)
                else:
                    with contextlib.suppress(OSError):
                        path.unlink()


def _inside(out: Path, never_inside: Path | None) -> None:
    """Refuse an output directory inside `never_inside` (the results read) or inside any run
    directory: a batch's OUT in a run it reaches through a link wrote into its own input.

    Each path is resolved once (an evaluation asks twice: before its work and when it
    claims the directory); a folder above that cannot be read is left to the claim."""
    try:
        inner = out.resolve()
        outer = None if never_inside is None else never_inside.resolve()
    except RuntimeError:  # Python 3.11's word for a link loop on the way (ELOOP)
        raise UserError(
            f"output directory {out}: cannot access (Too many levels of symbolic links)",
            subject="out",
        ) from None
    if outer is not None and (inner == outer or outer in inner.parents):
        raise UserError(
            f"output directory {out} is inside the results directory {never_inside}; "
            "the results directory is never written",
            subject="out",
        )
    try:
        run = next((f for f in inner.parents if (f / RUN_MARKER).exists()), None)
    except OSError:
        run = None
    if run is not None:
        raise UserError(
            f"output directory {out}: {run} is a run directory; an evaluation is never "
            "written into a run",
            subject="out",
        )


def _not_empty(out: Path) -> UserError:
    return UserError(
        f"output directory {out} exists and is not empty: evaluate into a new directory",
        subject="out",
    )


def _being_written(out: Path) -> UserError:
    return UserError(
        f"output directory {out} is being written by another evaluation: "
        "evaluate into a new directory",
        subject="out",
    )


def _partial_output(out: Path, layout: OutputLayout) -> bool:
    """Refuse a directory holding anything not ours or a whole output; True if it holds
    a partial output of ours (to be removed by whoever holds the lock)."""
    try:
        names = os.listdir(out)
    except OSError as exc:
        raise UserError(
            f"output directory {out}: cannot list ({_why(exc)})", subject="out"
        ) from None
    if not names:
        return False
    try:
        ours = layout.finished not in names and layout.holds_only_ours(out)
    except OSError:
        ours = False
    if not ours:
        raise _not_empty(out)
    return True


def _lock(fd: int) -> bool | None:
    """flock(2) `fd` exclusively without waiting: True, False when another holds it, None
    when the file system takes no locks (then no partial output is ever removed)."""
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    except OSError:
        return None
    return True


def check_output_dir(out: Path, layout: OutputLayout, *, never_inside: Path | None = None) -> None:
    """Refuse early an output directory that cannot be claimed (claiming checks again).

    New, empty, or holding only the partial output of an evaluation that is no longer
    running (killed outright) is fine; another's files, a whole output or a live
    evaluation's directory is refused.
    """
    out = Path(out)
    _inside(out, never_inside)
    try:
        info = os.lstat(out)
    except FileNotFoundError:
        return
    except OSError as exc:
        raise UserError(
            f"output directory {out}: cannot inspect ({_why(exc)})", subject="out"
        ) from None
    if not stat.S_ISDIR(info.st_mode):
        raise UserError(
            f"output directory {out}: is {kind_of(info.st_mode)}, not a new directory",
            subject="out",
        )
    if not _partial_output(out, layout):
        return
    fd = _open_dir(out)
    try:
        locked = _lock(fd)
    finally:
        os.close(fd)
    if locked is None:
        raise _not_empty(out)
    if not locked:
        raise _being_written(out)


PRIVATE_OUTPUT_MODE = 0o700
"""The mode of a private evaluation's output directory: its owner's alone."""


def _keep_private(out: Path, fd: int) -> int | None:
    """Take group's and others' access to the claimed directory `out` (open as `fd`) away;
    its mode before, when that changed it."""
    mode = stat.S_IMODE(os.fstat(fd).st_mode)
    if not mode & ~PRIVATE_OUTPUT_MODE:
        return None
    try:
        os.fchmod(fd, mode & PRIVATE_OUTPUT_MODE)
    except OSError as exc:
        raise UserError(
            f"output directory {out}: other users can read it (mode {mode:o}) and it cannot "
            f"be made its owner's alone ({_why(exc)}); a private campaign's evaluation holds "
            "its world's answers: give a directory you own",
            subject="out",
        ) from None
    return mode


def _open_dir(out: Path) -> int:
    try:
        return os.open(out, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError as exc:
        raise UserError(
            f"output directory {out}: cannot open ({_why(exc)})", subject="out"
        ) from None


def claim_output_dir(
    out: Path, layout: OutputLayout, *, never_inside: Path | None = None, private: bool = False
) -> OutputClaim:
    """Claim `out` for writing `layout`: create it if new, lock it, make the claim directory.

    Of two processes claiming one directory exactly one gets the lock; the other is
    refused. A directory holding another's files or a whole output is refused; one
    holding only the partial output of a killed evaluation (its lock gone with it) is
    emptied of that output and claimed. Missing parents of `out` are made durably; `out`
    and the claim directory are made durable by the writer, with its files.

    `private` (the evaluation of a private campaign's run: its branch outcomes are the
    answers of a world other agents may still be playing) makes `out` its owner's alone,
    new or given: under the umask every user of the machine could read them.
    """
    out = Path(out)
    check_output_dir(out, layout, never_inside=never_inside)
    created = False
    made: list[Path] = []
    if not os.path.lexists(out):
        try:
            made = make_dirs(out.parent)
            out.mkdir(PRIVATE_OUTPUT_MODE if private else 0o777)
            created = True
        except FileExistsError:
            if not out.is_dir():
                remove_made(made)
                raise UserError(
                    f"output directory {out}: appeared as a file; not a new directory",
                    subject="out",
                ) from None
        except OSError as exc:
            remove_made(made)
            raise UserError(
                f"output directory {out}: cannot create the directory ({_why(exc)})", subject="out"
            ) from None
    try:
        fd = _open_dir(out)
    except UserError:
        if created:
            with contextlib.suppress(OSError):
                out.rmdir()
            remove_made(made)
        raise
    result = OutputClaim(out, layout, created, fd, made if created else [])
    # Only a directory this process created and holds may a failure remove: one created
    # here but locked first by another (between our mkdir and our flock) is the other's.
    owned = False
    try:
        locked = _lock(fd)
        if locked is False or os.fstat(fd).st_ino != os.lstat(out).st_ino:
            raise _being_written(out)
        owned = created
        if private:
            result.given_mode = _keep_private(out, fd)
        if _partial_output(out, layout):
            if locked is None:
                raise _not_empty(out)
            _remove_owned(out, layout)
        try:
            result.claim.mkdir()
        except FileExistsError:
            raise _not_empty(out) from None
        except OSError as exc:
            raise UserError(
                f"output directory {out}: cannot write ({_why(exc)})", subject="out"
            ) from None
    except BaseException:
        if owned:
            with contextlib.suppress(OSError):
                out.rmdir()
            remove_made(made)
        elif result.given_mode is not None:
            with contextlib.suppress(OSError):
                os.fchmod(fd, result.given_mode)
        result.release()
        raise
    return result
