"""Security of the hosted runtime, each class tested over every route with a real client.

401 for a missing or wrong token; 404 for another agent's run (the same reply as for no
run at all); 4xx with one clear message for oversized or malformed bodies; ids that cannot
leave the runs directory; and no operation that forks, rewinds or evaluates a branch.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterator
from pathlib import Path

import anyio
import httpx2
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mcp.types import TextContent

from ledger.journal import Journal
from workbench.errors import UserError
from workbench.host.api import MAX_BODY_BYTES, QUERY_PARAMETERS, Api
from workbench.host.mcp_server import TOOL_NAMES
from workbench.host.runtime import HostRuntime, Limits
from workbench.play.wire import API_PREFIX, MCP_PATH

from .agent import HttpAgent
from .conftest import (
    ALPHA,
    BRAVO,
    Hosted,
    Live,
    http_client,
    journal_of,
    make_hosted,
    mcp_session,
    one_error,
)

FORBIDDEN_WORDS = ("fork", "rewind", "branch", "evaluat", "oracle", "seed", "validat", "control")


def routes(live: Live) -> list[tuple[str, str]]:
    """Every authenticated (method, path template) of the JSON API."""
    return [
        (method, path)
        for path, handlers in Api(live.runtime).routes().items()
        for method in handlers
    ]


def body_for(path: str) -> dict[str, object] | None:
    """A valid body for a POST route."""
    if path.endswith("/schedule"):
        return {"command_id": "sec-1", "action": "bank_loan"}
    if path.endswith("/advance"):
        return {"command_id": "sec-2", "days": 1}
    if path.endswith("/assessments"):
        return {"command_id": "sec-3", "assessment": {"question": "q_spring_campaign", "value": 1}}
    return {"command_id": "sec-4"}


def request(client: httpx2.Client, method: str, template: str, run_id: str) -> httpx2.Response:
    """Send a valid request to a route template with `run_id` filled in."""
    path = template.replace("{run_id}", run_id)
    params = {"action": "bank_loan"} if path.endswith("/preview") else None
    body = body_for(path) if method == "POST" else None
    return client.request(method, path, json=body, params=params)


# -- 401 -----------------------------------------------------------------------------------
BAD_TOKENS = {
    "missing": None,
    "wrong": "cfwb-agent-" + "A" * 43,
    "empty": "Bearer",
    "oversized": "x" * 20_000,
    "other scheme": "Basic YWxpY2U6c2VjcmV0",
}


@pytest.mark.parametrize("kind", sorted(BAD_TOKENS))
def test_every_route_refuses_a_missing_or_wrong_token(
    shared_live: Live, alpha_run: str, kind: str
) -> None:
    before = journal_of(shared_live, alpha_run)
    token = BAD_TOKENS[kind]
    headers = {}
    if token is not None:
        plain = kind in ("other scheme", "empty")
        headers["Authorization"] = token if plain else f"Bearer {token}"
    with http_client(base_url=shared_live.url, headers=headers, timeout=60) as client:
        for method, template in routes(shared_live):
            response = request(client, method, template, alpha_run)
            if kind == "oversized":
                assert response.status_code in (401, 431), response.text
                continue
            one_error(response, 401, "unauthorized")
            assert response.headers["WWW-Authenticate"].startswith("Bearer")
        mcp = client.post(MCP_PATH, json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
        assert mcp.status_code in (401, 431)
    assert journal_of(shared_live, alpha_run) == before


@pytest.mark.parametrize("pair", ["alpha then bravo", "bravo then alpha", "alpha twice"])
def test_several_authorization_headers_are_refused_on_every_route(
    shared_live: Live, alpha_run: str, pair: str
) -> None:
    """Two Authorization headers ran the request as the agent of the first (a proxy that
    added its own header chose the agent by its place in the request); the API and the
    MCP app now refuse any request with more than one, before reading a body."""
    tokens = shared_live.hosted.tokens
    first, second = {
        "alpha then bravo": (ALPHA, BRAVO),
        "bravo then alpha": (BRAVO, ALPHA),
        "alpha twice": (ALPHA, ALPHA),
    }[pair]
    headers = [("Authorization", f"Bearer {tokens[first]}")]
    headers.append(("Authorization", f"Bearer {tokens[second]}"))
    before = journal_of(shared_live, alpha_run)
    with http_client(base_url=shared_live.url, headers=headers, timeout=60) as client:
        for method, template in routes(shared_live):
            message = one_error(request(client, method, template, alpha_run), 400, "bad_request")
            assert message == "several Authorization headers: send one, with one bearer token"
        mcp = client.post(MCP_PATH, json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
        one_error(mcp, 400, "bad_request")
        assert client.get("/health").status_code == 400
    with shared_live.client(ALPHA) as client:
        assert client.get(f"{API_PREFIX}/runs/{alpha_run}").status_code == 200
    assert journal_of(shared_live, alpha_run) == before


def test_a_valid_token_of_another_campaign_is_refused(shared_live: Live, tmp_path: Path) -> None:
    other = make_hosted(tmp_path)
    with shared_live.client(token=other.tokens[ALPHA]) as client:
        one_error(client.get(f"{API_PREFIX}/runs"), 401, "unauthorized")


# -- 404 -----------------------------------------------------------------------------------
def test_another_agents_run_is_not_found_like_no_run_at_all(
    shared_live: Live, alpha_run: str
) -> None:
    before = journal_of(shared_live, alpha_run)
    unknown = "run-" + "0" * 32
    with shared_live.client(BRAVO) as bravo:
        for method, template in routes(shared_live):
            if "{run_id}" not in template:
                continue
            theirs = one_error(request(bravo, method, template, alpha_run), 404, "not_found")
            nobody = one_error(request(bravo, method, template, unknown), 404, "not_found")
            assert theirs.replace(alpha_run, unknown) == nobody
        listed = bravo.get(f"{API_PREFIX}/runs").json()
        assert alpha_run not in json.dumps(listed)
    assert journal_of(shared_live, alpha_run) == before

    async def over_mcp() -> str:
        async with mcp_session(shared_live.url, shared_live.hosted.tokens[BRAVO]) as mcp:
            result = await mcp.call_tool("snapshot", {"run_id": alpha_run})
            assert result.is_error and isinstance(result.content[0], TextContent)
            return result.content[0].text

    assert "not_found" in anyio.run(over_mcp)


# -- bodies --------------------------------------------------------------------------------
def command_paths(run_id: str) -> list[str]:
    return [
        f"{API_PREFIX}/runs",
        *(f"{API_PREFIX}/runs/{run_id}/{t}" for t in ("schedule", "advance", "assessments")),
        f"{API_PREFIX}/runs/{run_id}/finish",
    ]


def chunks(total: int) -> Iterator[bytes]:
    """A chunked body of `total` bytes (no Content-Length)."""
    sent = 0
    while sent < total:
        piece = b" " * min(4096, total - sent)
        sent += len(piece)
        yield piece


MALFORMED: dict[str, tuple[bytes, int, str]] = {
    "empty": (b"", 400, "bad_request"),
    "not json": (b"{command_id: 1", 400, "bad_request"),
    "not utf-8": (b'{"command_id": "\xff\xfe"}', 400, "bad_request"),
    "an array": (b"[1, 2]", 400, "bad_request"),
    "a string": (b'"advance"', 400, "bad_request"),
    "deeply nested": (b"[" * 5000 + b"]" * 5000, 400, "bad_request"),
    "nested as deep as parsed": (
        b'{"command_id": "m", "pad": ' + b"[" * 1000 + b"]" * 1000 + b"}",
        422,
        "invalid",
    ),
    "a key twice, deep": (
        b'{"command_id": "m", "pad": ' + b"[" * 1000 + b'{"k":1,"k":2}' + b"]" * 1000 + b"}",
        400,
        "bad_request",
    ),
    "unknown field": (b'{"command_id": "m", "days": 1, "rewind_to": 0}', 422, "invalid"),
    "wrong type": (b'{"command_id": 7}', 422, "invalid"),
    "infinite number": (b'{"command_id": "m", "days": 1e999}', 400, "bad_request"),
    "too many days": (b'{"command_id": "m", "days": 99999}', 422, "invalid"),
    "days as text": (b'{"command_id": "m", "days": "3"}', 422, "invalid"),
    "days as text with spaces": (b'{"command_id": "m", "days": " 2 "}', 422, "invalid"),
    "days with an underscore": (b'{"command_id": "m", "days": "1_0"}', 422, "invalid"),
    "days as true": (b'{"command_id": "m", "days": true}', 422, "invalid"),
    "days as a float": (b'{"command_id": "m", "days": 3.0}', 422, "invalid"),
    "command id as a number": (b'{"command_id": 7, "days": 1}', 422, "invalid"),
}
"""Requests are strict: before, `"1_0"` advanced ten days, `true` one, and `3.0` was taken
for a retry of `3`."""


@pytest.mark.parametrize("kind", sorted(MALFORMED))
def test_malformed_bodies_get_one_clear_4xx(shared_live: Live, alpha_run: str, kind: str) -> None:
    body, status, code = MALFORMED[kind]
    before = journal_of(shared_live, alpha_run)
    with shared_live.client(ALPHA) as client:
        for path in command_paths(alpha_run):
            one_error(client.post(path, content=body), status, code)
    assert journal_of(shared_live, alpha_run) == before


def test_oversized_bodies_are_refused_with_or_without_a_length(
    shared_live: Live, alpha_run: str
) -> None:
    before = journal_of(shared_live, alpha_run)
    big = b'{"command_id": "x", "pad": "' + b"a" * MAX_BODY_BYTES + b'"}'
    with shared_live.client(ALPHA) as client:
        for path in command_paths(alpha_run):
            message = one_error(client.post(path, content=big), 413, "too_large")
            assert str(MAX_BODY_BYTES) in message
            one_error(client.post(path, content=chunks(MAX_BODY_BYTES * 4)), 413, "too_large")
        mcp = client.post(MCP_PATH, content=b"{" + b" " * (1 << 20) + b"}")
        assert mcp.status_code == 413
    assert journal_of(shared_live, alpha_run) == before


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    body=st.one_of(
        st.binary(max_size=300),
        st.recursive(
            st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=40),
            lambda inner: (
                st.lists(inner, max_size=4)
                | st.dictionaries(st.text(max_size=12), inner, max_size=4)
            ),
            max_leaves=12,
        ).map(lambda v: json.dumps(v).encode()),
    ),
    route=st.sampled_from(["schedule", "advance", "assessments", "finish"]),
)
def test_no_body_makes_the_host_fail(
    shared_live: Live, alpha_run: str, body: bytes, route: str
) -> None:
    """Any body to any command route gets a reply the API declares, never a 5xx."""
    with shared_live.client(ALPHA) as client:
        response = client.post(f"{API_PREFIX}/runs/{alpha_run}/{route}", content=body)
    assert response.status_code in (200, 400, 409, 413, 422), response.text
    if response.status_code >= 400:
        one_error(response, response.status_code, response.json()["error"]["code"])


MARK = "MARK-" + "7" * 2000
"""A value no reply may echo (and long enough that an echo could not hide in a cut)."""


def tool_errors(live: Live, calls: list[tuple[str, dict[str, object]]]) -> list[str]:
    """Each tool call's error text, over MCP as ALPHA (every call must fail)."""

    async def over_mcp() -> list[str]:
        texts = []
        async with mcp_session(live.url, live.hosted.tokens[ALPHA]) as mcp:
            for tool, arguments in calls:
                result = await mcp.call_tool(tool, arguments)
                assert result.is_error and isinstance(result.content[0], TextContent)
                texts.append(result.content[0].text)
        return texts

    return anyio.run(over_mcp)


