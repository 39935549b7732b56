"""`workbench serve` on an address others can reach says so before it serves.

The dashboard has no sign-in (it is for demonstrations): served on 0.0.0.0, anyone on the
network could open it and play, and nothing said so. The host already warned; both now
ask one function which addresses reach this machine only (`loopback_only`).
"""

from __future__ import annotations

import signal
import socket
import subprocess
import sys
import time

import pytest

from workbench.host.listen import loopback_only


@pytest.mark.parametrize(
    ("host", "local"),
    [
        ("127.0.0.1", True),
        ("127.3.2.1", True),
        ("::1", True),
        ("[::1]", True),
        ("localhost", True),
        ("0.0.0.0", False),
        ("::", False),
        ("10.0.0.5", False),
        ("192.168.1.20", False),
        ("example.org", False),
    ],
)
def test_only_loopback_addresses_are_local(host: str, local: bool) -> None:
    assert loopback_only(host) is local


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("0.0.0.0", 0))
        return int(probe.getsockname()[1])


def _first_lines(host: str) -> list[str]:
    """Standard error of a real `workbench serve --host HOST` up to its serving line."""
    serve = subprocess.Popen(
        [sys.executable, "-m", "workbench", "serve", "--host", host, "--port", str(_free_port())],
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        text=True,
    )
    lines: list[str] = []
    deadline = time.monotonic() + 120
    try:
        assert serve.stderr is not None
        while time.monotonic() < deadline:
            line = serve.stderr.readline()
            if not line:
                break
            lines.append(line.rstrip("\n"))
            if line.startswith("serving the dashboard"):
                return lines
        pytest.fail(f"serve did not start: {lines}")
    finally:
        serve.send_signal(signal.SIGINT)
        try:
            serve.wait(timeout=30)
        except subprocess.TimeoutExpired:
            serve.kill()
            serve.wait()
    return lines


def test_serving_on_every_address_warns_first() -> None:
    lines = _first_lines("0.0.0.0")
    (warning,) = [line for line in lines if line.startswith("warning:")]
    assert warning.startswith("warning: serving on 0.0.0.0: anyone who can reach this address")
    assert lines.index(warning) < len(lines) - 1


def test_serving_on_loopback_does_not_warn() -> None:
    assert not [line for line in _first_lines("127.0.0.1") if line.startswith("warning:")]
