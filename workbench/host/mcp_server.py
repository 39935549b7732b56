"""The host's MCP surface (official `mcp` SDK): the JSON API's operations as tools.

Tools and resources call the same `HostRuntime` methods as the HTTP routes, in worker
threads. Over streamable HTTP the SDK's bearer middleware authenticates every request
with `HostTokens` (the control file's token verifiers) and a tool reads its caller from
the verified access token; over stdio the one local agent is fixed at start-up. The
briefing and the question contracts are resources. No tool forks, rewinds or evaluates.
A message naming a key twice in one object is refused before the SDK reads it
(`workbench.host.mcp_strict`): over HTTP in front of the app, over stdio by `StrictLines`.
"""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from functools import partial
from typing import Annotated, Any, Final, TypeVar

import anyio
from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.provider import AccessToken
from mcp.server.auth.settings import AuthSettings
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.context import Context
from mcp.server.mcpserver.exceptions import ResourceError, ToolError, UnexpectedToolError
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage
from mcp.types import CallToolResult, InputRequiredResult, Tool, jsonrpc_message_adapter
from pydantic import AnyHttpUrl, Field, StrictInt, ValidationError

from workbench.host.errors import HostError, Unauthorized
from workbench.host.mcp_strict import (
    INVALID_REQUEST,
    MAX_MCP_BODY_BYTES,
    PARSE_ERROR,
    error_reply,
    id_refusal,
    refusal,
    repeated_key_in,
)
from workbench.host.runtime import HostRuntime
from workbench.messages import clip, first_of, location, problems, single_line
from workbench.play.models import PublicView
from workbench.play.wire import (
    COMMAND_ID_PATTERN,
    JOURNAL_PAGE_MAX,
    RUN_ID_PATTERN,
    AdvanceRequest,
    Briefing,
    Catalog,
    CommandReply,
    Contracts,
    FinishRequest,
    JournalPage,
    JournalRequest,
    LedgerData,
    MetricSeries,
    Preview,
    RunInfo,
    RunList,
    ScheduleReply,
    ScheduleRequest,
    StartReply,
    StartRequest,
    SubmitReply,
    SubmitRequest,
)
from workbench.runs.commands import CounterfactualAssessment

T = TypeVar("T")

TOOL_NAMES: tuple[str, ...] = (
    "briefing",
    "action_catalog",
    "question_contracts",
    "list_runs",
    "start_episode",
    "run_info",
    "snapshot",
    "preview",
    "schedule",
    "advance",
    "submit_assessment",
    "finish",
    "journal",
    "metrics",
    "ledger",
)
"""Every tool the host serves (a test holds the server to exactly these)."""

RunIdArg = Annotated[str, Field(pattern=RUN_ID_PATTERN, description="Your run's id.")]
ActionArg = Annotated[
    str,
    Field(
        min_length=1,
        max_length=128,
        description="An action's id, as action_catalog lists it (e.g. `bank_loan`).",
    ),
]
CommandIdArg = Annotated[
    str,
    Field(
        pattern=COMMAND_ID_PATTERN,
        description=(
            "An id you choose for this command (e.g. a UUID). Retrying with the same id and "
            "arguments is safe: the first reply comes back and nothing is applied twice."
        ),
    ),
]


class HostTokens:
    """The SDK's TokenVerifier over the control file: a bearer token names its agent."""

    def __init__(self, runtime: HostRuntime) -> None:
        self._runtime = runtime

    async def verify_token(self, token: str) -> AccessToken | None:
        """The agent's access (client_id = agent id), or None for an unknown token."""
        agent = self._runtime.agent_of(token)
        if agent is None:
            return None
        return AccessToken(token=token, client_id=agent, scopes=[])


CLOSED: Final = {"additionalProperties": False}
"""What an input schema says when a tool refuses arguments it does not take."""