def bad_arguments(run_id: str) -> list[tuple[str, dict[str, object]]]:
    """Tool calls whose arguments break the tool's schema, one kind of break each."""
    return [
        ("advance", {"run_id": run_id, "command_id": "x1", "days": 0}),
        ("advance", {"run_id": run_id, "command_id": "x1", "days": MARK}),
        ("advance", {"run_id": run_id, "command_id": MARK, "days": 1}),
        ("advance", {"run_id": MARK, "command_id": "x1", "days": 1}),
        ("advance", {"command_id": "x1"}),
        ("schedule", {"run_id": run_id, "command_id": "x2", "action": MARK}),
        ("schedule", {"run_id": run_id, "command_id": "x2", "action": ["a", MARK]}),
        ("journal", {"run_id": run_id, "since": -1, "limit": 10**30}),
        ("advance", {"run_id": run_id, "command_id": "x1", "days": "3"}),
        ("advance", {"run_id": run_id, "command_id": "x1", "days": True}),
        ("advance", {"run_id": run_id, "command_id": "x1", "days": "1_0"}),
        ("advance", {"run_id": run_id, "command_id": "x1", "days": 3.0}),
        ("journal", {"run_id": run_id, "since": "1"}),
        (
            "submit_assessment",
            {
                "run_id": run_id,
                "command_id": "x4",
                "assessment": '{"kind": "counterfactual", "question": "q_bank_loan", '
                '"value": "1", "value": "-999"}',
            },
        ),
        (
            "submit_assessment",
            {
                "run_id": run_id,
                "command_id": "x5",
                "assessment": '{"kind": "counterfactual", "question": "q_bank_loan", "value": "1"}',
            },
        ),
        ("submit_assessment", {"run_id": run_id, "command_id": "x3", "assessment": MARK}),
        (
            "submit_assessment",
            {"run_id": run_id, "command_id": "x3", "assessment": {"question": 1, MARK: 2}},
        ),
    ]


