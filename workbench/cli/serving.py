"""`workbench serve`'s web server: textual-serve's, with the checks a page on loopback needs.

textual-serve starts an app process for any WebSocket that reaches `/ws`. As it stood, a
web page on any other site the presenter opened could do that (browsers send no CORS
check for WebSockets): each visit made a run under `runs/`, and it could type into the
presenter's own `--run` and read the screen. Here a WebSocket whose `Origin` is not this
server's is refused (403), a `Host` that is not one of this server's names is refused
(421, against DNS rebinding), the sessions running at once are capped (503 beyond; 409
for a second page on one `--run`), a message that is not one a page sends (keys, resize,
ping, focus, blur) is ignored (a bad resize crashed the app with a traceback), the
terminal size is bounded, and a session's app process ends with its page, by force if
need be, so it never keeps a run locked. The page names the workbench, not this
machine's interpreter path, and `/static/` lists nothing.

A refusal says why where its reader sees it. A request refused before a page is served
(421, and 403 for a socket not opened by this server's page) gets a plain-text body
naming the address to open. A page of this server refused a session (409, 503) had its
socket closed, and textual-serve's page then shows only "Session ended."; it is told in
its terminal instead, which the page shows as long as the socket is open, so the socket
is held, with no app behind it, until the page goes. An app that cannot open its run
says why on its page (`PlayerApp.on_session_failed`), and every line an app writes to
standard error is a line of the server's log (textual-serve printed it, on standard
output, only once the app had ended).
"""

from __future__ import annotations

import asyncio
import json
import logging
import shlex
import sys
from contextlib import suppress
from dataclasses import dataclass
from typing import Any, Final, Literal
from urllib.parse import urlsplit

import aiohttp_jinja2
import jinja2
from aiohttp import WSCloseCode, WSMsgType, web
from textual_serve.app_service import AppService
from textual_serve.server import Server, to_int

from workbench.host.mcp_hosts import bracketed, has_port, host_names
from workbench.messages import bound_line, clip, single_line

TITLE: Final = "Counterfactual Workbench"
MAX_COLUMNS: Final = 500
MAX_ROWS: Final = 200
"""The largest terminal a page may ask for: a bigger one only costs the app its memory."""
MAX_MESSAGE: Final = 4 * 1024 * 1024
"""Bytes of one page message (a paste into an answer box is the largest a page sends)."""
STOP_GRACE: Final = 3.0
"""Seconds an app is given to quit after its page has gone before it is killed."""
MAX_NOTICES: Final = 16
"""Refused pages held open at once to show why (beyond, a page is refused unanswered)."""
MAX_LOG_LINE: Final = 64 * 1024
"""Bytes of one line of an app's standard error read before it is logged as it stands."""

log = logging.getLogger("workbench.serve")


@dataclass(frozen=True)
class PageMessage:
    """One message a page sends over its WebSocket, checked: keys typed, a resize, a ping,
    focus or blur. Anything else a page (or anyone) sends is not one."""

    kind: Literal["stdin", "resize", "ping", "focus", "blur"]
    text: str = ""
    width: int = 0
    height: int = 0
    ping: Any = None


def terminal_size(width: object, height: object) -> tuple[int, int] | None:
    """`(columns, rows)` bounded to `MAX_COLUMNS` x `MAX_ROWS`, or None unless both are
    integers (a JSON `true` or `"80"` is not a size)."""
    if type(width) is not int or type(height) is not int:
        return None
    return min(max(width, 1), MAX_COLUMNS), min(max(height, 1), MAX_ROWS)


def page_message(data: str) -> PageMessage | None:
    """The page message `data` holds, or None when it is not one."""
    try:
        envelope = json.loads(data)
    except ValueError:
        return None
    if not isinstance(envelope, list) or not envelope or not isinstance(envelope[0], str):
        return None
    kind, args = envelope[0], envelope[1:]
    if kind == "stdin" and len(args) == 1 and isinstance(args[0], str):
        return PageMessage("stdin", text=args[0])
    if kind == "resize" and len(args) == 1 and isinstance(args[0], dict):
        size = terminal_size(args[0].get("width"), args[0].get("height"))
        return None if size is None else PageMessage("resize", width=size[0], height=size[1])
    if kind == "ping" and len(args) == 1:
        return PageMessage("ping", ping=args[0])
    if kind in ("focus", "blur"):
        return PageMessage("focus" if kind == "focus" else "blur")
    return None


