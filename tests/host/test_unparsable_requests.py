"""A request the HTTP parser refuses is answered in the API's error shape, then closed.

uvicorn answered such a request (a malformed request line, conflicting lengths, a broken
chunk, a byte no request line may hold) with its own plain-text `Invalid HTTP request
received.`, the one error an agent got outside `{"error": {"code", "message"}}`. A real
host on loopback, raw sockets.
"""

from __future__ import annotations

import json
import socket

import pytest

from workbench.play.wire import API_PREFIX

from .conftest import ALPHA, Live, journal_of

RUN_TAIL = "/advance"


def exchange(url: str, data: bytes) -> bytes:
    """Send `data` on a new connection and read until the host closes it."""
    host, port = url.removeprefix("http://").rsplit(":", 1)
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        sock.sendall(data)
        received = b""
        while chunk := sock.recv(65536):
            received += chunk
    return received


def malformed(run_id: str, token: str) -> dict[str, bytes]:
    """Requests httptools refuses, each to a real command route with a valid token."""
    head = (
        f"POST {API_PREFIX}/runs/{run_id}{RUN_TAIL} HTTP/1.1\r\nHost: h\r\n"
        f"Authorization: Bearer {token}\r\n"
    ).encode()
    body = b'{"command_id":"bad-1","days":1}'
    return {
        "two lengths": head + b"Content-Length: 2\r\nContent-Length: 31\r\n\r\n" + body,
        "negative length": head + b"Content-Length: -1\r\n\r\n",
        "length and chunked": head
        + b"Transfer-Encoding: chunked\r\nContent-Length: 31\r\n\r\n0\r\n\r\n",
        "broken chunk": head
        + b"Transfer-Encoding: chunked\r\n\r\nzz\r\n"
        + body
        + b"\r\n0\r\n\r\n",
        "NUL in a header": head.replace(b"Host: h", b"Host: h\x00x") + b"\r\n",
        "byte in the path": f"GET {API_PREFIX}/runs/\xff HTTP/1.1\r\nHost: h\r\n\r\n".encode(
            "latin-1"
        ),
        "not HTTP": b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03 not http\r\n\r\n",
    }


@pytest.mark.parametrize(
    "case",
    [
        "two lengths",
        "negative length",
        "length and chunked",
        "broken chunk",
        "NUL in a header",
        "byte in the path",
        "not HTTP",
    ],
)
def test_an_unparsable_request_gets_the_api_error_shape(live: Live, case: str) -> None:
    with live.client(ALPHA) as client:
        run_id = client.post(f"{API_PREFIX}/runs", json={"command_id": "s"}).json()["run"]["run_id"]
    before = journal_of(live, run_id)
    reply = exchange(live.url, malformed(run_id, live.hosted.tokens[ALPHA])[case])
    head, _, body = reply.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").lower().split("\r\n")
    assert lines[0] == "http/1.1 400 bad request", reply
    assert "content-type: application/json" in lines and "connection: close" in lines
    error = json.loads(body)["error"]
    assert set(error) == {"code", "message"} and error["code"] == "bad_request"
    assert error["message"].isprintable()
    assert journal_of(live, run_id) == before


def test_a_command_pipelined_before_an_unparsable_request_never_gets_its_400(
    live: Live,
) -> None:
    """The 400 was written at once, so the command before it read it as its own reply,
    though the host applied it. Now the command's reply is its own or lost (then its
    retry, same id, says what happened), and it is applied once."""
    token = live.hosted.tokens[ALPHA]
    with live.client(ALPHA) as client:
        run_id = client.post(f"{API_PREFIX}/runs", json={"command_id": "s"}).json()["run"]["run_id"]
        for n in range(5):
            body = b'{"command_id":"pipe-%d","days":1}' % n
            command = (
                f"POST {API_PREFIX}/runs/{run_id}{RUN_TAIL} HTTP/1.1\r\nHost: h\r\n"
                f"Authorization: Bearer {token}\r\nContent-Length: {len(body)}\r\n\r\n"
            ).encode() + body
            reply = exchange(live.url, command + b"GET /\xff HTTP/1.1\r\nHost: h\r\n\r\n")
            first = reply.partition(b"\r\n")[0]
            assert first in (b"", b"HTTP/1.1 200 OK"), reply
            retry = client.post(
                f"{API_PREFIX}/runs/{run_id}{RUN_TAIL}", json={"command_id": f"pipe-{n}", "days": 1}
            )
            assert retry.status_code == 200, retry.text
            assert retry.json()["decision_day"] == n
    ids = [json.loads(line)["id"] for line in journal_of(live, run_id).splitlines()]
    assert ids == ["header", *(f"pipe-{n}" for n in range(5))]