def test_tool_arguments_that_break_the_schema_get_one_line_that_echoes_nothing(
    shared_live: Live, alpha_run: str
) -> None:
    """Over MCP as over HTTP: `invalid`, the field and the problem, on one line (and no
    class name of ours: `assessment` given as text said `…instance of
    CounterfactualAssessment`)."""
    before = journal_of(shared_live, alpha_run)

    calls = bad_arguments(alpha_run)
    for (tool, _), text in zip(calls, tool_errors(shared_live, calls), strict=True):
        assert text.startswith(f"Error executing tool {tool}: invalid: arguments: "), text
        assert "\n" not in text and "MARK" not in text and "pydantic" not in text, text
        assert "instance of" not in text, text  # no class name of ours
        assert len(text) < 600, text
    assert journal_of(shared_live, alpha_run) == before


def test_an_argument_a_tool_does_not_take_is_refused_as_the_api_refuses_a_field(
    shared_live: Live, alpha_run: str
) -> None:
    """`day` for `days` would otherwise advance one day (the default) without a word."""
    before = journal_of(shared_live, alpha_run)
    with shared_live.client(ALPHA) as client:
        response = client.post(
            f"{API_PREFIX}/runs/{alpha_run}/advance", json={"command_id": "x4", "day": 30}
        )
        http = one_error(response, 422, "invalid")
    assert http == "body: day: Extra inputs are not permitted"

    day, two, long = tool_errors(
        shared_live,
        [
            ("advance", {"run_id": alpha_run, "command_id": "x4", "day": 30}),
            (
                "advance",
                {"run_id": alpha_run, "command_id": "x4", "days": 1, "rewind_to": 0, "a": 1},
            ),
            ("advance", {"run_id": alpha_run, "command_id": "x4", MARK: 1}),
        ],
    )
    prefix = "Error executing tool advance: invalid: arguments: "
    assert day == prefix + "day: Extra inputs are not permitted"
    assert two == prefix + "a: Extra inputs are not permitted (and 1 more)"
    assert long == prefix + MARK[:80] + "…: Extra inputs are not permitted"
    assert journal_of(shared_live, alpha_run) == before


