"""Group commit for the host: one thread fsyncs the journals the event loop wrote.

A command applied on the event loop writes its journal line without fsync and awaits
`Syncer.sync(journal)`; the syncer thread takes every file waiting, fsyncs each once and
wakes all their waiters with one call into the loop. The reply is sent only after that,
so an acknowledged command is always durable. Handing each command to a worker thread
instead cost about 0.25 ms of CPU a command in wake-ups and GIL hand-offs, a third of
the host's CPU under load.

An fsync opens its file by path. When the process has no descriptor left for that open
(EMFILE or ENFILE: another agent's connections can use them up), nothing is wrong with
the journal: its waiters wait for the next round, up to `OPEN_RETRIES` rounds
`RETRY_PAUSE` apart, rather than failing, which would cut the command back and mark the
run damaged until a restart.

What is acknowledged is decided here, in one place: a file's known durable size, raised
by every successful fsync (this thread's or another's, `made_durable`), and frozen by a
failed one (`cut`). Once frozen, the file is cut back to that size and a command beyond
it is never acknowledged, whichever thread's fsync of it succeeded: without the freeze a
worker thread could cut the journal back while this thread's fsync of a command was in
flight, and the command was acknowledged after it had been cut.
"""

from __future__ import annotations

import asyncio
import errno
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from ledger.durable import fsync_file
from workbench.host.errors import Busy

NO_DESCRIPTOR = frozenset({errno.EMFILE, errno.ENFILE})
"""An open refused for want of a descriptor: the system's for now, not the file's."""
OPEN_RETRIES = 100
"""Rounds a file waits for a descriptor to fsync it before its waiters get the failure."""
RETRY_PAUSE = 0.02
"""Seconds between those rounds (two seconds in all: connections close meanwhile)."""


@dataclass(frozen=True)
class _Waiter:
    """One `sync` call: the file, and the future its coroutine awaits on its loop."""

    path: Path
    future: asyncio.Future[None]
    loop: asyncio.AbstractEventLoop
    size: int
    """Bytes of the file written before this call: what its fsync makes durable."""


