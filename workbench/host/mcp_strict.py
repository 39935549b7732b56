"""MCP messages are strict JSON: one naming a key twice in one object is refused unread.

The SDK parses a JSON-RPC message as every JSON parser does, keeping the last of a
repeated key, so `"arguments": {"days": 1, "days": 30}` advanced 30 days while a proxy or
a log saw 1. The JSON API and scripts refuse such text (`ledger.json_keys`); MCP messages
are refused here, at any depth, before the SDK reads them: over streamable HTTP with
400 and a JSON-RPC error (the SDK's own reply to a message it cannot parse), over stdio
with that error as a line. The error carries the request's id when the message names one
once, so the client's call ends with it instead of waiting. Nothing here imports the SDK
(a host that serves only the JSON API never loads it).
"""

from __future__ import annotations

import json
from collections import deque
from typing import Any, Final

import orjson
from starlette.responses import Response
from starlette.types import Message, Receive, Scope, Send

from ledger.json_keys import repeated_key
from workbench.messages import clip

MAX_MCP_BODY_BYTES: Final = 64 * 1024
"""Largest MCP message: an HTTP request body, or a line over stdio (in characters)."""
PARSE_ERROR: Final = -32700
"""JSON-RPC's code for text that is not JSON."""
INVALID_REQUEST: Final = -32600
"""JSON-RPC's code for JSON that is not a valid request."""


def repeated_key_in(message: bytes | str) -> str | None:
    """The first key some object of the JSON text `message` names twice, or None.

    orjson's parse makes the usual answer a count (`repeated_key`'s fast path). Text orjson
    refuses but one of the SDK's parsers takes (NaN, 1e999, UTF-16, a lone surrogate) is
    parsed again by the standard library's, which takes all of those; text no parser
    takes is left to the SDK to refuse.
    """
    try:
        parsed = orjson.loads(message)
    except orjson.JSONDecodeError:
        return repeated_key(message)
    return repeated_key(message, parsed)


class _Members(list[tuple[str, Any]]):
    """An object's members in order, repeated keys kept."""


def request_id(message: bytes | str) -> str | int | None:
    """The id of the JSON-RPC request `message`: an object with a method and one id (a
    string or a whole number). None otherwise (a notification, a response, an id given
    twice): JSON-RPC's null id, for a request whose id cannot be told."""
    try:
        top = json.loads(message, object_pairs_hook=_Members)
    except (ValueError, RecursionError):
        return None
    if not isinstance(top, _Members) or all(name != "method" for name, _ in top):
        return None
    ids = [value for name, value in top if name == "id"]
    if len(ids) != 1:
        return None
    found = ids[0]
    if isinstance(found, bool) or not isinstance(found, str | int):
        return None
    return found


def refusal(message: bytes | str, key: str) -> str:
    """The JSON-RPC error, as JSON text, that refuses `message` for repeating `key`."""
    return error_reply(
        message, INVALID_REQUEST, f"MCP message gives key {clip(key)} twice; give it once"
    )


def error_reply(message: bytes | str, code: int, text: str) -> str:
    """The JSON-RPC error `code` with one line of `text`, as JSON text, answering `message`
    (with its id when it names one once: `request_id`)."""
    reply = {"jsonrpc": "2.0", "id": request_id(message), "error": {"code": code, "message": text}}
    return json.dumps(reply, separators=(",", ":"))


def id_refusal(message: bytes | str) -> str | None:
    """The JSON-RPC error refusing a request whose `id` is neither a string nor a whole
    number (an object, a list, a fraction, true, null), or None.

    The SDK took such a message for a notification and answered nothing, so the client
    that sent it waited for ever; MCP's ids are strings or integers, never null."""
    try:
        top = json.loads(message, object_pairs_hook=_Members)
    except (ValueError, RecursionError):
        return None
    if not isinstance(top, _Members) or all(name != "method" for name, _ in top):
        return None  # a response (to a request of the server's) is the SDK's to read
    for name, value in top:
        if name == "id" and (isinstance(value, bool) or not isinstance(value, str | int)):
            return error_reply(
                message, INVALID_REQUEST, "MCP message id must be a string or an integer"
            )
    return None


async def checked_body(scope: Scope, receive: Receive, send: Send, limit: int) -> Receive | None:
    """Read an MCP POST's body and refuse it (400, a JSON-RPC error) when it repeats a key
    or its id is not one (`id_refusal`): None once refused; otherwise a receive that hands
    the SDK the same messages again.

    A body over `limit` (declared or sent), or one the client stops sending, is passed on
    unread or as read, for the SDK's own refusal (413) or end.
    """
    length = next((v for k, v in scope["headers"] if k == b"content-length"), None)
    if length is not None and length.isdigit() and int(length) > limit:
        return receive
    received: list[Message] = []
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        received.append(message)
        if message["type"] != "http.request":
            break
        chunk = message.get("body", b"")
        chunks.append(chunk)
        size += len(chunk)
        if size > limit:
            break
        if not message.get("more_body", False):
            body = b"".join(chunks)
            key = repeated_key_in(body)
            error = refusal(body, key) if key is not None else id_refusal(body)
            if error is None:
                break
            response = Response(error, 400, media_type="application/json")
            await response(scope, receive, send)
            return None
    pending = deque(received)

    async def replay() -> Message:
        return pending.popleft() if pending else await receive()

    return replay
