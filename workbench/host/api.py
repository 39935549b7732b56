"""The host's JSON HTTP API and the one Starlette app that serves it beside MCP.

Routes (every one but /health needs `Authorization: Bearer TOKEN`):

    GET  /health                             liveness, no data
    GET  /v1/briefing | /v1/actions | /v1/questions
    GET  /v1/runs                            your runs
    POST /v1/runs                            start an episode   {command_id}
    GET  /v1/runs/{run}                      day, horizon, finished
    GET  /v1/runs/{run}/snapshot             the public view
    GET  /v1/runs/{run}/preview?action=ID    would it be accepted now?
    POST /v1/runs/{run}/schedule             {command_id, action}
    POST /v1/runs/{run}/advance              {command_id, days}
    POST /v1/runs/{run}/assessments          {command_id, assessment}
    POST /v1/runs/{run}/finish               {command_id}
    GET  /v1/runs/{run}/journal?since=&limit=
    GET  /v1/runs/{run}/metrics | /ledger | /ledger/export?format=beancount|csv
    POST /mcp                                MCP (streamable HTTP; a message naming a key
                                             twice is refused, 400, before the SDK reads it)

Every error is `{"error": {"code", "message"}}` with one line. Bodies are bounded
(`MAX_BODY_BYTES`), parsed strictly and validated by the wire models; a query parameter a
route does not read, or one given twice, is refused (400).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Awaitable, Callable, Mapping
from functools import partial
from typing import Any, Final, TypeVar

import anyio
import orjson
from pydantic import BaseModel, ValidationError
from starlette.requests import ClientDisconnect, Request
from starlette.responses import Response
from starlette.types import Message, Receive, Scope, Send

from ledger.json_keys import repeated_key
from workbench.host.errors import (
    BadRequest,
    Damaged,
    HostError,
    Invalid,
    TooLarge,
    Unauthorized,
)
from workbench.host.mcp_app import MAX_MCP_BODY_BYTES, McpOnDemand
from workbench.host.mcp_strict import checked_body
from workbench.host.runtime import HostRuntime, WouldBlock
from workbench.messages import clip, first_problem
from workbench.play.wire import (
    API_PREFIX,
    MCP_PATH,
    RUN_ID_RE,
    AdvanceRequest,
    ErrorBody,
    ErrorDetail,
    FinishRequest,
    JournalRequest,
    ScheduleRequest,
    StartRequest,
    SubmitRequest,
)

MAX_BODY_BYTES: Final = 16 * 1024
"""Largest JSON API request body (a submission is well under 1 KiB)."""
MAX_ACTION_CHARS: Final = 128
"""Longest action id a preview takes, as a schedule's body and the preview tool do (a
longer one was refused as if none were given)."""
INLINE_DAYS: Final = 31
"""Advances up to a month run on the event loop; longer ones in a worker thread, so no
single command holds every other agent's replies for long."""

log = logging.getLogger("workbench.host")
M = TypeVar("M", bound=BaseModel)
Handler = Callable[[Request, str], Awaitable[Response]]


def json_response(data: Any, status: int = 200) -> Response:
    """A JSON reply (orjson; models through their JSON-ready form)."""
    if isinstance(data, BaseModel):
        data = data.model_dump(mode="json", by_alias=True)
    return Response(orjson.dumps(data), status_code=status, media_type="application/json")


def _closing_unread(scope: Scope, receive: Receive, send: Send) -> tuple[Receive, Send]:
    """`receive` and `send`, the reply closing its connection when it starts before the
    request's body was read whole (a 413 over the limit, a 401 the MCP SDK sends unread):
    the host went on reading and discarding the rest until the request's 10 s deadline.
    A request without a body keeps its connection."""
    headers = scope.get("headers", [])
    read_whole = not any(
        (name == b"content-length" and value.strip() not in (b"", b"0"))
        or name == b"transfer-encoding"
        for name, value in headers
    )

    async def receiving() -> Message:
        nonlocal read_whole
        message = await receive()
        if message["type"] != "http.request" or not message.get("more_body", False):
            read_whole = True
        return message

    async def sending(message: Message) -> None:
        if message["type"] == "http.response.start" and not read_whole:
            kept = [(k, v) for k, v in message.get("headers", []) if k.lower() != b"connection"]
            message = {**message, "headers": [*kept, (b"connection", b"close")]}
        await send(message)

    return receiving, sending


def error_response(status: int, code: str, message: str) -> Response:
    """The one error shape of the API."""
    body = ErrorBody(error=ErrorDetail(code=code, message=message))
    headers = {"WWW-Authenticate": 'Bearer realm="workbench-host"'} if status == 401 else None
    response = json_response(body, status)
    if headers:
        response.headers.update(headers)
    return response