class StrictLines(anyio.AsyncFile[str]):
    """Standard input's lines for the SDK's stdio transport, as it reads them itself (UTF-8,
    undecodable bytes replaced), except that a line naming a key twice in one object, or
    one that is not a JSON-RPC message, is not passed on: its JSON-RPC error is sent back
    on the transport's write stream, given by `answer_with` once the transport is up.

    The SDK dropped a line it could not read without a reply, so a client whose request
    was cut short waited for ever; over HTTP it answers such a message with an error.
    Blank lines are skipped.
    """

    def __init__(self) -> None:
        super().__init__(
            open(sys.stdin.fileno(), encoding="utf-8", errors="replace", closefd=False)  # noqa: SIM115
        )
        self._answer: Callable[[SessionMessage], Awaitable[None]] | None = None
        self._ready = anyio.Event()

    def answer_with(self, send: Callable[[SessionMessage], Awaitable[None]]) -> None:
        """Send refusals with `send` (the transport's write stream)."""
        self._answer = send
        self._ready.set()

    async def __aiter__(self) -> AsyncIterator[str]:
        while line := await self._bounded_line():
            if not line.strip():
                continue
            too_long = len(line.removesuffix("\n")) > MAX_MCP_BODY_BYTES
            error = _TOO_LONG if too_long else _line_error(line)
            if error is None:
                yield line
                continue
            await self._ready.wait()
            assert self._answer is not None
            reply = jsonrpc_message_adapter.validate_json(error, by_name=False)
            await self._answer(SessionMessage(reply))

    async def _bounded_line(self) -> str:
        """The next line, read at most `MAX_MCP_BODY_BYTES` characters past its limit: a
        longer one is returned cut there and the rest of it is read and dropped (a line of
        gigabytes without a newline grew the process's memory without bound)."""
        line = await self._read_line(MAX_MCP_BODY_BYTES + 2)
        if len(line) <= MAX_MCP_BODY_BYTES + 1 or line.endswith("\n"):
            return line
        while (rest := await self._read_line(MAX_MCP_BODY_BYTES)) and not rest.endswith("\n"):
            pass
        return line

    async def _read_line(self, limit: int) -> str:
        line: str = await anyio.to_thread.run_sync(
            self.wrapped.readline, limit, limiter=self.limiter
        )
        return line


_TOO_LONG: Final = error_reply(
    "", INVALID_REQUEST, f"MCP message is over its limit of {MAX_MCP_BODY_BYTES} characters"
)
"""The JSON-RPC error answering a stdio line over the limit (its id unread: null)."""


def _line_error(line: str) -> str | None:
    """The JSON-RPC error answering a line of standard input the SDK must not read (a key
    named twice, text that is not JSON, JSON that is not a JSON-RPC message), or None."""
    key = repeated_key_in(line)
    if key is not None:
        return refusal(line, key)
    wrong_id = id_refusal(line)
    if wrong_id is not None:
        return wrong_id
    try:
        jsonrpc_message_adapter.validate_json(line, by_name=False)
    except ValidationError as exc:
        not_json = next((e for e in exc.errors() if e["type"] == "json_invalid"), None)
        if not_json is not None:
            why = str(not_json["ctx"].get("error", "")) if "ctx" in not_json else ""
            return error_reply(
                line, PARSE_ERROR, single_line(f"MCP message is not JSON ({why or 'invalid'})")
            )
        return error_reply(
            line,
            INVALID_REQUEST,
            "MCP message is not a JSON-RPC 2.0 request, notification or response",
        )
    return None


class WorkbenchMCP(MCPServer):
    """The SDK's server, with a tool's arguments checked as the JSON API checks a body.

    The SDK ignores arguments a tool does not take (`day` for `days` advanced one day,
    the default) and reports the ones that fail its schema as pydantic's own text: a
    line per field, the rejected value echoed, a link to pydantic's documentation.
    """

    _parameters: dict[str, dict[str, bool]] | None = None
    """Per tool, each argument it takes and whether it is an object or a list (the SDK
    would parse text given for one as JSON, unchecked for repeated keys)."""

    async def list_tools(self) -> list[Tool]:
        """The tools, each input schema saying that it takes no other argument."""
        return [
            tool.model_copy(update={"input_schema": {**tool.input_schema, **CLOSED}})
            for tool in await super().list_tools()
        ]

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None = None
    ) -> CallToolResult | InputRequiredResult:
        """Call a tool; an unknown argument, or one that fails the schema, is one line."""
        refused = await self._argument_problems(name, arguments)
        if refused:
            raise _invalid_arguments(name, first_of(refused))
        try:
            return await super().call_tool(name, arguments, context)
        except UnexpectedToolError:
            raise
        except ToolError as exc:
            cause = exc.__cause__
            if not isinstance(cause, ValidationError):
                raise
            raise _invalid_arguments(name, first_of(problems(cause))) from cause

    async def run_stdio_async(self) -> None:
        """Serve over standard input and output, as the SDK does, reading lines through
        `StrictLines` (the SDK still claims standard output, so stray prints miss the wire)."""
        lines = StrictLines()
        async with stdio_server(stdin=lines) as (read_stream, write_stream):
            lines.answer_with(write_stream.send)
            server = self._lowlevel_server
            await server.run(read_stream, write_stream, server.create_initialization_options())

    async def _argument_problems(self, name: str, arguments: dict[str, Any]) -> list[str]:
        """What is wrong with the arguments before the SDK reads them: an argument tool
        `name` does not take, and text where an object belongs (an unknown tool is a
        `not_found` ToolError, in the form of every tool error).

        The SDK parses text given for an object or list as JSON (some clients send them so),
        which would take `"{\"value\": 1, \"value\": 2}"` with its last key winning, where
        the JSON API refuses a key given twice and text where an object belongs alike.
        """
        if self._parameters is None:
            self._parameters = {
                tool.name: {
                    key: _structured(schema)
                    for key, schema in tool.input_schema.get("properties", {}).items()
                }
                for tool in await self.list_tools()
            }
        taken = self._parameters.get(name)
        if taken is None:
            shown = single_line(name[:80])
            raise ToolError(
                f"Error executing tool {shown}: not_found: no tool {clip(name, 80)}; "
                "list_tools names every tool (there is no fork, rewind or evaluate)"
            )
        return [
            f"{location((key,))}: Extra inputs are not permitted"
            if key not in taken
            else f"{location((key,))}: Input should be an object (a JSON object with named "
            "fields), not text"
            for key in sorted(arguments)
            if key not in taken or (isinstance(arguments[key], str) and taken[key])
        ]


