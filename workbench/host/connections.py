"""The host's connection limits, kept where connections are: in uvicorn's HTTP protocol.

uvicorn's own `limit_concurrency` counted every open connection, a socket that never sent
a byte included, and its only deadline (keep-alive) starts after a first response: 1,024
idle sockets, or as many sending a header a minute (slowloris), refused every agent for as
long as they were held, each refusal a plain-text 503 and a WARNING line. The rules here:

- A request must arrive, head and body, within `request_timeout` of the connection's
  opening or of its first byte (10 s); otherwise the connection is closed. Between
  requests a connection waits at most uvicorn's keep-alive timeout. A head is at most
  `max_head_bytes` (32 KiB; 431 beyond): httptools itself takes a head of any size. A
  request httptools cannot parse (a malformed request line or header, conflicting
  lengths, a broken chunk) is answered 400 `bad_request` in the API's error shape.
- One client address holds at most `per_address` connections (an IPv6 client is its /64,
  the block one subscriber gets). Loopback peers share one address by nature (this
  machine's agents, or the TLS proxy every remote agent comes through), so a cap there
  would only be a smaller global cap: they are not capped unless `cap_loopback`.
- At most `max_connections` in all. A new connection over either cap takes the place of
  the one of its address (or, over the global cap, of anyone) that has waited longest
  without a request in progress (idle, or its head still incomplete); only when every
  one is busy is it refused.
- A refused connection is answered, once its request head arrives (within a second), with
  the API's error shape: 503 `{"error": {"code": "overloaded", "message"}}` and
  `Connection: close`. Refusals and replacements are logged as one WARNING line a
  minute, with counts; uvicorn's own warnings a client can cause (an unparsable request,
  an upgrade) are thinned the same way (`workbench.host.quiet_log`).

This is a subclass of uvicorn's httptools protocol passed as `Config(http=...)`, not an
ASGI wrapper: an app only sees a connection once its request head is complete, which is
exactly what an idle or slow client never gives, and uvicorn's 503 comes from its own
protocol code. The subclass adds to the hooks uvicorn already calls for every connection
and request (`connection_made`, `data_received`, `on_message_begin`,
`on_headers_complete`, `on_message_complete`, `on_response_complete`, `connection_lost`)
and replaces one, `send_400_response` (its plain-text 400); a refused connection is given
its own ASGI app (`self.app`), so no uvicorn code is copied. It relies on those hooks and on the
protocol's `transport`, `client`, `cycle`, `pipeline`, `flow` and `loop` attributes
(uvicorn 0.54).
"""

from __future__ import annotations

import asyncio
import ipaddress
import logging
import math
import time
from collections import Counter
from dataclasses import dataclass
from typing import Any, ClassVar, Final

import orjson
from starlette.types import Receive, Scope, Send
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from workbench.host.quiet_log import INTERVAL

log = logging.getLogger("workbench.host.connections")

REFUSAL_GRACE: Final = 1.0
"""Seconds a refused connection has to send its request head before it is just closed."""
MAX_REFUSING: Final = 64
"""Refused connections waiting for their request head at once; more are closed at once
(each holds a file descriptor)."""
MAX_ADDRESSES_LOGGED: Final = 1024
"""Addresses counted apart between two log lines; the rest count as `others`."""
LOG_INTERVAL: Final = INTERVAL
"""Seconds between two WARNING lines about refused or replaced connections."""
UNPARSABLE: Final = (
    "the request is not valid HTTP/1.1 (its request line, a header or its body's framing "
    "is malformed)"
)
"""The message of a request the HTTP parser refuses."""


