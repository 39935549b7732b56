"""Group commit for the host: one thread fsyncs the journals the event loop wrote.

A command applied on the event loop writes its journal line without fsync and awaits
`Syncer.sync(journal)`; the syncer thread takes every file waiting, fsyncs each once and
wakes all their waiters with one call into the loop. The reply is sent only after that,
so an acknowledged command is always durable. Handing each command to a worker thread
instead cost about 0.25 ms of CPU a command in wake-ups and GIL hand-offs, a third of
the host's CPU under load.
"""

from __future__ import annotations

import asyncio
import errno
import threading
from dataclasses import dataclass
from pathlib import Path

from ledger.durable import fsync_file
from workbench.host.errors import Busy


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
        self._durable: dict[Path, int] = {}
        """Per file, how many of its bytes are known durable: what its owner found on
        opening it (`opened`), then what each successful fsync covered (the sizes its
        callers gave: no system call here, each one a GIL hand-off under load)."""

    def opened(self, path: Path, size: int) -> None:
        """`path` was opened holding `size` durable bytes (nothing of it awaits a sync)."""
        self._durable[path] = size

    def durable_size(self, path: Path) -> int | None:
        """Bytes of `path` known durable, or None when it was never `opened` here."""
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
            failures: dict[Path, OSError] = {}
            covered: dict[Path, int] = {}
            for waiter in batch:
                covered[waiter.path] = max(waiter.size, covered.get(waiter.path, 0))
            for path, size in covered.items():
                try:
                    fsync_file(path)
                    self._durable[path] = max(size, self._durable.get(path, 0))
                except OSError as exc:
                    failures[path] = exc
                except Exception as exc:  # never leave a waiter hanging: its run stops instead
                    failures[path] = OSError(errno.EIO, f"the syncer failed: {exc!r}")
            by_loop: dict[asyncio.AbstractEventLoop, list[tuple[_Waiter, OSError | None]]] = {}
            for waiter in batch:
                by_loop.setdefault(waiter.loop, []).append((waiter, failures.get(waiter.path)))
            for loop, settled in by_loop.items():
                try:
                    loop.call_soon_threadsafe(_settle, settled)
                except RuntimeError:
                    continue  # the loop closed: nobody waits for these any more


def _settle(settled: list[tuple[_Waiter, OSError | None]]) -> None:
    """Wake each waiter (on its loop): done, or the fsync's failure."""
    for waiter, failure in settled:
        if waiter.future.done():
            continue
        if failure is None:
            waiter.future.set_result(None)
        else:
            waiter.future.set_exception(failure)