def test_a_query_parameter_a_route_does_not_read_is_refused(
    shared_live: Live, alpha_run: str
) -> None:
    """On every route: a stray parameter, or a repeated one, is a 400 and changes nothing."""
    before = journal_of(shared_live, alpha_run)
    with shared_live.client(ALPHA) as client:
        for method, template in routes(shared_live):
            path = template.replace("{run_id}", alpha_run)
            taken = QUERY_PARAMETERS.get(
                Api(shared_live.runtime).routes()[template][method].__name__, ()
            )
            valid = {"action": "bank_loan", "since": "1", "limit": "5", "format": "csv"}
            params = [(name, valid[name]) for name in taken]
            body = body_for(path) if method == "POST" else None
            for stray in ("days", "sinse", MARK):
                response = client.request(method, path, json=body, params=[*params, (stray, "5")])
                message = one_error(response, 400, "bad_request")
                assert "is not taken here (this route takes " in message and len(message) < 200
            for name, value in params:
                twice = client.request(method, path, json=body, params=[*params, (name, value)])
                assert one_error(twice, 400, "bad_request") == (
                    f"query parameter {name} is given 2 times; give it once"
                )
    assert journal_of(shared_live, alpha_run) == before
    with shared_live.client(ALPHA) as client:
        advance = f"{API_PREFIX}/runs/{alpha_run}/advance"
        refused = client.post(advance, json={"command_id": "q-days"}, params={"days": "5"})
        assert one_error(refused, 400, "bad_request") == (
            "query parameter 'days' is not taken here (this route takes none)"
        )
    assert journal_of(shared_live, alpha_run) == before