async def read_model(request: Request, model: type[M]) -> M:
    """The request body as `model`: bounded, JSON, an object, valid (or a HostError)."""
    length = request.headers.get("content-length")
    if length is not None:
        if not length.isdigit():
            raise BadRequest("Content-Length is not a number")
        if int(length) > MAX_BODY_BYTES:
            raise TooLarge(f"request body is larger than its limit of {MAX_BODY_BYTES} bytes")
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_BODY_BYTES:
            raise TooLarge(f"request body is larger than its limit of {MAX_BODY_BYTES} bytes")
    if not body:
        raise BadRequest("request body is empty: a JSON object is expected")
    try:
        document = orjson.loads(bytes(body))
    except orjson.JSONDecodeError as exc:
        raise BadRequest(f"request body is not valid JSON: {exc}") from None
    if not isinstance(document, dict):
        raise BadRequest("request body is not a JSON object")
    if (key := repeated_key(bytes(body), document)) is not None:
        raise BadRequest(f"request body gives key {clip(key)} twice; give it once")
    try:
        return model.model_validate(document)
    except ValidationError as exc:
        raise Invalid(first_problem(exc, "body")) from None


QUERY_PARAMETERS: Final[Mapping[str, tuple[str, ...]]] = {
    "preview": ("action",),
    "journal": ("since", "limit"),
    "export": ("format",),
}
"""The query parameters each handler reads (by name); every other handler reads none."""


def check_query(request: Request, taken: tuple[str, ...]) -> None:
    """Refuse a query parameter the route does not read, or one given twice (BadRequest).

    Ignored, `?sinse=5` read the journal from the start and `POST …/advance?days=5`
    advanced one day: the agent's mistake went unseen.
    """
    for name in dict.fromkeys(request.query_params.keys()):
        if name not in taken:
            takes = ", ".join(taken) if taken else "none"
            raise BadRequest(
                f"query parameter {clip(name)} is not taken here (this route takes {takes})"
            )
        count = len(request.query_params.getlist(name))
        if count > 1:
            raise BadRequest(f"query parameter {name} is given {count} times; give it once")


def query_int(request: Request, name: str) -> int | None:
    """An integer query parameter (None when not given), or BadRequest; its range is the
    request model's to check, so a number too large is named as one."""
    text = request.query_params.get(name)
    if text is None:
        return None
    if not _WHOLE.fullmatch(text):
        raise BadRequest(f"query parameter {name} must be a whole number")
    if len(text.lstrip("-")) > 18:
        raise BadRequest(f"query parameter {name} is too large: {clip(text, 24)}")
    return int(text)


_WHOLE = re.compile(r"-?[0-9]+")
"""A whole number in ASCII digits (`str.isdigit` also takes ² and other scripts' digits)."""


SEVERAL_CREDENTIALS: Final = "several Authorization headers: send one, with one bearer token"


def credentials(scope: Scope) -> int:
    """How many Authorization headers a request carries. More than one is refused on every
    route: the API and the MCP SDK each read the first, and a proxy that added its own
    header would have had the request run as whichever agent came first."""
    return sum(1 for key, _ in scope["headers"] if key == b"authorization")


def bearer_agent(scope: Scope, runtime: HostRuntime) -> str:
    """The agent a request's bearer token names, or Unauthorized (the SDK's rules)."""
    header = next((v for k, v in scope["headers"] if k == b"authorization"), None)
    if header is None:
        raise Unauthorized("missing bearer token: send Authorization: Bearer TOKEN")
    text = header.decode("latin-1")
    agent = runtime.agent_of(text[7:]) if text[:7].lower() == "bearer " else None
    if agent is None:
        raise Unauthorized("unknown bearer token")
    return agent


