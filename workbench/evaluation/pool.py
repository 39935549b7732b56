"""The local process pool of `validate --workers N`, whose workers die with their parent.

A worker pool outliving a killed evaluator would keep computing for nobody (and hold
memory) for as long as its queue stays open. Each worker asks the kernel for SIGKILL when
its parent dies (Linux `prctl(PR_SET_PDEATHSIG)`); elsewhere a watch thread polls the
parent. Workers are forked from the evaluator itself, so the parent they watch is it.
"""

from __future__ import annotations

import ctypes
import multiprocessing
import os
import signal
import sys
import threading
import time
from concurrent.futures import ProcessPoolExecutor

PR_SET_PDEATHSIG = 1
"""prctl(2) option: the signal a process receives when its parent dies."""
WATCH_SECONDS = 0.5
"""How often a worker without prctl checks that its parent still lives."""


def _watch_parent(parent: int) -> None:
    """Exit this worker as soon as `parent` is no longer its parent."""
    while os.getppid() == parent:
        time.sleep(WATCH_SECONDS)
    os._exit(1)


def _kernel_kills_orphan() -> bool:
    """Ask Linux to SIGKILL this process when its parent dies; False where it cannot."""
    if not sys.platform.startswith("linux"):
        return False
    libc = ctypes.CDLL(None, use_errno=True)
    return libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) == 0


def die_with_parent(parent: int) -> None:
    """Pool initializer: end this worker when its parent process `parent` ends."""
    if not _kernel_kills_orphan():
        threading.Thread(target=_watch_parent, args=(parent,), daemon=True).start()
    if os.getppid() != parent:
        os._exit(1)


def worker_pool(workers: int) -> ProcessPoolExecutor:
    """A process pool of `workers` forked workers that die with this process."""
    method = "fork" if "fork" in multiprocessing.get_all_start_methods() else None
    return ProcessPoolExecutor(
        max_workers=workers,
        mp_context=multiprocessing.get_context(method),
        initializer=die_with_parent,
        initargs=(os.getpid(),),
    )