def host_accepted(host: str, accepted: tuple[str, ...] | None) -> bool:
    """True when a `Host` value names this server (`accepted` from `host_names`: a name,
    or `name:*` for that name with any port; None takes any)."""
    if accepted is None:
        return True
    name = host.strip().lower()
    if name in accepted:
        return True
    if has_port(name):
        bare, _, port = name.rpartition(":")
        return port.isdigit() and f"{bare}:*" in accepted
    return f"{bracketed(name)}:*" in accepted


def origin_accepted(origin: str | None, host: str, accepted: tuple[str, ...] | None) -> bool:
    """True when a WebSocket's `Origin` is a page of this server: one of its names (on
    loopback), or the very host the request came to. No `Origin` is no browser's page."""
    if origin is None:
        return True
    parts = urlsplit(origin)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        return False
    if accepted is None:
        return parts.netloc.lower() == host.strip().lower()
    return host_accepted(parts.netloc, accepted)


class OneLineFormatter(logging.Formatter):
    """Log records as one line each: an exception is named, never printed as a traceback."""

    def format(self, record: logging.LogRecord) -> str:
        line = record.getMessage()
        if record.exc_info and record.exc_info[1] is not None:
            error = record.exc_info[1]
            line = f"{line}: {type(error).__name__}: {error}"
        return f"{record.levelname.lower()}: {line}"


class AppProcess(AppService):
    """One browser session's app: started without a shell, and ended whatever its page did."""

    def __init__(self, argv: list[str], **kwargs: Any) -> None:
        super().__init__(shlex.join(argv), **kwargs)
        self._argv = argv
        self._errors: asyncio.Future[None] | None = None
        """The task logging the app's standard error (`_log_errors`)."""

    async def _open_app_process(
        self, width: int = 80, height: int = 24
    ) -> asyncio.subprocess.Process:
        """The app as a child process of its own (no shell between: killing it ends it).

        Its standard error is read here, each line logged as it comes (`_log_errors`);
        textual-serve's reader is given an empty one, so nothing is printed twice.
        """
        self._process = process = await asyncio.create_subprocess_exec(
            *self._argv,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env=self._build_environment(width=width, height=height),
        )
        assert process.stdin is not None and process.stderr is not None
        self._stdin = process.stdin
        self._errors = asyncio.ensure_future(_log_errors(process.stderr, process.pid))
        emptied = asyncio.StreamReader()
        emptied.feed_eof()
        process.stderr = emptied
        return process

    async def on_data(self, payload: bytes) -> None:
        """Forward the app's output; a page that has gone is not the app's error."""
        with suppress(ConnectionError, RuntimeError):
            await super().on_data(payload)

    async def on_meta(self, data: bytes) -> None:
        """Forward the app's meta packets; a page that has gone is not the app's error."""
        with suppress(ConnectionError, RuntimeError):
            await super().on_meta(data)

    async def end(self, grace: float = STOP_GRACE) -> None:
        """Ask the app to quit; stop it (SIGTERM, then SIGKILL) when it has not ended within
        `grace` seconds each: an app left running would keep its run locked.

        The quit is waited on, never cancelled: textual-serve's reader swallows a
        cancellation, so a cancelled quit went on waiting for a hung app for ever.
        """
        quitting = asyncio.ensure_future(self._quit())
        await asyncio.wait([quitting], timeout=grace)
        process = self._process
        if process is None:
            return
        for how in (process.terminate, process.kill):
            if quitting.done():
                return
            log.warning("a session's app (pid %d) has not quit: %s", process.pid, how.__name__)
            with suppress(ProcessLookupError):
                how()
            await asyncio.wait([quitting], timeout=grace)
        if not quitting.done():
            log.warning("a session's app (pid %d) outlived SIGKILL", process.pid)

    async def _quit(self) -> None:
        """Send the app its quit; return once its process has ended (and its standard
        error is logged to its end)."""
        with suppress(Exception):
            await self.stop()
        if self._process is not None:
            await self._process.wait()
        if self._errors is not None:
            await asyncio.wait([self._errors], timeout=STOP_GRACE)


