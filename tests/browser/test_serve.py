"""`workbench serve` in a real browser: Debian's Chromium driven by Playwright.

The server runs as its own process on a free loopback port; the page starts the app,
keys advance a week and switch screens, and the terminal's text is read from the
bytes the app sends to the page's terminal. A screenshot is kept under
`test-artifacts/browser/` (git-ignored). `make chromium` installs the browser.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "browser"
ANSI = re.compile(r"\x1b\[[0-9;?<>=]*[ -/]*[@-~]|\x1b[()][0-9A-Za-z]|\x1b[=>]")

pytestmark = pytest.mark.browser


def free_port() -> int:
    """A port nothing listens on right now (the kernel picks it)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class ServeExited(AssertionError):
    """`workbench serve` exited before it listened (its port was taken meanwhile, say)."""


def wait_listening(port: int, server: subprocess.Popen[bytes], seconds: float = 60) -> None:
    """Return once the server accepts connections; fail if it exits or never does."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise ServeExited(f"workbench serve exited with {server.returncode}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.1)
    raise AssertionError(f"workbench serve did not listen on port {port}")


def stop(server: subprocess.Popen[bytes]) -> None:
    """Stop the server and the app processes it started (none left is no error)."""
    try:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=10)
    except subprocess.TimeoutExpired:
        os.killpg(server.pid, signal.SIGKILL)
        server.wait(timeout=10)
    except ProcessLookupError:
        server.wait(timeout=10)


def serve(
    run: Path, *extra: str, log: Path | None = None, one_run: bool = True, attempts: int = 5
) -> tuple[subprocess.Popen[bytes], int]:
    """`workbench serve --run RUN EXTRA...` listening on a free loopback port, and the port;
    without `one_run`, no `--run` (each session a new run under RUN's folder's `runs/`);
    its standard error goes to `log` when given.

    The port is probed free and then bound by the server, so another process can take it
    in between: the server then exits, and it is started again on a new port.
    """
    for attempt in range(attempts):
        port = free_port()
        sink = log.open("ab") if log is not None else None
        server = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "workbench",
                "serve",
                *(["--run", str(run)] if one_run else []),
                "--host",
                "127.0.0.1",
                "--port",
                str(port),
                *extra,
            ],
            cwd=run.parent,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL if sink is None else sink,
            start_new_session=True,
        )
        if sink is not None:
            sink.close()
        try:
            wait_listening(port, server)
        except ServeExited:
            stop(server)
            if attempt == attempts - 1:
                raise
            continue
        except BaseException:
            stop(server)
            raise
        return server, port
    raise AssertionError("unreachable")


@pytest.fixture
def served(tmp_path: Path) -> Iterator[str]:
    """`workbench serve` on a free loopback port, stopped (with its app processes) after."""
    server, port = serve(tmp_path / "run")
    try:
        yield f"http://127.0.0.1:{port}/"
    finally:
        stop(server)


class Terminal:
    """What the app wrote to the page's terminal, as plain text."""

    def __init__(self) -> None:
        self.chunks: list[str] = []

    def feed(self, payload: bytes | str) -> None:
        """Keep one frame the server sent (terminal output is binary)."""
        if isinstance(payload, bytes):
            self.chunks.append(ANSI.sub("", payload.decode("utf-8", "replace")))

    def since(self, mark: int) -> str:
        """The text written after chunk `mark`."""
        return "".join(self.chunks[mark:])


def wait_text(page, terminal: Terminal, text: str, mark: int = 0, seconds: float = 60) -> None:  # type: ignore[no-untyped-def]
    """Wait until `text` has been written to the terminal after chunk `mark`."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if text in terminal.since(mark):
            return
        page.wait_for_timeout(100)
    tail = terminal.since(mark)[-400:]
    raise AssertionError(f"{text!r} never reached the terminal; last output: {tail!r}")


@contextlib.contextmanager
def browser() -> Iterator[Any]:
    """Debian's chromium, headless, driven by Playwright (closed on leaving)."""
    if not CHROMIUM.exists():
        pytest.fail(f"{CHROMIUM} is missing: `make chromium` installs Debian's chromium")
    from playwright.sync_api import sync_playwright

    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(
            executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True
        )
        try:
            yield launched
        finally:
            launched.close()


def page_of(launched: Any, terminal: Terminal) -> Any:
    """A new page whose websocket frames `terminal` reads."""
    page = launched.new_page(viewport={"width": 1280, "height": 800})
    page.on("websocket", lambda ws: ws.on("framereceived", terminal.feed))
    return page


def test_serve_plays_in_a_real_browser(served: str) -> None:
    terminal = Terminal()
    with browser() as launched:
        page = page_of(launched, terminal)
        page.goto(served)
        wait_text(page, terminal, "Objective")
        page.locator("#terminal").click()
        page.keyboard.press("Enter")
        wait_text(page, terminal, "Day 0")
        mark = len(terminal.chunks)
        page.keyboard.press("w")
        wait_text(page, terminal, "Day 7", mark)
        mark = len(terminal.chunks)
        page.keyboard.press("Control+o")
        wait_text(page, terminal, "Go to", mark)
        page.keyboard.press("4")
        wait_text(page, terminal, "advance", mark)
        wait_text(page, terminal, "header", mark)
        mark = len(terminal.chunks)
        page.keyboard.press("v")
        wait_text(page, terminal, "Chain OK", mark)
        page.screenshot(path=str(ARTIFACTS / "serve-journal.png"))
    assert (ARTIFACTS / "serve-journal.png").stat().st_size > 0


def test_a_page_refused_its_session_says_why_in_a_real_browser(tmp_path: Path) -> None:
    """A second page on the one `--run` showed only textual-serve's "Session ended." (its
    socket refused, 409): it now shows why in its terminal, which stays in view."""
    server, port = serve(tmp_path / "run")
    url = f"http://127.0.0.1:{port}/"
    playing, refused = Terminal(), Terminal()
    try:
        with browser() as launched:
            first = page_of(launched, playing)
            first.goto(url)
            wait_text(first, playing, "Objective")
            second = page_of(launched, refused)
            second.goto(url)
            wait_text(second, refused, "is open in another page: one writer at a time")
            second.wait_for_timeout(1_000)
            shown = second.evaluate("document.body.className")
            assert "-first-byte" in shown and "-closed" not in shown, shown
            assert not second.locator(".closed-dialog").is_visible()
            second.screenshot(path=str(ARTIFACTS / "serve-refused.png"))
            assert "Objective" in playing.since(0)  # the first page plays on
    finally:
        stop(server)
