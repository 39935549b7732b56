"""What `workbench serve`'s HTTP side lets a page, or anyone on this machine, do.

A real `workbench serve` process on a free loopback port, spoken to over HTTP and
WebSocket as a browser would (aiohttp's client sends the `Origin` and `Host` a page on
another site, or a DNS-rebound name, would send). Before `workbench.cli.serving`, a page
of any site started sessions (a run under `runs/` per visit) and typed into them, a
message that was not JSON printed a traceback with locals, a resize with a text width
crashed the app, and an app that did not quit kept its run locked after its page went.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import aiohttp
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.browser.test_serve import ANSI, serve, stop
from workbench.cli.serving import MAX_COLUMNS, MAX_ROWS, TITLE, page_message
from workbench.runs.lock import RunLock


class Served:
    """A running `workbench serve --run RUN` and where its log goes."""

    def __init__(self, tmp_path: Path, *extra: str, one_run: bool = True) -> None:
        self.run = tmp_path / "run"
        self.log = tmp_path / "serve.log"
        self.server, self.port = serve(self.run, *extra, log=self.log, one_run=one_run)
        self.url = f"http://127.0.0.1:{self.port}"

    def ws_url(self, query: str = "") -> str:
        return f"ws://127.0.0.1:{self.port}/ws{query}"

    def apps(self) -> list[int]:
        """The pids of the app processes the server runs now (its children)."""
        children = Path(f"/proc/{self.server.pid}/task/{self.server.pid}/children")
        return [int(pid) for pid in children.read_text().split()]


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Served]:
    server = Served(tmp_path)
    try:
        yield server
    finally:
        stop(server.server)


async def _status(url: str, headers: dict[str, str]) -> int:
    """The status a WebSocket handshake gets (101 when a session starts)."""
    async with aiohttp.ClientSession() as client:
        try:
            async with client.ws_connect(url, headers=headers) as ws:
                await ws.close()
                return 101
        except aiohttp.WSServerHandshakeError as exc:
            return exc.status


async def _refusal(url: str, headers: dict[str, str]) -> tuple[int, str]:
    """The status and body of a WebSocket handshake refused over HTTP (what curl sees)."""
    upgrade = {
        "Connection": "Upgrade",
        "Upgrade": "websocket",
        "Sec-WebSocket-Version": "13",
        "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==",
    }
    async with (
        aiohttp.ClientSession() as client,
        client.get(url.replace("ws://", "http://"), headers={**upgrade, **headers}) as response,
    ):
        return response.status, await response.text()


async def _told(url: str, origin: str, seconds: float = 3, until: str = "") -> tuple[str, bool]:
    """Open a page's socket: what its terminal shows within `seconds` (or once it shows
    `until`), and whether the socket was still open then (a closed one puts "Session
    ended." over the terminal)."""
    seen = ""
    async with (
        aiohttp.ClientSession() as client,
        client.ws_connect(url, headers={"Origin": origin}) as ws,
    ):
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline and not (until and until in seen):
            try:
                frame = await ws.receive(timeout=max(deadline - time.monotonic(), 0.01))
            except TimeoutError:
                break
            if frame.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED):
                return seen, False
            if frame.type == aiohttp.WSMsgType.BINARY:
                seen += ANSI.sub("", frame.data.decode("utf-8", "replace"))
        await asyncio.sleep(0.5)
        return seen, not ws.closed


async def _screen_after(url: str, origin: str, messages: list[str], key: str, text: str) -> str:
    """Open a session, send `messages`, press `key` once the briefing shows: the screen text
    written after the key, up to `text` (or until the session closes)."""
    seen = ""
    async with (
        aiohttp.ClientSession() as client,
        client.ws_connect(url, headers={"Origin": origin}) as ws,
    ):
        for message in messages:
            await ws.send_str(message)
        deadline = time.monotonic() + 60
        sent = False
        while time.monotonic() < deadline:
            try:
                frame = await ws.receive(timeout=1)
            except TimeoutError:
                continue
            if frame.type != aiohttp.WSMsgType.BINARY:
                if frame.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED):
                    return seen
                continue
            seen += ANSI.sub("", frame.data.decode("utf-8", "replace"))
            if not sent and "Objective" in seen:
                await ws.send_str(json.dumps(["stdin", key]))
                sent, seen = True, ""
            if sent and text in seen:
                return seen
    return seen