async def _log_errors(stream: asyncio.StreamReader, pid: int) -> None:
    """Log each line an app writes to standard error (its `Error: …` when its run cannot be
    opened, a warning, a crash), one log line each, printable and bounded."""
    pending = b""
    with suppress(ConnectionError, asyncio.CancelledError):
        while chunk := await stream.read(4096):
            *lines, pending = (pending + chunk).split(b"\n")
            if len(pending) > MAX_LOG_LINE:
                lines, pending = [*lines, pending], b""
            for line in lines:
                _log_error_line(line, pid)
    _log_error_line(pending, pid)


def _log_error_line(line: bytes, pid: int) -> None:
    text = line.decode("utf-8", "replace").strip()
    if text:
        log.warning("a session's app (pid %d): %s", pid, bound_line(single_line(text)))


class WorkbenchServer(Server):
    """textual-serve's server for the player's app, with the checks in the module's doc."""

    def __init__(
        self, argv: list[str], host: str, port: int, max_sessions: int, run: str | None = None
    ) -> None:
        """Serve `argv` (the app's command); `run` names the one run every session plays
        (`--run`), which one page at a time can write."""
        super().__init__(shlex.join(argv), host=host, port=port, title=TITLE)
        self.run = run
        self.public_url = f"http://{bracketed(host)}:{port}"
        self.argv = argv
        self.max_sessions = max_sessions
        self.pages: set[web.WebSocketResponse] = set()
        self.notices: set[web.WebSocketResponse] = set()
        """Refused pages held open to show why (`_tell_page`)."""
        self.hosts = host_names(host, ())

    def initialize_logging(self) -> None:
        """Plain one-line log records on standard error (no tracebacks, no locals)."""
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(OneLineFormatter())
        logging.basicConfig(level=logging.INFO, handlers=[handler], force=True)

    async def _make_app(self) -> web.Application:
        app = web.Application(middlewares=[self._check_host])
        aiohttp_jinja2.setup(app, loader=jinja2.FileSystemLoader(self.templates_path))
        app.add_routes(
            [
                web.get("/", self.handle_index, name="index"),
                web.get("/ws", self.handle_websocket, name="websocket"),
                web.get("/download/{key}", self.handle_download, name="download"),
                web.static("/static", self.statics_path, show_index=False, name="static"),
            ]
        )
        app.on_startup.append(self.on_startup)
        app.on_shutdown.append(self.on_shutdown)
        return app

    async def on_startup(self, app: web.Application) -> None:
        """One line: where the dashboard is served."""
        print(f"serving the dashboard on {self.public_url} (Ctrl+C stops)", file=sys.stderr)

    @aiohttp_jinja2.template("app_index.html")
    async def handle_index(self, request: web.Request) -> dict[str, Any]:
        """The page, its links on the name the browser asked for: textual-serve wrote the
        listening address into them, which no browser reaches for `::1` (unbracketed) or
        `0.0.0.0`, and a page asked for as `localhost` then loaded from `127.0.0.1`."""
        secure = request.scheme == "https"
        return {
            "font_size": min(max(to_int(request.query.get("fontsize", "16"), 16), 6), 64),
            "app_websocket_url": f"{'wss' if secure else 'ws'}://{request.host}/ws",
            "config": {"static": {"url": f"{request.scheme}://{request.host}/static/"}},
            "application": {"name": self.title},
        }

    async def on_shutdown(self, app: web.Application) -> None:
        """Close every page (Ctrl+C): each session's app is then ended as when its page goes,
        instead of the server waiting for the pages to leave."""
        for websocket in [*self.pages, *self.notices]:
            with suppress(Exception):
                await websocket.close(code=WSCloseCode.GOING_AWAY, message=b"server stopped")

    def _page_url(self, request: web.Request) -> str:
        """Where this server's page is: its listening address, or (listening on every
        address) the name this request came to."""
        if self.hosts is None:
            return f"{request.scheme}://{request.host}/"
        return f"{self.public_url}/"

    @web.middleware
    async def _check_host(self, request: web.Request, handler: Any) -> web.StreamResponse:
        """421 for a request to a name that is not this server's (DNS rebinding), with a
        body saying where the dashboard is."""
        if not host_accepted(request.host, self.hosts):
            return web.Response(
                status=421,
                text=(
                    f"421 Misdirected Request: this dashboard answers on this machine only, "
                    f"at {self._page_url(request)} (or localhost, [::1], on port "
                    f"{self.public_url.rpartition(':')[2]}); this request named the host "
                    f"{clip(request.host)}\n"
                ),
            )
        response: web.StreamResponse = await handler(request)
        return response

    async def handle_websocket(self, request: web.Request) -> web.WebSocketResponse:
        """A browser session: refused from another site's page or over the cap; else its
        app runs until the page goes, and is ended then."""
        origin = request.headers.get("Origin")
        if not origin_accepted(origin, request.host, self.hosts):
            raise web.HTTPForbidden(
                text=(
                    f"403 Forbidden: a session may only be started by this dashboard's own "
                    f"page, {self._page_url(request)}; this request came from a page of "
                    f"{clip(origin)}\n"
                )
            )
        if self.run is not None and self.pages:
            refusal = (
                f"{single_line(self.run)} is open in another page: one writer at a time; "
                "close that one first"
            )
            log.warning("a session was refused (the page is told): %s", refusal)
            return await self._tell_page(request, refusal, web.HTTPConflict)
        if len(self.pages) >= self.max_sessions:
            refusal = (
                f"the server runs {len(self.pages)} of {self.max_sessions} sessions "
                "(--max-sessions): end one first"
            )
            log.warning("a session was refused (the page is told): %s", refusal)
            return await self._tell_page(request, refusal, web.HTTPServiceUnavailable)
        size = terminal_size(
            to_int(request.query.get("width", "80"), 80),
            to_int(request.query.get("height", "24"), 24),
        )
        width, height = size or (80, 24)
        websocket = web.WebSocketResponse(heartbeat=15, max_msg_size=MAX_MESSAGE)
        self.pages.add(websocket)
        app = AppProcess(
            self.argv,
            write_bytes=websocket.send_bytes,
            write_str=websocket.send_str,
            close=websocket.close,
            download_manager=self.download_manager,
        )
        try:
            await websocket.prepare(request)
            await app.start(width, height)
            await self._page_messages(websocket, app)
        except (ConnectionError, asyncio.CancelledError):
            pass
        finally:
            await app.end()
            self.pages.discard(websocket)  # once its app has ended and let go of its run
            with suppress(Exception):
                await websocket.close()
        return websocket

    async def _tell_page(
        self, request: web.Request, refusal: str, status: type[web.HTTPException]
    ) -> web.WebSocketResponse:
        """Refuse a page of this server its session, telling it why: the refusal is written
        into its terminal, and its socket held open (no app behind it) until the page goes,
        as a closed socket puts textual-serve's "Session ended." over the terminal. Past
        `MAX_NOTICES` such pages at once, the handshake is refused with `status` instead."""
        if len(self.notices) >= MAX_NOTICES:
            raise status(text=refusal + "\n")
        websocket = web.WebSocketResponse(heartbeat=15, max_msg_size=MAX_MESSAGE)
        self.notices.add(websocket)
        try:
            await websocket.prepare(request)
            await websocket.send_bytes(_notice(refusal))
            async for _ in websocket:  # keys, resizes, pings: nothing is behind this page
                pass
        except ConnectionError:
            pass
        finally:
            self.notices.discard(websocket)
            with suppress(Exception):
                await websocket.close()
        return websocket

    async def _page_messages(self, websocket: web.WebSocketResponse, app: AppProcess) -> None:
        """Pass each page message to the app; one that is not a page message is ignored."""
        async for message in websocket:
            if message.type != WSMsgType.TEXT:
                continue
            checked = page_message(message.data)
            if checked is None:
                log.warning("a page sent a message that is not one of the app's: ignored")
            elif checked.kind == "stdin":
                await app.send_bytes(checked.text.encode("utf-8", "replace"))
            elif checked.kind == "resize":
                await app.set_terminal_size(checked.width, checked.height)
            elif checked.kind == "ping":
                await websocket.send_json(["pong", checked.ping])
            elif checked.kind == "blur":
                await app.blur()
            else:
                await app.focus()


def _notice(refusal: str) -> bytes:
    """A refused page's terminal: the screen cleared, why, and what to do (CR LF ends a
    terminal's line)."""
    lines = [
        f"\x1b[2J\x1b[H\x1b[1m{TITLE}: this page has no session\x1b[0m",
        "",
        f"Refused: {refusal}.",
        "",
        "Reload this page when that is done.",
    ]
    return "\r\n".join(lines).encode()
