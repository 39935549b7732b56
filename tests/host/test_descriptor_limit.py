"""The host raises its open-file limit to what the connections it admits need.

Under the common soft limit of 1,024 open files, the host's 1,024 admitted connections
alone used every descriptor, and a run opened then was refused ("Too many open files").
A real host process is started under a low soft limit and its limits read from /proc.
"""

from __future__ import annotations

import resource
from collections.abc import Callable
from pathlib import Path

from tests.host.conftest import Hosted, HostProcess
from workbench.host.connections import ConnectionLimits
from workbench.host.descriptors import SPARE

WANTED = ConnectionLimits().max_connections + SPARE


def started_under(soft: int, hard: int) -> Callable[[], None]:
    """A child-process hook: start under these open-file limits."""

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))

    return limit


def open_files(pid: int) -> tuple[int, int]:
    """The process's soft and hard open-file limits, as the kernel holds them."""
    for line in Path(f"/proc/{pid}/limits").read_text().splitlines():
        if line.startswith("Max open files"):
            soft, hard = line.split()[3:5]
            return int(soft), int(hard)
    raise AssertionError("no open-file limit in /proc")


def test_the_host_raises_its_soft_limit_to_what_its_connections_need(
    hosted: Hosted, tmp_path: Path
) -> None:
    host = HostProcess(hosted, tmp_path / "host.log", preexec=started_under(256, 4 * WANTED))
    host.start()
    try:
        assert host.process is not None
        assert open_files(host.process.pid) == (WANTED, 4 * WANTED)
        assert "warning: this process may open" not in host.log.read_text()
    finally:
        assert host.stop() == 0


def test_a_hard_limit_below_the_need_is_reached_and_named(hosted: Hosted, tmp_path: Path) -> None:
    host = HostProcess(hosted, tmp_path / "host.log", preexec=started_under(256, 900))
    host.start()
    try:
        assert host.process is not None
        assert open_files(host.process.pid) == (900, 900)
        (warning,) = [
            line for line in host.log.read_text().splitlines() if line.startswith("warning:")
        ]
        assert f"may open 900 files (its hard limit), fewer than the {WANTED}" in warning
    finally:
        assert host.stop() == 0


def test_a_soft_limit_already_enough_is_left_as_it_is(hosted: Hosted, tmp_path: Path) -> None:
    host = HostProcess(hosted, tmp_path / "host.log", preexec=started_under(3 * WANTED, 4 * WANTED))
    host.start()
    try:
        assert host.process is not None
        assert open_files(host.process.pid) == (3 * WANTED, 4 * WANTED)
    finally:
        assert host.stop() == 0
