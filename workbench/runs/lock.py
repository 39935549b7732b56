"""One writer per run directory: an exclusive lock refused at once, never stale.

The lock is flock(2) on `RUN/run.lock`. The kernel drops it when its holder exits, however
it exits (kill -9 included), so no stale lock can outlive its process. While held, the
file names the holder (pid, command, since) so a refused writer can say who has the run;
the holder empties it again on release, so at rest the file is empty. Readers (verify,
show, snapshot, ledger, validate) never take it. The CLI, the dashboard and the host all
lock through `RunLock.acquire`.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import shlex
import stat
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType

import orjson

from workbench.errors import AccessError, UserError
from workbench.inputs import read_bounded
from workbench.messages import clip

LOCK_FILE = "run.lock"
_HOLDER_LIMIT = 4096


class RunLocked(UserError):
    """Another process holds the run's writer lock (exit 2)."""


@dataclass(frozen=True)
class Holder:
    """Who holds a run's lock: process id, command line and start time (UTC)."""

    pid: int
    command: str
    since: str

    def describe(self) -> str:
        """`pid 123 (workbench run --out R) since 2026-01-01T00:00:00+00:00`."""
        return f"pid {self.pid} ({clip(self.command, 120)[1:-1]}) since {self.since}"

    def to_bytes(self) -> bytes:
        """The holder as the lock file's JSON content."""
        return orjson.dumps({"pid": self.pid, "command": self.command, "since": self.since})

    @classmethod
    def from_bytes(cls, data: bytes) -> Holder | None:
        """The holder a lock file names, or None while it names none (yet)."""
        try:
            record = orjson.loads(data)
            return cls(int(record["pid"]), str(record["command"]), str(record["since"]))
        except (orjson.JSONDecodeError, KeyError, TypeError, ValueError):
            return None


def _default_command() -> str:
    """This process's command line, as the lock names its holder: `workbench run ...`,
    also for `python -m workbench` (whose argv[0] is the package's `__main__.py`)."""
    name = Path(sys.argv[0]).name if sys.argv else "python"
    program = "workbench" if name == "__main__.py" else name
    return shlex.join([program, *sys.argv[1:]])[:1000]


@contextlib.contextmanager
def _lock_file(root: Path) -> Iterator[int | None]:
    """`root`'s lock file opened for reading, or None when there is none to read (missing,
    a link, not a regular file); opening takes no lock and never waits."""
    try:
        fd = os.open(root / LOCK_FILE, os.O_RDONLY | os.O_CLOEXEC | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        yield None
        return
    try:
        yield fd if stat.S_ISREG(os.fstat(fd).st_mode) else None
    finally:
        os.close(fd)


def held_by(root: Path) -> str | None:
    """Who holds `root`'s lock now (a description), or None when nobody does; takes
    nothing and writes nothing (the lock is tried and let go at once)."""
    with _lock_file(root) as fd:
        if fd is None:
            return None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = Holder.from_bytes(os.pread(fd, _HOLDER_LIMIT, 0))
            return holder.describe() if holder else "another process (not yet named)"
        except OSError:
            return None
        return None


def named_holder(root: Path) -> str | None:
    """Who `root`'s lock file names as its holder, when that process is alive: a hint for a
    reader's message, taking no lock (a reader never makes a writer's lock fail). A holder
    killed outright leaves its name behind, but its process is gone."""
    with _lock_file(root) as fd:
        if fd is None:
            return None
        try:
            holder = Holder.from_bytes(os.pread(fd, _HOLDER_LIMIT, 0))
        except OSError:
            return None
    if holder is None or holder.pid <= 0 or holder.pid == os.getpid():
        return None
    try:
        os.kill(holder.pid, 0)
    except PermissionError:
        pass
    except (OSError, OverflowError):
        return None
    if _started_after(holder.pid, holder.since):
        return None
    return holder.describe()


_PROC_LIMIT = 64 * 1024
"""Bytes read of a /proc file that holds one line."""


def _started_after(pid: int, since: str) -> bool:
    """True when process `pid` started after `since` (ISO time): not the holder that took
    the lock then, but a later process given its id after the holder was killed. False
    when either cannot be told (no /proc, a since that is not a time)."""
    try:
        taken = datetime.fromisoformat(since).timestamp()
        stat_line = read_bounded(f"/proc/{pid}/stat", "process status", limit=_PROC_LIMIT)
        ticks = int(stat_line.rsplit(b")", 1)[1].split()[19])
        uptime = float(read_bounded("/proc/uptime", "uptime", limit=_PROC_LIMIT).split()[0])
    except (UserError, ValueError, IndexError):
        return False
    started = time.time() - uptime + ticks / os.sysconf("SC_CLK_TCK")
    return started > taken + 1


class RunLock:
    """A held writer lock on one run directory; release it (or let the process end)."""

    def __init__(self, path: Path, fd: int, holder: Holder) -> None:
        self.path = path
        self.holder = holder
        self._fd: int | None = fd

    @classmethod
    def acquire(cls, root: str | Path, command: str | None = None) -> RunLock:
        """Lock `root` (an existing directory) for writing, or raise RunLocked naming the holder."""
        root = Path(root)
        path = root / LOCK_FILE
        flags = os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW
        try:
            fd = os.open(path, flags, 0o644)
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                raise UserError(f"{path}: is a symbolic link, not a lock file") from None
            raise AccessError(f"{root}: cannot lock the run ({exc.strerror or exc})") from None
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise UserError(f"{path}: is not a regular file, so it cannot lock the run")
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                holder = Holder.from_bytes(os.pread(fd, _HOLDER_LIMIT, 0))
                who = holder.describe() if holder else "another process (not yet named)"
                raise RunLocked(
                    f"{root} is being written by {who}: one writer at a time; "
                    "wait for it to finish or stop it"
                ) from None
            holder = Holder(os.getpid(), command or _default_command(), _now())
            with contextlib.suppress(OSError):  # the name is a courtesy: a full disk
                os.ftruncate(fd, 0)  # must not keep a writer from its run
                os.pwrite(fd, holder.to_bytes(), 0)
        except OSError as exc:
            os.close(fd)
            raise AccessError(f"{root}: cannot lock the run ({exc.strerror or exc})") from None
        except BaseException:
            os.close(fd)
            raise
        return cls(path, fd, holder)

    @property
    def held(self) -> bool:
        """True until released."""
        return self._fd is not None

    def release(self) -> None:
        """Empty the holder record and drop the lock (idempotent)."""
        fd, self._fd = self._fd, None
        if fd is None:
            return
        try:
            os.ftruncate(fd, 0)
        except OSError:
            pass
        finally:
            os.close(fd)

    def __enter__(self) -> RunLock:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.release()

    def __del__(self) -> None:
        self.release()


def _now() -> str:
    """The current UTC time to the second, ISO 8601."""
    return datetime.now(UTC).isoformat(timespec="seconds")