def test_a_page_of_another_site_starts_no_session(served: Served) -> None:
    for origin in ("http://evil.example", "null", f"http://evil.example:{served.port}"):
        status = asyncio.run(_status(served.ws_url(), {"Origin": origin}))
        assert status == 403, origin
    status, body = asyncio.run(_refusal(served.ws_url(), {"Origin": "http://evil.example"}))
    assert (status, body) == (
        403,
        "403 Forbidden: a session may only be started by this dashboard's own page, "
        f"{served.url}/; this request came from a page of 'http://evil.example'\n",
    )
    assert not (served.run.parent / "runs").exists() and not served.run.exists()
    assert served.apps() == []


def test_a_request_to_another_host_name_is_refused(served: Served) -> None:
    rebound = {
        "Host": f"evil.example:{served.port}",
        "Origin": f"http://evil.example:{served.port}",
    }
    assert asyncio.run(_status(served.ws_url(), rebound)) == 421

    async def index(host: str) -> int:
        async with (
            aiohttp.ClientSession() as client,
            client.get(served.url, headers={"Host": host}) as response,
        ):
            return response.status

    assert asyncio.run(index(f"evil.example:{served.port}")) == 421
    assert asyncio.run(index(f"localhost:{served.port}")) == 200
    assert not served.run.exists()

    async def body(host: str) -> str:
        async with (
            aiohttp.ClientSession() as client,
            client.get(served.url, headers={"Host": host}) as response,
        ):
            assert response.content_type == "text/plain"
            return await response.text()

    said = asyncio.run(body(f"evil.example:{served.port}"))
    assert said.startswith(
        f"421 Misdirected Request: this dashboard answers on this machine only, at {served.url}/"
    ), said
    assert said.endswith(f"this request named the host 'evil.example:{served.port}'\n"), said


def test_pages_of_this_server_play_and_bad_messages_are_ignored(served: Served) -> None:
    junk = [
        "not json",
        "[]",
        '{"a": 1}',
        '["stdin", 5]',
        '["resize", {"width": "x", "height": 5}]',
        '["resize", {"width": true, "height": 5}]',
        '["nope"]',
    ]
    origin = f"http://localhost:{served.port}"
    screen = asyncio.run(_screen_after(served.ws_url(), origin, junk, "\r", "Day 0"))
    assert "Day 0" in screen
    log = served.log.read_text()
    assert "Traceback" not in log and "│" not in log, log
    assert "not one of the app's: ignored" in log


def test_the_page_names_the_workbench_and_lists_no_folder(served: Served) -> None:
    async def get(path: str) -> tuple[int, str]:
        async with aiohttp.ClientSession() as client, client.get(served.url + path) as response:
            return response.status, await response.text()

    status, page = asyncio.run(get("/"))
    assert status == 200 and TITLE in page
    assert sys.executable not in page and str(served.run) not in page
    assert asyncio.run(get("/static/"))[0] != 200
    assert asyncio.run(get("/static/js/textual.js"))[0] == 200
    assert asyncio.run(get("/static/../../server.py"))[0] == 404


def test_sessions_over_the_cap_are_refused_until_one_ends(tmp_path: Path) -> None:
    served = Served(tmp_path, "--max-sessions", "1", one_run=False)
    origin = {"Origin": served.url}

    async def scenario() -> tuple[tuple[str, bool], list[int], str]:
        async with (
            aiohttp.ClientSession() as client,
            client.ws_connect(served.ws_url(), headers=origin) as first,
        ):
            await first.receive(timeout=30)
            apps = served.apps()
            over = await _told(served.ws_url(), served.url)
            assert served.apps() == apps  # the refused page started no app
        deadline = time.monotonic() + 20
        while served.apps() and time.monotonic() < deadline:
            await asyncio.sleep(0.2)
        after, _ = await _told(served.ws_url(), served.url, seconds=60, until="Objective")
        return over, apps, after

    try:
        (told, still_open), apps, after = asyncio.run(scenario())
        assert len(apps) == 1
        assert "the server runs 1 of 1 sessions (--max-sessions): end one first" in told, told
        assert "Reload this page" in told and still_open  # shown, not hidden by "Session ended"
        assert "Objective" in after  # once the first has gone, a page plays again
        assert "refused (the page is told): the server runs 1 of 1 sessions" in (
            served.log.read_text()
        )
    finally:
        stop(served.server)


def test_an_app_that_does_not_quit_is_ended_with_its_page(served: Served) -> None:
    """A stopped app (SIGSTOP: as hung as an app gets) kept its run locked for good."""

    async def scenario() -> int:
        async with (
            aiohttp.ClientSession() as client,
            client.ws_connect(served.ws_url(), headers={"Origin": served.url}) as ws,
        ):
            await ws.receive(timeout=30)
            (app,) = served.apps()
            os.kill(app, signal.SIGSTOP)
        return app

    app = asyncio.run(scenario())
    deadline = time.monotonic() + 30
    while app in served.apps() and time.monotonic() < deadline:
        time.sleep(0.2)
    try:
        assert app not in served.apps()
    finally:
        if app in served.apps():
            os.kill(app, signal.SIGKILL)
    assert "has not quit" in served.log.read_text()


