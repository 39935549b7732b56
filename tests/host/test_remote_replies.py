"""`play --connect` to something that is not a workbench host: one line, exit 2.

A server answering 200 with a page (another web server, a proxy's login page) made the
remote session's JSON parse raise out of the dashboard's opening worker, a traceback and
exit 1; so did a URL httpx cannot parse. Real servers on loopback, nothing mocked.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from click.testing import CliRunner

from workbench.cli import main
from workbench.errors import UserError
from workbench.host.server import ServerThread
from workbench.play.remote import RemoteSession
from workbench.play.wire import API_PREFIX
from workbench.runs.lock import RunLock

from .conftest import ALPHA, Hosted, Live


class _Page(BaseHTTPRequestHandler):
    """Answers every request 200 with an HTML page, as a web server that is no host does."""

    def do_GET(self) -> None:
        body = b"<html><body>It works!</body></html>\n"
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_POST = do_GET

    def log_message(self, format: str, *args: object) -> None:
        """Quiet: the test reads replies, not the server's log."""


class _Missing(_Page):
    """Answers every request 404 with an HTML page, as a web server without the API does."""

    def do_GET(self) -> None:
        body = b"<html><body>Not Found</body></html>\n"
        self.send_response(404)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_POST = do_GET


def _serving(handler: type[BaseHTTPRequestHandler]) -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def not_a_host() -> Iterator[str]:
    """The URL of a real HTTP server on loopback that is not a workbench host."""
    yield from _serving(_Page)


@pytest.fixture
def no_api() -> Iterator[str]:
    """The URL of a real HTTP server on loopback that answers every path 404."""
    yield from _serving(_Missing)


def test_a_server_that_answers_a_page_is_named_not_a_host(not_a_host: str) -> None:
    with pytest.raises(UserError) as raised:
        RemoteSession.connect(not_a_host, ALPHA, "cfwb-agent-abc")
    message = raised.value.message
    assert "is not a workbench host" in message and "not JSON" in message
    assert "\n" not in message


def test_an_error_page_that_is_no_hosts_error_names_the_request(no_api: str) -> None:
    """A 404 page from a server without the API said only `HTTP 404`."""
    with pytest.raises(UserError) as raised:
        RemoteSession.connect(no_api, ALPHA, "cfwb-agent-abc")
    assert raised.value.message == (
        f"the server at {no_api!r} answered HTTP 404 to GET {API_PREFIX}/runs without a "
        "workbench host's error (is it one?)"
    )
    assert raised.value.exit_code == 2


@pytest.mark.parametrize("url", ["http://[::1", "http://127.0.0.1:8700\n", "http://h:99999"])
def test_a_url_that_is_not_one_is_named(url: str) -> None:
    with pytest.raises(UserError) as raised:
        RemoteSession.connect(url, ALPHA, "cfwb-agent-abc")
    assert "\n" not in raised.value.message


@pytest.mark.parametrize("which", ["page", "url"])
def test_play_connect_to_what_is_no_host_is_one_line_exit_2(
    which: str, not_a_host: str, tmp_path: Path, a_terminal: None
) -> None:
    token = tmp_path / "token"
    token.write_text("cfwb-agent-abc")
    url = not_a_host if which == "page" else "http://[::1"
    result = CliRunner().invoke(
        main, ["play", "--connect", url, "--agent", ALPHA, "--token-file", str(token)]
    )
    assert result.exit_code == 2, result.output
    assert result.output.startswith("Error: ")
    assert len(result.output.strip().splitlines()) == 1
    assert "Traceback" not in result.output


def test_play_connect_to_a_run_another_process_writes_is_exit_2_not_3(
    hosted: Hosted, tmp_path: Path, a_terminal: None
) -> None:
    """`run_busy` (like `storage_failed` or `overloaded`) is no integrity failure: the
    remote session made every 503 one (exit 3); a run another process writes is exit 2
    locally, and now over `--connect` too. Only `run_damaged` stays exit 3."""
    runtime = hosted.runtime()
    with ServerThread(runtime) as server:
        reply = (
            Live(hosted, runtime, server.url)
            .client(ALPHA)
            .post(f"{API_PREFIX}/runs", json={"command_id": "s"})
        )
        run_id = reply.json()["run"]["run_id"]
    runtime.close()
    runtime = hosted.runtime()
    token = tmp_path / "token"
    token.write_text(hosted.tokens[ALPHA])
    try:
        with ServerThread(runtime) as server, RunLock.acquire(hosted.runs / run_id, "operator"):
            with pytest.raises(UserError) as raised:
                RemoteSession.connect(server.url, ALPHA, hosted.tokens[ALPHA])
            assert raised.value.exit_code == 2 and "being written by" in raised.value.message
            result = CliRunner().invoke(
                main,
                ["play", "--connect", server.url, "--agent", ALPHA, "--token-file", str(token)],
            )
    finally:
        runtime.close()
    assert result.exit_code == 2, result.output
    assert len(result.output.strip().splitlines()) == 1 and "being written by" in result.output