class Api:
    """The JSON API's handlers over one runtime (blocking work runs in worker threads)."""

    def __init__(self, runtime: HostRuntime) -> None:
        self.runtime = runtime

    async def call(self, work: Callable[..., Any], agent: str, *args: Any) -> Any:
        """Run a runtime method, `work(agent, *args)`, in one of the agent's worker threads."""
        return await self.runtime.threads.run(agent, partial(work, agent, *args))

    async def command(self, work: Callable[..., Any], run_id: str, *args: Any) -> Any:
        """A journaled command, replied to only once its journal entry is durable.

        On an open run it is applied right here on the event loop, its journal line
        written without fsync, and the syncer thread fsyncs it among every other run's
        (group commit). A run that must first be resumed from disk, or whose lock another
        thread holds (the sealer, a long advance), has it run in a worker thread instead.
        """
        if not RUN_ID_RE.fullmatch(run_id) or not self.runtime.open_now(run_id):
            return await self.call(work, *args)
        try:
            result = work(*args, defer=True)
        except WouldBlock:
            return await self.call(work, *args)
        try:
            path, size = self.runtime.journal_path(run_id), self.runtime.journal_size(run_id)
            await self.runtime.syncer.sync(path, size)
        except OSError as exc:
            self.runtime.journal_failed(run_id, exc)
            raise Damaged(
                f"{run_id}: its journal could not be made durable, so the command was not "
                "acknowledged; ask the operator to inspect the run"
            ) from None
        return result

    async def briefing(self, request: Request, agent: str) -> Response:
        return json_response(self.runtime.briefing)

    async def actions(self, request: Request, agent: str) -> Response:
        return json_response(self.runtime.catalog)

    async def questions(self, request: Request, agent: str) -> Response:
        return json_response(self.runtime.contracts)

    async def list_runs(self, request: Request, agent: str) -> Response:
        return json_response(await self.call(self.runtime.runs, agent))

    async def start(self, request: Request, agent: str) -> Response:
        body = await read_model(request, StartRequest)
        reply = await self.call(self.runtime.start, agent, body)
        return json_response(reply, 201 if reply.created else 200)

    async def run_info(self, request: Request, agent: str) -> Response:
        return json_response(await self.call(self.runtime.run_info, agent, _run(request)))

    async def snapshot(self, request: Request, agent: str) -> Response:
        return json_response(await self.call(self.runtime.snapshot, agent, _run(request)))

    async def preview(self, request: Request, agent: str) -> Response:
        action = request.query_params.get("action")
        if not action:
            raise BadRequest("query parameter action is required (an action id)")
        if len(action) > MAX_ACTION_CHARS:
            raise Invalid(
                f"query: action: String should have at most {MAX_ACTION_CHARS} characters"
            )
        return json_response(await self.call(self.runtime.preview, agent, _run(request), action))

    async def schedule(self, request: Request, agent: str) -> Response:
        body = await read_model(request, ScheduleRequest)
        run = _run(request)
        return json_response(await self.command(self.runtime.schedule, run, agent, run, body))

    async def advance(self, request: Request, agent: str) -> Response:
        body = await read_model(request, AdvanceRequest)
        run = _run(request)
        if body.days > INLINE_DAYS:
            return json_response(await self.call(self.runtime.advance, agent, run, body))
        return json_response(await self.command(self.runtime.advance, run, agent, run, body))

    async def submit(self, request: Request, agent: str) -> Response:
        body = await read_model(request, SubmitRequest)
        run = _run(request)
        return json_response(await self.command(self.runtime.submit, run, agent, run, body))

    async def finish(self, request: Request, agent: str) -> Response:
        body = await read_model(request, FinishRequest)
        return json_response(await self.call(self.runtime.finish, agent, _run(request), body))

    async def journal(self, request: Request, agent: str) -> Response:
        given = {name: query_int(request, name) for name in QUERY_PARAMETERS["journal"]}
        try:
            page_request = JournalRequest.model_validate(
                {name: value for name, value in given.items() if value is not None}
            )
        except ValidationError as exc:
            raise Invalid(first_problem(exc, "query")) from None
        page = await self.call(self.runtime.journal, agent, _run(request), page_request)
        return json_response(page)

    async def metrics(self, request: Request, agent: str) -> Response:
        return json_response(await self.call(self.runtime.metrics, agent, _run(request)))

    async def ledger(self, request: Request, agent: str) -> Response:
        return json_response(await self.call(self.runtime.ledger, agent, _run(request)))

    async def export(self, request: Request, agent: str) -> Response:
        fmt = request.query_params.get("format", "beancount")
        if fmt not in ("beancount", "csv"):
            raise BadRequest("query parameter format must be beancount or csv")
        return json_response(await self.call(self.runtime.export_ledger, agent, _run(request), fmt))

    def routes(self) -> dict[str, dict[str, Handler]]:
        """Path → method → handler, for every authenticated route."""
        run = f"{API_PREFIX}/runs/{{run_id}}"
        return {
            f"{API_PREFIX}/briefing": {"GET": self.briefing},
            f"{API_PREFIX}/actions": {"GET": self.actions},
            f"{API_PREFIX}/questions": {"GET": self.questions},
            f"{API_PREFIX}/runs": {"GET": self.list_runs, "POST": self.start},
            run: {"GET": self.run_info},
            f"{run}/snapshot": {"GET": self.snapshot},
            f"{run}/preview": {"GET": self.preview},
            f"{run}/schedule": {"POST": self.schedule},
            f"{run}/advance": {"POST": self.advance},
            f"{run}/assessments": {"POST": self.submit},
            f"{run}/finish": {"POST": self.finish},
            f"{run}/journal": {"GET": self.journal},
            f"{run}/metrics": {"GET": self.metrics},
            f"{run}/ledger": {"GET": self.ledger},
            f"{run}/ledger/export": {"GET": self.export},
        }