# -- ids cannot leave the runs directory ---------------------------------------------------
PATH_LIKE = [
    "..",
    "../..",
    "run-../../etc",
    "run-" + "a" * 32 + "%2F..%2F..",
    "%2e%2e%2f%2e%2e%2fetc%2fpasswd",
    "/etc/passwd",
    "run-" + "A" * 32,
    "run-" + "a" * 31 + "%00",
    "run-" + "a" * 4000,
    "~root",
]


def tree(root: Path, live: Live) -> set[str]:
    """Every path under `root`, relative, once the host's sealer has nothing left to seal.

    Sealing writes a temporary file beside seal.json; sealing first keeps the sealer
    thread from writing one while the tree is listed.
    """
    live.runtime.seal_changed()
    return {str(p.relative_to(root)) for p in root.rglob("*")}


def test_path_like_run_ids_reach_nothing(shared_live: Live, alpha_run: str) -> None:
    root = shared_live.hosted.runs.parent
    before = tree(root, shared_live)
    with shared_live.client(ALPHA) as client:
        for run_id in PATH_LIKE:
            for method, template in routes(shared_live):
                if "{run_id}" in template:
                    response = request(client, method, template, run_id)
                    assert response.status_code in (400, 404, 405), (run_id, response.text)
    after = tree(root, shared_live)
    assert after == before


PATH_LIKE_COMMAND_IDS = ["../../x", "a/b", "..", ".hidden", "-x", "x" * 129, "header", "", "a b"]


@pytest.mark.parametrize("command_id", PATH_LIKE_COMMAND_IDS)
def test_path_like_command_ids_are_refused(
    shared_live: Live, alpha_run: str, command_id: str
) -> None:
    root = shared_live.hosted.runs.parent
    before, journal = tree(root, shared_live), journal_of(shared_live, alpha_run)
    with shared_live.client(ALPHA) as client:
        one_error(
            client.post(f"{API_PREFIX}/runs", json={"command_id": command_id}), 422, "invalid"
        )
        path = f"{API_PREFIX}/runs/{alpha_run}/advance"
        one_error(client.post(path, json={"command_id": command_id}), 422, "invalid")
    assert tree(root, shared_live) == before and journal_of(shared_live, alpha_run) == journal