@dataclass(frozen=True)
class ConnectionLimits:
    """How many connections the host holds, from whom, and for how long."""

    max_connections: int = 1024
    per_address: int = 64
    """Connections one client address may hold; 0 for no cap per address."""
    cap_loopback: bool = False
    """Cap loopback peers too (127.0.0.0/8, ::1; tests use 127.0.0.2 as a second client)."""
    request_timeout: float = 10.0
    """Seconds a connection has to deliver a whole request, from its opening or from the
    first byte of the request."""
    keep_alive: int = 30
    """Seconds an idle connection waits for its next request (uvicorn's keep-alive)."""
    max_head_bytes: int = 32 * 1024
    """Largest request head (request line and headers): httptools, unlike h11, takes a
    head of any size, a header line of 200 MiB included (and 50 s of CPU to parse it)."""
    log_interval: float = LOG_INTERVAL

    def __post_init__(self) -> None:
        if self.max_connections < 1:
            raise ValueError("max_connections must be at least 1")
        if self.per_address < 0:
            raise ValueError("per_address must be 0 (no cap) or more")
        if not (math.isfinite(self.request_timeout) and self.request_timeout > 0):
            raise ValueError("request_timeout must be a positive number of seconds")


def address_key(client: tuple[str, int] | None, cap_loopback: bool) -> str | None:
    """The address a client's connections are counted under, or None when not capped.

    IPv4 by address (a v4-mapped IPv6 peer included), IPv6 by /64: a subscriber gets a
    whole /64, so counting single IPv6 addresses would cap nobody.
    """
    if client is None:
        return None
    try:
        ip = ipaddress.ip_address(client[0].partition("%")[0])
    except ValueError:
        return None
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    if ip.is_loopback and not cap_loopback:
        return None
    if isinstance(ip, ipaddress.IPv6Address):
        return str(ipaddress.IPv6Network((ip, 64), strict=False))
    return str(ip)


class Overloaded:
    """The ASGI app that answers a refused connection: 503 `overloaded`, then close."""

    def __init__(self, message: str) -> None:
        self.body = orjson.dumps({"error": {"code": "overloaded", "message": message}})

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        headers = [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(self.body)).encode()),
            (b"retry-after", b"1"),
            (b"connection", b"close"),
        ]
        await send({"type": "http.response.start", "status": 503, "headers": headers})
        await send({"type": "http.response.body", "body": self.body})