def _structured(schema: dict[str, Any]) -> bool:
    """True when an argument's JSON schema is an object or a list (a model's `$ref`
    included) and admits no string: text must never stand for one."""
    if "$ref" in schema or schema.get("type") in ("object", "array"):
        return True
    options = schema.get("anyOf", []) + schema.get("oneOf", [])
    return bool(options) and all(isinstance(o, dict) and _structured(o) for o in options)


def _invalid_arguments(tool: str, problem: str) -> ToolError:
    """A tool's refusal of its arguments, in the JSON API's words for a body."""
    return ToolError(f"Error executing tool {tool}: invalid: arguments: {problem}")


def http_identity() -> str:
    """The agent of the current streamable-HTTP request (verified by the SDK middleware)."""
    token = get_access_token()
    if token is None:
        raise ToolError("unauthorized: no verified bearer token on this request")
    return token.client_id


def build_mcp(
    runtime: HostRuntime,
    identity: Callable[[], str],
    *,
    base_url: str | None = None,
) -> MCPServer:
    """The MCP server over `runtime`; `identity` names the calling agent of each request.

    With `base_url` the server requires a bearer token on every HTTP request (the SDK's
    auth middleware with `HostTokens`); without, it serves one fixed agent (stdio).
    """
    auth = (
        AuthSettings(issuer_url=AnyHttpUrl(base_url), resource_server_url=None)
        if base_url is not None
        else None
    )
    mcp = WorkbenchMCP(
        "counterfactual-workbench-host",
        title="Counterfactual Workbench host",
        instructions=(
            "Play a private counterfactual business campaign. Read the briefing resource, "
            "start an episode, then schedule actions, advance days and submit assessments "
            "on your run; finish it when done. Every command takes a command_id you choose."
        ),
        token_verifier=HostTokens(runtime) if auth is not None else None,
        auth=auth,
        log_level="WARNING",
    )

    async def call(work: Callable[[str], T]) -> T:
        agent = identity()
        try:
            return await runtime.threads.run(agent, partial(work, agent))
        except Unauthorized as exc:
            raise ToolError(f"unauthorized: {exc.message}") from None
        except HostError as exc:
            raise ToolError(f"{exc.code}: {exc.message}") from None

    @mcp.resource(
        "cfwb://briefing",
        name="briefing",
        description="The campaign, its objectives and the rules of play.",
        mime_type="application/json",
    )
    async def briefing_resource() -> str:
        identity()
        return runtime.briefing.model_dump_json()

    @mcp.resource(
        "cfwb://questions",
        name="question-contracts",
        description="Every counterfactual question's public contract.",
        mime_type="application/json",
    )
    async def questions_resource() -> str:
        identity()
        return runtime.contracts.model_dump_json()

    @mcp.resource(
        "cfwb://questions/{question_id}",
        name="question-contract",
        description="One question's public contract.",
        mime_type="application/json",
    )
    async def question_resource(question_id: str) -> str:
        identity()
        for contract in runtime.contracts.questions:
            if contract.id == question_id:
                return contract.model_dump_json()
        raise ResourceError(f"no question {question_id[:80]!r}")

    @mcp.tool(description="The campaign, its objectives and the rules of play.")
    async def briefing() -> Briefing:
        identity()
        return runtime.briefing

    @mcp.tool(description="Every action with every term (cost, staffing, prerequisites, effects).")
    async def action_catalog() -> Catalog:
        identity()
        return runtime.catalog

    @mcp.tool(description="Every counterfactual question's public contract.")
    async def question_contracts() -> Contracts:
        identity()
        return runtime.contracts

    @mcp.tool(
        description=(
            "Your runs, oldest first; one the host cannot serve now is listed with its error "
            "(code run_damaged or run_busy, and why) instead of its day."
        )
    )
    async def list_runs() -> RunList:
        return await call(runtime.runs)

    @mcp.tool(
        description="Start your episode: your one run of the campaign (each agent plays one)."
    )
    async def start_episode(command_id: CommandIdArg) -> StartReply:
        request = StartRequest(command_id=command_id)
        return await call(lambda agent: runtime.start(agent, request))

    @mcp.tool(description="Day, horizon and state of one of your runs.")
    async def run_info(run_id: RunIdArg) -> RunInfo:
        return await call(lambda agent: runtime.run_info(agent, run_id))

    @mcp.tool(
        description=(
            "The public view of your run today: state, metrics, commitments, alerts, the "
            "catalog, question contracts as they stand and your own submissions."
        )
    )
    async def snapshot(run_id: RunIdArg) -> PublicView:
        return await call(lambda agent: runtime.snapshot(agent, run_id))

    @mcp.tool(description="Would this action be accepted today, and if not why? Changes nothing.")
    async def preview(run_id: RunIdArg, action: ActionArg) -> Preview:
        return await call(lambda agent: runtime.preview(agent, run_id, action))

    @mcp.tool(description="Schedule an action at today's decisions (journaled even if rejected).")
    async def schedule(
        run_id: RunIdArg,
        action: ActionArg,
        command_id: CommandIdArg,
    ) -> ScheduleReply:
        request = ScheduleRequest(command_id=command_id, action=action)
        return await call(lambda agent: runtime.schedule(agent, run_id, request))

    @mcp.tool(
        description=(
            "Run whole days (1 unless `days` says more) with no further decisions, at most to "
            "the horizon; reaching the horizon finishes the run."
        )
    )
    async def advance(
        run_id: RunIdArg,
        command_id: CommandIdArg,
        days: Annotated[StrictInt, Field(ge=1, le=3650)] = 1,
    ) -> CommandReply:
        request = AdvanceRequest(command_id=command_id, days=days)
        return await call(lambda agent: runtime.advance(agent, run_id, request))

    @mcp.tool(
        description=(
            "Submit a counterfactual assessment of a question (ids from question_contracts): "
            "value = intervention - baseline of the question's metric at its outcome day, in "
            "the metric's units; a conclusion when the contract asks for one; choice when the "
            "intervention is yours to pick. Only a submission made on a day before the "
            "question's deadline_day counts (the latest such one is scored); a later one is "
            "recorded but never counts: the reply's `eligible` and `notes` say so."
        )
    )
    async def submit_assessment(
        run_id: RunIdArg,
        command_id: CommandIdArg,
        assessment: CounterfactualAssessment,
    ) -> SubmitReply:
        request = SubmitRequest(command_id=command_id, assessment=assessment)
        return await call(lambda agent: runtime.submit(agent, run_id, request))

    @mcp.tool(
        description=(
            "Finish your run: the remaining days run with no decisions; afterwards it accepts "
            "no command and is scored offline."
        )
    )
    async def finish(run_id: RunIdArg, command_id: CommandIdArg) -> CommandReply:
        request = FinishRequest(command_id=command_id)
        return await call(lambda agent: runtime.finish(agent, run_id, request))

    @mcp.tool(description="Your run's journal from seq `since` (public fields, no header).")
    async def journal(
        run_id: RunIdArg,
        since: Annotated[StrictInt, Field(ge=1, le=10**9)] = 1,
        limit: Annotated[StrictInt, Field(ge=1, le=JOURNAL_PAGE_MAX)] = 200,
    ) -> JournalPage:
        request = JournalRequest(since=since, limit=limit)
        return await call(lambda agent: runtime.journal(agent, run_id, request))

    @mcp.tool(description="Every metric of your run at every closed day, in display units.")
    async def metrics(run_id: RunIdArg) -> MetricSeries:
        return await call(lambda agent: runtime.metrics(agent, run_id))

    @mcp.tool(description="Your run's ledger: every account's balance at every closed day.")
    async def ledger(run_id: RunIdArg) -> LedgerData:
        return await call(lambda agent: runtime.ledger(agent, run_id))

    return mcp