def test_runs_are_named_by_the_host(live: Live) -> None:
    with live.client(ALPHA) as client:
        reply = client.post(f"{API_PREFIX}/runs", json={"command_id": "my-run"}).json()
    run_id = reply["run"]["run_id"]
    assert run_id.startswith("run-") and "my-run" not in run_id
    assert sorted(p.name for p in live.hosted.runs.iterdir() if p.name.startswith("run-")) == [
        run_id
    ]


# -- no fork, rewind or evaluate -----------------------------------------------------------
def test_no_route_or_tool_forks_rewinds_or_evaluates(shared_live: Live) -> None:
    names = [path for _, path in routes(shared_live)] + list(TOOL_NAMES)
    for name in names:
        assert not any(word in name.lower() for word in FORBIDDEN_WORDS), name

    async def listed() -> set[str]:
        async with mcp_session(shared_live.url, shared_live.hosted.tokens[ALPHA]) as mcp:
            listed = (await mcp.list_tools()).tools
            assert all(t.input_schema.get("additionalProperties") is False for t in listed)
            tools = {t.name for t in listed}
            for name in ("fork", "rewind", "evaluate", "branch", "validate"):
                result = await mcp.call_tool(name, {})
                assert result.is_error
            return tools

    assert anyio.run(listed) == set(TOOL_NAMES)


@pytest.mark.parametrize("verb", ["fork", "rewind", "evaluate", "branch", "validate", "seed"])
def test_asking_to_fork_rewind_or_evaluate_finds_nothing(
    shared_live: Live, alpha_run: str, verb: str
) -> None:
    before = journal_of(shared_live, alpha_run)
    with shared_live.client(ALPHA) as client:
        for path in (f"{API_PREFIX}/runs/{alpha_run}/{verb}", f"{API_PREFIX}/{verb}"):
            for method in ("GET", "POST"):
                one_error(client.request(method, path, json={"command_id": "v"}), 404, "not_found")
        schedule = f"{API_PREFIX}/runs/{alpha_run}/schedule"
        body = {"command_id": "v2", "action": "bank_loan", verb: True}
        one_error(client.post(schedule, json=body), 422, "invalid")
        advance = f"{API_PREFIX}/runs/{alpha_run}/advance"
        for days in (0, -1, -30):
            one_error(client.post(advance, json={"command_id": "v3", "days": days}), 422, "invalid")
    assert journal_of(shared_live, alpha_run) == before
    kinds = {e.kind for e in Journal.open(shared_live.hosted.runs / alpha_run / "journal.jsonl")}
    assert kinds <= {"header", "schedule", "advance", "submit_assessment", "finish"}


@contextlib.contextmanager
def serving(hosted: Hosted) -> Iterator[Live]:
    """A host on `hosted` (opened, so recovered) on a free loopback port; closed after."""
    from workbench.host.server import ServerThread

    runtime = hosted.runtime()
    try:
        with ServerThread(runtime) as server:
            yield Live(hosted, runtime, server.url)
    finally:
        runtime.close()


def test_an_agent_gets_one_episode_however_it_asks(hosted: Hosted) -> None:
    """Every run plays the same world, so a second run would be a rewind to day 0 (play
    the intervention in one, the baseline in the other, subtract): each agent gets one,
    however it asks: another command id, MCP, after finishing, after a restart, or eight
    starts at once. A retry of the start that made it still returns it."""
    from concurrent.futures import ThreadPoolExecutor

    with serving(hosted) as live, live.client(ALPHA) as client:
        first = client.post(f"{API_PREFIX}/runs", json={"command_id": "one"})
        run_id = first.json()["run"]["run_id"]
        refused = client.post(f"{API_PREFIX}/runs", json={"command_id": "two"})
        assert run_id in one_error(refused, 409, "episode_exists")

        async def by_mcp() -> str:
            async with mcp_session(live.url, hosted.tokens[ALPHA]) as mcp:
                result = await mcp.call_tool("start_episode", {"command_id": "three"})
                assert result.is_error and isinstance(result.content[0], TextContent)
                return result.content[0].text

        assert "episode_exists" in anyio.run(by_mcp)
        again = client.post(f"{API_PREFIX}/runs", json={"command_id": "one"})
        assert again.status_code == 200 and again.json()["run"]["run_id"] == run_id
        client.post(f"{API_PREFIX}/runs/{run_id}/finish", json={"command_id": "end"})
        after = client.post(f"{API_PREFIX}/runs", json={"command_id": "four"})
        one_error(after, 409, "episode_exists")

        def start(command_id: str) -> int:
            with live.client(BRAVO) as bravo:
                return bravo.post(f"{API_PREFIX}/runs", json={"command_id": command_id}).status_code

        with ThreadPoolExecutor(8) as pool:
            statuses = sorted(pool.map(start, [f"race-{i}" for i in range(8)]))
        assert statuses == [201] + [409] * 7
    with serving(hosted) as live, live.client(ALPHA) as client:
        restarted = client.post(f"{API_PREFIX}/runs", json={"command_id": "five"})
        one_error(restarted, 409, "episode_exists")
        assert [r["run_id"] for r in client.get(f"{API_PREFIX}/runs").json()["runs"]] == [run_id]
    assert len([p for p in hosted.runs.iterdir() if p.name.startswith("run-")]) == 2