class ConnectionGuard:
    """The counts behind `ConnectionLimits` for one server (its event loop's only)."""

    def __init__(self, limits: ConnectionLimits) -> None:
        self.limits = limits
        self.total = 0
        self.by_address: Counter[str] = Counter()
        self.idle: dict[GuardedProtocol, None] = {}
        """Admitted connections with no request in progress, longest waiting first."""
        self.idle_by_address: dict[str, dict[GuardedProtocol, None]] = {}
        self.refusing = 0
        self.events: Counter[str] = Counter()
        self.addresses: Counter[str] = Counter()
        self.last_log = -math.inf
        self.flush: asyncio.TimerHandle | None = None
        cap = limits.per_address
        self.over_host = Overloaded(
            f"the host holds its limit of {limits.max_connections} connections, every one "
            "busy; try again shortly"
        )
        self.over_address = Overloaded(
            f"your address holds the host's limit of {cap} connections, every one busy; "
            "close one or try again shortly"
        )

    def admit(self, conn: GuardedProtocol) -> Overloaded | None:
        """Count a new connection in, making room if it can; the app that refuses it if not."""
        key = conn.address
        cap = self.limits.per_address
        if key is not None and cap and self.by_address[key] >= cap:
            victim = next(iter(self.idle_by_address.get(key, ())), None)
            if victim is None:
                self.note("refused (over its address's limit)", key)
                return self.over_address
            self.replace(victim, "in place of its address's longest idle one")
        if self.total >= self.limits.max_connections:
            victim = next(iter(self.idle), None)
            if victim is None:
                self.note("refused (over the host's limit)", key)
                return self.over_host
            self.replace(victim, "in place of the longest idle one (the host's limit)")
        self.total += 1
        if key is not None:
            self.by_address[key] += 1
        conn.counted = True
        self.waiting(conn)
        return None

    def release(self, conn: GuardedProtocol) -> None:
        """Count a connection out (closed, or replaced)."""
        if not conn.counted:
            return
        conn.counted = False
        self.busy(conn)
        self.total -= 1
        key = conn.address
        if key is not None:
            left = self.by_address[key] - 1
            if left:
                self.by_address[key] = left
            else:
                del self.by_address[key]

    def waiting(self, conn: GuardedProtocol) -> None:
        """The connection has no request in progress (new, or its response sent)."""
        if not conn.counted:
            return
        self.idle.pop(conn, None)
        self.idle[conn] = None
        if conn.address is not None:
            self.idle_by_address.setdefault(conn.address, {})[conn] = None

    def busy(self, conn: GuardedProtocol) -> None:
        """The connection's request head is complete: it is being served."""
        if conn not in self.idle:
            return
        del self.idle[conn]
        if conn.address is not None:
            mine = self.idle_by_address[conn.address]
            del mine[conn]
            if not mine:
                del self.idle_by_address[conn.address]

    def replace(self, victim: GuardedProtocol, why: str) -> None:
        """Close a connection that waits without a request, to admit a new one."""
        self.release(victim)
        victim.transport.close()
        self.note(f"admitted {why}", victim.address)

    def note(self, event: str, key: str | None) -> None:
        """Count an event for the next WARNING line (at most one a `log_interval`)."""
        self.events[event] += 1
        name = key or "loopback or unknown"
        if name not in self.addresses and len(self.addresses) >= MAX_ADDRESSES_LOGGED:
            name = "others"
        self.addresses[name] += 1
        now = time.monotonic()
        if now - self.last_log >= self.limits.log_interval:
            self.report(now)
        elif self.flush is None:
            delay = self.last_log + self.limits.log_interval - now
            self.flush = asyncio.get_running_loop().call_later(delay, self.report)

    def report(self, now: float | None = None) -> None:
        """Log the counted events in one line and start counting again."""
        if self.flush is not None:
            self.flush.cancel()
            self.flush = None
        if not self.events:
            return
        now = time.monotonic() if now is None else now
        since = "" if self.last_log == -math.inf else f" in the last {now - self.last_log:.0f} s"
        self.last_log = now
        what = "; ".join(f"{n} {event}" for event, n in sorted(self.events.items()))
        top, n = self.addresses.most_common(1)[0]
        log.warning(
            "new connections over the limits: %s%s (%d open of %d; most from %s: %d)",
            what,
            since,
            self.total,
            self.limits.max_connections,
            top,
            n,
        )
        self.events.clear()
        self.addresses.clear()


class GuardedProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol under `ConnectionLimits` (see the module's doc)."""

    guard: ClassVar[ConnectionGuard]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.counted = False
        self.refused = False
        self.address: str | None = None
        self.in_head = True
        """No request head is complete yet (since the opening or the last request)."""
        self.head_bytes = 0
        self.timeout = 0.0
        self.started: float | None = None
        """When the request now arriving began (the opening, or its first byte), in the
        loop's time; None while none is arriving."""
        self.deadline: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        guard = self.guard
        self.address = address_key(self.client, guard.limits.cap_loopback)
        refusal = guard.admit(self)
        if refusal is None:
            self.expect(guard.limits.request_timeout)
            return
        if guard.refusing >= MAX_REFUSING:
            transport.close()
            return
        self.refused = True
        guard.refusing += 1
        self.app = refusal
        self.expect(min(REFUSAL_GRACE, guard.limits.request_timeout))

    def connection_lost(self, exc: Exception | None) -> None:
        super().connection_lost(exc)
        if self.deadline is not None:
            self.deadline.cancel()
            self.deadline = None
        if self.refused:
            self.refused = False
            self.guard.refusing -= 1
        self.guard.release(self)

    def data_received(self, data: bytes) -> None:
        counting = self.in_head
        if counting:
            self.head_bytes += len(data)
        super().data_received(data)
        if counting and self.in_head and self.head_bytes > self.guard.limits.max_head_bytes:
            self.head_too_large()

    def on_message_begin(self) -> None:
        super().on_message_begin()
        if self.started is None:
            self.started = self.loop.time()

    def on_headers_complete(self) -> None:
        if self.parsed_head_bytes() > self.guard.limits.max_head_bytes:
            # A head that came whole in one read (up to the loop's read size, 256 KiB) was
            # never over the limit between reads: `data_received` did not see it.
            self.head_too_large()
            raise HeadTooLarge  # stops the parser: the request never reaches the app
        self.in_head = False
        self.guard.busy(self)
        super().on_headers_complete()

    def parsed_head_bytes(self) -> int:
        """The bytes of the request head httptools has just parsed: its request line
        (`METHOD URL HTTP/1.1` and CRLF), each header line (`name: value` and CRLF) and
        the blank line; whitespace around a value, which httptools drops, not counted."""
        line = len(self.parser.get_method()) + len(self.url) + len(" HTTP/1.1\r\n") + 1
        headers = sum(len(name) + len(value) + len(": \r\n") for name, value in self.headers)
        return line + headers + len("\r\n")

    def on_message_complete(self) -> None:
        self.started = None
        self.in_head = True
        self.head_bytes = 0
        super().on_message_complete()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing() and (self.cycle is None or self.cycle.response_complete):
            self.guard.waiting(self)

    def head_too_large(self) -> None:
        """Answer 431 (when no response is under way) and close: the head is over its limit."""
        limit = self.guard.limits.max_head_bytes
        self.refuse(
            b"431 Request Header Fields Too Large",
            "too_large",
            f"request head is larger than its limit of {limit} bytes",
        )

    def send_400_response(self, msg: str) -> None:
        """Answer a request httptools cannot parse in the API's error shape (uvicorn's own
        400 is plain text), then close."""
        self.refuse(b"400 Bad Request", "bad_request", UNPARSABLE)

    def refuse(self, status: bytes, code: str, message: str) -> None:
        """Answer `status` with the API's error and close; when that reply would not be the
        refused request's own (`answerable`), close without it: its client sees a lost
        reply and retries with the same command id, never another request's status."""
        if self.transport.is_closing():
            return
        if self.answerable():
            body = orjson.dumps({"error": {"code": code, "message": message}})
            self.transport.write(
                b"HTTP/1.1 %s\r\ncontent-type: application/json\r\n"
                b"content-length: %d\r\nconnection: close\r\n\r\n%s" % (status, len(body), body)
            )
        self.transport.close()

    def answerable(self) -> bool:
        """True when a reply written now answers the request being parsed: no earlier
        (pipelined) request still owes its reply, and this one has not begun its own.

        uvicorn wrote its 400 whatever was under way: a valid command pipelined before a
        malformed request got that 400 as its reply, though it was applied.
        """
        cycle = self.cycle
        if self.in_head:
            return cycle is None or cycle.response_complete
        return not self.pipeline and cycle is not None and not cycle.response_started

    def expect(self, timeout: float) -> None:
        """Start the connection's one timer: a request must arrive within `timeout`.

        One timer a connection, not one a request: a request only notes when it began
        (`started`), and the timer, when it fires, closes the connection or sets itself
        for the current request's deadline (a timer made and cancelled per request cost
        more CPU than every other check here).
        """
        self.timeout = timeout
        self.started = self.loop.time()
        self.deadline = self.loop.call_later(timeout, self.check)

    def check(self) -> None:
        """Close the connection if its request is late; otherwise look again when it
        would be. Time the host is not reading (a body it has not taken yet, a pipelined
        request waiting its turn) is not the client's: its deadline starts again."""
        self.deadline = None
        if self.transport.is_closing():
            return
        now = self.loop.time()
        started = self.started
        if started is not None and self.flow.read_paused:
            started = self.started = now
        if started is None:
            due = now + self.timeout
        elif now - started >= self.timeout:
            self.transport.close()
            return
        else:
            due = started + self.timeout
        self.deadline = self.loop.call_at(due, self.check)


class HeadTooLarge(Exception):
    """Raised from httptools' headers-complete callback once the head over its limit has
    been answered 431: it stops the parser (uvicorn takes it as a parse error, whose 400
    `refuse` then leaves unsent, the connection being closed already)."""


def protocol_for(guard: ConnectionGuard) -> type[GuardedProtocol]:
    """The protocol class for one server's `Config(http=...)`, counting into `guard`."""
    return type("GuardedProtocol", (GuardedProtocol,), {"guard": guard})
