"""A reply sent before its request's body was read whole closes the connection.

A body over its limit (413), or one the MCP SDK refuses without reading (401), was
answered, and then the host went on reading and discarding the rest of the body until the
request's 10 s deadline, holding the connection. Now such a reply says
`connection: close` and the connection ends with it; a request whose body was read whole
keeps its connection. A real host on loopback, raw sockets.
"""

from __future__ import annotations

import socket

import pytest

from workbench.play.wire import API_PREFIX, MCP_PATH

from .conftest import ALPHA, Live

PROMPT = 5.0
"""Seconds a closed connection may take to show its end: well under the 10 s deadline
the host waited out before."""


def _connect(live: Live) -> socket.socket:
    host, port = live.url.removeprefix("http://").rsplit(":", 1)
    return socket.create_connection((host, int(port)), timeout=PROMPT)


def _reply_then_end(sock: socket.socket) -> bytes:
    """The reply's head, after which the host must close the connection (EOF, no wait)."""
    received = b""
    while b"\r\n\r\n" not in received:
        chunk = sock.recv(65536)
        assert chunk, received
        received += chunk
    while chunk := sock.recv(65536):  # the body, then the end: a timeout fails the test
        received += chunk
    return received.partition(b"\r\n\r\n")[0].lower()


@pytest.mark.parametrize(
    ("path", "token", "framing", "status"),
    [
        (f"{API_PREFIX}/runs", True, b"Content-Length: 100000000\r\n", b"413"),
        (f"{API_PREFIX}/runs", True, b"Transfer-Encoding: chunked\r\n", b"413"),
        (MCP_PATH, True, b"Content-Length: 100000000\r\n", b"413"),
        (MCP_PATH, False, b"Content-Length: 100000000\r\n", b"401"),
    ],
)
def test_a_reply_before_the_body_closes_the_connection(
    live: Live, path: str, token: bool, framing: bytes, status: bytes
) -> None:
    bearer = f"Authorization: Bearer {live.hosted.tokens[ALPHA]}\r\n" if token else ""
    head = f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n{bearer}".encode() + framing + b"\r\n"
    part = b"x" * 20_000
    body = b"%x\r\n%s\r\n" % (len(part), part) if b"chunked" in framing else part
    with _connect(live) as sock:
        sock.sendall(head + body)
        reply = _reply_then_end(sock)
    assert reply.startswith(b"http/1.1 " + status), reply
    assert b"connection: close" in reply.split(b"\r\n")


def test_a_request_read_whole_keeps_its_connection(live: Live) -> None:
    token = live.hosted.tokens[ALPHA]
    body = b'{"command_id":"keep"}'
    start = (
        f"POST {API_PREFIX}/runs HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {token}\r\n"
        f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
    ).encode() + body
    health = b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
    with _connect(live) as sock:
        for request in (start, health, start):
            sock.sendall(request)
            received = b""
            while b"\r\n\r\n" not in received:
                chunk = sock.recv(65536)
                assert chunk, "the host closed a connection whose request it had read"
                received += chunk
            head = received.partition(b"\r\n\r\n")[0].lower()
            assert head.startswith((b"http/1.1 200", b"http/1.1 201")), head
            assert b"connection: close" not in head.split(b"\r\n")
            length = next(
                int(line.split(b":")[1]) for line in head.split(b"\r\n")
                if line.startswith(b"content-length:")
            )  # fmt: skip
            rest = received.partition(b"\r\n\r\n")[2]
            while len(rest) < length:
                rest += sock.recv(65536)