# -- the runs directory belongs to one host ------------------------------------------------
def test_one_host_per_runs_directory(hosted: Hosted) -> None:
    first = hosted.runtime()
    try:
        with pytest.raises(UserError, match=f"pid {os.getpid()}"):
            hosted.runtime()
    finally:
        first.close()
    hosted.runtime().close()


def test_a_runs_directory_keeps_its_control_file(hosted: Hosted, tmp_path: Path) -> None:
    hosted.runtime().close()
    other = make_hosted(tmp_path / "other", pinned=False)
    with pytest.raises(UserError, match="another control file"):
        HostRuntime(hosted.campaign, other.control, hosted.runs).open()


def test_a_foreign_directory_is_refused(hosted: Hosted) -> None:
    hosted.runs.mkdir()
    (hosted.runs / "notes.txt").write_text("mine")
    with pytest.raises(UserError, match="not empty"):
        hosted.runtime()
    assert (hosted.runs / "notes.txt").read_text() == "mine"


def test_limits_bound_commands(hosted: Hosted) -> None:
    from workbench.host.server import ServerThread

    runtime = hosted.runtime(Limits(commands_per_run=3))
    with ServerThread(runtime) as server:
        live = Live(hosted, runtime, server.url)
        agent = HttpAgent(live.client(ALPHA))
        agent.start("one")
        for _ in range(3):
            agent.advance(1)
        fourth = agent.client.post(agent.run("/advance"), json={"command_id": "4", "days": 1})
        one_error(fourth, 403, "limit_reached")
    runtime.close()


def test_replies_on_a_kept_alive_connection_are_not_held_back() -> None:
    """The host's sockets say they are TCP, so asyncio sets TCP_NODELAY on each connection
    and a small reply does not wait ~40 ms for the client's delayed ACK."""
    import socket

    from workbench.host.listen import bind

    with bind("127.0.0.1", 0) as listener:
        client = socket.create_connection(listener.getsockname())
        accepted, _ = listener.accept()
        with client, accepted:
            assert listener.proto == socket.IPPROTO_TCP
            assert accepted.proto == socket.IPPROTO_TCP


@pytest.mark.parametrize(
    "path",
    [
        f"{API_PREFIX}/runs/{{run}}/",
        f"{API_PREFIX}/runs//snapshot",
        f"{API_PREFIX}/runs/{{run}}/snapshot/",
        f"{API_PREFIX}/runs/{{run}}/ledger/",
        f"{API_PREFIX}/runs/{{run}}/nothing",
        f"{API_PREFIX}/briefing/",
        f"{API_PREFIX}/",
        f"{API_PREFIX}",
        "/v2/briefing",
    ],
)
def test_paths_beside_the_api_routes_are_not_found(
    shared_live: Live, alpha_run: str, path: str
) -> None:
    """The API's own router matches whole paths only; anything beside them is a 404."""
    with shared_live.client(ALPHA) as client:
        for method in ("GET", "POST"):
            response = client.request(method, path.replace("{run}", alpha_run), json={})
            one_error(response, 404, "not_found")