@settings(max_examples=300, deadline=None)
@given(
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner, max_size=3),
        max_leaves=8,
    )
    | st.tuples(
        st.sampled_from(["resize", "stdin", "ping", "focus", "blur"]),
        st.fixed_dictionaries({"width": st.integers(), "height": st.integers()}),
    ).map(list)
)
def test_a_page_message_is_checked_and_bounded(value: object) -> None:
    message = page_message(json.dumps(value))
    if message is None:
        return
    assert message.kind in ("stdin", "resize", "ping", "focus", "blur")
    if message.kind == "resize":
        assert 1 <= message.width <= MAX_COLUMNS and 1 <= message.height <= MAX_ROWS
    if message.kind == "stdin":
        assert isinstance(message.text, str)


def test_ctrl_c_ends_the_sessions_and_the_server_at_once(served: Served) -> None:
    """The server waited about 20 s for open pages to leave before it stopped."""

    async def scenario() -> tuple[list[int], float, int | None]:
        async with (
            aiohttp.ClientSession() as client,
            client.ws_connect(served.ws_url(), headers={"Origin": served.url}) as ws,
        ):
            await ws.receive(timeout=30)
            apps = served.apps()
            os.kill(served.server.pid, signal.SIGINT)
            start = time.monotonic()
            while served.server.poll() is None and time.monotonic() - start < 30:
                await asyncio.sleep(0.1)
            return apps, time.monotonic() - start, served.server.returncode

    apps, took, code = asyncio.run(scenario())
    assert code == 0 and took < 10, (code, took)
    assert all(not Path(f"/proc/{app}").exists() for app in apps)


def test_the_page_links_to_the_name_the_browser_asked_for(served: Served) -> None:
    """The links named the listening address: `::1` unbracketed and `0.0.0.0` reach no
    server, and a page asked for as `localhost` loaded its parts from `127.0.0.1`."""

    async def page(host: str) -> str:
        async with (
            aiohttp.ClientSession() as client,
            client.get(served.url, headers={"Host": host}) as response,
        ):
            assert response.status == 200
            return await response.text()

    for host in (f"localhost:{served.port}", f"127.0.0.1:{served.port}"):
        text = asyncio.run(page(host))
        assert f'data-session-websocket-url="ws://{host}/ws"' in text
        assert f'src="http://{host}/static/js/textual.js"' in text


def test_a_second_page_on_the_one_run_is_refused_by_name(served: Served) -> None:
    """With --run every session plays one run: a second page's app was refused by the
    run's lock, its reason only in the server's log, the page just 'Session ended'. Then
    the handshake was refused (409), which a page shows as 'Session ended' too: the page
    is now told why in its terminal, which stays in view."""

    async def second() -> tuple[str, bool]:
        origin = {"Origin": served.url}
        async with (
            aiohttp.ClientSession() as client,
            client.ws_connect(served.ws_url(), headers=origin) as first,
        ):
            await first.receive(timeout=30)
            return await _told(served.ws_url(), served.url)

    told, still_open = asyncio.run(second())
    assert f"Refused: {served.run} is open in another page: one writer at a time" in told
    assert still_open
    assert f"{served.run} is open in another page" in served.log.read_text()


def test_a_run_that_cannot_be_opened_says_why_on_its_page(served: Served) -> None:
    """The run locked by another writer after the server started: the app could not open
    it and left, the page showed 'Session ended' and the reason was lost (the server wrote
    the app's standard error nowhere one would look, once the app had ended)."""
    served.run.mkdir()
    with RunLock.acquire(served.run, "workbench run --out RUN"):
        told, still_open = asyncio.run(
            _told(served.ws_url("?width=200&height=40"), served.url, 60, "Close this page")
        )
    flat = " ".join(told.split())
    assert f"Cannot open {served.run}: Error: {served.run} is being written by pid" in flat
    assert still_open
    log = served.log.read_text()
    assert "a session's app (pid " in log and f"Error: {served.run} is being written by" in log
    deadline = time.monotonic() + 20
    while served.apps() and time.monotonic() < deadline:
        time.sleep(0.2)
    assert served.apps() == []  # the app ended with its page
    assert served.log.read_text().count("is being written by") == 1  # told once