def _run(request: Request) -> str:
    return str(request.path_params["run_id"])


async def answer(
    handlers: Mapping[str, Handler], request: Request, agent: Callable[[], str]
) -> Response:
    """One API request: pick the method's handler, authenticate, map errors to replies."""
    try:
        handler = handlers.get(request.method)
        if handler is None:
            allowed = ", ".join(sorted(handlers))
            return error_response(
                405, "method_not_allowed", f"{request.method} is not allowed here ({allowed})"
            )
        who = agent()
        check_query(request, QUERY_PARAMETERS.get(getattr(handler, "__name__", ""), ()))
        return await handler(request, who)
    except HostError as exc:
        return error_response(exc.status, exc.code, exc.message)
    except ClientDisconnect:  # the client hung up (or the host's deadline closed it) mid-body
        return error_response(400, "bad_request", "the connection closed before the body came")
    except Exception:
        log.exception("internal error on %s %s", request.method, request.url.path)
        return error_response(500, "internal", "internal error: the host logged it")


class ApiFront:
    """The ASGI front: the JSON API, /health, MCP (built when first asked) and 404s.

    A JSON request is matched by a dict lookup and authenticated here, not through the
    MCP app's middleware and router (which cost as much CPU as the command itself). The
    host's lifespan is served here too: it holds the task group the MCP app runs in.
    """

    def __init__(self, api: Api, mcp: McpOnDemand) -> None:
        self.runtime = api.runtime
        self.mcp = mcp
        routes = api.routes()
        names = {getattr(h, "__name__", "") for hs in routes.values() for h in hs.values()}
        assert set(QUERY_PARAMETERS) <= names, "QUERY_PARAMETERS names a handler that is gone"
        run = f"{API_PREFIX}/runs/{{run_id}}"
        self.fixed = {path: h for path, h in routes.items() if not path.startswith(run)}
        self.per_run = {
            path[len(run) + 1 :]: h for path, h in routes.items() if path.startswith(run)
        }
        self.runs_prefix = f"{API_PREFIX}/runs/"

    def match(self, path: str) -> tuple[Mapping[str, Handler], str | None] | None:
        """The handlers of a JSON API path and its run id, or None (not an API route)."""
        fixed = self.fixed.get(path)
        if fixed is not None:
            return fixed, None
        if not path.startswith(self.runs_prefix):
            return None
        run_id, slash, tail = path[len(self.runs_prefix) :].partition("/")
        handlers = self.per_run.get(tail)
        if not run_id or handlers is None or (slash and not tail):
            return None
        return handlers, run_id

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self.lifespan(receive, send)
            return
        if scope["type"] != "http":
            await send({"type": "websocket.close", "code": 1008})
            return
        receive, send = _closing_unread(scope, receive, send)
        path = scope["path"]
        found = self.match(path)
        if credentials(scope) > 1:
            response = error_response(400, "bad_request", SEVERAL_CREDENTIALS)
        elif found is not None:
            handlers, run_id = found
            if run_id is not None:
                scope["path_params"] = {"run_id": run_id}
            request = Request(scope, receive)
            response = await answer(handlers, request, partial(bearer_agent, scope, self.runtime))
        elif path == MCP_PATH or path.startswith(MCP_PATH + "/"):
            if scope["method"] == "POST" and self.authenticated(scope):
                checked = await checked_body(scope, receive, send, MAX_MCP_BODY_BYTES)
                if checked is None:
                    return
                receive = checked
            await self.mcp(scope, receive, send)
            return
        elif path == "/health" and scope["method"] == "GET":
            response = json_response({"status": "ok"})
        else:
            response = error_response(404, "not_found", f"no route {clip(path, 120)}")
        await response(scope, receive, send)

    def authenticated(self, scope: Scope) -> bool:
        """True when the request's bearer token names an agent. An MCP POST without one is
        the SDK's to refuse (401, its body unread); one with one has its body checked for
        a repeated key before the SDK reads it (`checked_body`)."""
        try:
            bearer_agent(scope, self.runtime)
        except Unauthorized:
            return False
        return True

    async def lifespan(self, receive: Receive, send: Send) -> None:
        """Start, then serve until shutdown; the MCP app (if started) stops first."""
        async with anyio.create_task_group() as group:
            self.mcp.attach(group)
            await receive()
            await send({"type": "lifespan.startup.complete"})
            await receive()
            await self.mcp.stop()
            self.mcp.attach(None)
            group.cancel_scope.cancel()
        await send({"type": "lifespan.shutdown.complete"})


def build_app(runtime: HostRuntime, base_url: str, host: str = "127.0.0.1") -> ApiFront:
    """The host's ASGI app: the JSON API, and MCP over streamable HTTP once asked for."""
    return ApiFront(Api(runtime), McpOnDemand(runtime, base_url, host))