def test_the_bearer_scheme_is_case_insensitive(shared_live: Live) -> None:
    token = shared_live.hosted.tokens[ALPHA]
    for scheme in ("Bearer", "bearer", "BEARER"):
        headers = {"Authorization": f"{scheme} {token}"}
        with http_client(base_url=shared_live.url, headers=headers, timeout=60) as client:
            assert client.get(f"{API_PREFIX}/runs").status_code == 200


@pytest.mark.parametrize("value", ["²", "١", "２", "1 ", "+1", "0x1", "1e3", "", "--1"])
def test_a_number_in_a_query_is_ascii_digits_only(
    shared_live: Live, alpha_run: str, value: str
) -> None:
    """`since` and `limit` take ASCII digits: a superscript two was a 500 with a traceback
    (int() refuses what isdigit() allowed), other scripts' digits were read as numbers."""
    with shared_live.client(ALPHA) as client:
        journal = f"{API_PREFIX}/runs/{alpha_run}/journal"
        for name in ("since", "limit"):
            response = client.get(journal, params={name: value})
            assert one_error(response, 400, "bad_request") == (
                f"query parameter {name} must be a whole number"
            )


@pytest.mark.parametrize(
    "body",
    [
        b'{"command_id":"d1","days":1,"days":2}',
        b'{"command_id":"d2","command_id":"d3","days":1}',
    ],
)
def test_a_body_naming_a_key_twice_is_refused(
    shared_live: Live, alpha_run: str, body: bytes
) -> None:
    """The last of a repeated key used to win (`days` 1 then 2 advanced 2 days)."""
    before = journal_of(shared_live, alpha_run)
    with shared_live.client(ALPHA) as client:
        response = client.post(
            f"{API_PREFIX}/runs/{alpha_run}/advance",
            content=body,
            headers={"Content-Type": "application/json"},
        )
    assert "twice; give it once" in one_error(response, 400, "bad_request")
    assert journal_of(shared_live, alpha_run) == before


@pytest.mark.parametrize(
    ("query", "problem"),
    [
        ({"since": 0}, "since"),
        ({"since": -3}, "since"),
        ({"limit": 0}, "limit"),
        ({"limit": 5000}, "limit"),
        ({"limit": 99999999999}, "limit"),
    ],
)
def test_a_journal_page_out_of_range_is_refused_alike_over_http_and_mcp(
    shared_live: Live, alpha_run: str, query: dict[str, int], problem: str
) -> None:
    """One rule on both transports (before, HTTP clamped `limit=5000` to 1000 and `since=0`
    to 1 while MCP refused them, and `limit=99999999999` was "not a whole number")."""
    with shared_live.client(ALPHA) as client:
        reply = client.get(f"{API_PREFIX}/runs/{alpha_run}/journal", params=query)
    message = one_error(reply, 422, "invalid")
    assert message.startswith(f"query: {problem}: "), message
    (text,) = tool_errors(shared_live, [("journal", {"run_id": alpha_run, **query})])
    assert text.startswith(f"Error executing tool journal: invalid: arguments: {problem}"), text


def test_an_unknown_tool_is_not_found_in_the_form_of_every_tool_error(
    shared_live: Live, alpha_run: str
) -> None:
    """Before: the SDK's own `Unknown tool: fork`, unlike every other tool error."""
    before = journal_of(shared_live, alpha_run)
    calls: list[tuple[str, dict[str, object]]] = [
        (verb, {"run_id": alpha_run}) for verb in ("fork", "rewind", "evaluate", "x" * 500)
    ]
    for (tool, _), text in zip(calls, tool_errors(shared_live, calls), strict=True):
        assert text.startswith(f"Error executing tool {tool[:40]}"), text  # as written
        assert ": not_found: no tool " in text and "\n" not in text and len(text) < 400, text
    assert journal_of(shared_live, alpha_run) == before