class Syncer:
    """A thread that fsyncs files for coroutines, every file waiting at once."""

    def __init__(self) -> None:
        self._waiting: list[_Waiter] = []
        self._changed = threading.Condition()
        self._stopping = False
        self._thread = threading.Thread(target=self._run, name="syncer", daemon=True)
        self._retries: dict[Path, int] = {}
        """Per file, the rounds it has waited for a descriptor (`NO_DESCRIPTOR`)."""
        self._sizes = threading.Lock()
        """Guards `_durable` and `_kept`, which the syncer and worker threads both change."""
        self._durable: dict[Path, int] = {}
        """Per file, how many of its bytes are known durable: what its owner found on
        opening it (`opened`), then what each successful fsync covered (the sizes its
        callers gave: no system call here, each one a GIL hand-off under load)."""
        self._kept: dict[Path, int | None] = {}
        """Per file frozen by a failed fsync (`cut`), the size it is cut back to (None:
        unknown, so nothing): nothing beyond it is acknowledged until it is opened again."""

    def opened(self, path: Path, size: int) -> None:
        """`path` was opened holding `size` durable bytes (nothing of it awaits a sync)."""
        with self._sizes:
            self._durable[path] = size
            self._kept.pop(path, None)

    def made_durable(self, path: Path, size: int) -> bool:
        """Another thread fsynced `path` itself: its first `size` bytes are durable.

        A command applied in a worker thread (its run was being resumed or sealed) is
        fsynced there, not here; unrecorded, a later failed fsync here cut the journal
        back to before it, losing a command that had been acknowledged. False when the
        file was frozen below `size` meanwhile (`cut`): those bytes are cut off, not kept.
        """
        return self._record(path, size)

    def _record(self, path: Path, size: int) -> bool:
        """Raise `path`'s durable size to `size` (never lower it); False when the file is
        frozen below `size` by a failed fsync, which nothing raises again."""
        with self._sizes:
            if path in self._kept:
                return size <= (self._kept[path] or 0)
            self._durable[path] = max(size, self._durable.get(path, 0))
            return True

    def cut(self, path: Path) -> int | None:
        """Freeze `path` after a failed fsync: the size to cut it back to (what is known
        durable), or None when that is unknown (then nothing more of it is acknowledged).

        From now on a command of `path` is acknowledged only when it lies within that
        size, whoever fsyncs it; a later call returns the first one's answer.
        """
        with self._sizes:
            if path not in self._kept:
                self._kept[path] = self._durable.get(path)
            return self._kept[path]

    def _outcome(self, waiter: _Waiter, failure: OSError | None) -> OSError | None:
        """What `waiter` is told: None (durable and kept) or why it is not acknowledged."""
        with self._sizes:
            if waiter.path not in self._kept:
                return failure
            kept = self._kept[waiter.path]
        if kept is not None and waiter.size <= kept:
            return None
        return failure or OSError(
            errno.EIO, "the journal was cut back after a failed fsync of another command"
        )

    def durable_size(self, path: Path) -> int | None:
        """Bytes of `path` known durable, or None when it was never `opened` here."""
        with self._sizes:
            return self._durable.get(path)

    def start(self) -> None:
        """Start the thread (once)."""
        self._thread.start()

    def stop(self) -> None:
        """Finish the files already waiting, then end the thread."""
        with self._changed:
            self._stopping = True
            self._changed.notify()
        if self._thread.is_alive():
            self._thread.join()

    async def sync(self, path: Path, size: int) -> None:
        """Return once everything written to `path` before this call (its first `size`
        bytes) is durable.

        Raises the OSError of a failed fsync (the caller must not acknowledge anything
        that file holds), or Busy when the syncer has stopped.
        """
        loop = asyncio.get_running_loop()
        future: asyncio.Future[None] = loop.create_future()
        with self._changed:
            if self._stopping:
                raise Busy("the host is stopping: send the command again, same id, once it is back")
            self._waiting.append(_Waiter(path, future, loop, size))
            self._changed.notify()
        await future

    def _run(self) -> None:
        while True:
            with self._changed:
                while not self._waiting and not self._stopping:
                    self._changed.wait()
                if not self._waiting:
                    return
                batch, self._waiting = self._waiting, []
            failures, postponed = self._fsync_all(batch)
            waiting = [waiter for waiter in batch if waiter.path in postponed]
            if waiting:
                with self._changed:
                    self._waiting[:0] = waiting
            by_loop: dict[asyncio.AbstractEventLoop, list[tuple[_Waiter, OSError | None]]] = {}
            for waiter in batch:
                if waiter.path not in postponed:
                    outcome = self._outcome(waiter, failures.get(waiter.path))
                    by_loop.setdefault(waiter.loop, []).append((waiter, outcome))
            for loop, settled in by_loop.items():
                try:
                    loop.call_soon_threadsafe(_settle, settled)
                except RuntimeError:
                    continue  # the loop closed: nobody waits for these any more
            if waiting:
                time.sleep(RETRY_PAUSE)  # the others are settled: only these wait

    def _fsync_all(self, batch: list[_Waiter]) -> tuple[dict[Path, OSError], set[Path]]:
        """Fsync each file of `batch` once: the failures by file, and the files that wait
        for a descriptor (their waiters go to the next round)."""
        failures: dict[Path, OSError] = {}
        postponed: set[Path] = set()
        covered: dict[Path, int] = {}
        for waiter in batch:
            covered[waiter.path] = max(waiter.size, covered.get(waiter.path, 0))
        for path, size in covered.items():
            try:
                fsync_file(path)
                self._record(path, size)
                self._retries.pop(path, None)
            except OSError as exc:
                rounds = self._retries.get(path, 0)
                if exc.errno in NO_DESCRIPTOR and rounds < OPEN_RETRIES and not self._stopping:
                    self._retries[path] = rounds + 1
                    postponed.add(path)
                else:
                    self._retries.pop(path, None)
                    failures[path] = exc
            except Exception as exc:  # never leave a waiter hanging: its run stops instead
                failures[path] = OSError(errno.EIO, f"the syncer failed: {exc!r}")
        for path in failures:
            self.cut(path)
        return failures, postponed


def _settle(settled: list[tuple[_Waiter, OSError | None]]) -> None:
    """Wake each waiter (on its loop): done, or the fsync's failure."""
    for waiter, failure in settled:
        if waiter.future.done():
            continue
        if failure is None:
            waiter.future.set_result(None)
        else:
            waiter.future.set_exception(failure)
