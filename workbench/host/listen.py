"""Listening sockets: the host's, and the probe `workbench serve` makes before it starts."""

from __future__ import annotations

import ipaddress
import socket
from typing import Final

BACKLOG: Final = 512


def bind(host: str, port: int) -> socket.socket:
    """A listening TCP socket on host:port (port 0 picks a free one).

    The protocol is named (IPPROTO_TCP): asyncio sets TCP_NODELAY only on sockets that
    say they are TCP, and without it every reply on a kept-alive connection waits ~40 ms
    for the client's delayed ACK (Nagle).
    """
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(BACKLOG)
    except BaseException:
        sock.close()
        raise
    sock.set_inheritable(True)
    return sock


def listen_refused(host: str, port: int, exc: OSError) -> str:
    """The one-line reason a server cannot listen on host:port (busy, not local, denied)."""
    return f"cannot listen on {host}:{port}: {exc.strerror or exc}"


def loopback_only(host: str) -> bool:
    """True when a socket bound to `host` is reachable from this machine only (`localhost`
    or a loopback address): otherwise whoever can reach it on the network can connect."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:  # a name: it may resolve to any address
        return False
