"""A run the system refuses to open for a moment (no file descriptor left, say) is busy
for that moment, not damaged until the operator restarts the host.

A run's session is resumed from its files on its first request after a start-up (or after
its session was dropped): a refusal of the system to open one of them (EMFILE when every
descriptor is taken, which another agent's connections can bring about) marked the run
damaged, refused with 503 `run_damaged` on every request until the host restarted,
though nothing in it was wrong. A real server on loopback, a real HTTP client; the
descriptors run out for real (this process's limit lowered, then restored).
"""

from __future__ import annotations

import contextlib
import os
import resource
from collections.abc import Iterator

from workbench.host.server import ServerThread
from workbench.play.wire import API_PREFIX

from .conftest import ALPHA, Hosted, Live


@contextlib.contextmanager
def no_descriptor_left() -> Iterator[None]:
    """Until the block ends, this process can open no file: every descriptor below the
    lowered limit is taken."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    taken: list[int] = []
    try:
        top = max(int(fd) for fd in os.listdir("/proc/self/fd"))
        while True:  # fill every hole below the highest descriptor open
            fd = os.open(os.devnull, os.O_RDONLY | os.O_CLOEXEC)
            taken.append(fd)
            if fd >= top:
                break
        resource.setrlimit(resource.RLIMIT_NOFILE, (max(taken) + 1, hard))
        try:
            os.close(os.open(os.devnull, os.O_RDONLY))
        except OSError:
            pass
        else:
            raise AssertionError("a descriptor was still free")
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
        for fd in taken:
            os.close(fd)


def test_a_run_the_system_cannot_open_for_a_moment_is_not_damaged(hosted: Hosted) -> None:
    runtime = hosted.runtime()
    try:
        with ServerThread(runtime) as server:
            alpha = Live(hosted, runtime, server.url).client(ALPHA)
            started = alpha.post(f"{API_PREFIX}/runs", json={"command_id": "s"})
            run_id = started.json()["run"]["run_id"]
    finally:
        runtime.close()
    runtime = hosted.runtime()  # a restart: the run is resumed on its first request
    try:
        with ServerThread(runtime) as server:
            alpha = Live(hosted, runtime, server.url).client(ALPHA)
            assert alpha.get("/health").status_code == 200  # its connection is open
            with no_descriptor_left():
                refused = alpha.get(f"{API_PREFIX}/runs/{run_id}")
            assert refused.status_code == 503, refused.text
            assert refused.json()["error"]["code"] == "storage_failed", refused.text
            again = alpha.get(f"{API_PREFIX}/runs/{run_id}")
            assert again.status_code == 200, again.text
            assert again.json()["day"] == 0
    finally:
        runtime.close()
