"""Valid MCP tool arguments changed at any depth, many calls on one session: every call
comes back as a result or a one-line tool error (never a broken session, never a
traceback in the text), and the calls the host refuses leave the run's journal as it
was. The arguments start from calls that pass, so the mutations reach the checks past
each tool's schema."""

from __future__ import annotations

import json
from typing import Any

import anyio
import orjson
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mcp.types import TextContent

from tests.fuzz import strategies as S
from tests.fuzz.harness import FULL

from .conftest import ALPHA, Live, journal_of, mcp_session

VALID: dict[str, dict[str, Any]] = {
    "schedule": {"command_id": "s", "action": "bank_loan"},
    "advance": {"command_id": "a", "days": 1},
    "submit_assessment": {
        "command_id": "q",
        "assessment": {"kind": "counterfactual", "question": "q_bank_loan", "value": "-1300"},
    },
    "preview": {"action": "hire_roaster"},
    "journal": {"since": 0, "limit": 5},
    "snapshot": {},
    "run_info": {},
}
"""Arguments that pass for each tool, besides the run id (finish is left out: it would end
the run for every later call)."""


@st.composite
def changed_call(draw: st.DrawFn, run_id: str) -> tuple[str, dict[str, Any]]:
    tool = draw(st.sampled_from(sorted(VALID)))
    arguments = {"run_id": run_id, **json.loads(json.dumps(VALID[tool]))}
    if "command_id" in arguments:
        arguments["command_id"] = "m-" + draw(st.uuids()).hex
    try:
        changed = orjson.loads(draw(S.changed_anywhere(arguments)))
    except orjson.JSONDecodeError:
        changed = None
    return tool, changed if isinstance(changed, dict) else arguments


@settings(
    max_examples=60 if FULL else 3,
    deadline=None,
    derandomize=not FULL,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.data())
def test_changed_tool_arguments_get_a_result_or_one_line(
    shared_live: Live, alpha_run: str, data: st.DataObject
) -> None:
    calls = data.draw(st.lists(changed_call(alpha_run), min_size=40, max_size=40), label="calls")

    async def over_mcp() -> list[tuple[str, bool, str]]:
        replies = []
        async with mcp_session(shared_live.url, shared_live.hosted.tokens[ALPHA]) as mcp:
            for tool, arguments in calls:
                before = journal_of(shared_live, alpha_run)
                result = await mcp.call_tool(tool, arguments)
                assert result.content and isinstance(result.content[0], TextContent)
                text = result.content[0].text
                if result.is_error:
                    assert journal_of(shared_live, alpha_run) == before, (tool, arguments)
                replies.append((tool, result.is_error, text))
        return replies

    for tool, is_error, text in anyio.run(over_mcp):
        assert "Traceback" not in text, (tool, text)
        if is_error:
            assert "\n" not in text and len(text) < 1000, (tool, text)
